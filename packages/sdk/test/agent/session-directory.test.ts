/**
 * session/new, session/list, session/close, session/delete and session/resume hooks of the SDK's
 * Agent, over a real child process (the fixture agent in ./fixtures/v2-agent.ts).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorOf, spawnV2Agent, turnsEnded, type V2Child } from './fixtures/spawn-v2-agent.js';

const children: V2Child[] = [];
async function agent(args: string[] = []): Promise<V2Child> {
  const child = await spawnV2Agent(args);
  children.push(child);
  return child;
}
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop()));
});

describe('session/list', () => {
  it('pages the sessions with cursors, giving each one its cwd, title and updatedAt', async () => {
    const a = await agent(['--page-size', '2']);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { sessionId } = await a.connection.sendRequest('session/new', { cwd: `/work/${i % 2}` });
      ids.push(sessionId);
    }
    const seen: string[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const page = await a.connection.sendRequest('session/list', cursor ? { cursor } : {});
      pages += 1;
      expect(page.sessions.length).toBeLessThanOrEqual(2);
      for (const info of page.sessions) {
        expect(info.cwd).toMatch(/^\/work\/[01]$/);
        expect(info.title).toMatch(/^new sess_ mcp= meta=null$/);
        expect(Number.isNaN(Date.parse(info.updatedAt ?? ''))).toBe(false);
        seen.push(info.sessionId);
      }
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);

    const filtered = await a.connection.sendRequest('session/list', { cwd: '/work/1' });
    expect(filtered.sessions.map((s) => s.sessionId)).toEqual([ids[1], ids[3]]);
    // The page is full, so it may point further; the rest of the directory holds no match.
    const rest = await a.connection.sendRequest('session/list', {
      cwd: '/work/1',
      cursor: filtered.nextCursor,
    });
    expect(rest.sessions).toEqual([]);
    expect(rest.nextCursor ?? null).toBeNull();
  });

  it('answers a cursor it never issued with -32602 at /params/cursor and keeps serving', async () => {
    const a = await agent();
    await a.connection.sendRequest('session/new', { cwd: '/repo' });
    const error = await errorOf(a.connection.sendRequest('session/list', { cursor: 'not-a-cursor' }));
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ pointer: '/params/cursor' });
    const typeError = await errorOf(a.connection.sendRequest('session/list', { cursor: 42 } as never));
    expect(typeError.code).toBe(-32602);
    expect(typeError.data).toMatchObject({ pointer: '/params/cursor' });
    expect((await a.connection.sendRequest('session/list', {})).sessions).toHaveLength(1);
  });

  it('answers an empty, negative or fractional cursor with -32602 at /params/cursor, saying what it expected', async () => {
    const a = await agent(['--page-size', '1']);
    await a.connection.sendRequest('session/new', { cwd: '/repo' });
    await a.connection.sendRequest('session/new', { cwd: '/repo' });
    for (const cursor of ['', '-1', '2.5']) {
      expect(await errorOf(a.connection.sendRequest('session/list', { cursor }))).toMatchObject({
        code: -32602,
        message: `Invalid cursor: ${JSON.stringify(cursor)}`,
        data: { pointer: '/params/cursor', expected: 'a nextCursor from an earlier session/list response' },
      });
    }
    // An issued cursor still pages on.
    const first = await a.connection.sendRequest('session/list', {});
    const second = await a.connection.sendRequest('session/list', { cursor: first.nextCursor });
    expect(second.sessions).toHaveLength(1);
    expect(second.sessions[0]?.sessionId).not.toBe(first.sessions[0]?.sessionId);
  });

  it('answers a forged cursor that reads as a number near an issued one with -32602 at /params/cursor (#24 item 7)', async () => {
    const a = await agent(['--page-size', '1']);
    for (let i = 0; i < 12; i++) await a.connection.sendRequest('session/new', { cwd: '/repo' });
    const first = await a.connection.sendRequest('session/list', {});
    expect(first.nextCursor).toEqual(expect.any(String));
    for (const cursor of ['0x10', '1e1', ' 7 ', '+3', '007', '1e300', '-0', '0', `${first.nextCursor} `]) {
      expect(await errorOf(a.connection.sendRequest('session/list', { cursor })), cursor).toMatchObject({
        code: -32602,
        data: { pointer: '/params/cursor', expected: 'a nextCursor from an earlier session/list response' },
      });
    }
    const second = await a.connection.sendRequest('session/list', { cursor: first.nextCursor });
    expect(second.sessions).toHaveLength(1);
  });

  it('refuses a relative cwd filter with -32602 at /params/cwd (ACP paths are absolute) and keeps serving', async () => {
    const a = await agent();
    await a.connection.sendRequest('session/new', { cwd: '/work/repo' });
    for (const cwd of ['repo', './repo', 'work/repo']) {
      expect(await errorOf(a.connection.sendRequest('session/list', { cwd }))).toMatchObject({
        code: -32602,
        message: `cwd must be an absolute path, got ${JSON.stringify(cwd)}`,
        data: { pointer: '/params/cwd', expected: 'an absolute path' },
      });
    }
    // An empty path already fails the schema (AbsolutePath has minLength 1), at the same pointer.
    expect(await errorOf(a.connection.sendRequest('session/list', { cwd: '' }))).toMatchObject({
      code: -32602,
      data: { pointer: '/params/cwd' },
    });
    expect((await a.connection.sendRequest('session/list', { cwd: '/work/repo' })).sessions).toHaveLength(1);
    expect((await a.connection.sendRequest('session/list', { cwd: null })).sessions).toHaveLength(1);
  });
});

describe('session/new', () => {
  it('hands the application the whole request and lists what it kept', async () => {
    const a = await agent();
    const response = await a.connection.sendRequest('session/new', {
      cwd: '/repo',
      additionalDirectories: ['/lib', '/docs'],
      mcpServers: [{ type: 'stdio', name: 'files', command: '/bin/mcp-files', args: [] }],
      _meta: { 'example.com/tag': 7 },
    } as never);
    expect(response.configOptions?.map((o) => o.configId)).toEqual(['mode', 'verbose']);
    expect(response.availableCommands?.map((c) => c.name)).toEqual(['tool']);
    const { sessions } = await a.connection.sendRequest('session/list', {});
    expect(sessions).toEqual([
      expect.objectContaining({
        sessionId: response.sessionId,
        cwd: '/repo',
        additionalDirectories: ['/lib', '/docs'],
        title: `new ${response.sessionId.slice(0, 5)} mcp=files meta={"example.com/tag":7}`,
      }),
    ]);
  });

  it('lets the application refuse with its own JSON-RPC error, and creates nothing', async () => {
    const a = await agent();
    const refused = await errorOf(a.connection.sendRequest('session/new', { cwd: '/refused' }));
    expect(refused).toMatchObject({ code: -32602, data: { pointer: '/params/cwd' } });
    const crashed = await errorOf(a.connection.sendRequest('session/new', { cwd: '/crash' }));
    expect(crashed).toMatchObject({ code: -32603, message: 'Internal error' });
    await vi.waitFor(() => expect(a.stderr()).toContain('handler onNewSession failed: application bug'), {
      timeout: 30_000,
    });
    expect((await a.connection.sendRequest('session/list', {})).sessions).toEqual([]);
    const relative = await errorOf(
      a.connection.sendRequest('session/new', { cwd: '/repo', additionalDirectories: ['/ok', 'lib'] }),
    );
    expect(relative).toMatchObject({ code: -32602, data: { pointer: '/params/additionalDirectories/1' } });
    await a.connection.sendRequest('session/new', { cwd: '/repo' });
    expect((await a.connection.sendRequest('session/list', {})).sessions).toHaveLength(1);
  });
});

describe('session/close', () => {
  it('frees the live session, answers its uninserted prompt -32800, and keeps its history resumable', async () => {
    const a = await agent();
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    const first = await a.connection.sendRequest('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'hello' }],
    });
    await a.until((u) => turnsEnded(u, sessionId));
    // Its rejection is awaited from the start: the -32800 may arrive before close's answer.
    const held = errorOf(
      a.connection.sendRequest('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'hold' }],
      }),
    );
    expect(await a.connection.sendRequest('session/close', { sessionId })).toEqual({});
    expect(await held).toMatchObject({ code: -32800 });

    // The application was told (onCloseSession), and the session is still listed.
    const { sessionId: other } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    await a.connection.sendRequest('session/prompt', {
      sessionId: other,
      prompt: [{ type: 'text', text: 'closed?' }],
    });
    await a.until((u) => turnsEnded(u, other));
    const texts = a
      .of(other)
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => (u as { content: { text: string } }).content.text);
    expect(texts).toEqual([`closed: ${sessionId}`]);
    const listed = (await a.connection.sendRequest('session/list', {})).sessions.map((s) => s.sessionId);
    expect(listed).toContain(sessionId);

    // Resuming loads it again from the log, replaying the first turn under its messageId.
    const before = a.of(sessionId).length;
    await a.connection.sendRequest('session/resume', {
      sessionId,
      cwd: '/repo',
      replayFrom: { type: 'start' },
    });
    const replayed = a.of(sessionId).slice(before);
    expect(replayed).toContainEqual(
      expect.objectContaining({ sessionUpdate: 'user_message', messageId: first.messageId }),
    );
    expect(
      replayed.some((u) => u.sessionUpdate === 'user_message' && JSON.stringify(u).includes('hold')),
    ).toBe(false);
    await a.connection.sendRequest('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'again' }],
    });
    await a.until((u) => turnsEnded(u, sessionId, 2));
  });

  it('ends an asked turn as session/cancel does before answering: the elicitation withdrawn, idle cancelled sent first, the held prompt -32800', async () => {
    const asked: AbortSignal[] = [];
    const a = await spawnV2Agent([], { elicitation: { form: {} } }, (connection) => {
      connection.onRequest(
        'elicitation/create',
        (_params, { signal }) =>
          new Promise((resolve) => {
            asked.push(signal);
            signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true });
          }),
      );
    });
    children.push(a);
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    await a.connection.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ask' }] });
    await a.until((u) =>
      u.some((n) => n.update.sessionUpdate === 'state_update' && n.update.state === 'requires_action'),
    );
    await vi.waitFor(() => expect(asked).toHaveLength(1), { timeout: 10_000 });
    const held = errorOf(
      a.connection.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hold' }] }),
    );
    expect(await a.connection.sendRequest('session/close', { sessionId })).toEqual({});
    // By the time the close was answered, the turn had ended for this client, cancelled.
    const states = a.of(sessionId).filter((u) => u.sessionUpdate === 'state_update');
    expect(states.at(-1)).toMatchObject({ state: 'idle', stopReason: 'cancelled' });
    expect(asked[0]!.aborted).toBe(true);
    expect(await held).toMatchObject({ code: -32800 });
  });

  it('answers an unknown session -32002 with its ID, and bad params -32602, and keeps serving', async () => {
    const a = await agent();
    expect(
      await errorOf(a.connection.sendRequest('session/close', { sessionId: 'sess_nope' })),
    ).toMatchObject({
      code: -32002,
      data: { sessionId: 'sess_nope' },
    });
    const bad = await errorOf(a.connection.sendRequest('session/close', {} as never));
    expect(bad).toMatchObject({ code: -32602, data: { pointer: '/params/sessionId' } });
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    expect(await a.connection.sendRequest('session/close', { sessionId })).toEqual({});
    // Closing again is harmless: nothing is live, the session exists.
    expect(await a.connection.sendRequest('session/close', { sessionId })).toEqual({});
  });
});

describe('session/delete', () => {
  it('is not offered (-32601) unless the agent advertises session.delete', async () => {
    const a = await agent();
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    expect(await errorOf(a.connection.sendRequest('session/delete', { sessionId }))).toMatchObject({
      code: -32601,
    });
    expect((await a.connection.sendRequest('session/list', {})).sessions).toHaveLength(1);
  });

  it('removes the session and its history when advertised; unknown or deleted is {}, bad params -32602', async () => {
    const a = await agent(['--delete']);
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    await a.connection.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    await a.until((u) => turnsEnded(u, sessionId));
    expect(await a.connection.sendRequest('session/delete', { sessionId })).toEqual({});
    expect((await a.connection.sendRequest('session/list', {})).sessions).toEqual([]);
    expect(
      await errorOf(
        a.connection.sendRequest('session/resume', {
          sessionId,
          cwd: '/repo',
          replayFrom: { type: 'start' },
        }),
      ),
    ).toMatchObject({ code: -32002 });
    // Deleting it again, or a session that never existed, succeeds silently (upstream's draft: SHOULD).
    expect(await a.connection.sendRequest('session/delete', { sessionId })).toEqual({});
    expect(await a.connection.sendRequest('session/delete', { sessionId: 'sess_never_created' })).toEqual({});
    expect(await errorOf(a.connection.sendRequest('session/delete', { sessionId: '' }))).toMatchObject({
      code: -32602,
      data: { pointer: '/params/sessionId' },
    });
    const again = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    expect((await a.connection.sendRequest('session/list', {})).sessions.map((s) => s.sessionId)).toEqual([
      again.sessionId,
    ]);
  });
});

describe('session/resume', () => {
  it('lets the application refuse with its error, and returns the kept config options and commands', async () => {
    const a = await agent();
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    const refused = await errorOf(
      a.connection.sendRequest('session/resume', { sessionId, cwd: '/repo', _meta: { refuse: true } }),
    );
    expect(refused).toMatchObject({ code: -32001, message: 'resume refused by the application' });
    const resumed = await a.connection.sendRequest('session/resume', {
      sessionId,
      cwd: '/repo',
      additionalDirectories: ['/extra'],
    });
    expect(resumed.configOptions?.map((o) => o.configId)).toEqual(['mode', 'verbose']);
    expect(resumed.availableCommands?.map((c) => c.name)).toEqual(['tool']);
    const { sessions } = await a.connection.sendRequest('session/list', {});
    expect(sessions[0]).toMatchObject({ sessionId, additionalDirectories: ['/extra'] });
  });
});
