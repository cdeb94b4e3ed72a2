// Regression tests for #24 item 5: a client that leaves while the agent waits on its answer (a
// permission request or an elicitation) must not freeze the session.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  agentProcess,
  clientOver,
  clientOverWebSocket,
  idleCount,
  isState,
  listeningAgent,
  requireBuild,
  type TestClient,
  tempDir,
} from '../harness.js';
import { join } from 'node:path';

beforeAll(requireBuild);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** A callback that never answers (the user walked away), and a promise that resolves once it was called. */
function neverAnswers(): { asked: Promise<void>; callback: () => Promise<never> } {
  let called!: () => void;
  const asked = new Promise<void>((resolve) => {
    called = resolve;
  });
  return {
    asked,
    callback: () => {
      called();
      return new Promise<never>(() => undefined);
    },
  };
}

const FORM = { elicitation: { form: {} } };

/** The stop reason of each turn-ending idle the client saw, in order. */
function stopReasons(t: TestClient): string[] {
  return t
    .updates()
    .filter((u) => isState(u, 'idle') && 'stopReason' in u && typeof u.stopReason === 'string')
    .map((u) => (u as { stopReason: string }).stopReason);
}

/** The texts of the agent messages a client was sent (whole or chunked). */
function agentText(t: TestClient): string {
  return t
    .updates()
    .map((u) =>
      u.sessionUpdate === 'agent_message_chunk'
        ? ((u as { content: { text?: string } }).content.text ?? '')
        : u.sessionUpdate === 'agent_message'
          ? (u as { content: { text?: string }[] }).content.map((b) => b.text ?? '').join('')
          : '',
    )
    .join('');
}

describe.each([
  { kind: 'permission', command: '/write secret.txt', answered: 'Permission granted: done.' },
  { kind: 'elicitation', command: '/ask which file?', answered: 'You answered: notes.txt' },
])('a WebSocket client that leaves while asked for $kind', ({ kind, command, answered }) => {
  it('has the question withdrawn and asked of the other attached client, whose answer ends the turn; its next prompt is answered', async () => {
    const agent = await listeningAgent();
    cleanups.push(() => agent.stop());
    const silent = neverAnswers();
    const submitter = await clientOverWebSocket(agent.url, {
      capabilities: FORM,
      onPermission: silent.callback,
      onElicitation: silent.callback,
    });
    const sessionId = await submitter.client.newSession('/tmp');
    let otherAsked = 0;
    const other = await clientOverWebSocket(agent.url, {
      capabilities: FORM,
      onPermission: async () => {
        otherAsked += 1;
        return { outcome: { outcome: 'selected', optionId: 'allow' } };
      },
      onElicitation: async () => {
        otherAsked += 1;
        return { action: 'accept', content: { answer: 'notes.txt' } };
      },
    });
    cleanups.push(() => other.connection.close());
    await other.client.resume(sessionId, { cwd: '/tmp' });
    void submitter.client.prompt(sessionId, [{ type: 'text', text: command }]).catch(() => undefined);
    await silent.asked;
    await submitter.connection.close();
    await idleCount(other, 1);
    expect({ kind, stopReasons: stopReasons(other), otherAsked, text: agentText(other) }).toEqual({
      kind,
      stopReasons: ['end_turn'],
      otherAsked: 1,
      text: answered,
    });
    await other.client.prompt(sessionId, [{ type: 'text', text: 'hello' }]);
    await idleCount(other, 2);
    expect(stopReasons(other)).toEqual(['end_turn', 'end_turn']);
  });

  it('ends the question cancelled when no attached client is left, and the agent serves the session to a new connection', async () => {
    const agent = await listeningAgent();
    cleanups.push(() => agent.stop());
    const silent = neverAnswers();
    const submitter = await clientOverWebSocket(agent.url, {
      capabilities: FORM,
      onPermission: silent.callback,
      onElicitation: silent.callback,
    });
    const sessionId = await submitter.client.newSession('/tmp');
    void submitter.client.prompt(sessionId, [{ type: 'text', text: command }]).catch(() => undefined);
    await silent.asked;
    await submitter.connection.close();
    const next = await clientOverWebSocket(agent.url);
    cleanups.push(() => next.connection.close());
    // Resumed while the turn may still be ending: the client hears the state, then the turn's end.
    await next.client.resume(sessionId, { cwd: '/tmp' });
    await next.until(() => next.updates().findLast((u) => u.sessionUpdate === 'state_update') !== undefined);
    await next.until(() =>
      isState(next.updates().findLast((u) => u.sessionUpdate === 'state_update')!, 'idle'),
    );
    await next.client.prompt(sessionId, [{ type: 'text', text: 'hello' }]);
    await next.until(() => stopReasons(next).at(-1) === 'end_turn' && agentText(next).includes('hello'));
    expect(stopReasons(next).at(-1)).toBe('end_turn');
  });
});

describe.each([
  { kind: 'permission', command: '/write secret.txt' },
  { kind: 'elicitation', command: '/ask which file?' },
])('the only stdio client leaving while asked for $kind', ({ kind, command }) => {
  it('ends the question cancelled and the turn with a stop reason before the agent exits: the next process reports the session idle and answers its prompt', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const history = join(temp.dir, 'history.db');
    const first = agentProcess(['--history', history]);
    const silent = neverAnswers();
    const asked = await clientOver(first, {
      capabilities: FORM,
      onPermission: silent.callback,
      onElicitation: silent.callback,
    });
    const sessionId = await asked.client.newSession('/tmp');
    void asked.client.prompt(sessionId, [{ type: 'text', text: command }]).catch(() => undefined);
    await silent.asked;
    // The client leaves: the agent's stdin ends.
    const exit = await first.shutdown({ graceMs: 10_000 });
    const next = agentProcess(['--history', history]);
    cleanups.push(() => next.shutdown());
    const resumed = await clientOver(next);
    await resumed.client.resume(sessionId, { cwd: '/tmp' });
    const states = resumed
      .updates()
      .filter((u) => u.sessionUpdate === 'state_update')
      .map((u) => (u as { state: string }).state);
    expect({ kind, exit, states }).toEqual({ kind, exit: { code: 0, signal: null }, states: ['idle'] });
    await resumed.client.prompt(sessionId, [{ type: 'text', text: 'hello' }]);
    await idleCount(resumed, 1);
    expect(stopReasons(resumed)).toEqual(['end_turn']);
  });
});
