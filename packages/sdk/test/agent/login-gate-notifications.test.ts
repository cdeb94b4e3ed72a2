// Regression tests for #24 item 6: a connection that did not log in (or logged out) cannot change
// or read sessions through notifications either.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Agent, type AgentConnection, type AgentSession } from '../../src/agent/index.js';
import { Connection } from '../../src/rpc/index.js';
import { streamTransport } from '../../src/transports/index.js';

// biome-ignore lint/suspicious/noExplicitAny: raw JSON read by tests that check the shapes they use
type Line = { id?: unknown; method?: string; params?: any; result?: any; error?: any };

/** A raw ndjson client of `agent`: `request` resolves with the answer to its id. */
function rawClient(agent: Agent) {
  const toAgent = new PassThrough();
  const fromAgent = new PassThrough();
  agent.serve(new Connection(streamTransport(toAgent, fromAgent)) as AgentConnection);
  const lines: Line[] = [];
  const answers = new Map<unknown, (line: Line) => void>();
  let buffered = '';
  fromAgent.setEncoding('utf8');
  fromAgent.on('data', (text: string) => {
    buffered += text;
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const part of parts) {
      const line = JSON.parse(part) as Line;
      lines.push(line);
      if (line.method === undefined) answers.get(line.id)?.(line);
    }
  });
  let nextId = 1;
  const request = (method: string, params: unknown): Promise<Line> => {
    const id = nextId++;
    const answered = new Promise<Line>((resolve) => answers.set(id, resolve));
    toAgent.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answered;
  };
  const notify = (method: string, params: unknown): void =>
    void toAgent.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  return { lines, request, notify };
}

const INIT = { protocolVersion: 2, info: { name: 'stranger', version: '0' } };
const LOGIN = { methodId: 'key' };

/** An agent that requires a login; its turns run until cancelled. */
function lockedAgent() {
  const dropped: { method: string; code: number }[] = [];
  let started!: (session: AgentSession) => void;
  const turnStarted = new Promise<AgentSession>((resolve) => {
    started = resolve;
  });
  const agent = new Agent({
    info: { name: 'locked', version: '0' },
    auth: { methods: [{ type: 'agent', methodId: 'key', name: 'Key' }], required: true },
    onRefusedNotification: ({ method, error }) => dropped.push({ method, code: error.code }),
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      if (session.signal.aborted) return session.idle('cancelled');
      started(session);
      await new Promise((resolve) => session.signal.addEventListener('abort', resolve, { once: true }));
      await session.idle('cancelled');
    },
  });
  return { agent, dropped, turnStarted };
}

/** The owner: logs in, creates a session and starts a turn that runs until cancelled. */
async function ownerWithRunningTurn(agent: Agent, turnStarted: Promise<AgentSession>) {
  const owner = rawClient(agent);
  await owner.request('initialize', INIT);
  await owner.request('auth/login', LOGIN);
  const { result } = await owner.request('session/new', { cwd: '/repo' });
  const sessionId = result.sessionId as string;
  void owner.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'work' }] });
  const session = await turnStarted;
  return { owner, sessionId, session };
}

describe('a connection without a login', () => {
  it('cannot cancel another connection’s turn with session/cancel after only initialize: the notification is dropped and reported', async () => {
    const { agent, dropped, turnStarted } = lockedAgent();
    const { sessionId, session } = await ownerWithRunningTurn(agent, turnStarted);
    const stranger = rawClient(agent);
    await stranger.request('initialize', INIT);
    stranger.notify('session/cancel', { sessionId });
    // Handled in order: once this answer arrives, the notification before it was handled.
    const list = await stranger.request('session/list', {});
    expect(list.error?.code).toBe(-32000);
    expect({ aborted: session.signal.aborted, activity: session.activity, dropped }).toEqual({
      aborted: false,
      activity: 'running',
      dropped: [{ method: 'session/cancel', code: -32000 }],
    });
  });

  it('cannot cancel a turn with session/cancel after logging out', async () => {
    const { agent, dropped, turnStarted } = lockedAgent();
    const { sessionId, session } = await ownerWithRunningTurn(agent, turnStarted);
    const former = rawClient(agent);
    await former.request('initialize', INIT);
    await former.request('auth/login', LOGIN);
    await former.request('auth/logout', {});
    former.notify('session/cancel', { sessionId });
    await former.request('session/list', {});
    expect({ aborted: session.signal.aborted, dropped }).toEqual({
      aborted: false,
      dropped: [{ method: 'session/cancel', code: -32000 }],
    });
  });

  it('receives no more updates of the sessions it had attached once it logged out', async () => {
    const agent = new Agent({
      info: { name: 'locked', version: '0' },
      auth: { methods: [{ type: 'agent', methodId: 'key', name: 'Key' }], required: true },
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        await session.running();
        const reply = await session.agentMessage();
        await reply.chunk({ type: 'text', text: 'hello' });
        await session.idle('end_turn');
      },
    });
    const leaving = rawClient(agent);
    await leaving.request('initialize', INIT);
    await leaving.request('auth/login', LOGIN);
    const { result } = await leaving.request('session/new', { cwd: '/repo' });
    const sessionId = result.sessionId as string;
    await leaving.request('auth/logout', {});
    const seenAtLogout = leaving.lines.length;
    const staying = rawClient(agent);
    await staying.request('initialize', INIT);
    await staying.request('auth/login', LOGIN);
    await staying.request('session/resume', { sessionId, cwd: '/repo' });
    await staying.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    // The leaving connection's copy of every update would be queued before this answer.
    await leaving.request('session/list', {});
    const after = leaving.lines.slice(seenAtLogout).filter((line) => line.method === 'session/update');
    expect(after).toEqual([]);
  });
});
