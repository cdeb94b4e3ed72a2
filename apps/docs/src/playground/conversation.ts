// The ./client entry, not the package root: the root also exports the Node transports.
import {
  type ConversationDiagnostic,
  type ConversationMessage,
  type ConversationSnapshot,
  ConversationStore,
} from '@acp-kit/sdk/client';
import type { TranscriptEntry } from '@acp-kit/conformance/lint';
import { validate } from '@acp-kit/schema';

export type { ConversationMessage };

/** What a client would show after reading the whole transcript. */
export interface ReconciledConversation {
  readonly sessions: readonly ConversationSnapshot[];
  /** The store's diagnostics (e.g. a duplicate messageId), with the transcript line that caused each. */
  readonly diagnostics: readonly (ConversationDiagnostic & { readonly line: number })[];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * Replays the transcript into the SDK's `ConversationStore` the way a client would: each
 * `session/prompt` becomes an optimistic entry, its response resolves it by `messageId` (or marks
 * it rejected, or of unknown outcome when the receipt has no usable ID), and every `session/update`
 * is applied. Messages the store cannot take are skipped; the lint already reports them.
 */
export function reconcile(entries: readonly TranscriptEntry[]): ReconciledConversation {
  const diagnostics: (ConversationDiagnostic & { line: number })[] = [];
  let line = 0;
  const store = new ConversationStore({ onDiagnostic: (d) => diagnostics.push({ ...d, line }) });
  const localByRequestId = new Map<string, string>();
  for (const entry of entries) {
    line = entry.line;
    const msg = record(entry.msg);
    if (msg === undefined) continue;
    try {
      if (entry.dir === 'client->agent' && msg.method === 'session/prompt' && 'id' in msg) {
        const params = record(msg.params);
        if (typeof params?.sessionId !== 'string' || !Array.isArray(params.prompt)) continue;
        const localId = store.addPending(params.sessionId, params.prompt, { localId: `line-${entry.line}` });
        localByRequestId.set(JSON.stringify(msg.id), localId);
      } else if (entry.dir === 'agent->client' && msg.method === 'session/update') {
        // Only schema-valid updates reach the store, as in the SDK's client; the lint reports the rest.
        const checked = validate('SessionNotification', msg.params);
        if (checked.ok) store.apply(checked.value);
      } else if (entry.dir === 'agent->client' && !('method' in msg)) {
        const localId = localByRequestId.get(JSON.stringify(msg.id));
        if (localId === undefined) continue;
        localByRequestId.delete(JSON.stringify(msg.id));
        const messageId = record(msg.result)?.messageId;
        if ('error' in msg) store.rejectPending(localId, msg.error);
        else if (typeof messageId === 'string' && messageId !== '') store.resolvePending(localId, messageId);
        else store.markOutcomeUnknown(localId);
      }
    } catch {
      // A message the store refuses (an impossible transition) is already a lint finding.
    }
  }
  return { sessions: store.sessionIds().map((id) => store.snapshot(id)), diagnostics };
}
