import type { ContentBlock } from '@acp-kit/schema';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type HistoryStore,
  HistoryStoreError,
  type HistoryStoreErrorCode,
  type NewRetainedMessage,
  retainedMessages,
} from '../../src/history/index.js';

/** What the contract suite may ask of a store factory. */
export interface ContractStoreOptions {
  /** Deterministic ID generator, used to prove that issued IDs are never handed out twice. */
  readonly generateMessageId?: () => string;
}

/** Hooks a store implementation gives the contract suite. */
export interface HistoryStoreContractHooks {
  /** Creates a fresh, empty store. */
  readonly makeStore: (options?: ContractStoreOptions) => Promise<HistoryStore> | HistoryStore;
  /**
   * For persistent stores: closes `store` and opens the same storage again (with `options`).
   * When given, the suite also checks that data and issued IDs survive a restart.
   */
  readonly reopen?: (store: HistoryStore, options?: ContractStoreOptions) => Promise<HistoryStore>;
}

const text = (value: string): ContentBlock => ({ type: 'text', text: value }) as ContentBlock;

function message(messageId: string, overrides: Partial<NewRetainedMessage> = {}): NewRetainedMessage {
  return { kind: 'agent_message', messageId, content: [text(messageId)], via: 'full', ...overrides };
}

async function rejection(promise: Promise<unknown>): Promise<HistoryStoreError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(HistoryStoreError);
    return error as HistoryStoreError;
  }
  throw new Error('expected a HistoryStoreError, but the call succeeded');
}

async function expectCode(
  promise: Promise<unknown>,
  code: HistoryStoreErrorCode,
): Promise<HistoryStoreError> {
  const error = await rejection(promise);
  expect(error.code).toBe(code);
  return error;
}

/** A generator that replays `ids` in order, then repeats the last one forever. */
export function scriptedIds(...ids: string[]): () => string {
  let i = 0;
  return () => ids[Math.min(i++, ids.length - 1)]!;
}

/**
 * The behaviour every {@link HistoryStore} must show. Call it from a test file with the store's
 * factory (or hooks, to add the restart checks); both `MemoryHistoryStore` and
 * `@acp-kit/history-sqlite` run it.
 */
export function describeHistoryStoreContract(
  name: string,
  makeStoreOrHooks: HistoryStoreContractHooks | HistoryStoreContractHooks['makeStore'],
): void {
  const hooks = typeof makeStoreOrHooks === 'function' ? { makeStore: makeStoreOrHooks } : makeStoreOrHooks;
  describe(`${name} (HistoryStore contract)`, () => {
    const open: HistoryStore[] = [];
    const make = async (options?: ContractStoreOptions) => {
      const store = await hooks.makeStore(options);
      open.push(store);
      return store;
    };
    const withSession = async (options?: ContractStoreOptions) => {
      const store = await make(options);
      await store.createSession({ sessionId: 's1', cwd: '/work' });
      return store;
    };
    afterEach(async () => {
      for (const store of open.splice(0)) await store.close();
    });

    it('creates a session and reads it back', async () => {
      const store = await make();
      const created = await store.createSession({
        sessionId: 's1',
        cwd: '/work',
        createdAt: '2026-01-02T03:04:05.000Z',
      });
      expect(created).toEqual({ sessionId: 's1', cwd: '/work', createdAt: '2026-01-02T03:04:05.000Z' });
      expect(await store.getSession('s1')).toEqual(created);
      expect(await store.getSession('nope')).toBeUndefined();
    });

    it('stamps a creation time when none is given', async () => {
      const store = await make();
      const { createdAt } = await store.createSession({ sessionId: 's1', cwd: '/w' });
      expect(Number.isNaN(Date.parse(createdAt))).toBe(false);
    });

    it('rejects a second session with the same ID', async () => {
      const store = await withSession();
      const error = await expectCode(
        store.createSession({ sessionId: 's1', cwd: '/other' }),
        'session_exists',
      );
      expect(error.sessionId).toBe('s1');
      expect((await store.getSession('s1'))?.cwd).toBe('/work');
    });

    it('rejects malformed session input with a pointer to the bad field', async () => {
      const store = await make();
      const error = await expectCode(store.createSession({ sessionId: 's1', cwd: '' }), 'invalid_argument');
      expect(error.pointer).toBe('/cwd');
      expect(error.rpcCode).toBe(-32602);
    });

    it('lists sessions in creation order, page by page', async () => {
      const store = await make();
      for (const id of ['c', 'a', 'b', 'e', 'd']) await store.createSession({ sessionId: id, cwd: '/w' });
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await store.listSessions({ cursor, limit: 2 });
        expect(page.sessions.length).toBeLessThanOrEqual(2);
        seen.push(...page.sessions.map((s) => s.sessionId));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(seen).toEqual(['c', 'a', 'b', 'e', 'd']);
      expect((await store.listSessions()).sessions).toHaveLength(5);
    });

    it('deletes a session with its log and reports whether it existed', async () => {
      const store = await withSession();
      await store.appendMessage('s1', message('m1'));
      expect(await store.deleteSession('s1')).toBe(true);
      expect(await store.deleteSession('s1')).toBe(false);
      expect(await store.getSession('s1')).toBeUndefined();
      await expectCode(store.readMessages('s1'), 'session_not_found');
      await store.createSession({ sessionId: 's1', cwd: '/again' });
      expect((await store.readMessages('s1')).messages).toEqual([]);
    });

    it('appends messages with sequence numbers that start at 1 and increase', async () => {
      const store = await withSession();
      const first = await store.appendMessage('s1', message('m1', { kind: 'user_message' }));
      const second = await store.appendMessage('s1', message('m2', { via: 'chunks', content: [] }));
      expect(first).toEqual({
        seq: 1,
        kind: 'user_message',
        messageId: 'm1',
        via: 'full',
        content: [text('m1')],
        meta: null,
      });
      expect(second.seq).toBe(2);
      const page = await store.readMessages('s1');
      expect(page.messages.map((m) => [m.seq, m.messageId, m.via])).toEqual([
        [1, 'm1', 'full'],
        [2, 'm2', 'chunks'],
      ]);
      expect(page.nextAfterSeq).toBeNull();
    });

    it('fails with session_not_found, mapped to JSON-RPC -32002, for an unknown session', async () => {
      const store = await make();
      const error = await expectCode(store.appendMessage('ghost', message('m1')), 'session_not_found');
      expect(error).toMatchObject({ sessionId: 'ghost', rpcCode: -32002 });
      await expectCode(store.nextMessageId('ghost'), 'session_not_found');
      await expectCode(
        store.appendChunk('ghost', { kind: 'agent_message', messageId: 'm' }, text('x')),
        'session_not_found',
      );
    });

    it('retains a kind and ID at most once, but keeps a separate ID space per kind', async () => {
      const store = await withSession();
      await store.appendMessage('s1', message('m1'));
      const error = await expectCode(store.appendMessage('s1', message('m1')), 'duplicate_message');
      expect(error.messageId).toBe('m1');
      await store.appendMessage('s1', message('m1', { kind: 'agent_thought' }));
      expect((await store.readMessages('s1')).messages.map((m) => `${m.kind}:${m.seq}`)).toEqual([
        'agent_message:1',
        'agent_thought:2',
      ]);
    });

    it('appends chunks to the right message in order', async () => {
      const store = await withSession();
      await store.appendMessage('s1', message('m1', { via: 'chunks', content: [] }));
      await store.appendMessage('s1', message('m1', { kind: 'agent_thought', content: [] }));
      const ref = { kind: 'agent_message', messageId: 'm1' } as const;
      await store.appendChunk('s1', ref, text('a'));
      await store.appendChunk('s1', { kind: 'agent_thought', messageId: 'm1' }, text('thought'));
      await store.appendChunk('s1', ref, text('b'));
      const [agent, thought] = (await store.readMessages('s1')).messages;
      expect(agent?.content).toEqual([text('a'), text('b')]);
      expect(thought?.content).toEqual([text('thought')]);
    });

    it('fails with message_not_found for a chunk or replacement of a message it does not retain', async () => {
      const store = await withSession();
      const ref = { kind: 'user_message', messageId: 'nope' } as const;
      await expectCode(store.appendChunk('s1', ref, text('x')), 'message_not_found');
      await expectCode(store.replaceContent('s1', ref, []), 'message_not_found');
    });

    it('replaces content, clears it with null, and can change the replay preference', async () => {
      const store = await withSession();
      const ref = { kind: 'agent_message', messageId: 'm1' } as const;
      await store.appendMessage('s1', message('m1', { via: 'chunks' }));
      await store.appendChunk('s1', ref, text('more'));
      await store.replaceContent('s1', ref, [text('final')], { via: 'full' });
      expect((await store.readMessages('s1')).messages[0]).toMatchObject({
        content: [text('final')],
        via: 'full',
      });
      await store.replaceContent('s1', ref, null);
      expect((await store.readMessages('s1')).messages[0]).toMatchObject({
        content: [],
        via: 'full',
        seq: 1,
      });
    });

    it('round-trips every content block shape and message meta exactly', async () => {
      const store = await withSession();
      const blocks = [
        text('hi'),
        { type: 'image', data: 'aGk=', mimeType: 'image/png', _meta: { k: [1, { n: null }] } },
        { type: 'resource_link', uri: 'file:///a.ts', name: 'a.ts' },
        { type: '_vendor', payload: { deep: { er: true } }, 'weird key': 'ü 日本' },
      ] as ContentBlock[];
      await store.appendMessage('s1', message('m1', { content: blocks, meta: { trace: 'x', n: 1 } }));
      const [stored] = (await store.readMessages('s1')).messages;
      expect(stored?.content).toEqual(blocks);
      expect(stored?.meta).toEqual({ trace: 'x', n: 1 });
    });

    it('reports whether a message is retained', async () => {
      const store = await withSession();
      await store.appendMessage('s1', message('m1', { kind: 'user_message' }));
      expect(await store.isRetained('s1', { kind: 'user_message', messageId: 'm1' })).toBe(true);
      expect(await store.isRetained('s1', { kind: 'agent_message', messageId: 'm1' })).toBe(false);
      expect(await store.isRetained('s1', { kind: 'user_message', messageId: 'live-only' })).toBe(false);
    });

    it('hands out copies, so changing a returned array does not change the log', async () => {
      const store = await withSession();
      const appended = await store.appendMessage('s1', message('m1'));
      (appended.content as ContentBlock[]).push(text('mutated'));
      const [read] = (await store.readMessages('s1')).messages;
      (read!.content as ContentBlock[]).push(text('mutated'));
      expect((await store.readMessages('s1')).messages[0]?.content).toEqual([text('m1')]);
    });

    it('pages through a long log in order, from any sequence number', async () => {
      const store = await withSession();
      for (let i = 1; i <= 1000; i++) await store.appendMessage('s1', message(`m${i}`));
      const seqs: number[] = [];
      let afterSeq: number | null = 0;
      let pages = 0;
      while (afterSeq !== null) {
        const page = await store.readMessages('s1', { afterSeq, limit: 100 });
        seqs.push(...page.messages.map((m) => m.seq));
        afterSeq = page.nextAfterSeq;
        pages++;
      }
      expect(pages).toBe(10);
      expect(seqs).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
      const tail = await store.readMessages('s1', { afterSeq: 995 });
      expect(tail.messages.map((m) => m.messageId)).toEqual(['m996', 'm997', 'm998', 'm999', 'm1000']);
      expect((await store.readMessages('s1', { afterSeq: 1000 })).messages).toEqual([]);
    });

    it('streams the whole log, or the part after a sequence number, through messages()', async () => {
      const store = await withSession();
      for (let i = 1; i <= 300; i++) await store.appendMessage('s1', message(`m${i}`));
      const ids: string[] = [];
      for await (const m of store.messages('s1', { pageSize: 64 })) ids.push(m.messageId);
      expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => `m${i + 1}`));
      const tail: number[] = [];
      for await (const m of retainedMessages(store, 's1', { afterSeq: 297 })) tail.push(m.seq);
      expect(tail).toEqual([298, 299, 300]);
    });

    it('fails a stream of an unknown session with session_not_found', async () => {
      const store = await make();
      const iterate = async () => {
        for await (const _ of store.messages('ghost')) expect.unreachable();
      };
      await expectCode(iterate(), 'session_not_found');
    });

    it('generates a session ID when none is given', async () => {
      const store = await make();
      const a = await store.createSession({ cwd: '/w' });
      const b = await store.createSession({ cwd: '/w' });
      expect(a.sessionId).not.toBe(b.sessionId);
      expect(await store.getSession(a.sessionId)).toEqual(a);
    });

    it('defaults the replay preference to chunks for an empty message and full otherwise', async () => {
      const store = await withSession();
      await store.appendMessage('s1', { kind: 'agent_message', messageId: 'streamed', content: [] });
      await store.appendMessage('s1', { kind: 'user_message', messageId: 'whole', content: [text('q')] });
      expect((await store.readMessages('s1')).messages.map((m) => m.via)).toEqual(['chunks', 'full']);
    });

    it('finds a message by its bare ID, and refuses to guess when two kinds share it', async () => {
      const store = await withSession();
      await store.appendMessage('s1', message('solo', { content: [] }));
      await store.appendChunk('s1', 'solo', text('x'));
      await store.replaceContent('s1', 'solo', [text('y'), text('z')]);
      expect(await store.isRetained('s1', 'solo')).toBe(true);
      expect(await store.isRetained('s1', 'other')).toBe(false);
      expect((await store.readMessages('s1')).messages[0]?.content).toEqual([text('y'), text('z')]);
      await store.appendMessage('s1', message('shared', { kind: 'user_message' }));
      await store.appendMessage('s1', message('shared', { kind: 'agent_thought' }));
      const error = await expectCode(store.appendChunk('s1', 'shared', text('?')), 'invalid_argument');
      expect(error.messageId).toBe('shared');
      await expectCode(store.appendChunk('s1', 'missing', text('?')), 'message_not_found');
      const contents = (await store.readMessages('s1')).messages.map((m) => m.content.length);
      expect(contents).toEqual([2, 1, 1]);
    });

    it('keeps each session log separate', async () => {
      const store = await withSession();
      await store.createSession({ sessionId: 's2', cwd: '/w' });
      await store.appendMessage('s1', message('m1'));
      await store.appendMessage('s2', message('m1'));
      await store.appendMessage('s2', message('m2'));
      expect((await store.readMessages('s1')).messages.map((m) => m.seq)).toEqual([1]);
      expect((await store.readMessages('s2')).messages.map((m) => m.seq)).toEqual([1, 2]);
    });

    it('issues distinct message IDs', async () => {
      const store = await withSession();
      const ids = new Set<string>();
      for (let i = 0; i < 500; i++) ids.add(await store.nextMessageId('s1'));
      expect(ids.size).toBe(500);
      for (const id of ids) expect(id).toMatch(/^\S+$/);
    });

    it('never issues an ID twice, nor one already used by an appended message', async () => {
      const store = await withSession({ generateMessageId: scriptedIds('a', 'a', 'b', 'c', 'd') });
      expect(await store.nextMessageId('s1')).toBe('a');
      await store.appendMessage('s1', message('b', { kind: 'user_message' }));
      expect(await store.nextMessageId('s1')).toBe('c');
      expect(await store.nextMessageId('s1')).toBe('d');
      const error = await rejection(store.nextMessageId('s1'));
      expect(error.code).toBe('io');
    });

    it('rejects malformed message input with a pointer to the bad field', async () => {
      const store = await withSession();
      const bad = (m: Record<string, unknown>) =>
        store.appendMessage('s1', m as unknown as NewRetainedMessage);
      expect(
        (await expectCode(bad({ ...message('m1'), kind: 'tool_call' }), 'invalid_argument')).pointer,
      ).toBe('/kind');
      expect((await expectCode(bad({ ...message('m1'), messageId: '' }), 'invalid_argument')).pointer).toBe(
        '/messageId',
      );
      expect((await expectCode(bad({ ...message('m1'), content: [{}] }), 'invalid_argument')).pointer).toBe(
        '/content/0',
      );
      expect((await expectCode(bad({ ...message('m1'), via: 'stream' }), 'invalid_argument')).pointer).toBe(
        '/via',
      );
      await expectCode(store.readMessages('s1', { limit: 0 }), 'invalid_argument');
      await expectCode(store.readMessages('s1', { afterSeq: -1 }), 'invalid_argument');
      await expectCode(store.listSessions({ cursor: 'garbage' }), 'invalid_argument');
      expect((await store.readMessages('s1')).messages).toEqual([]);
    });

    it('fails every call after close with closed, and closes idempotently', async () => {
      const store = await withSession();
      await store.close();
      await store.close();
      await expectCode(store.getSession('s1'), 'closed');
      await expectCode(store.appendMessage('s1', message('m1')), 'closed');
    });

    if (hooks.reopen !== undefined) {
      const reopen = hooks.reopen;

      it('keeps sessions, messages, content and order after a restart', async () => {
        const store = await withSession();
        await store.appendMessage('s1', message('m1', { kind: 'user_message', meta: { a: 1 } }));
        await store.appendMessage('s1', message('m2', { via: 'chunks', content: [] }));
        await store.appendChunk('s1', { kind: 'agent_message', messageId: 'm2' }, text('x'));
        const before = await store.readMessages('s1');
        const reopened = await reopen(store);
        open.push(reopened);
        expect(await reopened.getSession('s1')).toEqual({
          sessionId: 's1',
          cwd: '/work',
          createdAt: expect.any(String),
        });
        expect(await reopened.readMessages('s1')).toEqual(before);
        expect((await reopened.appendMessage('s1', message('m3'))).seq).toBe(3);
      });

      it('never reissues an ID after a restart, even if the generator repeats itself', async () => {
        const store = await withSession({ generateMessageId: scriptedIds('a', 'b') });
        expect(await store.nextMessageId('s1')).toBe('a');
        await store.appendMessage('s1', message('native-1'));
        const reopened = await reopen(store, { generateMessageId: scriptedIds('a', 'native-1', 'b') });
        open.push(reopened);
        expect(await reopened.nextMessageId('s1')).toBe('b');
      });
    }
  });
}
