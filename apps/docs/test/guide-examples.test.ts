import type { McpServer, SessionId } from '@acp-kit/schema';
import {
  type Agent,
  Client,
  type ClientConnection,
  type ClientOptions,
  Connection,
  createInProcessPair,
} from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyedAgent } from '../src/examples/guides/auth-agent.ts';
import { createBuildAgent } from '../src/examples/guides/background-work-agent.ts';
import {
  attachMidway,
  backgroundView,
  trackBackground,
} from '../src/examples/guides/background-work-client.ts';
import { startSignedIn } from '../src/examples/guides/auth-client.ts';
import { createStreamingAgent } from '../src/examples/guides/cancellation-agent.ts';
import { askWithDeadline, submitOrWithdraw } from '../src/examples/guides/cancellation-client.ts';
import { createConfigurableAgent } from '../src/examples/guides/config-options-agent.ts';
import { modeAndModel, onOptionsChanged, toggle } from '../src/examples/guides/config-options-client.ts';
import { createAskingAgent } from '../src/examples/guides/elicitation-agent.ts';
import { elicitingClient, type Screen } from '../src/examples/guides/elicitation-client.ts';
import { createProjectAgent } from '../src/examples/guides/session-setup-agent.ts';
import { forget, listProject, openProject } from '../src/examples/guides/session-setup-client.ts';
import { createRunnerAgent } from '../src/examples/guides/tool-calls-agent.ts';
import { runView, stopCommands } from '../src/examples/guides/tool-calls-client.ts';

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

/** A client built by an example's own factory over an in-process pair. */
function connectWith(agent: Agent, build: (connection: ClientConnection) => Client): Client {
  const [agentSide, clientSide] = createInProcessPair();
  agent.serve(new Connection(agentSide));
  const client = build(new Connection(clientSide));
  open.push(client);
  return client;
}

/** The text of a session's agent messages, joined. */
function agentText(client: Client, sessionId: SessionId): string {
  return client.store
    .snapshot(sessionId)
    .messages.filter((m) => m.kind === 'agent_message')
    .flatMap((m) => m.content.map((b) => (b.type === 'text' ? b.text : '')))
    .join('');
}

/** Every state a session reports from now on (running, requires_action, idle), repeats folded. */
function statesOf(client: Client, sessionId: SessionId): string[] {
  const seen: string[] = [];
  client.store.subscribe(() => {
    const state = client.store.snapshot(sessionId).state.state;
    // "unknown" is the store's own value before the session reported any state.
    if (state !== 'unknown' && seen.at(-1) !== state) seen.push(state);
  });
  return seen;
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
      data: {
        pointer: '/params/mcpServers/0/type',
        expected: 'a transport the agent advertises in capabilities.session.mcp',
      },
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

/** A screen that answers every question with `answer` (or waits until the agent withdraws it). */
function screen(answer: {
  form?: Record<string, string> | null | 'wait';
  url?: boolean;
}): Screen & { shown: string[]; finished: string[]; withdrawn: number } {
  const result = {
    shown: [] as string[],
    finished: [] as string[],
    withdrawn: 0,
    async form(message: string, fields: string[], signal: AbortSignal) {
      result.shown.push(`${message} ${fields.join(',')}`);
      if (answer.form !== 'wait') return answer.form ?? null;
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      result.withdrawn += 1;
      return null;
    },
    async openUrl(message: string, url: string) {
      result.shown.push(`${message} ${url}`);
      return answer.url ?? false;
    },
    urlFinished(elicitationId: string) {
      result.finished.push(elicitationId);
    },
  };
  return result;
}

describe('the elicitation guide', () => {
  it('asks through a form while the session requires action, and goes on with the answer', async () => {
    const user = screen({ form: { environment: 'staging' } });
    const client = connectWith(createAskingAgent(), (c) => elicitingClient(c, user));
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    const states = statesOf(client, sessionId);
    const end = await client.promptToEnd(sessionId, [{ type: 'text', text: '/deploy' }]);
    expect(end.stopReason).toBe('end_turn');
    expect(user.shown).toEqual(['Where should this be deployed? environment']);
    expect(agentText(client, sessionId)).toBe('Deploying to staging.');
    expect(states).toEqual(['running', 'requires_action', 'running', 'idle']);
  });

  it('hears a decline, and a URL elicitation accepted then completed by elicitation/complete', async () => {
    const user = screen({ form: null, url: true });
    const client = connectWith(createAskingAgent(), (c) => elicitingClient(c, user));
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    await client.promptToEnd(sessionId, [{ type: 'text', text: '/deploy' }]);
    expect(agentText(client, sessionId)).toBe('Not deploying (decline).');
    await client.promptToEnd(sessionId, [{ type: 'text', text: '/sign-in' }]);
    expect(user.shown.at(-1)).toBe('Sign in to Acme https://auth.example.com/device');
    await expect.poll(() => user.finished).toHaveLength(1);
    expect(user.finished[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(agentText(client, sessionId)).toBe('Not deploying (decline).Signed in.');
  });

  it('withdraws the question on session/cancel: the screen’s signal aborts, the agent hears cancel', async () => {
    const user = screen({ form: 'wait' });
    const client = connectWith(createAskingAgent(), (c) => elicitingClient(c, user));
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    const submission = client.submit(sessionId, [{ type: 'text', text: '/deploy' }]);
    await expect.poll(() => user.shown).toHaveLength(1);
    await client.cancel(sessionId);
    const end = await submission.turnEnd;
    expect(end.stopReason).toBe('cancelled');
    expect(user.withdrawn).toBe(1);
    expect(agentText(client, sessionId)).toBe('Not deploying (cancel).');
  });

  it('never asks a client that did not advertise elicitation: the agent gets cancel at once', async () => {
    const client = connect(createAskingAgent());
    const sent: string[] = [];
    client.connection.onMessage((direction, message) => {
      const method = (message as { method?: string }).method;
      if (direction === 'in' && method !== undefined) sent.push(method);
    });
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    const end = await client.promptToEnd(sessionId, [{ type: 'text', text: '/deploy' }]);
    expect(end.stopReason).toBe('end_turn');
    expect(agentText(client, sessionId)).toBe('Not deploying (cancel).');
    expect(sent.length).toBeGreaterThan(0);
    expect(sent).not.toContain('elicitation/create');
  });
});

describe('the tool-calls-and-terminals guide', () => {
  it('reports a tool call embedding a terminal, streams its output, and replays both under their IDs', async () => {
    const agent = createRunnerAgent();
    const client = connect(agent);
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    await client.promptToEnd(sessionId, [{ type: 'text', text: '/run npm test' }]);
    const [run] = runView(client, sessionId);
    expect(run).toMatchObject({
      status: 'completed',
      output: '> test\nrunning 3 tests\nok 3/3\n',
      exit: { exitCode: 0 },
    });
    const { toolCalls, terminals } = client.store.snapshot(sessionId);
    expect(toolCalls[0]?.fields).toMatchObject({
      title: 'Run npm test',
      kind: 'execute',
      capabilities: { cancel: {} },
      content: [
        { type: 'terminal', terminalId: terminals[0]?.terminalId },
        { type: 'content', content: { type: 'text', text: 'All tests passed.' } },
      ],
    });
    expect(terminals[0]?.fields).toMatchObject({ command: 'npm test', cwd: '/work/app' });

    // Another client resuming with replay sees the same tool call and terminal, under the same IDs.
    const later = connect(agent);
    await later.initialize();
    await later.resume(sessionId, { cwd: '/work/app', replay: true });
    expect(runView(later, sessionId)).toEqual(runView(client, sessionId));
  });

  it('stops one command with terminal/cancel and one tool call with tool_call/cancel; the turn goes on', async () => {
    const client = connect(createRunnerAgent());
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    const first = client.submit(sessionId, [{ type: 'text', text: '/run tail -f app.log' }]);
    await expect.poll(() => runView(client, sessionId)[0]?.output.split('\n').length ?? 0).toBeGreaterThan(3);
    expect(await stopCommands(client, sessionId)).toBe(1);
    expect((await first.turnEnd).stopReason).toBe('end_turn');
    expect(runView(client, sessionId)[0]).toMatchObject({ status: 'cancelled', exit: { signal: 'SIGTERM' } });
    expect(await stopCommands(client, sessionId)).toBe(0);

    const second = client.submit(sessionId, [{ type: 'text', text: '/run tail -f other.log' }]);
    await expect.poll(() => runView(client, sessionId)[1]?.output.length ?? 0).toBeGreaterThan(0);
    const { toolCallId } = runView(client, sessionId)[1] as { toolCallId: string };
    await client.cancelToolCall(sessionId, toolCallId);
    expect((await second.turnEnd).stopReason).toBe('end_turn');
    expect(runView(client, sessionId)[1]).toMatchObject({ status: 'cancelled' });
  });

  it('refuses to cancel a terminal or tool call the session does not have, with -32002 and the pointer', async () => {
    const client = connect(createRunnerAgent());
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    await expect(client.cancelTerminal(sessionId, 'term_nope')).rejects.toMatchObject({
      code: -32002,
      data: { pointer: '/params/terminalId' },
    });
    await expect(client.cancelToolCall(sessionId, 'call_nope')).rejects.toMatchObject({
      code: -32002,
      data: { pointer: '/params/toolCallId' },
    });
  });

  it('ends the whole turn cancelled on session/cancel, the running command with it', async () => {
    const client = connect(createRunnerAgent());
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    const run = client.submit(sessionId, [{ type: 'text', text: '/run tail -f app.log' }]);
    await expect.poll(() => runView(client, sessionId)[0]?.output.length ?? 0).toBeGreaterThan(0);
    await client.cancel(sessionId);
    expect((await run.turnEnd).stopReason).toBe('cancelled');
    expect(runView(client, sessionId)[0]).toMatchObject({ status: 'cancelled', exit: { signal: 'SIGTERM' } });
  });
});

describe('the cancellation guide', () => {
  const long = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');

  it('cancels a turn that runs past its deadline: the turn ends idle/cancelled, what was said stays', async () => {
    const client = connect(createStreamingAgent());
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    const end = await askWithDeadline(client, sessionId, long, 100);
    expect(end.stopReason).toBe('cancelled');
    const said = agentText(client, sessionId).trim().split(' ');
    expect(said.length).toBeGreaterThan(0);
    expect(said.length).toBeLessThan(200);
    expect(client.store.snapshot(sessionId).state).toMatchObject({ state: 'idle', stopReason: 'cancelled' });
    // A short one finishes before its deadline.
    const next = await askWithDeadline(client, sessionId, 'just three words', 10_000);
    expect(next.stopReason).toBe('end_turn');
  });

  it('withdraws a prompt the agent holds with $/cancel_request: -32800, nothing inserted', async () => {
    const client = connect(createStreamingAgent());
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    const busy = client.submit(sessionId, [{ type: 'text', text: long }]);
    await busy.messageId;
    const held = submitOrWithdraw(client, sessionId, 'are you there?', 100);
    await expect(held.messageId).rejects.toMatchObject({ code: -32800 });
    await expect(held.turnEnd).rejects.toMatchObject({ code: -32800 });
    await client.cancel(sessionId);
    expect((await busy.turnEnd).stopReason).toBe('cancelled');
    const { messages } = client.store.snapshot(sessionId);
    expect(messages.filter((m) => m.kind === 'user_message').map((m) => m.origin)).toEqual([
      'agent',
      'local-failed',
    ]);
  });

  it('applies session/cancel to a prompt still waiting: inserted later, its turn ends cancelled at once', async () => {
    const client = connect(createStreamingAgent());
    await client.initialize();
    const sessionId = await client.newSession('/work/app');
    const busy = client.submit(sessionId, [{ type: 'text', text: long }]);
    await busy.messageId;
    const waiting = client.submit(sessionId, [{ type: 'text', text: 'next one' }]);
    await client.cancel(sessionId);
    expect((await busy.turnEnd).stopReason).toBe('cancelled');
    expect(await waiting.messageId).toMatch(/\S/);
    expect((await waiting.turnEnd).stopReason).toBe('cancelled');
    expect(agentText(client, sessionId)).not.toContain('next');
  });
});

describe('the background-work guide', () => {
  /** A client with a background tracker on its connection. */
  async function tracked(agent: Agent) {
    let tracker!: ReturnType<typeof trackBackground>;
    const client = connectWith(agent, (connection) => {
      tracker = trackBackground(connection);
      return new Client(connection, { info: { name: 'guide-test', version: '1.0.0' } });
    });
    await client.initialize();
    return { client, tracker };
  }

  it('greets before any prompt, ends the /build turn at once while the terminal keeps writing, and drops it only after its exit status', async () => {
    const agent = createBuildAgent({ steps: 10, stepMs: 10 });
    const { client, tracker } = await tracked(agent);
    const sessionId = await client.newSession('/repo');
    await expect.poll(() => agentText(client, sessionId)).toContain('Hello!');
    const end = await client.promptToEnd(sessionId, [{ type: 'text', text: '/build' }]);
    expect(end.stopReason).toBe('end_turn');
    // The turn is over; the build is listed and still running.
    expect(backgroundView(client, tracker.current(sessionId)!, sessionId)).toEqual([
      { kind: 'terminal', command: 'npm run build', output: expect.any(String) },
    ]);
    const terminal = () => client.store.snapshot(sessionId).terminals[0]!;
    expect(terminal().fields.exitStatus).toBeUndefined();
    await expect.poll(() => tracker.current(sessionId)?.length, { timeout: 60_000 }).toBe(0);
    // Dropped after its exit status, with all its output.
    expect(terminal().fields.exitStatus).toEqual({ exitCode: 0 });
    expect(terminal().output).toContain('step 10 of 10');
  });

  it('shows a second client attaching mid-way the terminal with its output so far and the list naming it, then its end', async () => {
    const agent = createBuildAgent({ steps: 20, stepMs: 10 });
    const alice = await tracked(agent);
    const sessionId = await alice.client.newSession('/repo');
    await alice.client.promptToEnd(sessionId, [{ type: 'text', text: '/build' }]);
    await expect
      .poll(() => alice.client.store.snapshot(sessionId).terminals[0]?.output ?? '')
      .toContain('step 3 of 20');
    const bob = await tracked(agent);
    const shown = await attachMidway(bob.client, bob.tracker, sessionId, '/repo');
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ kind: 'terminal', command: 'npm run build' });
    expect((shown[0] as { output: string }).output).toContain('step 3 of 20');
    await expect.poll(() => bob.tracker.current(sessionId)?.length, { timeout: 60_000 }).toBe(0);
    const bobs = bob.client.store.snapshot(sessionId).terminals[0]!;
    expect(bobs.fields.exitStatus).toEqual({ exitCode: 0 });
    expect(bobs.output).toBe(alice.client.store.snapshot(sessionId).terminals[0]!.output);
  });

  it('keeps the build running through session/cancel, and stops it on terminal/cancel', async () => {
    const agent = createBuildAgent({ steps: 1000, stepMs: 5 });
    const { client, tracker } = await tracked(agent);
    const sessionId = await client.newSession('/repo');
    await client.promptToEnd(sessionId, [{ type: 'text', text: '/build' }]);
    await client.cancel(sessionId);
    const output = () => client.store.snapshot(sessionId).terminals[0]?.output ?? '';
    const before = output().length;
    await expect.poll(() => output().length).toBeGreaterThan(before);
    expect(tracker.current(sessionId)).toHaveLength(1);
    const { terminalId } = client.store.snapshot(sessionId).terminals[0]!;
    await client.cancelTerminal(sessionId, terminalId);
    await expect.poll(() => tracker.current(sessionId)?.length, { timeout: 60_000 }).toBe(0);
    expect(client.store.snapshot(sessionId).terminals[0]!.fields.exitStatus).toEqual({
      exitCode: null,
      signal: 'SIGTERM',
    });
  });
});
