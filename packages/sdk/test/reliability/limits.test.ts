import { describe, expect, it } from 'vitest';
import { NdjsonDecoder } from '../../src/rpc/index.js';
import { BUFFER_FULL, oversizedLine, stalledClient } from '../../stress/limits.js';

// Memory figures are printed by `npm run stress` (run with --expose-gc); here the behaviour is pinned.
describe('size limits and backpressure', () => {
  it('answers a line twice the limit with -32600 naming the sizes, then serves the next request', async () => {
    const report = await oversizedLine(256 * 1024, 2);
    expect(report.error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/exceeds the limit of 262144 bytes/),
    });
    expect(report.answeredAfter).toBe(true);
  });

  it('closes a connection whose client stopped reading with -32098 at the queue limit, while other clients get every chunk', async () => {
    const report = await stalledClient(256 * 1024, 2000, 512);
    expect(report.closedWith).toMatchObject({
      code: BUFFER_FULL,
      message: expect.stringMatching(/peer is not reading/),
    });
    expect(report.otherClientGotEverything).toBe(true);
  });

  // For a Node Buffer (what every stream delivers) `slice` is a view, not a copy: a transport that
  // reuses its read buffer would corrupt partial lines unless the decoder really copies.
  it('keeps its own copy of a partial line when the caller reuses the chunk buffer', () => {
    const decoder = new NdjsonDecoder(1024);
    const chunk = Buffer.from('{"a":1');
    expect(decoder.push(chunk)).toEqual([]);
    chunk.write('{"b":2');
    expect(decoder.push(Buffer.from('}\n'))).toEqual([{ ok: true, text: '{"a":1}' }]);
  });
});
