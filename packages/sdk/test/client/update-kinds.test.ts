import { readdirSync, readFileSync } from 'node:fs';
import { UPDATE_KIND_TABLE, UPDATE_KINDS } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import {
  type ConversationChange,
  type ConversationDiagnostic,
  ConversationStore,
} from '../../src/client/index.js';
import { REDUCERS } from '../../src/client/conversation/session-conversation.js';
import { chunk, note, SESSION, text } from './helpers.js';

const EXAMPLES = new URL('../../../../schema/v2/examples/', import.meta.url);

/** What a change says changed, as a list of its non-empty parts (empty: listeners learn nothing). */
function changedParts(change: ConversationChange): string[] {
  return Object.entries(change)
    .filter(
      ([key, value]) => key !== 'sessionId' && (value === true || (Array.isArray(value) && value.length > 0)),
    )
    .map(([key]) => key);
}

describe('update kinds', () => {
  it('tells listeners what every example of every update kind in the schema changed', () => {
    const silent: string[] = [];
    for (const kind of UPDATE_KINDS) {
      const dir = new URL(`${UPDATE_KIND_TABLE[kind].definition}/`, EXAMPLES);
      const files = readdirSync(dir).filter((name) => name.endsWith('.json'));
      expect(files.length, `${kind} has examples`).toBeGreaterThan(0);
      for (const file of files) {
        const update = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Record<string, unknown>;
        const store = new ConversationStore({ unstable: true });
        // A removal changes something only when what it removes is there.
        if (kind === 'plan_removed') {
          store.apply(
            note({
              sessionUpdate: 'plan_update',
              plan: { type: 'items', planId: update.planId, entries: [] },
            }),
          );
        }
        const changes: ConversationChange[] = [];
        store.subscribe((batch) => changes.push(...batch));
        store.apply(note(update));
        if (changes.flatMap(changedParts).length === 0) silent.push(`${kind} (${file})`);
      }
    }
    expect(silent).toEqual([]);
  });

  it('has a reducer for every update kind of the generated table and for nothing else', () => {
    expect(Object.keys(REDUCERS).sort()).toEqual([...UPDATE_KINDS].sort());
  });

  it('applies every chunk kind to the message kind the generated table names', () => {
    const store = new ConversationStore({ unstable: true });
    // Message chunks (tool_call_content_chunk also extends a whole kind, a tool call, not a message).
    const chunkKinds = UPDATE_KINDS.filter(
      (kind) => UPDATE_KIND_TABLE[kind].chunkOf !== null && UPDATE_KIND_TABLE[kind].idField === 'messageId',
    );
    expect(chunkKinds).toEqual([
      'user_message_chunk',
      'agent_message_chunk',
      'agent_thought_chunk',
      'session_message_chunk',
    ]);
    for (const kind of chunkKinds) {
      store.apply(note({ sessionUpdate: kind, messageId: 'm', content: text(kind) }));
    }
    expect(store.snapshot(SESSION).messages.map((m) => m.key)).toEqual(
      chunkKinds.map((kind) => `${UPDATE_KIND_TABLE[kind].chunkOf}:m`),
    );
  });

  it('keeps the latest update of an unknown kind visible in the snapshot and tells listeners', () => {
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ unstable: true, onDiagnostic: (d) => diagnostics.push(d) });
    const changes: (readonly ConversationChange[])[] = [];
    store.subscribe((c) => changes.push(c));
    store.apply(chunk('agent_message', 'a1', text('hi')));
    store.apply(note({ sessionUpdate: 'progress_update', terminalId: 't', output: 'one' }));
    store.apply(note({ sessionUpdate: '_vendor_ping', n: 1 }));
    store.apply(note({ sessionUpdate: 'progress_update', terminalId: 't', output: 'two' }));
    const { otherUpdates } = store.snapshot(SESSION);
    expect(otherUpdates).toEqual([
      {
        sessionUpdate: 'progress_update',
        update: { sessionUpdate: 'progress_update', terminalId: 't', output: 'two' },
        position: 1,
      },
    ]);
    expect(Object.isFrozen(otherUpdates)).toBe(true);
    // The extension update changed nothing, so listeners were not called for it.
    expect(changes.slice(1).map((c) => c[0]?.otherKinds)).toEqual([['progress_update'], ['progress_update']]);
    expect(diagnostics.map((d) => d.code)).toEqual([
      'unknown_update_kind',
      'extension_update',
      'unknown_update_kind',
    ]);
  });
});
