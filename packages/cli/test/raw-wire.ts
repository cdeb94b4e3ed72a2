import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BIN } from './harness.js';

/** The official-SDK v1 fixture agent the bridge tests run behind `acp-kit bridge --serve v2`. */
export const V1_AGENT = fileURLToPath(
  new URL('../../v1-compat/test/fixtures/official-v1-agent.ts', import.meta.url),
);

/** One JSON-RPC message as it came off the wire (an object, or an array for a batch answer). */
// biome-ignore lint/suspicious/noExplicitAny: wire messages are read field by field in assertions
export type WireMessage = any;

/**
 * A process spoken to in raw ndjson lines, as an outside test kit does: what it sends is written
 * exactly (omitted fields stay omitted), and every line it answers is kept in order.
 */
export interface RawWire {
  /** Writes one message (or a batch, as an array) as one line. */
  send(message: unknown): void;
  /** Every message received so far. */
  readonly received: WireMessage[];
  /** The first message received (now or later) that `predicate` accepts. */
  next(predicate: (message: WireMessage) => boolean): Promise<WireMessage>;
  /** Sends a request and resolves with its answer. */
  request(id: number | string, method: string, params?: unknown): Promise<WireMessage>;
  /** Ends the process group and resolves once the process exited. */
  close(): Promise<void>;
}

const open = new Set<RawWire>();

/** Starts `acp-kit <args>` in a process group of its own, with its stdio as a {@link RawWire}. */
export function rawWire(args: string[], env: Record<string, string> = {}): RawWire {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: true,
    env: { ...process.env, ...env },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const received: WireMessage[] = [];
  const waiters = new Set<{ predicate: (m: WireMessage) => boolean; resolve: (m: WireMessage) => void }>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const message = JSON.parse(line) as WireMessage;
    received.push(message);
    for (const waiter of [...waiters]) {
      if (!waiter.predicate(message)) continue;
      waiters.delete(waiter);
      waiter.resolve(message);
    }
  });
  const next = (predicate: (m: WireMessage) => boolean): Promise<WireMessage> =>
    new Promise((resolve) => {
      const found = received.find(predicate);
      if (found !== undefined) resolve(found);
      else waiters.add({ predicate, resolve });
    });
  const send = (message: unknown): void => {
    child.stdin!.write(`${JSON.stringify(message)}\n`);
  };
  const wire: RawWire = {
    send,
    received,
    next,
    request(id, method, params) {
      send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
      return next((m) => !Array.isArray(m) && m.id === id && m.method === undefined);
    },
    async close() {
      open.delete(wire);
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      await exited;
    },
  };
  open.add(wire);
  return wire;
}

/** Ends every {@link RawWire} still open: for `afterEach`, so no process outlives a failed test. */
export async function closeRawWires(): Promise<void> {
  await Promise.all([...open].map((wire) => wire.close()));
}

/** `initialize` as a v2 client, then resolves with the answer. */
export function initializeV2(wire: RawWire): Promise<WireMessage> {
  return wire.request('init', 'initialize', {
    protocolVersion: 2,
    info: { name: 'raw-wire', version: '0.0.0' },
    capabilities: {},
  });
}

/** The bridge in front of the official-SDK v1 fixture agent, with its `V1_FEATURES` (list, close, delete, login). */
export function bridgedV1Agent(env: Record<string, string> = {}): RawWire {
  return rawWire(['bridge', '--serve', 'v2', '--', process.execPath, '--import', 'tsx', V1_AGENT], {
    V1_FEATURES: '1',
    ...env,
  });
}

/** Whether a message is the `session/update` of `sessionId` carrying a `state_update` to `state`. */
export const isStateOf =
  (sessionId: string, state: string) =>
  (m: WireMessage): boolean =>
    m?.method === 'session/update' &&
    m.params?.sessionId === sessionId &&
    m.params.update?.sessionUpdate === 'state_update' &&
    m.params.update.state === state;
