import { METHOD_CAPABILITIES, type MethodName } from '@acp-kit/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientConnection, type UnstableClient } from '../../src/client/index.js';
import { Connection, type Diagnostic, ErrorCodes, RpcError } from '../../src/rpc/index.js';
import { createInProcessPair } from '../../src/transports/index.js';

/** The methods an agent serves, by the generated table: what a client sends. */
type AgentServed = {
  [M in keyof typeof METHOD_CAPABILITIES]: (typeof METHOD_CAPABILITIES)[M]['servedBy'] extends
    | 'agent'
    | 'both'
    ? M
    : never;
}[keyof typeof METHOD_CAPABILITIES];
/** The methods a client serves: what an agent sends. */
type ClientServed = {
  [M in keyof typeof METHOD_CAPABILITIES]: (typeof METHOD_CAPABILITIES)[M]['servedBy'] extends
    | 'client'
    | 'both'
    ? M
    : never;
}[keyof typeof METHOD_CAPABILITIES];

/** A method the `Client` class does not send or serve itself, and why. */
interface Exempt {
  readonly exempt: string;
}

const SESSION = 'sess_1';
const NES = 'sent by NesClient (`@acp-kit/sdk/nes`), which drives an NES session over a Client';
const PROXY =
  'sent and served by the proxy-chain conductor and proxies (`packages/sdk/src/proxy/`), not by an end client';

/**
 * How a `Client` sends each method an agent serves: a call of one of its methods, or a stated
 * exemption. Typed by the generated table, so a method the schema gains fails to compile until
 * it has a row; the test below fails at run time for the same reason and when a call sends a
 * different method.
 */
const CLIENT_CALL = {
  initialize: (c) => c.initialize(),
  'proxy/initialize': { exempt: PROXY },
  'proxy/successor': { exempt: PROXY },
  'auth/login': (c) => c.login('password'),
  'auth/logout': (c) => c.logout(),
  'auth/status': (c) => c.authStatus(),
  'session/new': (c) => c.newSession('/tmp'),
  'session/list': (c) => c.listSessions(),
  'session/resume': (c) => c.resume(SESSION, { cwd: '/tmp' }),
  'session/close': (c) => c.closeSession(SESSION),
  'session/delete': (c) => c.deleteSession(SESSION),
  'session/prompt': (c) => c.prompt(SESSION, [{ type: 'text', text: 'hi' }]),
  'session/cancel': (c) => c.cancel(SESSION),
  'tool_call/cancel': (c) => c.cancelToolCall(SESSION, 'call_1'),
  'terminal/cancel': (c) => c.cancelTerminal(SESSION, 'term_1'),
  'session/set_config_option': (c) => c.setConfigOption(SESSION, 'mode', 'ask'),
  'session/fork': (c) => c.forkSession({ sessionId: SESSION, cwd: '/tmp' }),
  'session/set_title': (c) => c.setTitle(SESSION, 'A title'),
  'session/status': (c) => c.sessionStatus(SESSION),
  'session/archive': (c) => c.archiveSession(SESSION),
  'session/unarchive': (c) => c.unarchiveSession(SESSION),
  '$/cancel_request': {
    exempt: 'sent by the Connection for any call whose AbortSignal aborts (CallOptions.signal)',
  },
  'providers/list': (c) => c.listProviders(),
  'providers/set': (c) =>
    c.setProvider({ providerId: 'main', apiType: 'openai', baseUrl: 'http://127.0.0.1:1' }),
  'providers/disable': (c) => c.disableProvider('main'),
  'nes/start': { exempt: NES },
  'nes/suggest': { exempt: NES },
  'nes/accept': { exempt: NES },
  'nes/reject': { exempt: NES },
  'nes/close': { exempt: NES },
  'document/didOpen': { exempt: NES },
  'document/didChange': { exempt: NES },
  'document/didClose': { exempt: NES },
  'document/didSave': { exempt: NES },
  'document/didFocus': { exempt: NES },
} as const satisfies { readonly [M in AgentServed]: ((client: UnstableClient) => unknown) | Exempt };

/** The methods an agent sends that a `Client` does not answer itself, and why. */
const CLIENT_SERVES_EXEMPT: { readonly [M in ClientServed]?: string } = {
  'proxy/successor': PROXY,
  '$/cancel_request': 'handled by every Connection: it aborts the named request’s signal',
};

type AgentSide = Connection<
  Record<string, never>,
  Record<string, never>,
  Record<string, never>,
  Record<string, never>
>;

let closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers) close();
  closers = [];
});

/** An unstable client and a bare agent-side connection over an in-memory ndjson pair. */
function pair(): { client: UnstableClient; agent: AgentSide; clientDiagnostics: Diagnostic[] } {
  const [clientTransport, agentTransport] = createInProcessPair();
  const connection: ClientConnection = new Connection(clientTransport);
  const clientDiagnostics: Diagnostic[] = [];
  connection.onDiagnostic((diagnostic) => clientDiagnostics.push(diagnostic));
  const client = new Client(connection, { info: { name: 't', version: '0' }, unstable: true });
  const agent: AgentSide = new Connection(agentTransport);
  closers.push(
    () => client.close(),
    () => agent.close(),
  );
  return { client, agent, clientDiagnostics };
}

function servedBy(side: 'agent' | 'client'): MethodName[] {
  return (Object.keys(METHOD_CAPABILITIES) as MethodName[]).filter((method) => {
    const servedBy = METHOD_CAPABILITIES[method].servedBy;
    return servedBy === side || servedBy === 'both';
  });
}

describe('the Client covers the schema’s methods', () => {
  it('has a call for every method an agent serves, or a stated exemption, and the call sends that method', async () => {
    const { client, agent } = pair();
    const received: string[] = [];
    const table = CLIENT_CALL as Record<string, ((client: UnstableClient) => unknown) | Exempt>;
    for (const method of servedBy('agent')) {
      const refuse = (): never => {
        received.push(method);
        throw new RpcError(ErrorCodes.InternalError, 'recorded');
      };
      if (METHOD_CAPABILITIES[method].kind === 'request') agent.onRequest(method as `_${string}`, refuse);
      else agent.onNotification(method as `_${string}`, () => void received.push(method));
    }
    agent.listen();

    const missing = servedBy('agent').filter((method) => table[method] === undefined);
    expect(missing, 'agent methods with no Client call and no exemption in CLIENT_CALL').toEqual([]);

    const wrong: string[] = [];
    for (const method of servedBy('agent')) {
      const call = table[method];
      if (call === undefined || typeof call !== 'function') continue;
      received.length = 0;
      await Promise.resolve(call(client)).catch(() => undefined);
      // A notification has no answer: wait, bounded, until the agent saw something.
      if (METHOD_CAPABILITIES[method].kind === 'notification')
        await expect.poll(() => received.length).toBe(1);
      if (received.join() !== method) wrong.push(`${method}: the call sent ${received.join() || 'nothing'}`);
    }
    expect(wrong).toEqual([]);
  });

  it('answers every method an agent sends, unless exempt (no -32601, no unknown-notification)', async () => {
    const { agent, clientDiagnostics } = pair();
    agent.listen();
    const unanswered: string[] = [];
    for (const method of servedBy('client')) {
      if (CLIENT_SERVES_EXEMPT[method as ClientServed] !== undefined) continue;
      if (METHOD_CAPABILITIES[method].kind === 'request') {
        // Params `{}` are invalid for every such method: a handler answers -32602, none -32601.
        const error = await agent.sendRequest(method as `_${string}`, {}).then(
          () => null,
          (e: unknown) => e,
        );
        if (error instanceof RpcError && error.code === ErrorCodes.MethodNotFound) unanswered.push(method);
      } else {
        await agent.sendNotification(method as `_${string}`, {});
      }
    }
    // A round trip after the notifications: the client has read them all.
    await agent.sendRequest('session/request_permission' as `_${string}`, {}).catch(() => undefined);
    for (const diagnostic of clientDiagnostics)
      if (diagnostic.kind === 'unknown-notification') unanswered.push(diagnostic.method ?? '?');
    expect(unanswered).toEqual([]);
  });
});
