/**
 * A bare JSON-RPC client over a pair of in-process pipes, for stress checks that must see exactly
 * what an agent writes (every line and its size) and control when the client reads.
 */
import { PassThrough } from 'node:stream';
import type { Agent, AgentConnection } from '../src/agent/index.js';
import { Connection, type RpcError } from '../src/rpc/index.js';
import { streamTransport } from '../src/transports/index.js';

/** One message received by a {@link WireClient}, with its line's size in bytes. */
export interface Received {
  message: Record<string, unknown>;
  bytes: number;
}

/** A client connected to an agent through {@link connectClient}. */
export interface WireClient {
  /** Everything received so far, in order. */
  readonly received: Received[];
  /** The agent side of the connection (closing it detaches the client). */
  readonly connection: AgentConnection;
  /** Set once the agent side closed, with the error it closed with. */
  closedWith(): RpcError | undefined;
  /** Sends a request and resolves with its response message. */
  request(method: string, params: unknown): Promise<Record<string, unknown>>;
  /** Sends a notification. */
  notify(method: string, params: unknown): void;
  /** Stops reading: the agent's writes pile up in the pipe and its queue. */
  pause(): void;
  /** Counts received `session/update` notifications whose update has this `sessionUpdate`. */
  count(kind: string): number;
  /** The `session/update` params received, in order. */
  updates(): readonly Record<string, unknown>[];
  /** Drops every message kept so far (received, updates, idles, counts): their memory is freed. */
  clear(): void;
  /** The idle state updates received, in order. */
  idles(): readonly { stopReason?: string }[];
}

/** Lets the event loop run once. */
export const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Waits up to `maxTicks` event-loop turns for `done()`; returns whether it became true. */
export async function until(done: () => boolean, maxTicks = 20_000): Promise<boolean> {
  for (let i = 0; i < maxTicks && !done(); i++) await tick();
  return done();
}

/** Connects a new client to `agent`; the agent side has `maxMessageBytes` and `maxQueuedBytes`. */
export function connectClient(
  agent: Agent,
  options: { maxMessageBytes?: number; maxQueuedBytes?: number } = {},
): WireClient {
  const toAgent = new PassThrough();
  const fromAgent = new PassThrough({ highWaterMark: 16 * 1024 });
  const connection: AgentConnection = new Connection(
    streamTransport(toAgent, fromAgent, { maxMessageBytes: options.maxMessageBytes }),
    { maxQueuedBytes: options.maxQueuedBytes, maxMessageBytes: options.maxMessageBytes },
  );
  agent.serve(connection);
  let closed: RpcError | undefined;
  connection.onClose((reason) => {
    closed = reason;
  });
  const received: Received[] = [];
  // Kept as messages arrive, so a check polling them each event-loop turn costs O(1), not O(all).
  const updateList: Record<string, unknown>[] = [];
  const counts = new Map<string, number>();
  const idleList: { stopReason?: string }[] = [];
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  let nextId = 1;
  let buffered = '';
  fromAgent.setEncoding('utf8');
  fromAgent.on('data', (text: string) => {
    buffered += text;
    let nl = buffered.indexOf('\n');
    while (nl !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf('\n');
      const message = JSON.parse(line) as Record<string, unknown>;
      received.push({ message, bytes: Buffer.byteLength(line, 'utf8') });
      if (message.method === 'session/update') {
        const params = message.params as Record<string, unknown>;
        updateList.push(params);
        const kind = (params?.update as { sessionUpdate?: unknown } | undefined)?.sessionUpdate;
        if (typeof kind === 'string') counts.set(kind, (counts.get(kind) ?? 0) + 1);
        const update = params?.update as { state?: unknown; stopReason?: string } | undefined;
        if (kind === 'state_update' && update?.state === 'idle') idleList.push(update);
      }
      if (typeof message.id === 'number' && !('method' in message)) {
        waiting.get(message.id)?.(message);
        waiting.delete(message.id);
      }
    }
  });
  const send = (message: Record<string, unknown>): void => {
    toAgent.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  };
  const updates = (): readonly Record<string, unknown>[] => updateList;
  return {
    received,
    connection,
    closedWith: () => closed,
    request(method, params) {
      const id = nextId++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        send({ id, method, params });
      });
    },
    notify: (method, params) => send({ method, params }),
    pause: () => fromAgent.pause(),
    count: (kind) => counts.get(kind) ?? 0,
    idles: () => idleList,
    clear: () => {
      received.length = 0;
      updateList.length = 0;
      idleList.length = 0;
      counts.clear();
    },
    updates,
  };
}

/**
 * Completes `initialize` on the client's connection, as every connection must before its session
 * methods. Throws when the agent refuses it, so a check never runs on a connection whose session
 * methods would all be refused with "initialize first".
 */
export async function initialize(client: WireClient): Promise<void> {
  const answer = await client.request('initialize', {
    protocolVersion: 2,
    info: { name: 'stress-client', version: '0' },
    capabilities: {},
  });
  if ('error' in answer) throw new Error(`initialize was refused: ${JSON.stringify(answer.error)}`);
}
