/**
 * The unstable surface is opt-in at the type level, as the official SDK's separate entry points
 * make it: a stable-only client cannot call an unstable method nor be given to a `NesClient`, and a
 * stable-only agent cannot be given an unstable capability, `providers`, `mcpOverAcp` or `nes`,
 * without the literal `unstable: true`.
 * The proof is the `// @ts-expect-error` lines: `tsc` (the package's typecheck, which covers the
 * tests) fails on any of them that compiles, so this file stops compiling the day an unstable
 * method becomes callable without opting in. The run-time checks behind them are pinned in
 * `unstable-opt-in.test.ts`.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { Agent, type AgentOptions } from '../src/agent/index.js';
import { Client, type ClientConnection, type UnstableClient } from '../src/client/client.js';
import { Connection } from '../src/rpc/connection.js';
import { createInProcessPair } from '../src/transports/in-process.js';
import { type NesAgentOptions, NesClient } from '../src/nes/index.js';
import { UNSTABLE_METHODS } from '../src/unstable-surface.js';

const info = { name: 'typing', version: '0.0.0' };
const onPrompt: AgentOptions['onPrompt'] = async (prompt, { session }) => {
  await prompt.insert();
  await session.idle('end_turn');
};
const nes: NesAgentOptions = { suggest: () => [] };

function clientConnection(): ClientConnection {
  const [, clientSide] = createInProcessPair();
  return new Connection(clientSide) as ClientConnection;
}

/** Every unstable request a client can send, called on `client`: compiles only for an opted-in client. */
function callEveryUnstableMethod(client: UnstableClient): Promise<unknown>[] {
  const sessionId = 's';
  return [
    client.forkSession({ sessionId, cwd: '/repo' }),
    client.setTitle(sessionId, 'T'),
    client.sessionStatus(sessionId),
    client.archiveSession(sessionId),
    client.unarchiveSession(sessionId),
    client.authStatus(),
    client.listProviders(),
    client.setProvider({ providerId: 'm', apiType: 'openai', baseUrl: 'https://x', headers: {} }),
    client.disableProvider('m'),
  ];
}

describe('a stable-only client cannot call an unstable method (a compile error)', () => {
  it('types a client created without unstable: true as stable, one created with it as UnstableClient', () => {
    const stable = new Client(clientConnection(), { info });
    const stableFalse = new Client(clientConnection(), { info, unstable: false });
    const unstable = new Client(clientConnection(), { info, unstable: true });
    expectTypeOf(unstable).toEqualTypeOf<UnstableClient>();
    expectTypeOf(stable).not.toEqualTypeOf<UnstableClient>();
    // Type-checked, never run (a call would only reject at run time).
    const typeOnly = () => [
      // @ts-expect-error a stable client is not an UnstableClient
      callEveryUnstableMethod(stable),
      // @ts-expect-error `unstable: false` is stable too
      callEveryUnstableMethod(stableFalse),
      callEveryUnstableMethod(unstable),
    ];
    expectTypeOf(typeOnly).toBeFunction();
    // An opted-in client goes wherever a client is expected.
    const anyClient: Client = unstable;
    expect(anyClient.unstable).toBe(true);
    for (const client of [stable, stableFalse, unstable]) client.close();
  });

  it('refuses each unstable method on a stable client at compile time', () => {
    const client = new Client(clientConnection(), { info });
    // Type-checked, never run (each call would only reject at run time).
    const calls = () => [
      // @ts-expect-error session/fork is unstable
      client.forkSession({ sessionId: 's', cwd: '/repo' }),
      // @ts-expect-error session/set_title is unstable
      client.setTitle('s', 'T'),
      // @ts-expect-error session/status is unstable
      client.sessionStatus('s'),
      // @ts-expect-error session/archive is unstable
      client.archiveSession('s'),
      // @ts-expect-error session/unarchive is unstable
      client.unarchiveSession('s'),
      // @ts-expect-error auth/status is unstable
      client.authStatus(),
      // @ts-expect-error providers/list is unstable
      client.listProviders(),
      // @ts-expect-error providers/set is unstable
      client.setProvider({ providerId: 'm', apiType: 'openai', baseUrl: 'https://x', headers: {} }),
      // @ts-expect-error providers/disable is unstable
      client.disableProvider('m'),
      // @ts-expect-error MCP over ACP is unstable
      client.hostMcpServer({ name: 'words' }),
    ];
    expectTypeOf(calls).toBeFunction();
    // The list above covers every unstable request a client sends (the rest are the agent's, and
    // next edit suggestions, which a client sends through its own `NesClient`, not `Client`).
    const clientSends = [...UNSTABLE_METHODS].filter(
      (method) =>
        !['auth/status_update', 'mcp/message', 'proxy/initialize', 'proxy/successor'].includes(method) &&
        !method.startsWith('nes/') &&
        !method.startsWith('document/'),
    );
    expect(clientSends).toHaveLength(callEveryUnstableMethod.toString().match(/client\.\w+\(/g)?.length ?? 0);
    client.close();
  });
});

describe('a stable-only client cannot reach next edit suggestions (a compile error)', () => {
  it('takes only an UnstableClient in NesClient, and throws for a stable one cast past the types', () => {
    const stable = new Client(clientConnection(), { info });
    const stableFalse = new Client(clientConnection(), { info, unstable: false });
    const unstable = new Client(clientConnection(), { info, unstable: true });
    const init = { protocolVersion: 2, info, capabilities: { nes: {} } };
    // Type-checked, never run (each would only throw at run time).
    const typeOnly = () => [
      // @ts-expect-error a stable client cannot drive next edit suggestions
      new NesClient(stable, init),
      // @ts-expect-error `unstable: false` is stable too
      new NesClient(stableFalse, init),
    ];
    expectTypeOf(typeOnly).toBeFunction();
    expect(new NesClient(unstable, init).offered).toBe(true);
    // The run-time check behind the type, for a client cast past it.
    expect(() => new NesClient(stable as unknown as UnstableClient, init)).toThrow(/unstable: true/);
    for (const client of [stable, stableFalse, unstable]) client.close();
  });
});

describe('a stable-only agent cannot register an unstable method (a compile error)', () => {
  it('refuses unstable capabilities, providers and mcpOverAcp without unstable: true, and takes them with it', () => {
    const make = {
      // @ts-expect-error session/fork is unstable
      fork: () => new Agent({ info, onPrompt, capabilities: { session: { fork: {} } } }),
      // @ts-expect-error session/set_title is unstable
      title: () => new Agent({ info, onPrompt, capabilities: { session: { title: {} } } }),
      // @ts-expect-error session/status is unstable
      status: () => new Agent({ info, onPrompt, capabilities: { session: { status: {} } } }),
      // @ts-expect-error session/archive is unstable
      archive: () => new Agent({ info, onPrompt, capabilities: { session: { archive: {} } } }),
      // @ts-expect-error a systemPrompt on session/new is unstable
      systemPrompt: () => new Agent({ info, onPrompt, capabilities: { session: { systemPrompt: {} } } }),
      // @ts-expect-error MCP servers of type acp are unstable
      mcpAcp: () => new Agent({ info, onPrompt, capabilities: { session: { mcp: { acp: {} } } } }),
      // @ts-expect-error auth/status is unstable
      authStatus: () => new Agent({ info, onPrompt, capabilities: { auth: { status: {} } } }),
      // @ts-expect-error providers/* are unstable
      providers: () => new Agent({ info, onPrompt, unstable: false, providers: [] }),
      // @ts-expect-error MCP over ACP is unstable
      mcpOverAcp: () => new Agent({ info, onPrompt, mcpOverAcp: true }),
      // @ts-expect-error next edit suggestions are unstable
      nes: () => new Agent({ info, onPrompt, nes }),
      // @ts-expect-error the nes capability is unstable
      nesCapability: () => new Agent({ info, onPrompt, capabilities: { nes: {} } }),
      // @ts-expect-error a position encoding is negotiated for NES only
      positionEncoding: () => new Agent({ info, onPrompt, capabilities: { positionEncoding: 'utf-16' } }),
    };
    for (const [what, build] of Object.entries(make)) expect(build, what).toThrow(/unstable: true/);
    // Opted in, the same options compile and construct.
    const opted = new Agent({
      info,
      onPrompt,
      unstable: true,
      capabilities: { session: { fork: {}, title: {}, mcp: { acp: {} } }, auth: { status: {} } },
      mcpOverAcp: true,
      nes,
    });
    expect(opted.capabilities.session?.fork).toEqual({});
    expect(opted.capabilities.nes).toEqual({});
    // Stable capabilities compile without the opt-in.
    const stable = new Agent({ info, onPrompt, capabilities: { session: { mcp: { http: {} } } } });
    expect(stable.capabilities.session?.fork ?? undefined).toBeUndefined();
  });
});
