import { describe, expect, it } from 'vitest';
import {
  type ConversationDiagnostic,
  ConversationStore,
  ConversationStoreError,
} from '../../src/client/conversation/index.js';
import { chunk, SESSION, text, texts, upsert } from './helpers.js';

describe('ConversationStore reconciliation of local submissions', () => {
  it('shows an optimistic entry after every reported message until the agent reports it', () => {
    const store = new ConversationStore();
    store.apply(upsert('agent_message', 'a0', [text('hello')]));
    const localId = store.addPending(SESSION, [text('question')]);
    const messages = store.snapshot(SESSION).messages;
    expect(messages.map((m) => [m.key, m.origin])).toEqual([
      ['agent_message:a0', 'agent'],
      [`local:${localId}`, 'local-pending'],
    ]);
    expect(messages[1]).toMatchObject({
      messageId: null,
      localId,
      position: null,
      content: [text('question')],
    });
  });

  it('keeps identical prompts as distinct entries and distinct messages', () => {
    const store = new ConversationStore();
    const first = store.addPending(SESSION, [text('same')]);
    const second = store.addPending(SESSION, [text('same')]);
    expect(first).not.toBe(second);
    expect(store.snapshot(SESSION).messages).toHaveLength(2);
    store.apply(upsert('user_message', 'u1', [text('same')]));
    store.resolvePending(second, 'u2');
    store.resolvePending(first, 'u1');
    store.apply(upsert('user_message', 'u2', [text('same')]));
    const messages = store.snapshot(SESSION).messages;
    expect(messages.map((m) => [m.messageId, m.localId, m.origin])).toEqual([
      ['u1', first, 'agent'],
      ['u2', second, 'agent'],
    ]);
  });

  it('shows exactly one entry when the response arrives before the user_message update', () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('mine')]);
    store.resolvePending(localId, 'u1');
    expect(store.snapshot(SESSION).messages).toMatchObject([
      { key: `local:${localId}`, messageId: 'u1', origin: 'local-pending', content: [text('mine')] },
    ]);
    store.apply(upsert('user_message', 'u1', [text('mine, as inserted')]));
    expect(store.snapshot(SESSION).messages).toMatchObject([
      { key: 'user_message:u1', localId, origin: 'agent', content: [text('mine, as inserted')] },
    ]);
  });

  it('shows exactly one entry when the user_message update arrives before the response', () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('mine')]);
    store.apply(upsert('user_message', 'u1', [text('mine')]));
    expect(store.snapshot(SESSION).messages).toHaveLength(2);
    store.resolvePending(localId, 'u1');
    expect(store.snapshot(SESSION).messages).toMatchObject([
      { key: 'user_message:u1', localId, origin: 'agent', content: [text('mine')] },
    ]);
  });

  it('never appends the agent stream to the optimistic copy', () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('What is'), text(' the capital?')]);
    store.resolvePending(localId, 'u1');
    store.apply(chunk('user_message', 'u1', text('What is')));
    expect(texts(store.snapshot(SESSION))).toEqual(['user_message:u1=What is']);
    store.apply(chunk('user_message', 'u1', text(' the capital?')));
    expect(texts(store.snapshot(SESSION))).toEqual(['user_message:u1=What is| the capital?']);
  });

  it('keeps showing the optimistic content while the agent has reported only metadata', () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('mine')]);
    store.apply(upsert('user_message', 'u1', undefined, { _meta: { tag: 1 } }));
    store.resolvePending(localId, 'u1');
    expect(store.snapshot(SESSION).messages).toMatchObject([
      { messageId: 'u1', origin: 'agent', content: [text('mine')], meta: { tag: 1 } },
    ]);
    store.apply(upsert('user_message', 'u1', []));
    expect(store.snapshot(SESSION).messages[0]?.content).toEqual([]);
  });

  it('places the message where the agent first reported it, whenever the response came', () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('q')]);
    store.resolvePending(localId, 'u1');
    store.apply(chunk('agent_message', 'a0', text('background note')));
    store.apply(upsert('user_message', 'u1', [text('q')]));
    expect(store.snapshot(SESSION).messages.map((m) => m.key)).toEqual([
      'agent_message:a0',
      'user_message:u1',
    ]);
  });

  it("shows other clients' messages by ID without matching them to a pending entry", () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('hi')]);
    store.apply(upsert('user_message', 'other', [text('hi')]));
    expect(store.snapshot(SESSION).messages.map((m) => [m.key, m.origin, m.localId])).toEqual([
      ['user_message:other', 'agent', null],
      [`local:${localId}`, 'local-pending', localId],
    ]);
  });

  it('marks a rejected submission failed and removes it when dismissed', () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('bad')]);
    const error = { code: -32602, message: 'invalid params' };
    store.rejectPending(localId, error);
    expect(store.snapshot(SESSION).messages).toMatchObject([{ origin: 'local-failed', error }]);
    store.dismissPending(localId);
    expect(store.snapshot(SESSION).messages).toEqual([]);
  });

  it('never matches an unknown-outcome entry to a replayed message, even with identical content', () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('did it land?')]);
    store.markOutcomeUnknown(localId);
    store.applyBatch([upsert('user_message', 'u1', []), chunk('user_message', 'u1', text('did it land?'))]);
    expect(store.snapshot(SESSION).messages.map((m) => [m.key, m.origin, m.localId])).toEqual([
      ['user_message:u1', 'agent', null],
      [`local:${localId}`, 'local-unknown', localId],
    ]);
  });

  it('resolves an unknown-outcome entry when a late response does name its ID', () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('q')]);
    store.markOutcomeUnknown(localId);
    store.apply(upsert('user_message', 'u1', [text('q')]));
    store.resolvePending(localId, 'u1');
    expect(store.snapshot(SESSION).messages).toMatchObject([{ messageId: 'u1', localId, origin: 'agent' }]);
  });

  it('leaves a resolved entry alone when asked to mark its outcome unknown', () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('q')]);
    store.resolvePending(localId, 'u1');
    store.markOutcomeUnknown(localId);
    expect(store.snapshot(SESSION).messages).toMatchObject([{ messageId: 'u1', origin: 'local-pending' }]);
  });

  it('reports a response that reuses an already claimed ID and does not merge the submissions', () => {
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ onDiagnostic: (d) => diagnostics.push(d) });
    const first = store.addPending(SESSION, [text('a')]);
    const second = store.addPending(SESSION, [text('b')]);
    store.resolvePending(first, 'u1');
    store.resolvePending(second, 'u1');
    expect(diagnostics.map((d) => d.code)).toEqual(['duplicate_message_id']);
    store.apply(upsert('user_message', 'u1', [text('a')]));
    expect(store.snapshot(SESSION).messages.map((m) => [m.key, m.origin, m.localId])).toEqual([
      ['user_message:u1', 'agent', first],
      [`local:${second}`, 'local-unknown', second],
    ]);
  });

  it('accepts a caller-chosen localId and rejects one already in use', () => {
    const store = new ConversationStore();
    expect(store.addPending(SESSION, [], { localId: 'mine' })).toBe('mine');
    expect(() => store.addPending(SESSION, [], { localId: 'mine' })).toThrow(ConversationStoreError);
  });

  it('throws a typed error for an unknown localId', () => {
    const store = new ConversationStore();
    try {
      store.resolvePending('ghost', 'u1');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConversationStoreError);
      expect(error).toMatchObject({ code: 'unknown_local_id', localId: 'ghost' });
    }
  });

  it('refuses to resolve a rejected submission or reject an inserted one', () => {
    const store = new ConversationStore();
    const rejected = store.addPending(SESSION, []);
    store.rejectPending(rejected, new Error('no'));
    expect(() => store.resolvePending(rejected, 'u1')).toThrow(/rejected/);
    const inserted = store.addPending(SESSION, []);
    store.resolvePending(inserted, 'u2');
    expect(() => store.rejectPending(inserted, new Error('late'))).toThrow(/already inserted/);
    expect(() => store.resolvePending(inserted, 'u3')).toThrow(/already resolved/);
    expect(() => store.resolvePending(inserted, 'u2')).not.toThrow();
  });

  it('refuses to dismiss a pending submission', () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, []);
    expect(() => store.dismissPending(localId)).toThrow(ConversationStoreError);
  });

  it('copies the optimistic content so later edits by the caller do not leak in', () => {
    const store = new ConversationStore();
    const content = [text('a')];
    store.addPending(SESSION, content);
    content.push(text('b'));
    expect(store.snapshot(SESSION).messages[0]?.content).toEqual([text('a')]);
  });
});
