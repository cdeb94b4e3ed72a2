import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../src/rpc/index.js';
import { rawPeer } from './helpers.js';

describe('answer IDs', () => {
  it('answers an oversized request with the id read from the start of the line', async () => {
    const peer = rawPeer({ maxMessageBytes: 1024 });
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 'big-1',
      method: 'echo',
      params: { pad: 'x'.repeat(5000) },
    });
    peer.send(huge.slice(0, 700));
    peer.send(`${huge.slice(700)}\n`);
    expect(await peer.next()).toMatchObject({
      id: 'big-1',
      error: { code: ErrorCodes.InvalidRequest, data: { reason: 'oversized', bytes: huge.length } },
    });
    expect(peer.diagnostics).toMatchObject([{ kind: 'frame-error', id: 'big-1' }]);
    expect(await peer.probe()).toHaveProperty('result');
  });

  it('answers an oversized request with a numeric id after params-free members, and keeps id null when the id is beyond the kept bytes', async () => {
    const peer = rawPeer({ maxMessageBytes: 1024 });
    peer.send(`{"jsonrpc":"2.0", "method":"echo", "id": 42, "params":{"pad":"${'y'.repeat(4000)}"}}\n`);
    expect(await peer.next()).toMatchObject({ id: 42, error: { code: ErrorCodes.InvalidRequest } });
    peer.send(`{"jsonrpc":"2.0","method":"echo","params":{"pad":"${'y'.repeat(4000)}"},"id":43}\n`);
    expect(await peer.next()).toMatchObject({ id: null, error: { code: ErrorCodes.InvalidRequest } });
    expect(await peer.probe()).toHaveProperty('result');
  });

  it('fails our request instead of answering when the oversized line is a response to it', async () => {
    const peer = rawPeer({ maxMessageBytes: 1024 });
    const pending = peer.connection.sendRequest('_x/y', {});
    const request = await peer.next();
    peer.send(`{"jsonrpc":"2.0","id":${request.id},"result":{"pad":"${'z'.repeat(4000)}"}}\n`);
    await expect(pending).rejects.toMatchObject({
      code: ErrorCodes.InvalidRequest,
      data: { reason: 'oversized' },
    });
    // The next thing written is the probe's answer: the response was not answered.
    expect(await peer.probe()).toHaveProperty('result');
  });

  it('echoes an integer id beyond 2^53 with its exact digits', async () => {
    const peer = rawPeer();
    peer.send('{"jsonrpc":"2.0","id":12345678901234567891,"method":"echo","params":{"a":1}}\n');
    peer.send('{"jsonrpc":"2.0","id":98765432109876543210,"method":"nobody/home"}\n');
    peer.send('{"jsonrpc":"2.0","id":12345678901234567893,"method":5}\n');
    await peer.next();
    await peer.next();
    // Parsed answers round the IDs; the raw lines must not. (Error answers go out first: they are synchronous.)
    const written = peer.rawLines;
    expect(written).toContain('{"jsonrpc":"2.0","id":12345678901234567891,"result":{"a":1}}');
    expect(
      written.filter((l) =>
        l.startsWith('{"jsonrpc":"2.0","id":98765432109876543210,"error":{"code":-32601,'),
      ),
    ).toHaveLength(1);
    expect(
      written.filter((l) =>
        l.startsWith('{"jsonrpc":"2.0","id":12345678901234567893,"error":{"code":-32600,'),
      ),
    ).toHaveLength(1);
  });
});

describe('responses are never answered', () => {
  it('reports a response carrying both result and error with a diagnostic and no reply', async () => {
    const peer = rawPeer();
    peer.sendJson({ jsonrpc: '2.0', id: 7, result: {}, error: { code: 1, message: 'both' } });
    peer.sendJson({ jsonrpc: '2.0', id: 8, error: 'not an object' });
    // Replies are ordered: if either had been answered, that answer would come before the probe's.
    expect(await peer.probe()).toHaveProperty('result');
    expect(peer.diagnostics.map((d) => [d.kind, d.id])).toEqual([
      ['invalid-response', 7],
      ['invalid-response', 8],
    ]);
  });

  it('still fails our pending request when its response carries both result and error', async () => {
    const peer = rawPeer();
    const pending = peer.connection.sendRequest('_x/y', {});
    const request = await peer.next();
    peer.sendJson({ jsonrpc: '2.0', id: request.id, result: 1, error: { code: 1, message: 'x' } });
    await expect(pending).rejects.toMatchObject({ code: ErrorCodes.InvalidRequest });
    expect(await peer.probe()).toHaveProperty('result');
  });
});

describe('end of stream', () => {
  it('processes and answers a last line that has no newline before the end of input', async () => {
    const peer = rawPeer();
    peer.end('{"jsonrpc":"2.0","id":"last","method":"echo","params":{"final":true}}');
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', id: 'last', result: { final: true } });
    await peer.outputEnded;
    expect(peer.connection.isClosed).toBe(true);
  });

  it('answers requests still running when the peer ends its stream, then ends the output', async () => {
    let release: () => void = () => {};
    const peer = rawPeer({}, (c) =>
      c.onRequest('slow', (_params, context) => {
        return new Promise<string>((resolve) => {
          release = () => resolve(context.signal.aborted ? 'finished after the end' : 'early');
        });
      }),
    );
    peer.sendJson({ jsonrpc: '2.0', id: 1, method: 'slow' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    peer.end();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(peer.connection.isClosed).toBe(true);
    release();
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', id: 1, result: 'finished after the end' });
    await peer.outputEnded;
  });
});
