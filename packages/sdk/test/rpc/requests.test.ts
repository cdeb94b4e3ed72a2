import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  Connection,
  type ConnectionOptions,
  ErrorCodes,
  MAX_WITHDRAWN_REQUESTS,
  RpcError,
} from '../../src/rpc/index.js';
import { createInProcessPair } from '../../src/transports/index.js';
import { rawPeer, testValidator } from './helpers.js';

interface ServerRequests {
  'remote/get': { params: { key: string }; result: { messageId: string } };
  'remote/wait': { params: Record<string, never>; result: string };
}
interface ServerNotifications {
  'remote/note': { n: number };
}
type Server = Connection<ServerRequests, ServerNotifications, Record<never, never>, Record<never, never>>;
type Client = Connection<Record<never, never>, Record<never, never>, ServerRequests, ServerNotifications>;

function pair(options: ConnectionOptions = {}): { server: Server; client: Client } {
  const [a, b] = createInProcessPair();
  return { server: new Connection(a), client: new Connection(b, options) };
}

/** Resolves when `signal` aborts, never otherwise. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

describe('requests and responses', () => {
  it('resolves a request with the handler result, typed by the method maps', async () => {
    const { server, client } = pair();
    server.onRequest('remote/get', ({ key }) => ({ messageId: `m-${key}` }));
    server.listen();
    client.listen();
    const result = client.sendRequest('remote/get', { key: '1' });
    expectTypeOf(result).toEqualTypeOf<Promise<{ messageId: string }>>();
    expect(await result).toEqual({ messageId: 'm-1' });
  });

  it('rejects with an RpcError carrying the remote code, message and data', async () => {
    const { server, client } = pair();
    server.onRequest('remote/get', () => {
      throw new RpcError(ErrorCodes.AuthRequired, 'log in first', { methods: ['token'] });
    });
    server.listen();
    client.listen();
    const error = await client.sendRequest('remote/get', { key: '1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: -32000, message: 'log in first', data: { methods: ['token'] } });
  });

  it('rejects a result that fails validation with -32603 naming the pointer, and keeps working', async () => {
    const { server, client } = pair({ validator: testValidator });
    let answer: unknown = { messageId: null };
    server.onRequest('remote/get', () => answer as { messageId: string });
    server.listen();
    client.listen();
    const error = await client.sendRequest('remote/get', { key: '1' }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: ErrorCodes.InternalError,
      data: { pointer: '/result/messageId', expected: 'string' },
    });
    expect((error as Error).message).toContain('/result/messageId');
    answer = { messageId: 'ok' };
    expect(await client.sendRequest('remote/get', { key: '2' })).toEqual({ messageId: 'ok' });
  });

  it('fails the matching request when the peer answers with a malformed response', async () => {
    const peer = rawPeer();
    const pending = peer.connection.sendRequest('_x/y', {});
    const request = await peer.next();
    peer.sendJson({ jsonrpc: '2.0', id: request.id });
    const error = await pending.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.InvalidRequest });
    expect((error as Error).message).toContain('invalid response');
    expect(await peer.probe()).toHaveProperty('result');
  });

  it('allocates distinct integer ids to concurrent requests', async () => {
    const { server, client } = pair();
    const ids: unknown[] = [];
    client.onMessage((direction, message) => {
      if (direction === 'out') ids.push((message as { id: unknown }).id);
    });
    server.onRequest('remote/get', async ({ key }) => ({ messageId: key }));
    server.listen();
    client.listen();
    const results = await Promise.all(
      ['a', 'b', 'c'].map((key) => client.sendRequest('remote/get', { key })),
    );
    expect(results.map((r) => r.messageId)).toEqual(['a', 'b', 'c']);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(3);
  });

  it('delivers notifications to their handler in order', async () => {
    const { server, client } = pair();
    const seen: number[] = [];
    let done: () => void = () => {};
    const all = new Promise<void>((resolve) => (done = resolve));
    server.onNotification('remote/note', ({ n }) => {
      seen.push(n);
      if (n === 4) done();
    });
    server.listen();
    client.listen();
    for (const n of [0, 1, 2, 3, 4]) void client.sendNotification('remote/note', { n });
    await all;
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('lets a fallback handler serve methods without a specific handler', async () => {
    const { server, client } = pair();
    server.onUnhandledRequest((method, params) => ({ method, params }));
    server.listen();
    client.listen();
    expect(await client.sendRequest('_vendor/anything', { a: 1 })).toEqual({
      method: '_vendor/anything',
      params: { a: 1 },
    });
  });

  it('shows every message in and out to the message tap', async () => {
    const { server, client } = pair();
    const tapped: string[] = [];
    client.onMessage((direction, message) => tapped.push(`${direction} ${JSON.stringify(message)}`));
    server.onRequest('remote/get', () => ({ messageId: 'm' }));
    server.listen();
    client.listen();
    await client.sendRequest('remote/get', { key: 'k' });
    expect(tapped).toEqual([
      'out {"jsonrpc":"2.0","id":1,"method":"remote/get","params":{"key":"k"}}',
      'in {"jsonrpc":"2.0","id":1,"result":{"messageId":"m"}}',
    ]);
  });
});

describe('cancellation', () => {
  it('sends $/cancel_request on abort and rejects with the peer’s -32800', async () => {
    const { server, client } = pair();
    const sent: unknown[] = [];
    client.onMessage((direction, message) => direction === 'out' && sent.push(message));
    let started: () => void = () => {};
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    server.onRequest('remote/wait', async (_params, { signal }) => {
      started();
      await aborted(signal);
      throw new Error('stopped');
    });
    server.listen();
    client.listen();
    const controller = new AbortController();
    const pending = client.sendRequest('remote/wait', {}, { signal: controller.signal });
    await handlerStarted;
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.RequestCancelled });
    expect(sent).toContainEqual({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 1 } });
  });

  it('still delivers the result when the handler finished despite the cancel', async () => {
    const { server, client } = pair();
    let started: () => void = () => {};
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    server.onRequest('remote/wait', async (_params, { signal }) => {
      started();
      await aborted(signal);
      return 'done anyway';
    });
    server.listen();
    client.listen();
    const controller = new AbortController();
    const pending = client.sendRequest('remote/wait', {}, { signal: controller.signal });
    await handlerStarted;
    controller.abort();
    expect(await pending).toBe('done anyway');
  });

  it('holds at most MAX_WITHDRAWN_REQUESTS withdrawn requests for a peer that never answers them, giving up the oldest', async () => {
    const { server, client } = pair();
    const diagnostics: string[] = [];
    client.onDiagnostic((diagnostic) => diagnostics.push(diagnostic.kind));
    const answers: Array<(value: string) => void> = [];
    // A peer that ignores $/cancel_request: every request stays unanswered until the test says so.
    server.onRequest('remote/wait', () => new Promise<string>((resolve) => answers.push(resolve)));
    server.listen();
    client.listen();
    const extra = 10;
    const outcomes = Array.from({ length: MAX_WITHDRAWN_REQUESTS + extra }, () => {
      const controller = new AbortController();
      const promise = client.sendRequest('remote/wait', {}, { signal: controller.signal });
      return {
        controller,
        settled: promise.then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        ),
      };
    });
    await vi.waitFor(() => expect(answers).toHaveLength(outcomes.length), { timeout: 10_000 });
    for (const { controller } of outcomes) controller.abort();
    // The oldest `extra` are given up at once; the rest still wait for the peer's late answer.
    const givenUp = await Promise.all(outcomes.slice(0, extra).map((o) => o.settled));
    for (const outcome of givenUp)
      expect(outcome).toMatchObject({ error: { code: ErrorCodes.RequestCancelled } });
    for (const answer of answers) answer('late');
    const kept = await Promise.all(outcomes.slice(extra).map((o) => o.settled));
    expect(kept.every((outcome) => 'value' in outcome && outcome.value === 'late')).toBe(true);
    // The late answers to the given-up ones are unknown responses now, and nothing is left pending.
    await vi.waitFor(() =>
      expect(diagnostics.filter((kind) => kind === 'unknown-response')).toHaveLength(extra),
    );
  });

  it('rejects at once and sends nothing when the signal is already aborted', async () => {
    const { server, client } = pair();
    const sent: unknown[] = [];
    client.onMessage((direction, message) => direction === 'out' && sent.push(message));
    server.listen();
    client.listen();
    const error = await client
      .sendRequest('remote/wait', {}, { signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.RequestCancelled });
    expect(sent).toEqual([]);
  });
});

describe('closing', () => {
  it('rejects pending requests with a connection-closed error when the peer goes away', async () => {
    const { server, client } = pair();
    let started: () => void = () => {};
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    server.onRequest('remote/wait', () => {
      started();
      return new Promise<string>(() => {});
    });
    server.listen();
    client.listen();
    const closed = new Promise<RpcError>((resolve) => client.onClose(resolve));
    const pending = client.sendRequest('remote/wait', {});
    await handlerStarted;
    server.close();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.ConnectionClosed });
    expect(await closed).toBe(error);
    expect(client.isClosed).toBe(true);
    await expect(client.sendRequest('remote/get', { key: 'late' })).rejects.toMatchObject({
      code: ErrorCodes.ConnectionClosed,
    });
  });

  it('closes with the reason given to close(): pending requests, onClose and later sends all get it', async () => {
    const { server, client } = pair();
    server.onRequest('remote/wait', () => new Promise<string>(() => {}));
    server.listen();
    client.listen();
    const closed = new Promise<RpcError>((resolve) => client.onClose(resolve));
    const pending = client.sendRequest('remote/wait', {});
    const reason = new RpcError(ErrorCodes.OutgoingBufferFull, 'cut off: the peer is not reading');
    client.close(reason);
    client.close(new RpcError(ErrorCodes.ConnectionClosed, 'a second close keeps the first reason'));
    await expect(pending).rejects.toBe(reason);
    expect(await closed).toBe(reason);
    await expect(client.sendNotification('remote/note', { n: 1 })).rejects.toBe(reason);
  });

  it('aborts running handlers when the connection closes', async () => {
    const { server, client } = pair();
    let signal: AbortSignal | undefined;
    let started: () => void = () => {};
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    server.onRequest('remote/wait', (_params, context) => {
      signal = context.signal;
      started();
      return new Promise<string>(() => {});
    });
    server.listen();
    client.listen();
    void client.sendRequest('remote/wait', {}).catch(() => {});
    await handlerStarted;
    server.close();
    expect(signal?.aborted).toBe(true);
  });

  it('refuses a second handler for the same method', () => {
    const { server } = pair();
    server.onRequest('remote/get', () => ({ messageId: 'a' }));
    expect(() => server.onRequest('remote/get', () => ({ messageId: 'b' }))).toThrow(/already registered/);
  });
});

describe('outgoing size limit', () => {
  it('refuses to send a request larger than the limit without closing the connection', async () => {
    const [a, b] = createInProcessPair();
    const server = new Connection(a).listen();
    server.onRequest('echo', (params) => params);
    const client = new Connection(b, { maxMessageBytes: 1000 }).listen();
    const error = await client.sendRequest('echo', { pad: 'x'.repeat(2000) }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: ErrorCodes.InternalError,
      data: { reason: 'oversized', limit: 1000 },
    });
    expect(client.isClosed).toBe(false);
    expect(await client.sendRequest('echo', { small: true })).toEqual({ small: true });
  });

  it('answers -32603 when a handler result is too large to send', async () => {
    const [a, b] = createInProcessPair();
    const server = new Connection(a, { maxMessageBytes: 1000 });
    server.onRequest('big', () => 'x'.repeat(2000));
    server.listen();
    const client = new Connection(b).listen();
    await expect(client.sendRequest('big', {})).rejects.toMatchObject({
      code: ErrorCodes.InternalError,
      message: 'Internal error: result too large',
    });
  });
});
