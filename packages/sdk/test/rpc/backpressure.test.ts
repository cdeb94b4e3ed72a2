import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Connection, ErrorCodes } from '../../src/rpc/index.js';
import { streamTransport } from '../../src/transports/index.js';
import { StreamMessageWriter } from '../../src/transports/stream.js';

/** A writable whose consumer only makes progress when the test says so. */
function stalledSink(highWaterMark: number): { sink: Writable; written: string[]; release(): void } {
  const written: string[] = [];
  let callbacks: (() => void)[] = [];
  const sink = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString('utf8'));
      callbacks.push(() => callback());
    },
  });
  const release = (): void => {
    const pending = callbacks;
    callbacks = [];
    for (const callback of pending) callback();
  };
  return { sink, written, release };
}

describe('StreamMessageWriter backpressure', () => {
  it('stops writing once the stream reports a full buffer and resumes in order after drain', async () => {
    const { sink, release } = stalledSink(16);
    const calls: string[] = [];
    const originalWrite = sink.write.bind(sink);
    sink.write = ((chunk: string) => {
      calls.push(chunk);
      return originalWrite(chunk);
    }) as typeof sink.write;
    const writer = new StreamMessageWriter(sink);

    const settled: string[] = [];
    const writes = ['{"n":1,"pad":"xxxxxxxxxxxxxxxx"}', '{"n":2}', '{"n":3}'].map((json, i) =>
      writer.write(json).then(() => settled.push(`w${i + 1}`)),
    );
    await Promise.resolve();
    // The first write filled the 16-byte buffer: the other two wait in the writer, not in the stream.
    expect(calls).toEqual(['{"n":1,"pad":"xxxxxxxxxxxxxxxx"}\n']);
    expect(settled).toEqual([]);

    while (settled.length < 3) {
      release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(writes);
    expect(calls).toEqual(['{"n":1,"pad":"xxxxxxxxxxxxxxxx"}\n', '{"n":2}\n', '{"n":3}\n']);
    expect(settled).toEqual(['w1', 'w2', 'w3']);
  });

  it('rejects queued writes when the stream fails instead of leaving them pending', async () => {
    const { sink } = stalledSink(4);
    const writer = new StreamMessageWriter(sink);
    const first = writer.write('{"a":"0123456789"}');
    const second = writer.write('{"b":1}');
    sink.destroy(new Error('EPIPE'));
    await expect(first).rejects.toThrow('EPIPE');
    await expect(second).rejects.toThrow('EPIPE');
  });
});

describe('Connection outgoing buffer limit', () => {
  it('closes with a clear error instead of queueing without bound when the peer stops reading', async () => {
    const { sink, written } = stalledSink(256);
    const connection = new Connection(streamTransport(new PassThrough(), sink), { maxQueuedBytes: 4096 });
    connection.listen();
    const closed = new Promise<Error>((resolve) => connection.onClose(resolve));
    const pendingRequest = connection.sendRequest('_slow/thing', {}).catch((e: unknown) => e);

    const payload = { text: 'z'.repeat(500) };
    let failure: unknown;
    for (let i = 0; i < 100 && failure === undefined; i++) {
      connection.sendNotification('_stream/chunk', payload).catch((e: unknown) => {
        failure ??= e;
      });
      if (connection.isClosed) break;
    }
    const reason = await closed;
    expect(reason).toMatchObject({ code: ErrorCodes.OutgoingBufferFull, data: { limit: 4096 } });
    expect(reason.message).toMatch(/outgoing buffer limit of 4096 bytes exceeded.*peer is not reading/);
    expect(await pendingRequest).toBe(reason);
    // Bounded: what reached the stream plus what was queued never exceeded the limit (+ one message).
    expect(written.join('').length).toBeLessThan(4096 + 600);
    expect(connection.pendingOutgoingBytes).toBeLessThanOrEqual(4096);
  });

  it('does not count messages the transport already accepted', async () => {
    const output = new PassThrough();
    output.resume();
    const connection = new Connection(streamTransport(new PassThrough(), output), { maxQueuedBytes: 1024 });
    connection.listen();
    for (let i = 0; i < 50; i++)
      await connection.sendNotification('_stream/chunk', { text: 'z'.repeat(200) });
    expect(connection.isClosed).toBe(false);
    expect(connection.pendingOutgoingBytes).toBe(0);
  });
});
