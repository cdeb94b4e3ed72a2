import type { SessionNotification } from '@acp-kit/schema';
import { Agent, type AgentConnection, type AgentOptions } from '../../src/agent/index.js';
import {
  Client,
  type ClientConnection,
  type ClientOptions,
  type UnstableClient,
} from '../../src/client/index.js';
import { Connection, RpcError } from '../../src/rpc/index.js';
import { createInProcessPair } from '../../src/transports/index.js';

/** One message a client connection received, in arrival order. */
export type Received =
  | { type: 'update'; params: SessionNotification }
  | { type: 'response'; id: unknown; result?: unknown; error?: unknown }
  | { type: 'request'; method: string };

/** A client wired to an agent over an in-process ndjson pair, with a log of what it received. */
export interface Wired {
  agent: Agent;
  client: UnstableClient;
  connection: ClientConnection;
  received: Received[];
  /** Resolves once `predicate` holds for the received log. */
  until(predicate: (received: Received[]) => boolean): Promise<void>;
}

/** Connects a new client to `agent` (creating the agent from options when given options). */
export function wire(
  agentOrOptions: Agent | AgentOptions,
  onPermission?: ClientOptions['onPermission'],
): Wired {
  const agent = agentOrOptions instanceof Agent ? agentOrOptions : new Agent(agentOrOptions);
  const [agentSide, clientSide] = createInProcessPair();
  agent.serve(new Connection(agentSide) as AgentConnection);
  const connection = new Connection(clientSide) as ClientConnection;
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  // The setup's own `initialize` answer is kept out of the log the tests read.
  let initializeAnswered = false;
  connection.onMessage((direction, message) => {
    if (direction !== 'in') return;
    const m = message as {
      id?: unknown;
      method?: string;
      params?: unknown;
      result?: unknown;
      error?: unknown;
    };
    if (!initializeAnswered && m.method === undefined) {
      initializeAnswered = true;
      return;
    }
    if (m.method === 'session/update')
      received.push({ type: 'update', params: m.params as SessionNotification });
    else if (m.method) received.push({ type: 'request', method: m.method });
    else received.push({ type: 'response', id: m.id, result: m.result, error: m.error });
    for (const waiter of waiters) waiter();
  });
  const client = new Client(connection, {
    info: { name: 'test-client', version: '0.0.0' },
    // The tests drive every method, the unstable surface's too.
    unstable: true,
    ...(onPermission ? { onPermission } : {}),
  });
  // Every connection completes `initialize` before its session methods; requests on the pair are
  // handled in order, so the tests' first request goes out after it.
  void client.initialize().catch(() => undefined);
  const until = (predicate: (r: Received[]) => boolean): Promise<void> =>
    new Promise((resolve) => {
      if (predicate(received)) return resolve();
      const waiter = (): void => {
        if (predicate(received)) {
          waiters.delete(waiter);
          resolve();
        }
      };
      waiters.add(waiter);
    });
  return { agent, client, connection, received, until };
}

/** The session updates in a received log, optionally of one kind. */
export function updates(received: Received[], kind?: string): SessionNotification['update'][] {
  return received
    .filter((r): r is Extract<Received, { type: 'update' }> => r.type === 'update')
    .map((r) => r.params.update)
    .filter((u) => kind === undefined || u.sessionUpdate === kind);
}

/** Resolves after the current macrotask queue drains (lets in-flight I/O settle). */
export const tick = (ms = 10): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `predicate` until it holds (for state outside the received log, such as held prompts). */
export async function waitFor(predicate: () => boolean, intervalMs = 2): Promise<void> {
  while (!predicate()) await tick(intervalMs);
}

/** The RpcError a call is refused with (fails the test if it resolves or throws something else). */
export async function refusal(call: Promise<unknown>): Promise<RpcError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof RpcError)) throw new Error(`expected an RpcError, got ${String(error)}`);
  return error;
}
