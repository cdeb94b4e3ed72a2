/**
 * Our agent process for the remote-transports benchmark, as a user runs one: our `Agent` from the
 * compiled package (`@acp-kit/sdk`, its dist; schema validation on) with the behaviour of
 * bench/remote-behaviour.ts (and the capacity benchmark's paced turns, bench/paced-turn.ts), served either
 * - `listen`: by `listenAcp` on 127.0.0.1 (Streamable HTTP and WebSocket on one `/acp` endpoint),
 *   its limits raised so one benchmark address may hold a few thousand connections; it prints
 *   `{ url, webSocketUrl, token }` as one JSON line on stdout and answers memory and allocation
 *   requests on its IPC channel (bench/agent-memory.ts, bench/allocation-sampling.ts); or
 * - `stdio`: over its stdin/stdout, until stdin ends.
 *
 * Usage: node --expose-gc --import tsx bench/remote-agent.ts <listen|stdio>
 */
import { Agent, type AgentConnection, Connection, listenAcp, stdioTransport } from '@acp-kit/sdk';
import { answerMemoryRequests } from './agent-memory.js';
import { answerAllocationRequests } from './allocation-sampling.js';
import { BENCH_LIMITS } from './bench-limits.js';
import { pacedTurn, sentCounter, streamPaced } from './paced-turn.js';
import { chunkText, promptText, turnLength } from './remote-behaviour.js';

const mode = process.argv[2];
if (mode !== 'listen' && mode !== 'stdio') throw new Error('usage: remote-agent.ts <listen|stdio>');

/** Chunks sent per session (paced turns), carried in each chunk's text. */
const sent = new Map<string, { count: number }>();

const agent = new Agent({
  info: { name: 'bench-remote-agent', version: '0.0.0' },
  async onPrompt(prompt, { session }) {
    await prompt.insert();
    const paced = pacedTurn(promptText(prompt.content));
    if (paced) {
      const counter = sentCounter(sent, session.id);
      await session.running();
      let reply = await session.agentMessage();
      await streamPaced(
        paced,
        {
          chunk: (text) => reply.chunk({ type: 'text', text }),
          toolCall: async () => {
            const call = await session.toolCall({
              title: 'read a file',
              kind: 'read',
              status: 'in_progress',
            });
            await call.update({ status: 'completed' });
            reply = await session.agentMessage();
          },
        },
        counter,
      );
      await session.idle('end_turn');
      return;
    }
    const chunks = turnLength(promptText(prompt.content));
    if (chunks === 0) return;
    await session.running();
    const reply = await session.agentMessage();
    for (let i = 0; i < chunks; i += 1) await reply.chunk({ type: 'text', text: chunkText(i) });
    await session.idle('end_turn');
  },
});

if (mode === 'stdio') {
  const connection = new Connection(stdioTransport()) as AgentConnection;
  const closed = new Promise<void>((resolve) => connection.onClose(() => resolve()));
  agent.serve(connection, 'stdio');
  await closed;
  process.exit(0);
} else {
  const server = await listenAcp({
    limits: BENCH_LIMITS,
    onConnection: (transport) => agent.serve(new Connection(transport) as AgentConnection),
  });
  const chunksSent = (): number => [...sent.values()].reduce((sum, counter) => sum + counter.count, 0);
  answerMemoryRequests(chunksSent);
  answerAllocationRequests(chunksSent);
  process.stdout.write(
    `${JSON.stringify({ url: server.url, webSocketUrl: server.webSocketUrl, token: server.token })}\n`,
  );
}
