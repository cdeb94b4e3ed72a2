import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/rpc/index.js';
import { streamTransport } from '../../src/transports/index.js';

/**
 * JSON-RPC lets a client reuse a request id once that request is answered. A peer in the same
 * process (an in-process pair, a codec translating v2 to v1) can send its next request the moment
 * the answer reaches it — before the connection has finished writing that answer.
 */
describe('request ids reused after their answer', () => {
  it('serves a request that reuses the id of the request just answered, sent as the answer arrives', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const connection = new Connection(streamTransport(input, output));
    connection.onRequest('echo', (params) => params);
    connection.listen();
    const lines: Record<string, unknown>[] = [];
    let buffered = '';
    let reused = false;
    const done = new Promise<void>((resolve) => {
      output.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
          const message = JSON.parse(buffered.slice(0, at)) as Record<string, unknown>;
          buffered = buffered.slice(at + 1);
          lines.push(message);
          if (!reused) {
            // Synchronously, in the callback that delivered the first answer: id 1 again.
            reused = true;
            input.write('{"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":2}}\n');
          } else resolve();
        }
      });
    });
    input.write('{"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":1}}\n');
    await done;
    expect(lines).toEqual([
      { jsonrpc: '2.0', id: 1, result: { n: 1 } },
      { jsonrpc: '2.0', id: 1, result: { n: 2 } },
    ]);
    connection.close();
  });
});
