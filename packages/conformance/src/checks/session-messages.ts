import { asRecord } from '../analysis/envelope.js';
import { renderContent } from '../analysis/messages.js';
import type { Analysis, UpdateRecord } from '../analysis/model.js';
import type { CheckOutcome } from '../rules/types.js';
import { type CheckContext, checked, lineOf, notApplicable, type RawFinding, show } from './context.js';

/** What a client holds of one inter-session message. */
interface Held {
  content: unknown[];
  sender: unknown;
  recipient: unknown;
  /** The live update that last changed it. */
  index: number;
}

const isSessionMessage = (update: UpdateRecord): boolean =>
  update.sessionUpdate === 'session_message' || update.sessionUpdate === 'session_message_chunk';

/** Applies a `session_message` (upsert: content replaces, null clears, omitted keeps; participants patch) or a chunk (appends). */
function apply(held: Map<string, Held>, update: UpdateRecord): void {
  const body = update.update;
  const messageId = body.messageId;
  if (typeof messageId !== 'string') return;
  const key = `${JSON.stringify(update.sessionId)}\u0000${messageId}`;
  const current = held.get(key) ?? {
    content: [],
    sender: undefined,
    recipient: undefined,
    index: update.index,
  };
  const next: Held = { ...current, content: [...current.content], index: update.index };
  if (update.sessionUpdate === 'session_message_chunk') {
    next.content.push(body.content);
  } else {
    if ('content' in body) next.content = Array.isArray(body.content) ? [...body.content] : [];
    if ('senderSessionId' in body) next.sender = body.senderSessionId ?? undefined;
    if ('recipientSessionId' in body) next.recipient = body.recipientSessionId ?? undefined;
  }
  held.set(key, next);
}

/** The session messages a client held from the live updates before `index`. */
function heldBefore(analysis: Analysis, index: number): Map<string, Held> {
  const held = new Map<string, Held>();
  for (const update of analysis.updates) {
    if (update.index >= index) break;
    if (!update.resume && isSessionMessage(update)) apply(held, update);
  }
  return held;
}

/**
 * `session-message.replay` (unstable surface): a session message (`session_message`,
 * `session_message_chunk`) a replay reports again keeps its messageId and its participants, and ends
 * with the content the client held for it live: reset by a `session_message` with content before
 * its chunks, never appended twice. Not applicable without a session message seen live and replayed.
 */
export function checkSessionMessageReplay(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const findings: RawFinding[] = [];
  let examined = 0;
  for (const resume of analysis.resumes.filter((r) => r.replay)) {
    const live = heldBefore(analysis, resume.request.index);
    const window = analysis.updates.filter((u) => u.resume === resume && isSessionMessage(u));
    const after = new Map(live);
    const first = new Map<string, UpdateRecord>();
    const last = new Map<string, UpdateRecord>();
    for (const update of window) {
      const messageId = asRecord(update.update)?.messageId;
      if (typeof messageId !== 'string') continue;
      const key = `${JSON.stringify(update.sessionId)}\u0000${messageId}`;
      if (!first.has(key)) first.set(key, update);
      last.set(key, update);
      apply(after, update);
    }
    for (const [key, opening] of first) {
      const before = live.get(key);
      if (before === undefined) continue;
      examined += 1;
      const messageId = opening.update.messageId;
      if (opening.sessionUpdate === 'session_message_chunk' || !('content' in opening.update)) {
        findings.push({
          index: opening.index,
          message: `replay appended to session message ${show(messageId)} without first resetting it`,
          expected: `session_message with messageId ${show(messageId)} and content ([] before chunks) first`,
          actual: `${show(opening.sessionUpdate)}${'content' in opening.update ? '' : ' without content'}`,
        });
        continue;
      }
      const now = after.get(key)!;
      const expected = renderContent(before.content);
      const replayed = renderContent(now.content);
      if (expected !== replayed) {
        findings.push({
          index: last.get(key)!.index,
          message: `after replay, session message ${show(messageId)} no longer matches the content it had live`,
          expected: `${expected} (as last reported live, ${lineOf(context, before.index)})`,
          actual: replayed,
        });
      }
      for (const [field, was, is] of [
        ['senderSessionId', before.sender, now.sender],
        ['recipientSessionId', before.recipient, now.recipient],
      ] as const) {
        if (was === undefined || was === is) continue;
        findings.push({
          index: last.get(key)!.index,
          pointer: `/params/update/${field}`,
          message: `replay changed the ${field} of session message ${show(messageId)}`,
          expected: show(was),
          actual: show(is),
        });
      }
    }
  }
  if (examined === 0)
    return notApplicable('no session message seen live was replayed (unstable surface: session_message)');
  return checked(findings);
}
