import { describe, expect, it } from 'vitest';
import { type SseSink, SseOutbox } from '../../src/transports/sse-outbox.js';

/** A response that records each write and never holds bytes back. */
function recordingSink(): SseSink & { writes: string[]; ended: boolean } {
  return {
    writes: [],
    ended: false,
    writableLength: 0,
    destroyed: false,
    write(chunk: string) {
      this.writes.push(chunk);
      return true;
    },
    end() {
      this.ended = true;
    },
  };
}

const tick = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe('SseOutbox', () => {
  it('writes the messages pushed in one turn of the event loop as one write, in order', async () => {
    const outbox = new SseOutbox(1 << 20);
    const sink = recordingSink();
    outbox.attach(sink);
    outbox.push('{"a":1}');
    outbox.push('{"a":2}');
    outbox.push('{"a":3}');
    expect(sink.writes).toEqual([]);
    await tick();
    expect(sink.writes).toEqual(['data: {"a":1}\n\ndata: {"a":2}\n\ndata: {"a":3}\n\n']);
    outbox.push('{"a":4}');
    await tick();
    expect(sink.writes).toHaveLength(2);
    expect(sink.writes[1]).toBe('data: {"a":4}\n\n');
  });

  it('counts messages not yet written against its limit, so a burst past it is refused', () => {
    const event = 'data: {"x":"0123456789"}\n\n';
    const outbox = new SseOutbox(event.length * 2);
    outbox.attach(recordingSink());
    expect(outbox.push('{"x":"0123456789"}')).toBe(true);
    expect(outbox.push('{"x":"0123456789"}')).toBe(true);
    expect(outbox.pendingBytes).toBe(event.length * 2);
    expect(outbox.push('{"x":"0123456789"}')).toBe(false);
  });

  it('keeps the messages pushed for a response that went away before they were written, for the next one', async () => {
    const outbox = new SseOutbox(1 << 20);
    const first = recordingSink();
    outbox.attach(first);
    outbox.push('{"n":1}');
    outbox.detach(first);
    await tick();
    expect(first.writes).toEqual([]);
    outbox.push('{"n":2}');
    const second = recordingSink();
    outbox.attach(second);
    expect(second.writes).toEqual(['data: {"n":1}\n\ndata: {"n":2}\n\n']);
  });

  it('writes what was pushed before ending the response on close', () => {
    const outbox = new SseOutbox(1 << 20);
    const sink = recordingSink();
    outbox.attach(sink);
    outbox.push('{"last":true}');
    outbox.close();
    expect(sink.writes).toEqual(['data: {"last":true}\n\n']);
    expect(sink.ended).toBe(true);
  });

  it('flushes every stream pushed to in one turn, each as one write, even when one of them throws', async () => {
    const outboxes = [0, 1, 2].map(() => new SseOutbox(1 << 20));
    const sinks = outboxes.map(() => recordingSink());
    for (const [i, outbox] of outboxes.entries()) outbox.attach(sinks[i]!);
    sinks[1]!.write = () => {
      throw new Error('socket gone');
    };
    const thrown = new Promise<unknown>((resolve) => {
      const listener = (reason: unknown) => {
        process.off('unhandledRejection', listener);
        resolve(reason);
      };
      process.on('unhandledRejection', listener);
    });
    outboxes[0]!.push('{"s":0,"n":1}');
    outboxes[1]!.push('{"s":1,"n":1}');
    outboxes[2]!.push('{"s":2,"n":1}');
    outboxes[0]!.push('{"s":0,"n":2}');
    await tick();
    expect(sinks[0]!.writes).toEqual(['data: {"s":0,"n":1}\n\ndata: {"s":0,"n":2}\n\n']);
    expect(sinks[2]!.writes).toEqual(['data: {"s":2,"n":1}\n\n']);
    expect(await thrown).toMatchObject({ message: 'socket gone' });
    // The next turn's pushes are flushed as before.
    outboxes[2]!.push('{"s":2,"n":2}');
    await tick();
    expect(sinks[2]!.writes).toEqual(['data: {"s":2,"n":1}\n\n', 'data: {"s":2,"n":2}\n\n']);
  });

  it('counts a message in UTF-8 bytes of its whole event against the limit', () => {
    const json = '{"t":"h\u00e9llo \u{1F600}"}';
    const event = `data: ${json}\n\n`;
    const outbox = new SseOutbox(Buffer.byteLength(event));
    outbox.attach(recordingSink());
    expect(outbox.push(json)).toBe(true);
    expect(outbox.pendingBytes).toBe(Buffer.byteLength(event));
    expect(outbox.push('{}')).toBe(false);
  });
});
