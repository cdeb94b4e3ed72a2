/**
 * An agent advertises logout exactly when it serves it — to a v2 client (by listing auth methods)
 * and to a v1 client (`agentCapabilities.auth.logout`), through the in-process v1 codec and the
 * v2-agent-as-v1 bridge alike. Without auth methods, logout is not served (-32601) and not offered.
 */
import { Agent, Connection, createInProcessPair, negotiateAgentVersion, schemaValidator } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { serveV2AgentAsV1, v1SchemaValidator, v1WireCodec } from '../src/index.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

function agent(withAuth: boolean): Agent {
  return new Agent({
    info: { name: 'logout-agent', version: '1.0.0' },
    onPrompt: async (prompt, { session }) => {
      await prompt.insert();
      await session.idle('end_turn');
    },
    ...(withAuth
      ? { auth: { methods: [{ type: 'agent' as const, methodId: 'token', name: 'Token' }] } }
      : {}),
  });
}

/** A raw connection to the agent through the negotiating transport (v1 or v2 by its initialize). */
function viaCodec(withAuth: boolean): Connection {
  const [agentSide, clientSide] = createInProcessPair();
  agent(withAuth).serve(
    new Connection(negotiateAgentVersion(agentSide, { codecs: [v1WireCodec] }), {
      validator: schemaValidator,
    }),
  );
  const client = new Connection(clientSide);
  client.listen();
  closers.push(() => client.close());
  return client;
}

/** A raw v1 connection to the agent through serveV2AgentAsV1. */
function viaBridge(withAuth: boolean): Connection {
  const [agentSide, bridgeAgentSide] = createInProcessPair();
  agent(withAuth).serve(new Connection(agentSide, { validator: schemaValidator }));
  const [clientSide, bridgeClientSide] = createInProcessPair();
  const bridge = serveV2AgentAsV1({ agent: bridgeAgentSide, client: bridgeClientSide });
  closers.push(() => bridge.close());
  const client = new Connection(clientSide, { validator: v1SchemaValidator });
  client.listen();
  closers.push(() => client.close());
  return client;
}

/** What a v1 client is offered for logout and what logout answers. */
async function v1Logout(client: Connection): Promise<{ offered: unknown; answer: unknown }> {
  const init = (await client.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} })) as {
    agentCapabilities?: { auth?: { logout?: unknown } };
  };
  const answer = await client.sendRequest('logout', {}).then(
    (result: unknown) => ({ result }),
    (error: { code?: number }) => ({ code: error.code }),
  );
  return { offered: init.agentCapabilities?.auth?.logout ?? 'not offered', answer };
}

describe('logout is advertised exactly when it is served', () => {
  for (const [via, connect] of [
    ['the in-process codec', viaCodec],
    ['the v2-agent-as-v1 bridge', viaBridge],
  ] as const) {
    it(`a v1 client of an agent without auth methods is not offered logout, which is not served (${via})`, async () => {
      expect(await v1Logout(connect(false))).toEqual({ offered: 'not offered', answer: { code: -32601 } });
    });

    it(`a v1 client of an agent with auth methods is offered logout, which is served (${via})`, async () => {
      expect(await v1Logout(connect(true))).toEqual({ offered: {}, answer: { result: {} } });
    });
  }

  for (const withAuth of [false, true]) {
    it(`a v2 client of an agent ${withAuth ? 'with' : 'without'} auth methods is offered auth/logout (by authMethods) exactly when it is served`, async () => {
      const client = viaCodec(withAuth);
      const init = (await client.sendRequest('initialize', {
        protocolVersion: 2,
        info: { name: 'v2-client', version: '1' },
        capabilities: {},
      })) as { authMethods?: unknown[] };
      const answer = await client.sendRequest('auth/logout', {}).then(
        (result: unknown) => ({ result }),
        (error: { code?: number }) => ({ code: error.code }),
      );
      expect({ offered: (init.authMethods?.length ?? 0) > 0, answer }).toEqual(
        withAuth ? { offered: true, answer: { result: {} } } : { offered: false, answer: { code: -32601 } },
      );
    });
  }
});
