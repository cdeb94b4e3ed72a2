/**
 * The official SDK's agent for the remote-transports benchmark: an agent app written with
 * `@agentclientprotocol/sdk/experimental/v2` (2.4.0) with the behaviour of
 * bench/remote-behaviour.ts, served either
 * - `listen`: by the official `AcpServer` on a Node HTTP server on 127.0.0.1
 *   (`createNodeHttpHandler` for Streamable HTTP, `createNodeWebSocketUpgradeHandler` with `ws`
 *   for WebSocket), printing `{ url, webSocketUrl }` as one JSON line on stdout and answering
 *   memory and allocation requests on its IPC channel; or
 * - `stdio`: over `ndJsonStream` on its stdin/stdout.
 *
 * Like ours it retains what it reports (user messages and reply chunks, per session).
 *
 * For the capacity benchmark (bench/capacity.ts) it also streams paced turns (bench/paced-turn.ts)
 * and serves `session/resume` by attaching the resuming connection to the session: the official
 * SDK leaves fan-out to the app, so this app keeps each session's attached client contexts and
 * sends every update to each of them (replay is not asked for and not served). A client whose
 * notification fails is dropped from the session.
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
import { answerAllocationRequests } from './allocation-sampling.js';
import { pacedTurn, sentCounter, streamPaced } from './paced-turn.js';
import { chunkText, promptText, turnLength } from './remote-behaviour.js';

const mode = process.argv[2];
if (mode !== 'listen' && mode !== 'stdio') throw new Error('usage: official-remote-agent.ts <listen|stdio>');

type Update = { sessionUpdate: string } & Record<string, unknown>;
type Notifier = { notify(method: 'session/update', params: never): Promise<void> };
const sessions = new Map<string, Update[]>();
/** The client contexts attached to each session (the creator, then each `session/resume`). */
const attached = new Map<string, Set<Notifier>>();
/** Chunks sent per session in paced turns, carried in each chunk's text. */
const sent = new Map<string, { count: number }>();
let turns = 0;

async function fanOut(sessionId: string, update: Update): Promise<void> {
  const clients = attached.get(sessionId);
  if (!clients) return;
  const params = { sessionId, update } as never;
  // One client (the remote-transports benchmark, most capacity sessions): exactly as before fan-out.
  if (clients.size === 1) {
    for (const client of clients) await client.notify('session/update', params);
    return;
  }
  await Promise.all(
    [...clients].map((client) => client.notify('session/update', params).catch(() => clients.delete(client))),
  );
}

const app = agent({ name: 'bench-official-agent' })
  .onRequest('initialize', () => ({
    protocolVersion: 2,
    info: { name: 'bench-official-agent', version: '2.4.0' },
    capabilities: { session: {} },
  }))
  .onRequest('session/new', ({ client }) => {
    const sessionId = `sess_${sessions.size + 1}`;
    sessions.set(sessionId, []);
    attached.set(sessionId, new Set([client as unknown as Notifier]));
    return { sessionId };
  })
  .onRequest('session/resume', ({ params, client }) => {
    const clients = attached.get(params.sessionId);
    if (!clients) throw new Error(`no session ${params.sessionId}`);
    clients.add(client as unknown as Notifier);
    return {};
  })
  .onRequest('session/prompt', async ({ params }) => {
    const n = ++turns;
    const log = sessions.get(params.sessionId) ?? [];
    const report = async (update: Update, retain = true): Promise<void> => {
      if (retain) log.push(update);
      await fanOut(params.sessionId, update);
    };
    const messageId = `user-${n}`;
    await report({ sessionUpdate: 'user_message', messageId, content: params.prompt as ContentBlock[] });
    const paced = pacedTurn(promptText(params.prompt as ContentBlock[]));
    if (paced) {
      const turn = sentCounter(sent, params.sessionId);
      setImmediate(() => {
        void (async () => {
          await report({ sessionUpdate: 'state_update', state: 'running' }, false);
          let reply = `reply-${n}`;
          await streamPaced(
            paced,
            {
              chunk: (text) =>
                report({
                  sessionUpdate: 'agent_message_chunk',
                  messageId: reply,
                  content: { type: 'text', text },
                }),
              toolCall: async () => {
                const toolCallId = `call-${n}`;
                await report({
                  sessionUpdate: 'tool_call_update',
                  toolCallId,
                  title: 'read a file',
                  kind: 'read',
                  status: 'in_progress',
                });
                await report({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' });
                reply = `reply-${n}-after-tool`;
              },
            },
            turn,
          );
          await report({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' }, false);
        })();
      });
      return { messageId };
    }
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
  // The listen backlog our `listenAcp` uses (4096): at Node's default 511 the capacity benchmark's
  // 1 000 sessions overflowed it (TcpExtListenOverflows rose) and connects timed out ("fetch failed").
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
  const { port } = server.address() as AddressInfo;
  const chunksSent = (): number => [...sent.values()].reduce((sum, counter) => sum + counter.count, 0);
  answerMemoryRequests(chunksSent);
  answerAllocationRequests(chunksSent);
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${port}/acp`, webSocketUrl: `ws://127.0.0.1:${port}/acp` })}\n`,
  );
}
