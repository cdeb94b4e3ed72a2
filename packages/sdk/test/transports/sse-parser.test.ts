/** The client's streaming SSE reader: the WHATWG `data:` rules, in whatever pieces the bytes come. */
import { describe, expect, it } from 'vitest';
import { readSseData, SseDataDecoder, SseEventTooLargeError } from '../../src/transports/sse-parser.js';

function body(pieces: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
}

async function all(pieces: readonly string[], limit = 1024): Promise<string[]> {
  const out: string[] = [];
  for await (const data of readSseData(body(pieces), limit)) out.push(data);
  return out;
}

describe('readSseData', () => {
  it('reads events split anywhere, with LF, CRLF and CR line ends, comments and other fields', async () => {
    const stream =
      '\uFEFF:hello\n\ndata: {"a":1}\n\r\ndata:{"b":2}\r\rid: 7\nevent: x\ndata: one\ndata: two\n\n';
    const expected = ['{"a":1}', '{"b":2}', 'one\ntwo'];
    expect(await all([stream])).toEqual(expected);
    // Every split point, including between the CR and LF of a CRLF.
    for (let i = 1; i < stream.length; i += 1) {
      expect(await all([stream.slice(0, i), stream.slice(i)])).toEqual(expected);
    }
  });

  it('decodes a multi-byte character split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: é\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 7));
        controller.enqueue(bytes.slice(7));
        controller.close();
      },
    });
    const out: string[] = [];
    for await (const data of readSseData(stream, 64)) out.push(data);
    expect(out).toEqual(['é']);
  });

  it('throws SseEventTooLargeError for an event past the limit, also one without line ends', async () => {
    await expect(all([`data: ${'x'.repeat(100)}\n\n`], 50)).rejects.toBeInstanceOf(SseEventTooLargeError);
    await expect(all(['data: ', 'x'.repeat(100)], 50)).rejects.toBeInstanceOf(SseEventTooLargeError);
  });
});

describe('SseDataDecoder', () => {
  function decode(pieces: readonly string[]): string[] {
    const sse = new SseDataDecoder(1024);
    const out: string[] = [];
    for (const piece of pieces) sse.push(piece, (data) => out.push(data));
    return out;
  }

  it('takes a CR and its LF in separate pieces as one line end, across an empty piece, and the next LF as a blank line', () => {
    expect(decode(['data: a\r', '', '\n', '\n'])).toEqual(['a']);
    expect(decode(['data: a\r', '\n', '\ndata: b\n\n'])).toEqual(['a', 'b']);
    expect(decode(['data: a\r', '\r'])).toEqual(['a']);
  });

  it('splits a piece of many lines, LF-, CR- and CRLF-ended mixed, in order', () => {
    const lines = Array.from(
      { length: 500 },
      (_, i) => `data: ${i}${i % 7 === 0 ? '\r\r' : i % 5 === 0 ? '\r\n\r\n' : '\n\n'}`,
    ).join('');
    expect(decode([lines])).toEqual(Array.from({ length: 500 }, (_, i) => String(i)));
  });
});
