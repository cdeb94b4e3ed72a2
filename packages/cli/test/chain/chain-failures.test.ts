/**
 * #29, proxy chains, bad input: a successor that dies, one that writes garbage, one whose
 * initialize result is not an InitializeResponse, a proxy that sends a malformed envelope, and a
 * proxy spoken to before proxy/initialize — each gets a clear JSON-RPC error (code, message
 * naming the component or the method, a pointer where there is one), nothing hangs, and nothing
 * of the chain is left running.
 */
import { join } from 'node:path';
import {
  Connection,
  type ExtensionMethod,
  noValidation,
  RpcError,
  spawnTransport,
  type Transport,
} from '@acp-kit/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, requireBuild, tempDir } from '../harness.js';
import { noneLeft, proxyLine, REFERENCE_AGENT, spawnChain } from './chain-process.js';
import { writeFakeComponents } from './fake-components.js';

beforeAll(requireBuild);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const INITIALIZE = { protocolVersion: 2, info: { name: 'failure-test', version: '0.0.0' }, capabilities: {} };
const ext = (method: string) => method as ExtensionMethod;

/** A raw JSON-RPC connection (nothing validated) over `transport`. */
function raw(transport: Transport): Connection {
  const connection = new Connection(transport, { validator: noValidation });
  cleanups.push(() => connection.close());
  return connection;
}

/** The error a request was refused with. */
async function refusal(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    (result) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

function setup() {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  return { dir, fake: writeFakeComponents(dir) };
}

/** `acp-kit chain` with one acp-kit proxy (marked with `dir`) in front of `agent`. */
function chainWithOneProxy(dir: string, agent: readonly string[]) {
  const chain = spawnChain([proxyLine('--log', join(dir, 'proxy.ndjson'))], agent);
  cleanups.push(async () => void (await chain.shutdown({ graceMs: 200 })));
  return chain;
}

describe('a chain whose components fail', () => {
  it('a successor that exits: the waiting request gets -32603 naming it and its exit code, the chain exits 1, nothing is left', async () => {
    const { dir, fake } = setup();
    const chain = chainWithOneProxy(dir, fake['dies-on-session-new.mjs']);
    const client = raw(chain).listen();
    await client.sendRequest(ext('initialize'), INITIALIZE);
    const error = await refusal(client.sendRequest(ext('session/new'), { cwd: dir, mcpServers: [] }));
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(
      /^the proxy chain is broken: agent \(.*dies-on-session-new\.mjs\) exited with code 3 \(before it answered session\/new\)$/,
    );
    expect(await chain.exited).toEqual({ code: 1, signal: null });
    expect(chain.stderr()).toMatch(/acp-kit chain: agent \(.*\) exited with code 3/);
    await noneLeft(dir);
  });

  it('a proxy that exits in the middle of the chain: -32603 naming it by its place, nothing is left', async () => {
    const { dir, fake } = setup();
    const chain = spawnChain(
      [fake['dies-on-session-new.mjs'].join(' '), proxyLine('--log', join(dir, 'proxy.ndjson'))],
      [...REFERENCE_AGENT, '--history', join(dir, 'history.db')],
    );
    cleanups.push(async () => void (await chain.shutdown({ graceMs: 200 })));
    const client = raw(chain).listen();
    await client.sendRequest(ext('initialize'), INITIALIZE);
    const error = await refusal(client.sendRequest(ext('session/new'), { cwd: dir, mcpServers: [] }));
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(
      /^the proxy chain is broken: proxy 1 of 2 \(.*dies-on-session-new\.mjs\) exited with code 3 \(before it answered session\/new\)$/,
    );
    expect(await chain.exited).toEqual({ code: 1, signal: null });
    await noneLeft(dir);
  });

  it('a successor that writes garbage (and ignores SIGTERM): -32603 quoting it, the chain exits 1 and stops it', async () => {
    const { dir, fake } = setup();
    const chain = chainWithOneProxy(dir, fake['garbage-on-session-new.mjs']);
    const client = raw(chain).listen();
    await client.sendRequest(ext('initialize'), INITIALIZE);
    const error = await refusal(client.sendRequest(ext('session/new'), { cwd: dir, mcpServers: [] }));
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(
      /^the proxy chain is broken: agent \(.*garbage-on-session-new\.mjs\) wrote something that is not JSON-RPC \(.*\): "this is not JSON-RPC" \(before it answered session\/new\)$/,
    );
    expect(await chain.exited).toEqual({ code: 1, signal: null });
    await noneLeft(dir);
  });

  it('a successor whose initialize result is not an InitializeResponse: the proxy answers -32603 at /result/protocolVersion', async () => {
    const { dir, fake } = setup();
    const chain = chainWithOneProxy(dir, fake['bad-initialize.mjs']);
    const client = raw(chain).listen();
    const error = await refusal(client.sendRequest(ext('initialize'), INITIALIZE));
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(
      /^the successor's initialize result is not an InitializeResponse at \/result\/protocolVersion: expected /,
    );
    expect((error.data as { pointer?: string }).pointer).toBe('/result/protocolVersion');
    client.close();
    expect(await chain.exited).toEqual({ code: 0, signal: null });
    await noneLeft(dir);
  });

  it('a proxy that sends proxy/successor without a method is refused -32602 at /params/method, and the chain goes on', async () => {
    const { dir, fake } = setup();
    const chain = spawnChain(
      [fake['bad-envelope-proxy.mjs'].join(' ')],
      [...REFERENCE_AGENT, '--history', join(dir, 'history.db')],
    );
    cleanups.push(async () => void (await chain.shutdown({ graceMs: 200 })));
    const client = raw(chain).listen();
    // A client gets no proxy methods from the conductor: it is the client's agent.
    const asProxy = await refusal(client.sendRequest(ext('proxy/successor'), { method: 'initialize' }));
    expect([asProxy.code, asProxy.message]).toEqual([
      -32601,
      "proxy/successor is not served to a client: this conductor is the client's agent, not a proxy in another chain",
    ]);
    const init = (await client.sendRequest(ext('initialize'), INITIALIZE)) as {
      protocolVersion: number;
      _meta: { refusal: { code: number; message: string; data: { pointer: string } } };
    };
    expect(init.protocolVersion).toBe(2);
    expect(init._meta.refusal.code).toBe(-32602);
    expect(init._meta.refusal.data.pointer).toBe('/params/method');
    expect(init._meta.refusal.message).toMatch(/at \/params\/method/);
    client.close();
    expect(await chain.exited).toEqual({ code: 0, signal: null });
    await noneLeft(dir);
  });
});

describe('acp-kit proxy spoken to by a test playing its conductor', () => {
  it('refuses everything before proxy/initialize, a plain initialize and a second initialization; wraps, unwraps, passes errors through unchanged and cancels hop by hop', async () => {
    const { dir } = setup();
    let stderr = '';
    const proxy = spawnTransport(process.execPath, [BIN, 'proxy', '--log', join(dir, 'proxy.ndjson')], {
      name: 'acp-kit proxy',
      onStderr: (text) => {
        stderr += text;
      },
    });
    cleanups.push(async () => void (await proxy.shutdown({ graceMs: 200 })));
    const conductor = raw(proxy);
    // What the proxy sends its successor (us): every proxy/successor request, and cancellations.
    const wrapped: { method: string; params?: unknown }[] = [];
    const cancelled: unknown[] = [];
    let answerSuccessor: (inner: { method: string; params?: unknown }) => unknown = () => {
      throw new Error('not expected');
    };
    conductor.onUnhandledRequest((method, params, context) => {
      expect(method).toBe('proxy/successor');
      const inner = params as { method: string; params?: unknown };
      wrapped.push(inner);
      return inner.method === 'session/prompt'
        ? new Promise((_, reject) =>
            context.signal.addEventListener('abort', () => reject(new RpcError(-32800, 'cancelled'))),
          )
        : answerSuccessor(inner);
    });
    conductor.onMessage((direction, message) => {
      const m = message as { method?: string; params?: { requestId?: unknown } };
      if (direction === 'in' && m.method === '$/cancel_request') cancelled.push(m.params?.requestId);
    });
    conductor.listen();

    await conductor.sendNotification(ext('session/cancel'), { sessionId: 's' });
    const early = await refusal(conductor.sendRequest(ext('session/new'), { cwd: dir, mcpServers: [] }));
    expect([early.code, early.message]).toEqual([
      -32600,
      'session/new before proxy/initialize: the conductor must initialize this proxy first',
    ]);
    const plain = await refusal(conductor.sendRequest(ext('initialize'), INITIALIZE));
    expect(plain.code).toBe(-32600);
    expect(plain.message).toMatch(/^initialize: this component is an ACP proxy/);
    const envelope = await refusal(conductor.sendRequest(ext('proxy/successor'), { params: {} }));
    expect([envelope.code, (envelope.data as { pointer: string }).pointer]).toEqual([
      -32602,
      '/params/method',
    ]);
    const stringParams = await refusal(
      conductor.sendRequest(ext('proxy/successor'), { method: 'x', params: 'y' }),
    );
    expect([stringParams.code, (stringParams.data as { pointer: string }).pointer]).toEqual([
      -32602,
      '/params/params',
    ]);
    const badInit = await refusal(conductor.sendRequest(ext('proxy/initialize'), { info: INITIALIZE.info }));
    expect([badInit.code, (badInit.data as { pointer: string }).pointer]).toEqual([
      -32602,
      '/params/protocolVersion',
    ]);
    expect(wrapped).toEqual([]);
    expect(stderr).toMatch(/acp-kit proxy: session\/cancel notification before proxy\/initialize dropped/);

    answerSuccessor = () => ({
      protocolVersion: 2,
      info: { name: 'successor', version: '1' },
      capabilities: {},
    });
    const init = (await conductor.sendRequest(ext('proxy/initialize'), INITIALIZE)) as {
      info: { name: string };
      _meta: Record<string, unknown>;
    };
    expect(wrapped).toEqual([{ method: 'initialize', params: INITIALIZE }]);
    expect(init.info.name).toBe('successor');
    expect(init._meta['acp-kit.dev/proxies']).toEqual(['acp-kit proxy']);
    const again = await refusal(conductor.sendRequest(ext('proxy/initialize'), INITIALIZE));
    expect(again.message).toMatch(/already initialized/);

    // The successor's error comes back to the predecessor unchanged, code, message and data.
    answerSuccessor = () => {
      throw new RpcError(-32002, 'no such session', { sessionId: 'sess_gone' });
    };
    const passed = await refusal(conductor.sendRequest(ext('session/close'), { sessionId: 'sess_gone' }));
    expect([passed.code, passed.message, passed.data]).toEqual([
      -32002,
      'no such session',
      { sessionId: 'sess_gone' },
    ]);
    expect(wrapped.at(-1)).toEqual({ method: 'session/close', params: { sessionId: 'sess_gone' } });

    // Cancelling the predecessor's request makes the proxy cancel its own proxy/successor request.
    const abort = new AbortController();
    const prompt = conductor.sendRequest(
      ext('session/prompt'),
      { sessionId: 's', prompt: [{ type: 'text', text: 'hi' }] },
      { signal: abort.signal },
    );
    while (wrapped.at(-1)?.method !== 'session/prompt')
      await new Promise((resolve) => setTimeout(resolve, 10));
    abort.abort();
    expect((await refusal(prompt)).code).toBe(-32800);
    expect(cancelled).toHaveLength(1);
    expect(typeof cancelled[0]).toBe('number');
  });
});
