/**
 * One replica of the agent-level fan-out benchmark (a child process of agent-fanout.ts): an SDK
 * agent on the shared PostgreSQL log with PostgresSessionOwnership, as `acp-kit agent --history
 * postgres://…` sets itself up, speaking ACP over stdio. A prompt `stream N every M after D` gets
 * a turn whose reply is N chunks, the first after D ms and then one every M ms; each chunk's text
 * is its send time (process.hrtime, CLOCK_MONOTONIC: one clock for every process on the machine).
 */
import { Agent, type AgentConnection, Connection, stdioTransport } from '@acp-kit/sdk';
import { PostgresSessionLog, PostgresSessionOwnership } from '../src/index.js';

const [url, schema, name] = process.argv.slice(2) as [string, string, string];
const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const log = await PostgresSessionLog.open(url, { schema, maxConnections: 8 });
const ownership = await PostgresSessionOwnership.open(log, url, { replica: name });
const agent = new Agent({
  info: { name, version: '0' },
  history: ownership.log,
  ownership,
  async onPrompt(prompt, { session }) {
    const text = (prompt.content[0] as { text?: string }).text ?? '';
    const [, count, every, after] = /stream (\d+) every (\d+) after (\d+)/.exec(text) ?? [];
    await prompt.insert();
    await session.running();
    const reply = await session.agentMessage();
    await sleep(Number(after ?? 0));
    for (let i = 0; i < Number(count ?? 1); i++) {
      if (i > 0) await sleep(Number(every ?? 0));
      await reply.chunk({ type: 'text', text: `t=${now()}` });
    }
    await session.idle('end_turn');
  },
  onHandlerError: (error) => process.stderr.write(`${name}: ${String((error as Error).stack ?? error)}\n`),
});
const connection = new Connection(stdioTransport()) as AgentConnection;
connection.onClose(
  () =>
    void ownership
      .close()
      .then(() => log.close())
      .finally(() => process.exit(0)),
);
agent.serve(connection);
