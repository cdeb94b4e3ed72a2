/**
 * The official SDK's agent for the remote-transports benchmark: an agent app written with
 * `@agentclientprotocol/sdk/experimental/v2` (2.4.0) with the behaviour of
 * bench/remote-behaviour.ts, served either
 * - `listen`: by the official `AcpServer` on a Node HTTP server on 127.0.0.1
 *   (`createNodeHttpHandler` for Streamable HTTP, `createNodeWebSocketUpgradeHandler` with `ws`
 *   for WebSocket), printing `{ url, webSocketUrl }` as one JSON line on stdout and answering
 *   memory requests on its IPC channel; or
 * - `stdio`: over `ndJsonStream` on its stdin/stdout.
 *
 * Like ours it retains what it reports (user messages and reply chunks, per session).
 *
 * Usage: node --expose-gc --import tsx bench/official-remote-agent.ts <listen|stdio>
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, Writable } from 'node:stream';
import {
  createNodeHttpHandler,
  createNodeWebSocketUpgradeHandler,
} from '@agentclientprotocol/sdk/experimental/node';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { agent, type ContentBlock, ndJsonStream } from '@agentclientprotocol/sdk/experimental/v2';
import { WebSocketServer } from 'ws';
import { answerMemoryRequests } from './agent-memory.js';
import { chunkText, promptText, turnLength } from './remote-behaviour.js';

const mode = process.argv[2];
if (mode !== 'listen' && mode !== 'stdio') throw new Error('usage: official-remote-agent.ts <listen|stdio>');

type Update = { sessionUpdate: string } & Record<string, unknown>;
const sessions = new Map<string, Update[]>();
let turns = 0;

const app = agent({ name: 'bench-official-agent' })
  .onRequest('initialize', () => ({
    protocolVersion: 2,
    info: { name: 'bench-official-agent', version: '2.4.0' },
    capabilities: { session: {} },
  }))
  .onRequest('session/new', () => {
    const sessionId = `sess_${sessions.size + 1}`;
    sessions.set(sessionId, []);
    return { sessionId };
  })
  .onRequest('session/prompt', async ({ params, client }) => {
    const n = ++turns;
    const log = sessions.get(params.sessionId) ?? [];
    const report = async (update: Update, retain = true): Promise<void> => {
      if (retain) log.push(update);
      await client.notify('session/update', { sessionId: params.sessionId, update } as never);
    };
    const messageId = `user-${n}`;
    await report({ sessionUpdate: 'user_message', messageId, content: params.prompt as ContentBlock[] });
    const chunks = turnLength(promptText(params.prompt as ContentBlock[]));
    if (chunks > 0) {
      setImmediate(() => {
        void (async () => {
          await report({ sessionUpdate: 'state_update', state: 'running' }, false);
          for (let i = 0; i < chunks; i += 1) {
            await report({
              sessionUpdate: 'agent_message_chunk',
              messageId: `reply-${n}`,
              content: { type: 'text', text: chunkText(i) },
            });
          }
          await report({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' }, false);
        })();
      });
    }
    return { messageId };
  });

if (mode === 'stdio') {
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
    ),
  );
  await connection.closed;
  process.exit(0);
} else {
  const acp = new AcpServer({ agent: app as never });
  const wss = new WebSocketServer({ noServer: true });
  const server = createServer(createNodeHttpHandler(acp));
  server.on('upgrade', createNodeWebSocketUpgradeHandler(acp, wss as never));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  answerMemoryRequests();
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${port}/acp`, webSocketUrl: `ws://127.0.0.1:${port}/acp` })}\n`,
  );
}
