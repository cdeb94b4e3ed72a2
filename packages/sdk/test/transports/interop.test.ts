import { PassThrough, Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/rpc/index.js';
import { streamTransport } from '../../src/transports/index.js';

/** Our Connection on one end of a pipe pair, the official SDK's ndjson stream on the other. */
function wire() {
  const toOurs = new PassThrough();
  const fromOurs = new PassThrough();
  const ours = new Connection(streamTransport(toOurs, fromOurs));
  const theirs = ndJsonStream(
    Writable.toWeb(toOurs) as WritableStream<Uint8Array>,
    Readable.toWeb(fromOurs) as ReadableStream<Uint8Array>,
  );
  return { ours, writer: theirs.writable.getWriter(), reader: theirs.readable.getReader() };
}

describe('ndjson framing interop with @agentclientprotocol/sdk', () => {
  it('answers a request framed by the official SDK', async () => {
    const { ours, writer, reader } = wire();
    ours.onRequest('echo', (params) => params);
    ours.listen();
    await writer.write({ jsonrpc: '2.0', id: 1, method: 'echo', params: { text: 'grüße ✓' } });
    expect((await reader.read()).value).toEqual({ jsonrpc: '2.0', id: 1, result: { text: 'grüße ✓' } });
  });

  it('sends requests the official SDK can read and accepts its answers', async () => {
    const { ours, writer, reader } = wire();
    ours.listen();
    const pending = ours.sendRequest('_probe/ping', { n: 1 });
    const request = (await reader.read()).value as { id: number; method: string; params: unknown };
    expect(request).toMatchObject({ jsonrpc: '2.0', method: '_probe/ping', params: { n: 1 } });
    await writer.write({ jsonrpc: '2.0', id: request.id, result: { pong: true } });
    expect(await pending).toEqual({ pong: true });
  });
});
