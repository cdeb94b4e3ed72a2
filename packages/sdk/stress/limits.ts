/**
 * Memory under hostile sizes, measured in this process: one line far over the incoming limit, and
 * an agent streaming to a client that stopped reading. Both must stay bounded by the configured
 * limits, not by what the peer sends or fails to read.
 */
import { PassThrough } from 'node:stream';
import { Agent, type AgentConnection } from '../src/agent/index.js';
import { Connection, ErrorCodes, type RpcError } from '../src/rpc/index.js';
import { streamTransport } from '../src/transports/index.js';

/** Bytes this process holds: JS heap plus buffers outside it. */
function held(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function lines(stream: PassThrough): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const part of parts) out.push(JSON.parse(part) as Record<string, unknown>);
  });
  return out;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What {@link oversizedLine} observed. */
export interface OversizedReport {
  limit: number;
  lineBytes: number;
  /** Peak growth of heap + buffers while the line was received, over the level before it. */
  peakGrowthBytes: number;
  /** The error the receiver answered with. */
  error: { code: number; message: string } | undefined;
  /** Whether a valid request right after it was answered. */
  answeredAfter: boolean;
}

/**
 * Sends one line of `factor × limit` bytes (in 64 KiB writes, as a pipe delivers it) to a
 * connection whose limit is `limit`, sampling memory after every write.
 */
export async function oversizedLine(limit: number, factor = 2): Promise<OversizedReport> {
  const toReceiver = new PassThrough();
  const fromReceiver = new PassThrough();
  const connection = new Connection(streamTransport(toReceiver, fromReceiver, { maxMessageBytes: limit }));
  connection.onRequest('_ping', () => 'pong');
  connection.listen();
  const received = lines(fromReceiver);

  const lineBytes = factor * limit;
  // A fresh buffer per write, as a pipe delivers them: the decoder may keep what it is given.
  const piece = (): Buffer => Buffer.alloc(64 * 1024, 0x61);
  const head = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"_ping","params":{"pad":"');
  collect();
  const base = held();
  let peak = 0;
  toReceiver.write(head);
  for (let sent = head.length, n = 0; sent < lineBytes; sent += 64 * 1024, n++) {
    if (!toReceiver.write(piece())) await new Promise((resolve) => toReceiver.once('drain', resolve));
    // With --expose-gc, collect every MiB so the sample is what the receiver keeps, not garbage.
    if (n % 16 === 15) collect();
    peak = Math.max(peak, held() - base);
  }
  toReceiver.write('"}}\n');
  toReceiver.write('{"jsonrpc":"2.0","id":2,"method":"_ping"}\n');
  for (let i = 0; i < 100 && received.length < 2; i++) await tick();
  peak = Math.max(peak, held() - base);
  const error = received.find((m) => m.id === 1 && 'error' in m)?.error as
    | { code: number; message: string }
    | undefined;
  const answeredAfter = received.some((m) => m.id === 2 && m.result === 'pong');
  connection.close();
  return { limit, lineBytes, peakGrowthBytes: peak, error, answeredAfter };
}

/** What {@link stalledClient} observed. */
export interface StalledReport {
  maxQueuedBytes: number;
  /** Bytes the agent tried to stream to the stalled client. */
  attemptedBytes: number;
  /**
   * Peak growth of heap + buffers held while streaming (sampled after forced collections, so it is
   * what is retained, not garbage; needs `--expose-gc`).
   */
  peakGrowthBytes: number;
  /** Bytes the stalled client's queue held when that peak was sampled. */
  queuedAtPeak: number;
  /** The error the connection closed with (the documented policy: -32098). */
  closedWith: { code: number; message: string } | undefined;
  /** Whether the session kept working for a client that does read. */
  otherClientGotEverything: boolean;
}

/**
 * An agent streams `chunks` chunks without awaiting them (the worst case for buffering) to two
 * clients; one stops reading. The stalled connection must close at `maxQueuedBytes` with
 * -32098 instead of growing, and the reading client must still get every chunk.
 */
export async function stalledClient(
  maxQueuedBytes: number,
  chunks: number,
  chunkBytes = 1024,
): Promise<StalledReport> {
  // Measured alone, so a reading client's traffic does not count as the stalled one's buffer.
  const measured = await stall(maxQueuedBytes, chunks, chunkBytes, false);
  const shared = await stall(maxQueuedBytes, chunks, chunkBytes, true);
  return { ...measured, otherClientGotEverything: shared.otherClientGotEverything };
}

async function stall(
  maxQueuedBytes: number,
  chunks: number,
  chunkBytes: number,
  withReader: boolean,
): Promise<StalledReport> {
  const block = { type: 'text' as const, text: 'z'.repeat(chunkBytes) };
  let streamed: Promise<void> = Promise.resolve();
  const agent = new Agent({
    info: { name: 'streamer', version: '0' },
    async onPrompt(prompt, { session }) {
      await prompt.insert({ retain: false });
      const reply = await session.agentMessage({ retain: false });
      // Never waits for a send to be accepted (the worst case for buffering), yielding to the
      // event loop now and then like a model producing tokens.
      streamed = (async () => {
        for (let i = 0; i < chunks; i++) {
          void reply.chunk(block);
          if (i % 100 === 99) await tick();
        }
      })();
    },
  });
  const session = await agent.createSession('/stall');

  // Let the previous run's timers (the session's pacing waits) expire, so its objects are gone
  // from the baseline instead of being freed during this run.
  await new Promise((resolve) => setTimeout(resolve, 250));
  // Memory is sampled after a forced collection (so it is what is held, not garbage awaiting the
  // next scavenge) at every tick and each time the stalled client's queue crosses another eighth of
  // its cap — the queue can fill within one tick, so tick sampling alone would miss its fullest point.
  collect();
  const base = held();
  let peak = 0;
  let queuedAtPeak = 0;
  let sampledEighths = 0;
  const sample = (queued: number): void => {
    collect();
    const growth = held() - base;
    if (growth > peak) {
      peak = growth;
      queuedAtPeak = queued;
    }
  };
  const connect = (maxQueued: number, sampled = false) => {
    const toAgent = new PassThrough();
    const fromAgent = new PassThrough({ highWaterMark: 16 * 1024 });
    const transport = streamTransport(toAgent, fromAgent);
    const connection: AgentConnection = new Connection(transport, { maxQueuedBytes: maxQueued });
    if (sampled) {
      const write = transport.writer.write.bind(transport.writer);
      transport.writer.write = (json) => {
        const queued = connection.pendingOutgoingBytes;
        const eighths = Math.floor((8 * queued) / maxQueued);
        if (eighths > sampledEighths) {
          sampledEighths = eighths;
          sample(queued);
        }
        return write(json);
      };
    }
    agent.serve(connection);
    // Every connection completes `initialize` before its session methods (#13 item 9).
    toAgent.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 'setup-initialize', method: 'initialize', params: { protocolVersion: 2, info: { name: 'stall', version: '0' } } })}\n`,
    );
    return { toAgent, fromAgent, connection };
  };
  const stalled = connect(maxQueuedBytes, true);
  const reader = withReader ? connect(Number.MAX_SAFE_INTEGER) : undefined;
  // The reading client only counts, so its own bookkeeping does not show up in the measurement.
  let chunksRead = 0;
  let resumed = false;
  let buffered = '';
  reader?.fromAgent.setEncoding('utf8');
  reader?.fromAgent.on('data', (text: string) => {
    buffered += text;
    let nl = buffered.indexOf('\n');
    while (nl !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf('\n');
      if (line.includes('"agent_message_chunk"')) chunksRead++;
      else if (line.startsWith('{"jsonrpc":"2.0","id":1,"result"')) resumed = true;
    }
  });
  let closedWith: RpcError | undefined;
  stalled.connection.onClose((reason) => {
    closedWith = reason;
  });
  // Attach the reader by resuming (no replay), then let the stalled client prompt and never read.
  if (reader) {
    reader.toAgent.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/resume', params: { sessionId: session.id, cwd: '/stall' } })}\n`,
    );
    for (let i = 0; i < 100 && !resumed; i++) await tick();
  }

  collect();
  sample(0);
  peak = 0;
  stalled.toAgent.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: session.id, prompt: [{ type: 'text', text: 'go' }] } })}\n`,
  );
  for (let i = 0; i < 10_000 && !closedWith; i++) {
    sample(stalled.connection.pendingOutgoingBytes);
    await tick();
  }
  await streamed;
  for (let i = 0; reader && i < 1000 && chunksRead < chunks; i++) await tick();
  reader?.connection.close();
  return {
    maxQueuedBytes,
    attemptedBytes: chunks * chunkBytes,
    peakGrowthBytes: peak,
    queuedAtPeak,
    closedWith: closedWith ? { code: closedWith.code, message: closedWith.message } : undefined,
    otherClientGotEverything: chunksRead === chunks,
  };
}

/** The code the stalled connection must close with. */
export const BUFFER_FULL = ErrorCodes.OutgoingBufferFull;
