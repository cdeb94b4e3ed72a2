/**
 * session/update throughput, end to end: the same pre-serialized ndjson bytes (~100k updates, mostly
 * agent_message_chunk) fed through a PassThrough into
 * - ours: Connection (schema validator) → Client → ConversationStore, timed to the last update applied;
 * - official SDK 2.4.0 experimental v2: ndJsonStream → ClientApp connection → ActiveSession, its
 *   session-update consumer, drained with nextUpdate() and timed to the last update read.
 * Both first complete a real initialize + session/new handshake with a scripted agent. Prints
 * updates/s and the ratio; asserts nothing (machines are noisy).
 */
import { PassThrough, Readable, Writable } from 'node:stream';
import { client as officialClient, ndJsonStream } from '@agentclientprotocol/sdk/experimental/v2';
import type { SessionNotification } from '@acp-kit/schema';
import { Client, type ClientConnection, Connection, ConversationStore, streamTransport } from '@acp-kit/sdk';
import { answerHandshake } from './fake-agent.js';
import { BENCH_SESSION, buildUpdateStream } from './update-stream.js';

const UPDATES = Number(process.env.BENCH_UPDATES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

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

function feed(toClient: PassThrough, chunks: Buffer[]): number {
  const start = performance.now();
  for (const chunk of chunks) toClient.write(chunk);
  return start;
}

async function runOurs(chunks: Buffer[], count: number): Promise<number> {
  const toClient = new PassThrough();
  const fromClient = new PassThrough();
  let start = 0;
  answerHandshake(fromClient, toClient, () => {
    // After the answer is in the pipe, so the session exists before its first update.
    setImmediate(() => {
      start = feed(toClient, chunks);
    });
  });
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const store = new CountingStore(count, finish);
  const connection: ClientConnection = new Connection(streamTransport(toClient, fromClient));
  const client = new Client(connection, { info: { name: 'bench', version: '0.0.0' }, store });
  await client.initialize();
  await client.newSession('/repo');
  await finished;
  const ms = performance.now() - start;
  const messages = store.snapshot(BENCH_SESSION).messages.length;
  if (messages === 0) throw new Error('ours: nothing applied');
  client.close();
  return ms;
}

async function runOfficial(chunks: Buffer[], count: number): Promise<number> {
  const toClient = new PassThrough();
  const fromClient = new PassThrough();
  let start = 0;
  answerHandshake(fromClient, toClient, () => {
    setImmediate(() => {
      start = feed(toClient, chunks);
    });
  });
  const stream = ndJsonStream(
    Writable.toWeb(fromClient) as WritableStream<Uint8Array>,
    Readable.toWeb(toClient) as ReadableStream<Uint8Array>,
  );
  return officialClient({ name: 'bench' }).connectWith(stream, async (ctx) => {
    await ctx.request('initialize', { protocolVersion: 2, info: { name: 'bench', version: '0.0.0' } });
    const session = await ctx.buildSession('/repo').start();
    for (let read = 0; read < count; read += 1) await session.nextUpdate();
    const ms = performance.now() - start;
    session.dispose();
    return ms;
  });
}

const warm = buildUpdateStream(10_000);
const { chunks, bytes } = buildUpdateStream(UPDATES);
for (let i = 0; i < 2; i += 1) {
  await runOurs(warm.chunks, 10_000);
  await runOfficial(warm.chunks, 10_000);
}

const ours: number[] = [];
const official: number[] = [];
const ratios: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  // Alternate who goes first so load drifting across the run hits both alike.
  const a = round % 2 === 0 ? await runOurs(chunks, UPDATES) : 0;
  const b = await runOfficial(chunks, UPDATES);
  const c = round % 2 === 0 ? a : await runOurs(chunks, UPDATES);
  ours.push(UPDATES / (c / 1000));
  official.push(UPDATES / (b / 1000));
  ratios.push(b / c);
}

const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const rate = (x: number): string => Math.round(x).toLocaleString('en-US').padStart(11);
console.log(
  `update throughput: ${UPDATES.toLocaleString('en-US')} session/update (${(bytes / 1e6).toFixed(1)} MB ndjson), ${ROUNDS} rounds, medians`,
);
console.log(`  ours (Connection + schema validator → ConversationStore) ${rate(median(ours))} updates/s`);
console.log(`  official SDK 2.4.0 v2 (ndJsonStream → ActiveSession)     ${rate(median(official))} updates/s`);
console.log(`  ours vs official: ${median(ratios).toFixed(1)}× faster   (target ≥ 3×)`);
