import { describe, expect, it } from 'vitest';
import { ConversationStore, ConversationStoreError } from '../../src/client/index.js';
import { SESSION, state, text, upsert, peek } from './helpers.js';

describe('the end of a submission’s turn', () => {
  it('never takes the previous turn’s idle, even when it arrives after the submit', async () => {
    const store = new ConversationStore();
    store.applyBatch([upsert('user_message', 'u1', [text('first')]), state('running')]);
    const localId = store.addPending(SESSION, [text('second')]);
    const ended = store.turnEnd(localId);
    // The first turn ends after the submit but before the second prompt is inserted.
    store.apply(state('idle', { stopReason: 'end_turn' }));
    expect(await peek(ended)).toBe('pending');
    store.apply(upsert('user_message', 'u2', [text('second')]));
    store.resolvePending(localId, 'u2');
    expect(await peek(ended)).toBe('pending');
    store.applyBatch([
      state('running'),
      state('idle', { stopReason: 'cancelled', usage: { totalTokens: 3 } }),
    ]);
    expect(await ended).toEqual({
      messageId: 'u2',
      stopReason: 'cancelled',
      usage: { totalTokens: 3 },
      error: null,
    });
  });

  it('counts from the user_message update when the response comes after the idle', async () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('q')]);
    const error = { code: -32603, message: 'model unavailable' };
    store.applyBatch([
      upsert('user_message', 'u1', [text('q')]),
      state('running'),
      state('idle', { stopReason: 'error', error }),
    ]);
    store.resolvePending(localId, 'u1');
    expect(await store.turnEnd(localId)).toEqual({
      messageId: 'u1',
      stopReason: 'error',
      usage: null,
      error,
    });
  });

  it('counts from the response when the agent reports the message later or never', async () => {
    const store = new ConversationStore();
    store.apply(state('idle', { stopReason: 'end_turn' }));
    const localId = store.addPending(SESSION, [text('q')]);
    store.resolvePending(localId, 'u1');
    const ended = store.turnEnd(localId);
    store.apply(state('running'));
    expect(await peek(ended)).toBe('pending');
    store.apply(state('idle', { stopReason: 'end_turn' }));
    expect(await ended).toMatchObject({ messageId: 'u1', stopReason: 'end_turn' });
  });

  it('ignores an idle without a stop reason (a snapshot that ends no work)', async () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('q')]);
    store.resolvePending(localId, 'u1');
    store.apply(state('idle'));
    expect(await peek(store.turnEnd(localId))).toBe('pending');
    store.apply(state('idle', { stopReason: 'max_tokens' }));
    expect(await store.turnEnd(localId)).toMatchObject({ stopReason: 'max_tokens' });
  });

  it('rejects with the agent’s error for a rejected prompt and says why when the end cannot be known', async () => {
    const store = new ConversationStore();
    const rejected = store.addPending(SESSION, [text('a')]);
    const failure = new Error('invalid params');
    store.rejectPending(rejected, failure);
    await expect(store.turnEnd(rejected)).rejects.toBe(failure);

    const unknown = store.addPending(SESSION, [text('b')]);
    const unknownEnd = store.turnEnd(unknown);
    store.markOutcomeUnknown(unknown);
    await expect(unknownEnd).rejects.toMatchObject({ code: 'outcome_unknown', localId: unknown });

    const inserted = store.addPending(SESSION, [text('c')]);
    store.resolvePending(inserted, 'u3');
    const lost = store.turnEnd(inserted);
    store.setConnection(SESSION, 'disconnected');
    await expect(lost).rejects.toBeInstanceOf(ConversationStoreError);
    await expect(lost).rejects.toMatchObject({ code: 'disconnected' });
  });

  it('stops waiting when the caller’s signal aborts', async () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('q')]);
    const controller = new AbortController();
    const ended = store.turnEnd(localId, { signal: controller.signal });
    controller.abort(new Error('gave up'));
    await expect(ended).rejects.toThrow('gave up');
  });
});
