/**
 * The subscribe-and-snapshot pattern of a UI, end to end over a real child process: an agent
 * process (bench/streaming-agent.ts) streams agent messages as `agent_message_chunk`s; the client
 * listens with `store.subscribe` and takes `store.snapshot(sessionId)` in the listener on every
 * change, exactly as React's `useSyncExternalStore` does.
 *
 * - ours: spawnTransport → Connection (schema validator) → Client → ConversationStore, a snapshot per
 *   applied update, timed from `session/new` to the last update applied;
 * - official SDK 2.4.0 experimental v2: ndJsonStream over the child's pipes → ClientApp → ActiveSession,
 *   drained with nextUpdate(), timed from `session/new` to the last update read.
 *
 * Shapes: one message of 1 000, 10 000 and 100 000 chunks (per-update cost must stay flat as the
 * message grows) and 1 000 messages of 100 chunks. Prints µs per update, the ratio against the
 * official client (target ≥ 3×) and the flatness (cost per update at 100 000 chunks ÷ at 1 000).
 * Asserts nothing: machines are noisy.
 */
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { client as officialClient, ndJsonStream } from '@agentclientprotocol/sdk/experimental/v2';
import type { SessionNotification } from '@acp-kit/schema';
import { Client, type ClientConnection, Connection, ConversationStore, spawnTransport } from '@acp-kit/sdk';
import { BENCH_SESSION } from './update-stream.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const AGENT = fileURLToPath(new URL('./streaming-agent.ts', import.meta.url));
const AGENT_ARGS = (messages: number, chunks: number): string[] => [
  '--import',
  'tsx',
  AGENT,
  String(messages),
  String(chunks),
];
const CWD = fileURLToPath(new URL('..', import.meta.url));

interface Shape {
  label: string;
  messages: number;
  chunks: number;
}

/** A store that reports when it has applied `expected` updates. */
class CountingStore extends ConversationStore {
  applied = 0;
  readonly #expected: number;
  readonly #done: () => void;

  constructor(expected: number, done: () => void) {
    super();
    this.#expected = expected;
    this.#done = done;
  }
  override apply(notification: SessionNotification): void {
    super.apply(notification);
    if (++this.applied === this.#expected) this.#done();
  }
}

async function runOurs({ messages, chunks }: Shape): Promise<number> {
  const count = messages * chunks;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const store = new CountingStore(count, finish);
  let snapshots = 0;
  store.subscribe(() => {
    store.snapshot(BENCH_SESSION);
    snapshots += 1;
  });
  const transport = spawnTransport(process.execPath, AGENT_ARGS(messages, chunks), {
    cwd: CWD,
    name: 'agent',
  });
  const connection: ClientConnection = new Connection(transport);
  const client = new Client(connection, { info: { name: 'bench', version: '0.0.0' }, store });
  await client.initialize();
  const start = performance.now();
  await client.newSession('/repo');
  await finished;
  const ms = performance.now() - start;
  const snapshot = store.snapshot(BENCH_SESSION);
  if (snapshot.messages.length !== messages || snapshot.messages.at(-1)?.content.length !== chunks) {
    throw new Error(`ours: expected ${messages} messages of ${chunks} blocks`);
  }
  if (snapshots < count) throw new Error(`ours: ${snapshots} snapshots for ${count} updates`);
  client.close();
  await transport.shutdown();
  return ms;
}

async function runOfficial({ messages, chunks }: Shape): Promise<number> {
  const count = messages * chunks;
  const child = spawn(process.execPath, AGENT_ARGS(messages, chunks), {
    cwd: CWD,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const ms = await officialClient({ name: 'bench' }).connectWith(stream, async (ctx) => {
    await ctx.request('initialize', { protocolVersion: 2, info: { name: 'bench', version: '0.0.0' } });
    const start = performance.now();
    const session = await ctx.buildSession('/repo').start();
    for (let read = 0; read < count; read += 1) await session.nextUpdate();
    const elapsed = performance.now() - start;
    session.dispose();
    return elapsed;
  });
  child.stdin.end();
  await exited;
  return ms;
}

const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

const shapes: Shape[] = [
  { label: '1 message × 1 000 chunks', messages: 1, chunks: 1_000 },
  { label: '1 message × 10 000 chunks', messages: 1, chunks: 10_000 },
  { label: '1 message × 100 000 chunks', messages: 1, chunks: 100_000 },
  { label: '1 000 messages × 100 chunks', messages: 1_000, chunks: 100 },
];

// Warm both sides up (JIT) before anything is timed.
for (let i = 0; i < 2; i += 1) {
  await runOurs({ label: 'warm', messages: 10, chunks: 1_000 });
  await runOfficial({ label: 'warm', messages: 10, chunks: 1_000 });
}

console.log(`subscribe + snapshot per update, over a child process, ${ROUNDS} rounds, medians`);
const perUpdate = new Map<string, number>();
for (const shape of shapes) {
  const count = shape.messages * shape.chunks;
  const ours: number[] = [];
  const official: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    // Alternate who goes first so load drifting across the run hits both alike.
    const a = round % 2 === 0 ? await runOurs(shape) : 0;
    const b = await runOfficial(shape);
    const c = round % 2 === 0 ? a : await runOurs(shape);
    ours.push(c);
    official.push(b);
    ratios.push(b / c);
  }
  const usOurs = (median(ours) * 1000) / count;
  const usOfficial = (median(official) * 1000) / count;
  perUpdate.set(shape.label, usOurs);
  console.log(
    `  ${shape.label.padEnd(28)} ours ${usOurs.toFixed(2).padStart(6)} µs/update   official ${usOfficial
      .toFixed(2)
      .padStart(6)} µs/update   ours vs official ${median(ratios).toFixed(1)}× faster (target ≥ 3×)`,
  );
}
const at = (i: number): number => perUpdate.get(shapes[i]!.label)!;
console.log(
  `  per-update cost of one message, 100 000 chunks ÷ 1 000: ${(at(2) / at(0)).toFixed(2)}, 100 000 ÷ 10 000: ${(at(2) / at(1)).toFixed(2)} (flat ≈ 1 or below, as fixed costs spread; quadratic would be ≈ 100 and ≈ 10)`,
);
