import { describe, expect, it } from 'vitest';
import { type ConversationDiagnostic, ConversationStore } from '../../src/client/index.js';
import { chunk, note, SESSION, text, upsert } from './helpers.js';

const message = (fields: Record<string, unknown>) =>
  note({ sessionUpdate: 'session_message', messageId: 'mess_7', ...fields });

describe('session_message and session_message_chunk (unstable inter-session messages)', () => {
  it('holds an inter-session message in the feed with its participants, chunks appended, the references patched', () => {
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ unstable: true, onDiagnostic: (d) => diagnostics.push(d) });
    store.applyBatch([
      upsert('user_message', 'mess_1', [text('find the failing tests')]),
      // Chunks may come before the upsert that names the participants.
      chunk('session_message', 'mess_7', text('Found two')),
      message({ senderSessionId: 'sess_child', recipientSessionId: SESSION }),
      chunk('session_message', 'mess_7', text(' failing tests.')),
      // A reference that arrives later; another upsert leaves what it omits unchanged.
      message({ senderMessageId: 'mess_3' }),
    ]);
    const [, inbound] = store.snapshot(SESSION).messages;
    expect(inbound).toMatchObject({
      key: 'session_message:mess_7',
      kind: 'session_message',
      content: [text('Found two'), text(' failing tests.')],
      fields: { senderSessionId: 'sess_child', recipientSessionId: SESSION, senderMessageId: 'mess_3' },
    });
    // null clears one field; the rest stay.
    store.apply(message({ senderMessageId: null }));
    expect(store.snapshot(SESSION).messages[1]?.fields).toEqual({
      senderSessionId: 'sess_child',
      recipientSessionId: SESSION,
    });
    expect(diagnostics).toEqual([]);
  });

  it('replays like any message: content reset before the replayed chunks, nothing duplicated, fields kept', () => {
    const store = new ConversationStore({ unstable: true });
    const live = [
      message({ senderSessionId: 'sess_child', content: [] }),
      chunk('session_message', 'mess_7', text('a')),
      chunk('session_message', 'mess_7', text('b')),
    ];
    store.applyBatch(live);
    const before = store.snapshot(SESSION).messages;
    store.applyBatch(live);
    store.applyBatch(live);
    expect(store.snapshot(SESSION).messages).toEqual(before);
    expect(before[0]?.content).toEqual([text('a'), text('b')]);
    expect(before[0]?.fields).toEqual({ senderSessionId: 'sess_child' });
  });

  it('keeps fields a newer protocol version adds to any message upsert', () => {
    const store = new ConversationStore({ unstable: true });
    store.apply(upsert('agent_message', 'mess_2', [text('hi')], { audience: 'user' }));
    expect(store.snapshot(SESSION).messages[0]?.fields).toEqual({ audience: 'user' });
    store.apply(upsert('agent_message', 'mess_2', undefined, { audience: null }));
    expect(store.snapshot(SESSION).messages[0]).not.toHaveProperty('fields');
  });
});
