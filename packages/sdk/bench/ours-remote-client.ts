/**
 * Our side of the remote-transports benchmark: `connectHttp`, `connectWebSocket` or a child
 * process's stdio (`spawnTransport` running bench/remote-agent.ts), under an unchanged `Client`
 * whose `ConversationStore` counts the chunks it applies; all from the compiled package, as users
 * run it (see bench/compiled-sdk.ts).
 */
import { fileURLToPath } from 'node:url';
import type { SessionNotification } from '@acp-kit/schema';
import {
  Client,
  type ClientConnection,
  Connection,
  ConversationStore,
  connectHttp,
  connectWebSocket,
  spawnTransport,
  type Transport,
} from '@acp-kit/sdk';
import { type BenchClient, ChunkCounter } from './bench-client.js';
import type { Endpoint } from './listening-agent.js';
import { streamPrompt } from './remote-behaviour.js';

/** Which transport a benchmark client uses. */
export type Profile = 'http' | 'websocket' | 'stdio';

const AGENT = fileURLToPath(new URL('./remote-agent.ts', import.meta.url));
const CWD = fileURLToPath(new URL('..', import.meta.url));

/** A store that counts the `agent_message_chunk`s it applies. */
class CountingStore extends ConversationStore {
  readonly chunks = new ChunkCounter();

  override apply(notification: SessionNotification): void {
    super.apply(notification);
    if (notification.update.sessionUpdate === 'agent_message_chunk') this.chunks.add();
  }
}

/** Our transport of `profile`: to `endpoint` for http/websocket; a fresh agent process for stdio. */
export async function ourTransport(
  profile: Profile,
  endpoint: Endpoint | undefined,
  fetchImpl?: typeof fetch,
): Promise<{ transport: Transport; pid: number; stop(): Promise<void> }> {
  if (profile === 'stdio') {
    const transport = spawnTransport(process.execPath, ['--import', 'tsx', AGENT, 'stdio'], {
      cwd: CWD,
      name: 'bench-agent',
    });
    return { transport, pid: transport.child.pid!, stop: async () => void (await transport.shutdown()) };
  }
  if (!endpoint) throw new Error(`${profile} needs an endpoint`);
  const token = endpoint.token === undefined ? {} : { token: endpoint.token };
  const transport =
    profile === 'http'
      ? await connectHttp(endpoint.url, { ...token, ...(fetchImpl ? { fetch: fetchImpl } : {}) })
      : await connectWebSocket(endpoint.webSocketUrl, token);
  return { transport, pid: endpoint.pid, stop: async () => {} };
}

/**
 * Connects our Client over `profile`, initializes and opens a session. `fetchImpl` (http only)
 * lets the caller watch the requests `connectHttp` makes.
 */
export async function connectOurs(
  profile: Profile,
  endpoint?: Endpoint,
  fetchImpl?: typeof fetch,
): Promise<BenchClient> {
  const { transport, pid, stop } = await ourTransport(profile, endpoint, fetchImpl);
  const store = new CountingStore();
  const client = new Client(new Connection(transport) as ClientConnection, {
    info: { name: 'bench-client', version: '0.0.0' },
    store,
  });
  await client.initialize();
  const sessionId = await client.newSession('/repo');
  return {
    agentPid: pid,
    receipt: async (text) => {
      await client.prompt(sessionId, [{ type: 'text', text }]);
    },
    streamTurn: async (chunks) => {
      const target = store.chunks.count + chunks;
      const start = performance.now();
      const submission = client.submit(sessionId, [{ type: 'text', text: streamPrompt(chunks) }]);
      await store.chunks.until(target);
      const ms = performance.now() - start;
      await submission.turnEnd;
      return ms;
    },
    close: async () => {
      client.close();
      await stop();
    },
  };
}
