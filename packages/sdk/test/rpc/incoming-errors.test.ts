import { describe, expect, it } from 'vitest';
import { ErrorCodes, RpcError } from '../../src/rpc/index.js';
import { rawPeer, testValidator } from './helpers.js';

describe('incoming message checking', () => {
  it('answers malformed JSON with -32700 and id null, then still answers a request', async () => {
    const peer = rawPeer();
    peer.send('{"jsonrpc":"2.0","id":1,"method":"echo",\n');
    expect(await peer.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: ErrorCodes.ParseError, message: expect.any(String) },
    });
    expect(peer.diagnostics.map((d) => d.kind)).toEqual(['parse-error']);
    expect(peer.diagnostics[0]?.excerpt).toContain('"method":"echo"');
    expect(await peer.probe()).toMatchObject({ result: { probe: 1 } });
  });

  it.each([
    ['a bare string', 'one message', null],
    ['a bare number', 42, null],
    ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 'x', method: 'echo' }, 'x'],
    ['a non-string method', { jsonrpc: '2.0', id: 7, method: 5 }, 7],
    ['an object id', { jsonrpc: '2.0', id: {}, method: 'echo' }, null],
    ['null params', { jsonrpc: '2.0', id: 8, method: 'echo', params: null }, 8],
    ['string params', { jsonrpc: '2.0', id: 9, method: 'echo', params: 'hi' }, 9],
    ['neither method nor result', { jsonrpc: '2.0', id: 10 }, 10],
  ])('answers %s with -32600, echoing only a valid id', async (_label, value, id) => {
    const peer = rawPeer();
    peer.sendJson(value);
    const answer = await peer.next();
    expect(answer).toMatchObject({ jsonrpc: '2.0', id, error: { code: ErrorCodes.InvalidRequest } });
    expect(peer.diagnostics.map((d) => d.kind)).toEqual(['invalid-message']);
    expect(await peer.probe()).toHaveProperty('result');
  });

  it('answers an unknown request method with -32601 and the request id', async () => {
    const peer = rawPeer();
    peer.sendJson({ jsonrpc: '2.0', id: 'a', method: 'nobody/home', params: {} });
    expect(await peer.next()).toMatchObject({
      id: 'a',
      error: { code: ErrorCodes.MethodNotFound, data: { method: 'nobody/home' } },
    });
    expect(await peer.probe()).toHaveProperty('result');
  });

  it('drops an unknown extension notification silently', async () => {
    const peer = rawPeer();
    peer.sendJson({ jsonrpc: '2.0', method: '_vendor/ping', params: {} });
    expect(await peer.probe()).toHaveProperty('result');
    expect(peer.diagnostics).toEqual([]);
  });

  it('drops an unknown non-extension notification with a diagnostic and no reply', async () => {
    const peer = rawPeer();
    peer.sendJson({ jsonrpc: '2.0', method: 'session/unheard_of', params: {} });
    expect(await peer.probe()).toHaveProperty('result');
    expect(peer.diagnostics).toMatchObject([{ kind: 'unknown-notification', method: 'session/unheard_of' }]);
  });

  it('answers params that fail validation with -32602 and a pointer into the message', async () => {
    const peer = rawPeer({ validator: testValidator }, (c) => c.onRequest('greet', () => ({ ok: true })));
    peer.sendJson({
      jsonrpc: '2.0',
      id: 3,
      method: 'greet',
      params: { prompt: [{ type: 'text' }, { type: 'bogus' }] },
    });
    const answer = await peer.next();
    expect(answer).toMatchObject({
      id: 3,
      error: {
        code: ErrorCodes.InvalidParams,
        data: {
          pointer: '/params/prompt/1/type',
          expected: '"text"',
          issues: [{ pointer: '/params/prompt/1/type', keyword: 'const' }],
        },
      },
    });
    expect(await peer.probe()).toHaveProperty('result');
  });

  it('checks the method before the params: an unknown method is -32601 even with bad params', async () => {
    const peer = rawPeer({ validator: testValidator });
    peer.sendJson({ jsonrpc: '2.0', id: 4, method: 'greet', params: { prompt: 'nope' } });
    expect(await peer.next()).toMatchObject({ id: 4, error: { code: ErrorCodes.MethodNotFound } });
  });

  it('does not call a notification handler whose params fail validation', async () => {
    const seen: unknown[] = [];
    const peer = rawPeer({ validator: testValidator }, (c) =>
      c.onNotification('note', (p) => void seen.push(p)),
    );
    peer.sendJson({ jsonrpc: '2.0', method: 'note', params: { prompt: [{ type: 'image' }] } });
    peer.sendJson({ jsonrpc: '2.0', method: 'note', params: { prompt: [] } });
    expect(await peer.probe()).toHaveProperty('result');
    expect(seen).toEqual([{ prompt: [] }]);
    expect(peer.diagnostics).toMatchObject([
      {
        kind: 'invalid-notification-params',
        method: 'note',
        pointer: expect.stringMatching(/^\/params\/prompt\/0/),
      },
    ]);
  });

  it('answers a throwing handler with a generic -32603 that leaks neither message nor stack', async () => {
    const peer = rawPeer({}, (c) =>
      c.onRequest('explode', () => {
        throw new Error('secret path /home/alice/.token');
      }),
    );
    peer.sendJson({ jsonrpc: '2.0', id: 5, method: 'explode' });
    const answer = await peer.next();
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: ErrorCodes.InternalError, message: 'Internal error' },
    });
    expect(JSON.stringify(answer)).not.toContain('secret');
    expect(peer.diagnostics[0]).toMatchObject({ kind: 'request-handler-error', method: 'explode' });
    expect(peer.diagnostics[0]?.error).toMatchObject({ message: expect.stringContaining('secret') });
    expect(await peer.probe()).toHaveProperty('result');
  });

  it('treats an async handler rejection like a throw', async () => {
    const peer = rawPeer({}, (c) =>
      c.onRequest('explode', async () => Promise.reject(new TypeError('boom'))),
    );
    peer.sendJson({ jsonrpc: '2.0', id: 6, method: 'explode' });
    expect(await peer.next()).toMatchObject({ id: 6, error: { code: -32603, message: 'Internal error' } });
  });

  it('sends an RpcError thrown by a handler as is', async () => {
    const peer = rawPeer({}, (c) =>
      c.onRequest('session/load', () => {
        throw new RpcError(ErrorCodes.ResourceNotFound, 'session not found', { sessionId: 's1' });
      }),
    );
    peer.sendJson({ jsonrpc: '2.0', id: 7, method: 'session/load', params: { sessionId: 's1' } });
    expect(await peer.next()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32002, message: 'session not found', data: { sessionId: 's1' } },
    });
  });

  it('ignores a response with an unknown id, with a diagnostic', async () => {
    const peer = rawPeer();
    peer.sendJson({ jsonrpc: '2.0', id: 999, result: {} });
    peer.sendJson({ jsonrpc: '2.0', id: 'x', error: { code: 1, message: 'no' } });
    expect(await peer.probe()).toHaveProperty('result');
    expect(peer.diagnostics.map((d) => [d.kind, d.id])).toEqual([
      ['unknown-response', 999],
      ['unknown-response', 'x'],
    ]);
  });

  it('reports an error response with id null as a peer error without answering it', async () => {
    const peer = rawPeer();
    peer.sendJson({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(await peer.probe()).toHaveProperty('result');
    expect(peer.diagnostics).toMatchObject([{ kind: 'peer-error' }]);
  });

  it('answers a handler that returns nothing with result null', async () => {
    const peer = rawPeer({}, (c) => c.onRequest('noop', () => undefined));
    peer.sendJson({ jsonrpc: '2.0', id: 8, method: 'noop' });
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', id: 8, result: null });
  });

  it('refuses a request that reuses the id of one still pending', async () => {
    let release: () => void = () => {};
    const peer = rawPeer({}, (c) =>
      c.onRequest('slow', () => new Promise<string>((resolve) => (release = () => resolve('done')))),
    );
    peer.sendJson({ jsonrpc: '2.0', id: 1, method: 'slow' });
    peer.sendJson({ jsonrpc: '2.0', id: 1, method: 'slow' });
    expect(await peer.next()).toMatchObject({ id: null, error: { code: ErrorCodes.InvalidRequest } });
    release();
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', id: 1, result: 'done' });
  });
});

describe('framing errors', () => {
  it('rejects an oversized line with one error and still processes the next line', async () => {
    const peer = rawPeer({ maxMessageBytes: 1024 });
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: { pad: 'x'.repeat(5000) } });
    // Arrives in pieces, like a real pipe, with the following message in the same chunk as its end.
    peer.send(huge.slice(0, 700));
    peer.send(huge.slice(700, 3000));
    peer.send(`${huge.slice(3000)}\n{"jsonrpc":"2.0","id":2,"method":"echo","params":{"after":true}}\n`);
    // The id is in the kept start of the line, so the answer names it (issue #13, item 8).
    expect(await peer.next()).toMatchObject({
      id: 1,
      error: { code: ErrorCodes.InvalidRequest, data: { reason: 'oversized', bytes: huge.length } },
    });
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', id: 2, result: { after: true } });
    expect(peer.diagnostics).toMatchObject([{ kind: 'frame-error' }]);
    expect(peer.diagnostics[0]?.excerpt?.length).toBeLessThan(200);
  });

  it('answers a line of invalid UTF-8 with -32700 and keeps going', async () => {
    const peer = rawPeer();
    const bad = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}}\n'),
    ]);
    peer.send(bad);
    expect(await peer.next()).toMatchObject({
      id: null,
      error: { code: ErrorCodes.ParseError, data: { reason: 'invalid-utf8' } },
    });
    expect(await peer.probe()).toHaveProperty('result');
  });

  it('accepts CRLF line endings and multi-byte characters split across chunks', async () => {
    const peer = rawPeer();
    const line = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":"héllo ✓"}}\r\n');
    const cut = line.indexOf(Buffer.from('✓')) + 1;
    peer.send(line.subarray(0, cut));
    peer.send(line.subarray(cut));
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', id: 1, result: { s: 'héllo ✓' } });
  });
});
