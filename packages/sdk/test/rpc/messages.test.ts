import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../src/rpc/index.js';

describe('classifyMessage', () => {
  it.each([
    [{ jsonrpc: '2.0', id: 1, method: 'm', params: {} }, 'request'],
    [{ jsonrpc: '2.0', id: 'abc', method: 'm' }, 'request'],
    [{ jsonrpc: '2.0', method: 'm', params: [] }, 'notification'],
    [{ jsonrpc: '2.0', id: 1, result: null }, 'success'],
    [{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'x' } }, 'error'],
    [{ jsonrpc: '2.0', id: 2, error: { code: 1, message: 'x', data: [1] } }, 'error'],
  ])('recognises %j as a %s', (value, kind) => {
    expect(classifyMessage(value).kind).toBe(kind);
  });

  it.each([
    [null, '', null],
    ['text', '', null],
    [[], '', null],
    [{ id: 1, method: 'm' }, '/jsonrpc', 1],
    [{ jsonrpc: '2.0', id: null, method: 'm' }, '/id', null],
    [{ jsonrpc: '2.0', id: true, method: 'm' }, '/id', null],
    [{ jsonrpc: '2.0', id: 1, method: 'm', params: 3 }, '/params', 1],
    [{ jsonrpc: '2.0', id: 1, result: 1, error: { code: 1, message: 'x' } }, '', 1],
    [{ jsonrpc: '2.0', id: null, result: 1 }, '/id', null],
    [{ jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } }, '/error/code', 1],
    [{ jsonrpc: '2.0', id: 1, error: { code: 1 } }, '/error/message', 1],
    [{ jsonrpc: '2.0', id: 1, error: 'bad' }, '/error', 1],
    [{ jsonrpc: '2.0' }, '', null],
  ])('rejects %j, pointing at %j and keeping id %j', (value, pointer, id) => {
    const classified = classifyMessage(value);
    expect(classified).toMatchObject({ kind: 'invalid', pointer, id });
  });
});
