import type { AgentRequestMap, ClientNotificationMap, ClientRequestMap } from '@acp-kit/schema';
import {
  type AgentConnection,
  Client,
  type ClientConnection,
  Connection,
  createInProcessPair,
} from '@acp-kit/sdk';
import { serveConductor, serveProxy } from '@acp-kit/sdk/proxy';
import { describe, expect, it, vi } from 'vitest';
import { interactiveClient } from '../src/examples/sdk/answer-the-agent.ts';
import { askOnce } from '../src/examples/sdk/ask-once.ts';
import { branchAndShelve } from '../src/examples/sdk/branch-and-shelve.ts';
import { contextProxy } from '../src/examples/sdk/context-proxy.ts';
import { createDelegatingAgent } from '../src/examples/sdk/delegate-to-subagent.ts';
import { createEchoAgent } from '../src/examples/sdk/echo-agent.ts';
import { listWithin, sessionTitles, switchMode } from '../src/examples/sdk/manage-sessions.ts';
import { createPlanningAgent } from '../src/examples/sdk/report-progress.ts';
import { createWordCountingAgent, provideWordCount } from '../src/examples/sdk/tools-over-acp.ts';

// The SDK pages show these files verbatim; running them here keeps the pages' claims true.
describe('the SDK examples the docs show', () => {
  it('echo agent and askOnce client: the prompt is reconciled by messageId and the reply streamed', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const [agentSide, clientSide] = createInProcessPair();
    const agentConnection: AgentConnection = new Connection(agentSide);
    createEchoAgent().serve(agentConnection);
    const clientConnection: ClientConnection = new Connection(clientSide);
    const messages = await askOnce(clientConnection, 'Hello');
    const inserted = log.mock.calls[0]?.[1];
    const ended = log.mock.calls[1]?.[1];
    log.mockRestore();
    expect(ended).toBe('end_turn');
    expect(messages.map((m) => [m.kind, m.origin])).toEqual([
      ['user_message', 'agent'],
      ['agent_message', 'agent'],
    ]);
    expect(messages[0]?.messageId).toBe(inserted);
    expect(messages[1]?.content).toEqual([{ type: 'text', text: 'Hello' }]);
  });
});

describe('the echo agent', () => {
  it('rejects a prompt without text, and the client shows the submission as failed', async () => {
    const { Client } = await import('@acp-kit/sdk');
    const [agentSide, clientSide] = createInProcessPair();
    createEchoAgent().serve(new Connection(agentSide) as AgentConnection);
    const client = new Client(new Connection(clientSide) as ClientConnection, {
      info: { name: 't', version: '1' },
    });
    await client.initialize();
    const sessionId = await client.newSession('/tmp');
    const submission = client.submit(sessionId, [
      { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
    ]);
    await expect(submission.messageId).rejects.toMatchObject({ code: -32602 });
    expect(client.store.snapshot(sessionId).messages.map((m) => m.origin)).toEqual(['local-failed']);
    client.close();
  });
});

/**
 * A bare agent over the in-process ndjson pair that answers the session-management methods the
 * examples call: session/list in pages of one with a cursor, a mode option, a slow list on `/slow`.
 */
function sessionAgent(): ClientConnection {
  const [agentSide, clientSide] = createInProcessPair();
  const agent = new Connection(agentSide) as unknown as Connection<
    AgentRequestMap,
    Record<string, never>,
    ClientRequestMap,
    ClientNotificationMap
  >;
  const sessions = [
    { sessionId: 's1', cwd: '/repo', title: 'Fix the parser' },
    { sessionId: 's2', cwd: '/other', title: 'Elsewhere' },
    { sessionId: 's3', cwd: '/repo' },
  ];
  let mode = 'ask';
  const options = () => [
    {
      type: 'select' as const,
      configId: 'mode',
      name: 'Mode',
      category: 'mode',
      currentValue: mode,
      options: [
        { value: 'ask', name: 'Ask' },
        { value: 'code', name: 'Code' },
      ],
    },
  ];
  agent.onRequest('initialize', () => ({ protocolVersion: 2, info: { name: 'sessions', version: '1' } }));
  agent.onRequest('session/new', () => ({ sessionId: 's4', configOptions: options() }));
  agent.onRequest('session/list', async (params, { signal }) => {
    if (params.cwd === '/slow') await new Promise((_, reject) => signal.addEventListener('abort', reject));
    const matching = sessions.filter((s) => !params.cwd || s.cwd === params.cwd);
    const at = Number(params.cursor ?? 0);
    const next = at + 1 < matching.length ? String(at + 1) : null;
    return { sessions: matching.slice(at, at + 1), nextCursor: next };
  });
  agent.onRequest('session/set_config_option', (params) => {
    mode = String(params.value);
    return { configOptions: options() };
  });
  agent.listen();
  return new Connection(clientSide);
}

describe('the session-management examples', () => {
  it('lists every page of sessions, switches the mode and gives up on a slow list', async () => {
    const client = new Client(sessionAgent(), { info: { name: 't', version: '1' } });
    await client.initialize();
    expect(await sessionTitles(client, '/repo')).toEqual(['Fix the parser', 's3']);
    const sessionId = await client.newSession('/repo');
    expect(await switchMode(client, sessionId, 'code')).toBe(true);
    expect(client.store.snapshot(sessionId).configOptions?.[0]?.currentValue).toBe('code');
    expect(await switchMode(client, 'no-such-session', 'code')).toBe(false);
    client.close();
  });

  it('cancels a list that takes too long', async () => {
    const client = new Client(sessionAgent(), { info: { name: 't', version: '1' } });
    await client.initialize();
    const slow = client.listSessions({ cwd: '/slow' }, { signal: AbortSignal.timeout(50) });
    await expect(slow).rejects.toMatchObject({ code: -32800 });
    expect((await listWithin(client, 5_000)).sessions).toHaveLength(1);
    client.close();
  });
});

describe('the interactive client example', () => {
  it('answers a permission request and a form elicitation with what the user chose', async () => {
    const [agentSide, clientSide] = createInProcessPair();
    const agent = new Connection(agentSide) as unknown as Connection<
      AgentRequestMap,
      Record<string, never>,
      ClientRequestMap,
      ClientNotificationMap
    >;
    agent.listen();
    const client = interactiveClient(new Connection(clientSide), {
      choose: async (_question, choices) => choices[1] ?? null,
      fill: async (_question, fields) => Object.fromEntries(fields.map((f) => [f, `my ${f}`])),
    });
    const permission = await agent.sendRequest('session/request_permission', {
      sessionId: 's1',
      title: 'Run npm test?',
      options: [
        { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'never', name: 'Reject', kind: 'reject_once' },
      ],
    });
    expect(permission).toEqual({ outcome: { outcome: 'selected', optionId: 'never' } });
    const form = await agent.sendRequest('elicitation/create', {
      mode: 'form',
      sessionId: 's1',
      message: 'Who are you?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    expect(form).toEqual({ action: 'accept', content: { name: 'my name' } });
    const url = await agent.sendRequest('elicitation/create', {
      mode: 'url',
      sessionId: 's1',
      elicitationId: 'e1',
      message: 'Sign in',
      url: 'https://example.invalid/',
    });
    expect(url).toEqual({ action: 'decline' });
    client.close();
    agent.close();
  });
});

describe('the planning agent example', () => {
  it('reports commands, title, plan, usage and a notice; the store holds them and a replay restores them', async () => {
    const agent = createPlanningAgent();
    const connect = () => {
      const [agentSide, clientSide] = createInProcessPair();
      agent.serve(new Connection(agentSide));
      return new Client(new Connection(clientSide), { info: { name: 't', version: '1' } });
    };
    const client = connect();
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    expect(client.store.snapshot(sessionId).availableCommands?.map((c) => c.name)).toEqual(['review']);
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'add the login tests' }]);
    const snapshot = client.store.snapshot(sessionId);
    expect(snapshot.sessionInfo).toMatchObject({ title: 'Add the login tests' });
    expect(snapshot.plans).toHaveLength(1);
    expect(JSON.stringify(snapshot.plans[0])).toContain('"status":"completed"');
    expect(snapshot.contextUsage).toMatchObject({ used: 53_000, size: 200_000 });
    expect(snapshot.notices).toHaveLength(1);
    expect(snapshot.availableCommands?.map((c) => c.name)).toEqual(['review', 'test']);
    expect((await client.listSessions({})).sessions[0]?.title).toBe('Add the login tests');

    const later = connect();
    await later.initialize();
    await later.resume(sessionId, { cwd: '/work/app', replay: true });
    const replayed = later.store.snapshot(sessionId);
    expect(replayed.plans).toEqual(snapshot.plans);
    expect(replayed.contextUsage).toEqual(snapshot.contextUsage);
    expect(replayed.sessionInfo?.title).toBe('Add the login tests');
    expect(replayed.availableCommands?.map((c) => c.name)).toEqual(['review', 'test']);
    client.close();
    later.close();
  });
});

describe('branch-and-shelve.ts (the unstable session methods)', () => {
  it('forks with the history, titles the fork, archives the original, and the lists show only the branch', async () => {
    const { Agent } = await import('@acp-kit/sdk');
    const agent = new Agent({
      info: { name: 'unstable-agent', version: '0.0.0' },
      unstable: true,
      capabilities: { session: { fork: {}, title: {}, status: {}, archive: {} } },
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        await session.running();
        const reply = await session.agentMessage();
        await reply.chunk({ type: 'text', text: 'first direction' });
        await session.idle('end_turn');
      },
    });
    const [agentSide, clientSide] = createInProcessPair();
    agent.serve(new Connection(agentSide) as AgentConnection);
    const client = new Client(new Connection(clientSide) as ClientConnection, {
      info: { name: 'docs', version: '0.0.0' },
      unstable: true,
    });
    await client.initialize();
    const { sessionId } = await client.createSession({ cwd: '/work' });
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'go' }]);
    const outcome = await branchAndShelve(client, sessionId, '/work', '  Second try  ');
    expect(outcome.branch).not.toBe(sessionId);
    expect(outcome.title).toBe('Second try');
    expect(outcome.original).toBe('saved');
    expect(outcome.visible).toEqual([outcome.branch]);
    expect(outcome.shelved).toEqual([sessionId]);
    // The fork's store holds the original's messages under their IDs.
    const ids = (id: string) => client.store.snapshot(id).messages.map((m) => m.messageId);
    expect(ids(outcome.branch)).toEqual(ids(sessionId));
  });
});

describe('delegate-to-subagent.ts (subagents, unstable)', () => {
  it('announces the researcher on the parent, delivers its turn under its own ID and mirrors its state', async () => {
    const [agentSide, clientSide] = createInProcessPair();
    createDelegatingAgent().serve(new Connection(agentSide) as AgentConnection);
    const client = new Client(new Connection(clientSide) as ClientConnection, {
      info: { name: 'docs', version: '0.0.0' },
      unstable: true,
    });
    await client.initialize();
    const { sessionId } = await client.createSession({ cwd: '/work' });
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'the two parsers' }]);
    const [child] = client.store.snapshot(sessionId).subagents;
    expect(child?.fields).toMatchObject({
      title: 'Researcher',
      description: 'Looks into: the two parsers',
      capabilities: { cancel: {} },
      state: { state: 'idle', stopReason: 'end_turn' },
    });
    const text = (id: string) =>
      client.store
        .snapshot(id)
        .messages.map((m) => m.content.map((b) => ('text' in b ? b.text : '')).join(''));
    expect(text(child!.sessionId)).toEqual(['Findings on the two parsers.']);
    expect(text(sessionId)).toEqual(['the two parsers', 'The researcher is done with the two parsers.']);
    // A client may not prompt the child.
    await expect(client.prompt(child!.sessionId, [{ type: 'text', text: 'hi' }])).rejects.toMatchObject({
      code: -32602,
    });
    client.close();
  });
});

describe('tools-over-acp.ts (MCP over ACP, unstable)', () => {
  it('counts the words of a prompt with the tool the client provides, over mcp/message', async () => {
    const [agentSide, clientSide] = createInProcessPair();
    createWordCountingAgent().serve(new Connection(agentSide) as AgentConnection);
    const wire: string[] = [];
    const connection = new Connection(clientSide) as ClientConnection;
    connection.onMessage((direction, message) => {
      const method = (message as { method?: string }).method;
      if (direction === 'in' && method !== undefined) wire.push(method);
    });
    const client = new Client(connection, { info: { name: 'docs', version: '0.0.0' }, unstable: true });
    const init = await client.initialize();
    expect(init.capabilities?.session?.mcp?.acp).toEqual({});
    const { sessionId } = await client.createSession({
      cwd: '/work',
      mcpServers: [provideWordCount(client)],
    });
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'one two three four' }]);
    const reply = client.store.snapshot(sessionId).messages.find((m) => m.kind === 'agent_message');
    expect(reply?.content).toEqual([{ type: 'text', text: 'project-tools says: 4 words' }]);
    expect(wire).toContain('mcp/message');
  });
});

describe('context-proxy.ts (proxy chains, unstable)', () => {
  it('behind a conductor, adds the rules to each prompt on its way to the echo agent and marks the initialize answer', async () => {
    const [agentSide, agentConductorSide] = createInProcessPair();
    createEchoAgent().serve(new Connection(agentSide) as AgentConnection);
    const [proxySide, proxyConductorSide] = createInProcessPair();
    serveProxy(proxySide, contextProxy('Project rules: tabs, not spaces.'));
    const [clientSide, clientConductorSide] = createInProcessPair();
    serveConductor({
      client: clientConductorSide,
      proxies: [{ transport: proxyConductorSide, name: 'context proxy' }],
      agent: { transport: agentConductorSide, name: 'echo agent' },
    });
    const client = new Client(new Connection(clientSide) as ClientConnection, {
      info: { name: 'docs', version: '0.0.0' },
    });
    expect((await client.initialize())._meta).toEqual({ 'example.com/rules': true });
    const sessionId = await client.newSession('/work');
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'Indent this file.' }]);
    const [, reply] = client.store.snapshot(sessionId).messages;
    // The echo agent repeats what reached it: the prompt and the proxy's block.
    expect(reply?.content).toEqual([
      { type: 'text', text: 'Indent this file.' },
      { type: 'text', text: 'Project rules: tabs, not spaces.' },
    ]);
    client.close();
  });
});
