import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../src/rpc/index.js';
import { rawPeer, testValidator } from './helpers.js';

/** A request envelope. */
const req = (id: string | number, method: string, params: unknown = {}) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

/** A manually released gate, for handlers whose answer the test decides the timing of. */
function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** Sorts a batch's answers by id so a test can compare them (their order is free). */
function byId(answers: unknown): Record<string, unknown>[] {
  expect(Array.isArray(answers)).toBe(true);
  return [...(answers as Record<string, unknown>[])].sort((a, b) => String(a.id).localeCompare(String(b.id)));
}

describe('JSON-RPC batches', () => {
  it('answers an empty batch with a single -32600 whose id is null, not an array', async () => {
    const peer = rawPeer();
    peer.send('[]\n');
    expect(await peer.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: ErrorCodes.InvalidRequest,
        message: 'Invalid request: an empty batch',
        data: { pointer: '', reason: 'empty batch' },
      },
    });
    expect(await peer.probe()).toHaveProperty('result');
  });

  it('answers every request of a batch in one array line', async () => {
    const peer = rawPeer();
    peer.sendJson([req(1, 'echo', { a: 1 }), req('two', 'echo', { b: 2 }), req(3, 'echo')]);
    const answers = await peer.next();
    expect(peer.rawLines).toHaveLength(1);
    expect(byId(answers)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { a: 1 } },
      { jsonrpc: '2.0', id: 3, result: {} },
      { jsonrpc: '2.0', id: 'two', result: { b: 2 } },
    ]);
  });

  it('gives each invalid entry its own -32600 without failing the rest of the batch', async () => {
    const peer = rawPeer();
    peer.sendJson([
      req(1, 'echo', { ok: true }),
      42,
      { jsonrpc: '1.0', id: 'old', method: 'echo' },
      [req(9, 'echo')],
      { jsonrpc: '2.0', id: 'no-method' },
      req(2, 'nobody/home'),
    ]);
    const answers = byId(await peer.next());
    expect(answers).toHaveLength(6);
    const invalid = (id: unknown, pointer: string) => ({
      jsonrpc: '2.0',
      id,
      error: expect.objectContaining({
        code: ErrorCodes.InvalidRequest,
        data: expect.objectContaining({ pointer }),
      }),
    });
    expect(answers).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 1, result: { ok: true } },
        expect.objectContaining({
          id: 2,
          error: expect.objectContaining({ code: ErrorCodes.MethodNotFound }),
        }),
        invalid('old', '/jsonrpc'),
        invalid('no-method', ''),
      ]),
    );
    // The bare number and the nested array: each its own -32600 with id null.
    expect(answers.filter((a) => a.id === null)).toEqual([invalid(null, ''), invalid(null, '')]);
    // The nested array is refused as an entry, not run as a batch of its own.
    expect(answers.some((a) => a.id === 9)).toBe(false);
    expect(await peer.probe()).toHaveProperty('result');
  });

  it('validates the params of each entry like a single message', async () => {
    const peer = rawPeer({ validator: testValidator }, (c) => c.onRequest('greet', () => ({ ok: true })));
    peer.sendJson([
      req('good', 'greet', { prompt: [{ type: 'text' }] }),
      req('bad', 'greet', { prompt: [{ type: 'text' }, { type: 'bogus' }] }),
    ]);
    expect(byId(await peer.next())).toEqual([
      {
        jsonrpc: '2.0',
        id: 'bad',
        error: expect.objectContaining({
          code: ErrorCodes.InvalidParams,
          data: expect.objectContaining({ pointer: '/params/prompt/1/type' }),
        }),
      },
      { jsonrpc: '2.0', id: 'good', result: { ok: true } },
    ]);
  });

  it('never answers the notifications in a batch, but runs them in order', async () => {
    const seen: unknown[] = [];
    const peer = rawPeer({}, (c) => c.onNotification('_test/note', (params) => void seen.push(params)));
    peer.sendJson([
      { jsonrpc: '2.0', method: '_test/note', params: { n: 1 } },
      req('r', 'echo', { after: 'note 1' }),
      { jsonrpc: '2.0', method: '_test/note', params: { n: 2 } },
    ]);
    expect(await peer.next()).toEqual([{ jsonrpc: '2.0', id: 'r', result: { after: 'note 1' } }]);
    expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('sends nothing at all for a batch of notifications only', async () => {
    const seen: unknown[] = [];
    const peer = rawPeer({}, (c) => c.onNotification('_test/note', (params) => void seen.push(params)));
    peer.sendJson([
      { jsonrpc: '2.0', method: '_test/note', params: { n: 1 } },
      { jsonrpc: '2.0', method: '_test/unheard' },
      { jsonrpc: '2.0', method: '_test/note', params: { n: 2 } },
    ]);
    // Answers are written in order, so the probe's answer coming first proves nothing was sent.
    expect(await peer.probe()).toHaveProperty('result');
    expect(peer.rawLines).toHaveLength(1);
    expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('holds the answer array until every request of the batch was answered', async () => {
    const slow = gate();
    const peer = rawPeer({}, (c) =>
      c.onRequest('_test/slow', async () => {
        await slow.wait;
        return 'slow done';
      }),
    );
    peer.sendJson([req('fast', 'echo', { quick: true }), req('slow', '_test/slow')]);
    // A later single request is answered while the batch is still waiting for its slow entry.
    expect(await peer.probe()).toHaveProperty('result');
    slow.open();
    expect(byId(await peer.next())).toEqual([
      { jsonrpc: '2.0', id: 'fast', result: { quick: true } },
      { jsonrpc: '2.0', id: 'slow', result: 'slow done' },
    ]);
    expect(peer.rawLines).toHaveLength(2);
  });

  it('applies the size limit to the whole batch line, not to each entry', async () => {
    const limit = 4096;
    const peer = rawPeer({ maxMessageBytes: limit });
    const entries = Array.from({ length: 8 }, (_, i) => req(i, 'echo', { pad: 'x'.repeat(700) }));
    expect(JSON.stringify(entries[0]).length).toBeLessThan(limit);
    expect(JSON.stringify(entries).length).toBeGreaterThan(limit);
    peer.sendJson(entries);
    expect(await peer.next()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: ErrorCodes.InvalidRequest, data: { reason: 'oversized' } },
    });
    expect(await peer.probe()).toHaveProperty('result');
  });

  it('keeps the answer array under the size limit by answering a result that does not fit with -32603', async () => {
    const limit = 4096;
    const peer = rawPeer({ maxMessageBytes: limit }, (c) =>
      c.onRequest('_test/big', (params) => 'y'.repeat((params as { size: number }).size)),
    );
    peer.sendJson([req('small', '_test/big', { size: 1000 }), req('large', '_test/big', { size: 1000 })]);
    // Each result alone fits; both do too.
    expect(byId(await peer.next())).toEqual([
      { jsonrpc: '2.0', id: 'large', result: 'y'.repeat(1000) },
      { jsonrpc: '2.0', id: 'small', result: 'y'.repeat(1000) },
    ]);
    peer.sendJson([
      req('a', '_test/big', { size: 2000 }),
      req('b', '_test/big', { size: 2000 }),
      req('c', 'echo', { tiny: 1 }),
    ]);
    const answers = byId(await peer.next());
    expect(peer.rawLines[1]!.length).toBeLessThanOrEqual(limit);
    // The first big result fits; the second does not and is answered -32603 by its own id.
    const results = answers.filter((a) => 'result' in a);
    const refused = answers.filter((a) => 'error' in a);
    expect(results.map((a) => a.id).sort()).toEqual(expect.arrayContaining(['c']));
    expect(results).toHaveLength(2);
    expect(refused).toEqual([
      {
        jsonrpc: '2.0',
        id: expect.stringMatching(/^[ab]$/),
        error: { code: ErrorCodes.InternalError, message: 'Internal error: result too large' },
      },
    ]);
  });

  it('answers a batch with more entries than maxBatchEntries with a single -32600', async () => {
    const peer = rawPeer({ maxBatchEntries: 3 });
    peer.sendJson([req(1, 'echo'), req(2, 'echo'), req(3, 'echo'), req(4, 'echo')]);
    expect(await peer.next()).toMatchObject({
      id: null,
      error: { code: ErrorCodes.InvalidRequest, data: { reason: 'batch too large', entries: 4, limit: 3 } },
    });
    peer.sendJson([req(1, 'echo'), req(2, 'echo'), req(3, 'echo')]);
    expect(await peer.next()).toHaveLength(3);
  });

  it('echoes the exact text of an integer id beyond 2^53 inside a batch', async () => {
    const peer = rawPeer();
    peer.send(
      '[{"jsonrpc":"2.0","id":123456789012345678901,"method":"echo","params":{}},{"jsonrpc":"2.0","id":7,"method":"echo"}]\n',
    );
    await peer.next();
    expect(peer.rawLines[0]).toContain('"id":123456789012345678901,');
    expect(peer.rawLines[0]).toContain('"id":7,');
  });

  it('refuses a duplicate id within one batch and answers the first', async () => {
    const slow = gate();
    const peer = rawPeer({}, (c) =>
      c.onRequest('_test/slow', async () => {
        await slow.wait;
        return 'first';
      }),
    );
    peer.sendJson([req('same', '_test/slow'), req('same', 'echo')]);
    slow.open();
    const answers = await peer.next();
    expect(answers).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 'same', result: 'first' },
        expect.objectContaining({
          id: null,
          error: expect.objectContaining({ data: expect.objectContaining({ reason: 'duplicate id' }) }),
        }),
      ]),
    );
  });

  it('settles its own pending requests from a batch of responses and answers none of them', async () => {
    const peer = rawPeer();
    const first = peer.connection.sendRequest('_test/one', {});
    const second = peer.connection.sendRequest('_test/two', {});
    const sent = [await peer.next(), await peer.next()];
    peer.sendJson([
      { jsonrpc: '2.0', id: sent[1]!.id, result: 'two' },
      { jsonrpc: '2.0', id: sent[0]!.id, error: { code: -32000, message: 'no' } },
    ]);
    expect(await second).toBe('two');
    await expect(first).rejects.toMatchObject({ code: -32000 });
    expect(await peer.probe()).toHaveProperty('result');
    expect(peer.rawLines).toHaveLength(3);
  });

  it('shows each batch entry and each answer to the message tap on its own', async () => {
    const peer = rawPeer();
    const tapped: [string, unknown][] = [];
    peer.connection.onMessage((direction, message) => tapped.push([direction, message]));
    peer.sendJson([req(1, 'echo', { x: 1 }), { jsonrpc: '2.0', method: '_test/n' }]);
    await peer.next();
    expect(tapped).toEqual([
      ['in', req(1, 'echo', { x: 1 })],
      ['in', { jsonrpc: '2.0', method: '_test/n' }],
      ['out', { jsonrpc: '2.0', id: 1, result: { x: 1 } }],
    ]);
  });
});
