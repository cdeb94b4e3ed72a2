/**
 * The relay `acp-kit serve` runs each way of a connection: a destination that does not take what
 * it is given pauses the source past its bound, resumes it once drained, and gives up past its
 * hard bound — on real ndjson streams.
 */
import { PassThrough } from 'node:stream';
import { StreamMessageReader, StreamMessageWriter } from '@acp-kit/sdk/adapter';
import { describe, expect, it, vi } from 'vitest';
import { relay } from '../../src/listen/bounded-relay.js';

const line = (i: number): string =>
  JSON.stringify({ jsonrpc: '2.0', method: '_x', params: { i, pad: 'p'.repeat(1000) } });

function setup(bounds: { pauseAtBytes: number; resumeAtBytes: number; maxBytes: number }) {
  const source = new PassThrough();
  // A destination whose reader has not started: its buffer fills, then writes wait for 'drain'.
  const destination = new PassThrough({ highWaterMark: 1024 });
  const overflows: number[] = [];
  const errors: Error[] = [];
  relay(new StreamMessageReader(source), new StreamMessageWriter(destination), bounds, {
    onClose: () => {},
    onOverflow: (waiting) => overflows.push(waiting),
    onWriteError: (error) => errors.push(error),
  });
  return { source, destination, overflows, errors };
}

describe('the bounded relay of acp-kit serve', () => {
  it('pauses the source while more than pauseAtBytes wait for the destination, and resumes it once drained', async () => {
    const { source, destination, overflows } = setup({
      pauseAtBytes: 8 * 1024,
      resumeAtBytes: 1024,
      maxBytes: 1024 * 1024,
    });
    for (let i = 0; i < 20; i += 1) source.write(`${line(i)}\n`);
    await vi.waitFor(() => expect(source.isPaused()).toBe(true), { timeout: 10_000 });
    expect(overflows).toEqual([]);
    let taken = '';
    destination.setEncoding('utf8');
    destination.on('data', (chunk: string) => {
      taken += chunk;
    });
    await vi.waitFor(() => expect(taken.split('\n').filter(Boolean)).toHaveLength(20), { timeout: 10_000 });
    expect(source.isPaused()).toBe(false);
  });

  it('gives up past maxBytes: frames already read while paused do not grow it further', async () => {
    const { source, overflows } = setup({ pauseAtBytes: 2 * 1024, resumeAtBytes: 1024, maxBytes: 6 * 1024 });
    // One chunk of 10 frames: the decoder delivers all of them, pause or not.
    source.write(`${Array.from({ length: 10 }, (_, i) => line(i)).join('\n')}\n`);
    await vi.waitFor(() => expect(overflows).toHaveLength(1), { timeout: 10_000 });
    expect(overflows[0]).toBeGreaterThan(6 * 1024);
    expect(overflows[0]).toBeLessThan(8 * 1024);
  });

  it('stops when the destination refuses a write', async () => {
    const { source, destination, errors } = setup({
      pauseAtBytes: 1024 * 1024,
      resumeAtBytes: 1024,
      maxBytes: 2 * 1024 * 1024,
    });
    destination.destroy();
    source.write(`${line(0)}\n`);
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 10_000 });
  });
});
