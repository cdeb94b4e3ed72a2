import type { McpServer, SessionId } from '@acp-kit/schema';
import { type Agent, Client, type ClientOptions, Connection, createInProcessPair } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyedAgent } from '../src/examples/guides/auth-agent.ts';
import { startSignedIn } from '../src/examples/guides/auth-client.ts';
import { createConfigurableAgent } from '../src/examples/guides/config-options-agent.ts';
import { modeAndModel, onOptionsChanged, toggle } from '../src/examples/guides/config-options-client.ts';
import { createProjectAgent } from '../src/examples/guides/session-setup-agent.ts';
import { forget, listProject, openProject } from '../src/examples/guides/session-setup-client.ts';

// The guides show these files verbatim (`?raw`); running them here keeps the pages' claims true.
const open: Client[] = [];
afterEach(() => {
  for (const client of open.splice(0)) client.close();
});

/** A client talking to `agent` over an in-process ndjson pair (the same framing as stdio). */
function connect(agent: Agent, options: Partial<ClientOptions> = {}): Client {
  const [agentSide, clientSide] = createInProcessPair();
  agent.serve(new Connection(agentSide));
  const client = new Client(new Connection(clientSide), {
    info: { name: 'guide-test', version: '1.0.0' },
    ...options,
  });
  open.push(client);
  return client;
}

describe('the session-setup guide', () => {
  it('hands the agent the whole session/new request, lists in pages by cursor, closes, resumes and deletes', async () => {
    const connected = new Map<SessionId, readonly McpServer[]>();
    const client = connect(createProjectAgent(connected));
    const init = await client.initialize();
    expect(init.capabilities?.session?.delete).toEqual({});

    const ids = [
      await openProject(client, '/work/app', '/work/lib'),
      await openProject(client, '/work/app', '/work/docs'),
      await openProject(client, '/work/app', '/work/tools'),
    ];
    await client.newSession('/elsewhere');
    expect(connected.get(ids[0] as SessionId)).toEqual([
      { type: 'stdio', name: 'files', command: '/usr/local/bin/mcp-files', args: ['--read-only'] },
    ]);

    // Pages of two (listPageSize): three sessions under /work/app take two pages.
    const listed = await listProject(client, '/work/app');
    expect(listed.pages).toBe(2);
    expect(listed.sessions.map((s) => s.sessionId)).toEqual(ids);
    expect(listed.sessions[0]).toMatchObject({
      cwd: '/work/app',
      additionalDirectories: ['/work/lib'],
      title: 'app (2 directories)',
    });
    expect(typeof listed.sessions[0]?.updatedAt).toBe('string');

    // Close: the agent frees what it held, the session stays listed and can be resumed.
    const [first, second] = ids as [SessionId, SessionId];
    expect(await forget(client, first, false)).toBe('closed');
    expect(connected.has(first)).toBe(false);
    expect((await listProject(client, '/work/app')).sessions).toHaveLength(3);
    await client.resume(first, { cwd: '/work/app', mcpServers: [] });
    expect(connected.get(first)).toEqual([]);

    // Delete (advertised): gone from the list, and unknown afterwards.
    expect(await forget(client, second, true)).toBe('deleted');
    expect((await listProject(client, '/work/app')).sessions.map((s) => s.sessionId)).not.toContain(second);
    await expect(client.resume(second, { cwd: '/work/app' })).rejects.toMatchObject({ code: -32002 });
  });

  it('refuses what the agent does not support, with the pointer of the offending field', async () => {
    const connected = new Map<SessionId, readonly McpServer[]>();
    const client = connect(createProjectAgent(connected));
    await client.initialize();
    const http = client.createSession({
      cwd: '/work/app',
      mcpServers: [{ type: 'http', name: 'search', url: 'https://mcp.example.com/', headers: [] }],
    });
    await expect(http).rejects.toMatchObject({
      code: -32602,
      data: { pointer: '/params/mcpServers/0/type', expected: '"stdio"' },
    });
    const relative = client.createSession({ cwd: '/work/app', additionalDirectories: ['lib'] });
    await expect(relative).rejects.toMatchObject({
      code: -32602,
      data: { pointer: '/params/additionalDirectories/0' },
    });
    // Nothing was created by either refusal.
    expect(connected.size).toBe(0);
    expect((await client.listSessions({})).sessions).toEqual([]);
  });

  it('answers session/delete -32601 when the agent does not advertise it', async () => {
    const { createEchoAgent } = await import('../src/examples/sdk/echo-agent.ts');
    const client = connect(createEchoAgent());
    const init = await client.initialize();
    expect(init.capabilities?.session?.delete ?? undefined).toBeUndefined();
    const sessionId = await client.newSession('/work/app');
    await expect(forget(client, sessionId, true)).rejects.toMatchObject({ code: -32601 });
    // session/close is baseline: it worked before the refused delete.
    expect((await client.listSessions({})).sessions.map((s) => s.sessionId)).toEqual([sessionId]);
  });
});

describe('the authentication guide', () => {
  it('refuses session/new before auth/login with -32000, then logs in with the advertised method', async () => {
    const client = connect(createKeyedAgent({ ACME_API_KEY: 'k' }));
    const init = await client.initialize();
    expect(init.authMethods).toEqual([
      { type: 'agent', methodId: 'api-key', name: 'API key', description: 'Uses ACME_API_KEY' },
    ]);
    expect(init.capabilities?.auth).toEqual({});
    await expect(client.newSession('/work/app')).rejects.toMatchObject({ code: -32000 });

    const sessionId = await startSignedIn(client, '/work/app');
    const end = await client.promptToEnd(sessionId, [{ type: 'text', text: 'hi' }]);
    expect(end.stopReason).toBe('end_turn');

    // After auth/logout the connection needs a new login.
    await client.logout();
    await expect(client.listSessions({})).rejects.toMatchObject({ code: -32000 });
  });

  it('passes on the agent refusing a login, and -32602 for a method it never advertised', async () => {
    const client = connect(createKeyedAgent({}));
    await expect(startSignedIn(client, '/work/app')).rejects.toMatchObject({
      code: -32000,
      message: 'Set ACME_API_KEY and log in again.',
    });
    await expect(client.login('password')).rejects.toMatchObject({
      code: -32602,
      data: { pointer: '/params/methodId', expected: 'one of "api-key"' },
    });
    await expect(client.newSession('/work/app')).rejects.toMatchObject({ code: -32000 });
  });

  it('refuses auth/login before initialize (-32600) and to an agent without authMethods (-32601)', async () => {
    const early = connect(createKeyedAgent({ ACME_API_KEY: 'k' }));
    await expect(early.login('api-key')).rejects.toMatchObject({
      code: -32600,
      data: { pointer: '/method', expected: 'initialize' },
    });
    const { createEchoAgent } = await import('../src/examples/sdk/echo-agent.ts');
    const open = connect(createEchoAgent());
    const init = await open.initialize();
    expect(init.authMethods ?? []).toEqual([]);
    await expect(open.login('api-key')).rejects.toMatchObject({ code: -32601 });
    // Without authMethods nothing is gated: sessions work at once.
    expect(await startSignedIn(open, '/work/app')).toMatch(/^sess_/);
  });

  it('leaves a connection that logged in alone when another one has not', async () => {
    const agent = createKeyedAgent({ ACME_API_KEY: 'k' });
    const signedIn = connect(agent);
    const other = connect(agent);
    await startSignedIn(signedIn, '/work/app');
    await other.initialize();
    await expect(other.listSessions({})).rejects.toMatchObject({ code: -32000 });
    expect((await signedIn.listSessions({})).sessions).toHaveLength(1);
  });
});

describe('the config-options guide', () => {
  it('sends the options with session/new, sets one, and applies the agent’s own dependent change', async () => {
    const agent = createConfigurableAgent();
    const client = connect(agent);
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    expect(modeAndModel(client, sessionId)).toEqual({ mode: 'ask', model: 'fast' });
    // A second client attached to the session hears what the first one sets.
    const other = connect(agent);
    await other.initialize();
    await other.resume(sessionId, { cwd: '/work/app' });
    const heardByOther: string[] = [];
    onOptionsChanged(other, sessionId, (options) => {
      heardByOther.push(String(options.find((o) => o.configId === 'mode')?.currentValue));
    });

    await client.setConfigOption(sessionId, 'mode', 'code');
    const on = await toggle(client, sessionId, 'auto-edit', true);
    expect(on.find((o) => o.configId === 'auto-edit')?.currentValue).toBe(true);
    // Back to "ask": the agent's handler turns auto-edit off in the same answer.
    const back = await client.setConfigOption(sessionId, 'mode', 'ask');
    expect(back.map((o) => [o.configId, o.currentValue])).toEqual([
      ['mode', 'ask'],
      ['model', 'fast'],
      ['auto-edit', false],
    ]);
    await expect.poll(() => heardByOther).toEqual(['code', 'code', 'ask']);
    expect(other.store.snapshot(sessionId).configOptions).toEqual(back);
  });

  it('hears config_option_update when the agent changes an option during a turn', async () => {
    const client = connect(createConfigurableAgent());
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    const heard: string[] = [];
    const stop = onOptionsChanged(client, sessionId, (options) => {
      heard.push(String(options.find((o) => o.configId === 'model')?.currentValue));
    });
    await client.promptToEnd(sessionId, [{ type: 'text', text: '/careful' }]);
    stop();
    expect(heard).toEqual(['careful']);
    expect(modeAndModel(client, sessionId)).toEqual({ mode: 'ask', model: 'careful' });
  });

  it('refuses a value the option does not offer, and a boolean for a select option, with pointers', async () => {
    const client = connect(createConfigurableAgent());
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    await expect(client.setConfigOption(sessionId, 'model', 'huge')).rejects.toMatchObject({
      code: -32602,
      data: { pointer: '/params/value', expected: 'one of "fast", "careful"' },
    });
    await expect(toggle(client, sessionId, 'mode', true)).rejects.toMatchObject({
      code: -32602,
      data: { pointer: '/params/type' },
    });
    await expect(client.setConfigOption(sessionId, 'colour', 'red')).rejects.toMatchObject({
      code: -32602,
      data: { pointer: '/params/configId' },
    });
    expect(modeAndModel(client, sessionId)).toEqual({ mode: 'ask', model: 'fast' });
  });
});
