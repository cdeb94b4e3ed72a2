/**
 * The agent of the agent-level throughput benchmark (a child process of agent-throughput.ts), set
 * up as `acp-kit agent --history …` sets itself up: with `sqlite <file>`, an SDK agent on a
 * SqliteSessionLog; with `postgres <url> <schema>`, on a PostgresSessionLog whose appends are
 * fenced by PostgresSessionOwnership's leases. It speaks ACP over stdio. Every prompt gets a turn:
 * the user message, `running`, an agent message streamed as chunks — as many as the prompt's
 * `chunks N` says (default CHUNKS), each awaited, as an agent reports them — and `idle`.
 */
import { Agent, type AgentConnection, Connection, type SessionLog, stdioTransport } from '@acp-kit/sdk';
import { SqliteSessionLog } from '@acp-kit/history-sqlite';
import { PostgresSessionLog, PostgresSessionOwnership } from '../src/index.js';
import { CHUNKS } from './stream-shape.js';

const [kind, location, schema] = process.argv.slice(2) as ['sqlite' | 'postgres', string, string?];
let history: SessionLog;
let ownership: PostgresSessionOwnership | undefined;
let close: () => Promise<void>;
if (kind === 'sqlite') {
  const log = SqliteSessionLog.open(location);
  history = log;
  close = () => log.close();
} else {
  const log = await PostgresSessionLog.open(location, { schema });
  ownership = await PostgresSessionOwnership.open(log, location);
  history = ownership.log;
  close = async () => {
    await ownership!.close();
    await log.close();
  };
}
const agent = new Agent({
  info: { name: `bench-${kind}`, version: '0' },
  history,
  ...(ownership === undefined ? {} : { ownership }),
  async onPrompt(prompt, { session }) {
    await prompt.insert();
    await session.running();
    const asked = /chunks (\d+)/.exec((prompt.content[0] as { text?: string }).text ?? '');
    const chunks = asked ? Number(asked[1]) : CHUNKS;
    const reply = await session.agentMessage();
    for (let c = 0; c < chunks; c++) {
      await reply.chunk({ type: 'text', text: `chunk ${c} of a streamed answer, about this long. ` });
    }
    await session.idle('end_turn');
  },
});
const connection = new Connection(stdioTransport()) as AgentConnection;
connection.onClose(() => void close().finally(() => process.exit(0)));
agent.serve(connection);
