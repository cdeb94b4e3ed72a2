import { fileURLToPath } from 'node:url';
import type { SessionNotification, SessionUpdate } from '@acp-kit/schema';
import {
  type ChildProcessTransport,
  Client,
  type ClientConnection,
  type ClientOptions,
  Connection,
  createInProcessPair,
  spawnTransport,
} from '@acp-kit/sdk';
import { V1AgentBridge, type V1AgentBridgeOptions } from '../src/index.js';

/** Absolute path of a fixture script. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
}

/**
 * Node arguments of the bridge process as `acp-kit bridge` runs it, serving `serve` in front of the
 * fixture agent `agent`: `--import tsx bridge-main.ts <serve> node --import tsx <agent>`.
 */
export function bridgeArgs(serve: 'v1' | 'v2', agent: string): string[] {
  return [
    '--import',
    'tsx',
    fixture('bridge-main.ts'),
    serve,
    process.execPath,
    '--import',
    'tsx',
    fixture(agent),
  ];
}

/** Spawns a fixture with tsx, as the bridge CLI would spawn an agent. */
export function spawnFixture(name: string, env: Record<string, string> = {}): ChildProcessTransport {
  return spawnTransport(process.execPath, ['--import', 'tsx', fixture(name)], {
    env: { ...process.env, ...env },
    name: name,
    onStderr: (text) => process.stderr.write(text),
  });
}

/** Every `session/update` a connection received, in order, with a way to wait for one. */
export class UpdateLog {
  readonly notifications: SessionNotification[] = [];
  /** Every incoming message, in arrival order (responses included). */
  readonly wire: { id?: unknown; method?: string; params?: unknown; result?: unknown; error?: unknown }[] =
    [];
  readonly #waiters: { test: (n: SessionNotification) => boolean; resolve: () => void }[] = [];

  /** Records what `connection` receives (attach before `listen`). */
  tap(connection: Pick<Connection, 'onMessage'>): this {
    connection.onMessage((direction, message) => {
      const m = message as { method?: string; params?: SessionNotification };
      if (direction === 'in') this.wire.push(message as UpdateLog['wire'][number]);
      if (direction !== 'in' || m.method !== 'session/update' || m.params === undefined) return;
      this.notifications.push(m.params);
      for (const w of [...this.#waiters]) {
        if (w.test(m.params)) {
          this.#waiters.splice(this.#waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    });
    return this;
  }

  /** The updates (without session IDs). */
  get updates(): SessionUpdate[] {
    return this.notifications.map((n) => n.update);
  }

  /** Resolves once an update matching `test` has arrived (counting ones already here after `from`). */
  waitFor(test: (u: SessionUpdate) => boolean, from = 0): Promise<void> {
    if (this.notifications.slice(from).some((n) => test(n.update))) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ test: (n) => test(n.update), resolve }));
  }

  /** Position in {@link wire} of the response carrying this messageId. */
  responseAt(messageId: string): number {
    return this.wire.findIndex(
      (m) => (m.result as { messageId?: unknown } | undefined)?.messageId === messageId,
    );
  }

  /** Position in {@link wire} of the first update matching `test`. */
  updateAt(test: (u: SessionUpdate) => boolean): number {
    return this.wire.findIndex(
      (m) => m.method === 'session/update' && test((m.params as SessionNotification).update),
    );
  }

  /** Resolves at the next idle state update after position `from`. */
  idle(from: number): Promise<void> {
    return this.waitFor((u) => u.sessionUpdate === 'state_update' && u.state === 'idle', from);
  }
}

/** A v2 `Client` talking to a v1 fixture agent through an in-process {@link V1AgentBridge}. */
export interface V1Rig<U extends boolean = boolean> {
  readonly client: Client<U>;
  readonly log: UpdateLog;
  readonly bridge: V1AgentBridge;
  readonly agent: ChildProcessTransport;
  close(): Promise<void>;
}

/** Another v2 client of `bridge`, over an in-process pair, with its update log. */
export function clientOf<U extends boolean = boolean>(
  bridge: V1AgentBridge,
  options: Partial<ClientOptions<U>> = {},
): { client: Client<U>; log: UpdateLog } {
  const [clientSide, bridgeSide] = createInProcessPair();
  bridge.serve(bridgeSide);
  const connection: ClientConnection = new Connection(clientSide);
  const log = new UpdateLog().tap(connection);
  const client = new Client<U>(connection, { info: { name: 'test-client', version: '1' }, ...options });
  return { client, log };
}

/** Starts the official v1 fixture agent with `env` behind a bridge, and a v2 client in front. */
export function v1Rig<U extends boolean = boolean>(
  env: Record<string, string> = {},
  options: Partial<ClientOptions<U>> = {},
  bridgeOptions: Omit<V1AgentBridgeOptions, 'agent'> = {},
): V1Rig<U> {
  const agent = spawnFixture('official-v1-agent.ts', env);
  const bridge = new V1AgentBridge({ agent, ...bridgeOptions });
  const { client, log } = clientOf<U>(bridge, options);
  return {
    client,
    log,
    bridge,
    agent,
    close: async () => {
      client.close();
      bridge.close();
      await agent.shutdown({ graceMs: 500 });
    },
  };
}

/** Text of a content list. */
export function textOf(content: readonly unknown[] | null | undefined): string {
  return (content ?? []).map((b) => (b as { text?: string }).text ?? '').join('');
}
