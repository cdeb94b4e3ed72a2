import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContentBlock, SessionUpdate } from '@acp-kit/schema';
import { RpcError, type UnstableClient } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type V1Rig, textOf, v1Rig } from './helpers.js';

const CWD = '/tmp';
const text = (t: string): [ContentBlock] => [{ type: 'text', text: t }];
const isUser = (id: string) => (u: SessionUpdate) =>
  (u.sessionUpdate === 'user_message' || u.sessionUpdate === 'user_message_chunk') && u.messageId === id;
const isIdle = (u: SessionUpdate) => u.sessionUpdate === 'state_update' && u.state === 'idle';

let rig: V1Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function start(env: Record<string, string> = {}, options: Parameters<typeof v1Rig>[1] = {}) {
  rig = v1Rig(env, options);
  await rig.client.initialize();
  const sessionId = await rig.client.newSession(CWD);
  return { rig, sessionId };
}

describe('a v1 agent served as v2', () => {
  it('answers a prompt with the v1 echo messageId, after the echo, then reports running and idle/end_turn', async () => {
    const { rig, sessionId } = await start({ V1_ECHO: 'ids' });
    const messageId = await rig.client.prompt(sessionId, text('hello'));
    expect(messageId).toBe('u-1');
    await rig.log.idle(0);
    const { log } = rig;
    expect(log.updateAt(isUser('u-1'))).toBeLessThan(log.responseAt('u-1'));
    const updates = log.updates;
    const running = updates.findIndex((u) => u.sessionUpdate === 'state_update' && u.state === 'running');
    expect(running).toBeGreaterThan(updates.findIndex(isUser('u-1')));
    expect(updates.at(-1)).toEqual({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
    const snapshot = rig.client.store.snapshot(sessionId);
    const user = snapshot.messages.find((m) => m.kind === 'user_message');
    expect(user).toMatchObject({ messageId: 'u-1' });
    expect(textOf(user?.content)).toBe('hello');
    const reply = snapshot.messages.find((m) => m.kind === 'agent_message');
    expect(textOf(reply?.content)).toBe('echo: hello');
    expect(snapshot.toolCalls.map((t) => t.fields.status)).toEqual(['completed']);
  });

  it('without an echo, answers only at the first update of the turn, under a derived ID', async () => {
    const { rig, sessionId } = await start();
    const messageId = await rig.client.prompt(sessionId, text('hello'));
    expect(messageId).toMatch(/^m1_/);
    await rig.log.idle(0);
    const { log } = rig;
    // The tool call was the evidence: the user message is reported first, then the receipt.
    const toolCall = log.updateAt((u) => u.sessionUpdate === 'tool_call_update');
    expect(log.updateAt(isUser(messageId))).toBeLessThan(toolCall);
    expect(log.updateAt(isUser(messageId))).toBeLessThan(log.responseAt(messageId));
    const user = rig.client.store.snapshot(sessionId).messages.find((m) => m.kind === 'user_message');
    expect(textOf(user?.content)).toBe('hello');
  });

  it('keeps the echoed content when the echo has no messageId', async () => {
    const { rig, sessionId } = await start({ V1_ECHO: 'plain' });
    const messageId = await rig.client.prompt(sessionId, text('plain echo'));
    expect(messageId).toMatch(/^m1_/);
    await rig.log.idle(0);
    const users = rig.client.store.snapshot(sessionId).messages.filter((m) => m.kind === 'user_message');
    expect(users).toHaveLength(1);
    expect(textOf(users[0]?.content)).toBe('plain echo');
  });

  it('gives identical prompts distinct messageIds and holds the second until the first turn ends', async () => {
    const { rig, sessionId } = await start();
    const first = rig.client.prompt(sessionId, text('same'));
    const second = rig.client.prompt(sessionId, text('same'));
    const [a, b] = await Promise.all([first, second]);
    expect(a).not.toBe(b);
    await rig.log.waitFor((u) => isIdle(u) && rig!.log.updates.filter(isIdle).length === 2);
    const { log } = rig;
    const firstIdle = log.updateAt(isIdle);
    expect(log.responseAt(b)).toBeGreaterThan(firstIdle);
    expect(log.updateAt(isUser(b))).toBeGreaterThan(firstIdle);
    const users = rig.client.store.snapshot(sessionId).messages.filter((m) => m.kind === 'user_message');
    expect(users.map((m) => m.messageId)).toEqual([a, b]);
  });

  it('turns a v1 error into a JSON-RPC error and inserts nothing', async () => {
    const { rig, sessionId } = await start({ V1_ECHO: 'ids' });
    const failed = rig.client.prompt(sessionId, text('fail'));
    await expect(failed).rejects.toBeInstanceOf(RpcError);
    await expect(failed).rejects.toMatchObject({ code: -32602 });
    const next = await rig.client.prompt(sessionId, text('after'));
    await rig.log.idle(0);
    const users = rig.log.updates.filter((u) => u.sessionUpdate === 'user_message');
    expect(new Set(users.map((u) => (u as { messageId: string }).messageId))).toEqual(new Set([next]));
  });

  it('passes a prompt block of a type v1 does not know on to the v1 agent, whose own answer comes back, and keeps serving the session', async () => {
    const { rig, sessionId } = await start({ V1_ECHO: 'ids' });
    // From a later protocol version: v2 and (like v2) acp-kit's v1 keep it; the bridge no longer
    // refuses it. The official v1 agent does: its own -32602 names the block (prompt[1].type).
    const video = { type: 'video', uri: 'file:///clip.mp4' } as unknown as ContentBlock;
    const refused = rig.client.prompt(sessionId, [{ type: 'text', text: 'look' }, video]);
    await expect(refused).rejects.toMatchObject({
      code: -32602,
      data: { prompt: { 1: { type: expect.anything() } } },
    });
    const next = await rig.client.prompt(sessionId, text('after'));
    await rig.log.idle(0);
    const users = rig.log.updates.filter((u) => u.sessionUpdate === 'user_message');
    expect(new Set(users.map((u) => (u as { messageId: string }).messageId))).toEqual(new Set([next]));
  });

  it('passes session/cancel through: the turn ends idle/cancelled and a held prompt is rejected with -32800', async () => {
    const { rig, sessionId } = await start();
    const slow = await rig.client.prompt(sessionId, text('slow'));
    expect(slow).toMatch(/^m1_/);
    const held = rig.client.prompt(sessionId, text('never'));
    await rig.client.cancel(sessionId);
    await expect(held).rejects.toMatchObject({ code: -32800 });
    await rig.log.idle(0);
    expect(rig.log.updates.filter(isIdle)).toEqual([
      { sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' },
    ]);
  });

  it('ends a cancelled turn idle/cancelled, with no error, when the v1 agent then fails the prompt instead of answering cancelled', async () => {
    const { rig, sessionId } = await start();
    await rig.client.prompt(sessionId, text('slow-throws'));
    await rig.client.cancel(sessionId);
    await rig.log.idle(0);
    expect(rig.log.updates.filter(isIdle)).toEqual([
      { sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' },
    ]);
  });

  it('passes permission requests through with requires_action while the client decides', async () => {
    const { rig, sessionId } = await start(
      {},
      {
        onPermission: (request) => {
          expect(request.subject).toMatchObject({ type: 'tool_call', toolCall: { toolCallId: 'call-1' } });
          return { outcome: { outcome: 'selected', optionId: 'yes' } };
        },
      },
    );
    await rig.client.prompt(sessionId, text('permission'));
    await rig.log.idle(0);
    const states = rig.log.updates
      .filter((u) => u.sessionUpdate === 'state_update')
      .map((u) => (u as { state: string }).state);
    expect(states).toEqual(['running', 'requires_action', 'running', 'idle']);
    const reply = rig.client.store.snapshot(sessionId).messages.filter((m) => m.kind === 'agent_message');
    expect(reply.map((m) => textOf(m.content))).toContain('permission: yes');
  });

  it('withdraws an open permission request on session/cancel, so the v1 agent hears cancelled', async () => {
    let asked!: () => void;
    const askedPromise = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const { rig, sessionId } = await start(
      {},
      {
        onPermission: () => {
          asked();
          return new Promise(() => undefined);
        },
      },
    );
    await rig.client.prompt(sessionId, text('permission'));
    await askedPromise;
    await rig.client.cancel(sessionId);
    await rig.log.idle(0);
    const reply = rig.client.store.snapshot(sessionId).messages.filter((m) => m.kind === 'agent_message');
    expect(reply.map((m) => textOf(m.content))).toContain('permission: cancelled');
  });

  for (const echo of ['none', 'ids'] as const) {
    it(`replays a session after a bridge restart with the same messageIds (echo: ${echo})`, async () => {
      const env = {
        V1_HISTORY: join(mkdtempSync(join(tmpdir(), 'v1-compat-')), 'history.json'),
        ...(echo === 'ids' ? { V1_ECHO: 'ids' } : {}),
      };
      const first = await start(env);
      const ids = [
        await first.rig.client.prompt(first.sessionId, text('one')),
        await first.rig.client.prompt(first.sessionId, text('two')),
      ];
      await first.rig.log.waitFor(() => first.rig.log.updates.filter(isIdle).length === 2);
      const before = first.rig.client.store
        .snapshot(first.sessionId)
        .messages.map((m) => [m.kind, m.messageId, textOf(m.content)]);
      await first.rig.close();

      rig = v1Rig(env);
      await rig.client.initialize();
      await rig.client.resume(first.sessionId, { cwd: CWD, replay: true });
      const after = rig.client.store
        .snapshot(first.sessionId)
        .messages.map((m) => [m.kind, m.messageId, textOf(m.content)]);
      expect(after).toEqual(before);
      expect(after.filter(([kind]) => kind === 'user_message').map(([, id]) => id)).toEqual(ids);
      // Replay rebuilds each chunked message from an empty update first (RFD).
      const resets = rig.log.updates.filter(
        (u) => u.sessionUpdate === 'user_message' && Array.isArray(u.content) && u.content.length === 0,
      );
      expect(resets).toHaveLength(2);
    });
  }
});

describe('session/set_title through the v1 agent bridge (v1 has no such method)', () => {
  it('is not advertised to the v2 client and is answered -32601 naming the method', async () => {
    rig = v1Rig({}, { unstable: true });
    const init = await rig.client.initialize();
    expect(init.capabilities?.session).toBeDefined();
    expect(init.capabilities?.session?.title).toBeUndefined();
    const sessionId = await rig.client.newSession(CWD);
    const refused = await (rig.client as UnstableClient).setTitle(sessionId, 'A title').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).code).toBe(-32601);
    expect((refused as RpcError).data).toMatchObject({ method: 'session/set_title' });
  });
});

describe('session/status, session/archive and session/unarchive through the v1 agent bridge (v1 has none)', () => {
  it('are not advertised to the v2 client, and each is answered -32601 naming the method', async () => {
    rig = v1Rig({}, { unstable: true });
    const init = await rig.client.initialize();
    expect(init.capabilities?.session?.status).toBeUndefined();
    expect(init.capabilities?.session?.archive).toBeUndefined();
    const sessionId = await rig.client.newSession(CWD);
    const calls: [string, Promise<unknown>][] = [
      ['session/status', (rig.client as UnstableClient).sessionStatus(sessionId)],
      ['session/archive', (rig.client as UnstableClient).archiveSession(sessionId)],
      ['session/unarchive', (rig.client as UnstableClient).unarchiveSession(sessionId)],
    ];
    for (const [method, call] of calls) {
      const refused = await call.then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(RpcError);
      expect((refused as RpcError).code).toBe(-32601);
      expect((refused as RpcError).data).toMatchObject({ method });
    }
  });
});
