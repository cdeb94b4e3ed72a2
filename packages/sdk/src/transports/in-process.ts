import { PassThrough } from 'node:stream';
import type { Transport } from '../rpc/index.js';
import { type StreamTransportOptions, streamTransport } from './stream.js';

/** Options for {@link createInProcessPair}. */
export interface InProcessPairOptions {
  /** Longest accepted line in bytes, on both sides. Default 8 MiB. */
  maxMessageBytes?: number;
  /** Buffer size of each direction's pipe before backpressure applies. Default: Node's stream default. */
  highWaterMark?: number;
}

/**
 * Two transports wired to each other in memory. Messages still travel as ndjson bytes through
 * real streams — serialization, framing, size limits and backpressure behave exactly as over stdio,
 * so tests on this pair are honest about the wire.
 */
export function createInProcessPair(options: InProcessPairOptions = {}): [Transport, Transport] {
  const streamOptions: StreamTransportOptions = { maxMessageBytes: options.maxMessageBytes };
  const pipe = (): PassThrough =>
    options.highWaterMark === undefined
      ? new PassThrough()
      : new PassThrough({ highWaterMark: options.highWaterMark });
  const aToB = pipe();
  const bToA = pipe();
  return [streamTransport(bToA, aToB, streamOptions), streamTransport(aToB, bToA, streamOptions)];
}
