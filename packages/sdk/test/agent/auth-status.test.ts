/**
 * `auth/status` and `auth/status_update` (upstream's unstable surface): served by an agent that
 * advertises `capabilities.auth.status`; answered before any login (never -32000), and a login or
 * logout that changes the state is followed by one update.
 */
import type { AuthStatusUpdateNotification } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { Agent, type AgentConnection, type AgentOptions } from '../../src/agent/index.js';
import { Client, type ClientConnection, type UnstableClient } from '../../src/client/index.js';
import { Connection } from '../../src/rpc/index.js';
import { createInProcessPair } from '../../src/transports/index.js';
import { refusal } from './harness.js';

const METHODS = [{ type: 'agent' as const, methodId: 'reference', name: 'Reference login' }];

const options = (extra: Partial<AgentOptions> = {}): AgentOptions => ({
  info: { name: 'auth-status-agent', version: '0.0.0' },
  unstable: true,
  async onPrompt(prompt, { session }) {
    await prompt.insert();
    await session.idle('end_turn');
  },
  capabilities: { auth: { status: {} } },
  ...extra,
});

function connect(agent: Agent): { client: UnstableClient; updates: AuthStatusUpdateNotification[] } {
  const [agentSide, clientSide] = createInProcessPair();
  agent.serve(new Connection(agentSide) as AgentConnection);
  const updates: AuthStatusUpdateNotification[] = [];
  const client = new Client(new Connection(clientSide) as ClientConnection, {
    info: { name: 'auth-status-client', version: '0.0.0' },
    unstable: true,
    onAuthStatus: (update) => updates.push(update),
  });
  return { client, updates };
}

describe('auth/status', () => {
  it('answers unauthenticated before a login the agent requires (never -32000), authenticated after it, and sends one update per change', async () => {
    const agent = new Agent(options({ auth: { methods: METHODS, required: true } }));
    const { client, updates } = connect(agent);
    const init = await client.initialize();
    expect(init.capabilities?.auth?.status).toEqual({});
    expect(await client.authStatus()).toEqual({ state: 'unauthenticated' });
    expect((await refusal(client.createSession({ cwd: '/work' }))).code).toBe(-32000);

    await client.login('reference');
    await expect.poll(() => updates).toEqual([{ state: 'authenticated' }]);
    expect(await client.authStatus()).toEqual({ state: 'authenticated' });
    await client.createSession({ cwd: '/work' });
    // A second login changes nothing: no second update.
    await client.login('reference');
    await client.logout();
    await expect.poll(() => updates).toEqual([{ state: 'authenticated' }, { state: 'unauthenticated' }]);
  });

  it('reports not_required for an agent that needs no login, and what the application says when it gives auth.status', async () => {
    const open = connect(new Agent(options()));
    await open.client.initialize();
    expect(await open.client.authStatus()).toEqual({ state: 'not_required' });

    const own = connect(
      new Agent(
        options({
          auth: {
            methods: METHODS,
            status: (loggedIn) =>
              loggedIn
                ? { state: 'authenticated', accounts: [{ label: 'Reference login', active: true }] }
                : { state: 'unauthenticated', accounts: [] },
          },
        }),
      ),
    );
    await own.client.initialize();
    expect(await own.client.authStatus()).toEqual({ state: 'unauthenticated', accounts: [] });
    await own.client.login('reference');
    await expect
      .poll(() => own.updates)
      .toEqual([{ state: 'authenticated', accounts: [{ label: 'Reference login', active: true }] }]);
  });

  it('refuses auth/status before initialize with -32600', async () => {
    const { client } = connect(new Agent(options()));
    const error = await refusal(client.authStatus());
    expect(error.code).toBe(-32600);
  });

  it('is not served (-32601) nor advertised, and sends no update, without capabilities.auth.status', async () => {
    const agent = new Agent({ ...options({ auth: { methods: METHODS } }), capabilities: {} });
    const { client, updates } = connect(agent);
    const init = await client.initialize();
    expect(init.capabilities?.auth?.status ?? undefined).toBeUndefined();
    expect((await refusal(client.authStatus())).code).toBe(-32601);
    await client.login('reference');
    await client.logout();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(updates).toEqual([]);
  });
});
