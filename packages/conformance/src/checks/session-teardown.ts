import { asRecord } from '../analysis/envelope.js';
import { liveUpdates, nextWorkEnd, stateOf } from '../analysis/model.js';
import type { CheckOutcome } from '../rules/types.js';
import { type CheckContext, checked, lineOf, notApplicable, type RawFinding, show } from './context.js';
import { readMarker } from './state.js';

/**
 * The prefix of the session IDs the live kit invents for sessions that never existed (a
 * `session/delete` of one must succeed silently).
 */
export const NEVER_CREATED_PREFIX = 'acp-kit-conformance-never-created';

/**
 * session.close.cancels-turn. Judged for each answered `session/close` sent while the session's
 * last reported state was `running` or `requires_action`. Between the request and its answer the
 * turn must end with an idle carrying a stop reason; `cancelled` unless the turn ended by itself
 * before the agent could have read the close (no update of the session came between the point
 * where it had read the close, {@link readMarker}, and the idle).
 */
export function checkCloseCancelsTurn(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const closes = analysis.requests.filter(
    (request) => request.from === 'client' && request.method === 'session/close' && request.response?.ok,
  );
  if (closes.length === 0) return notApplicable('no session/close was answered with success');
  const findings: RawFinding[] = [];
  const skipped: string[] = [];
  for (const close of closes) {
    const sessionId = asRecord(close.params)?.sessionId;
    const live = liveUpdates(analysis, sessionId);
    const before = live
      .filter((update) => update.index < close.index && stateOf(update) !== undefined)
      .at(-1);
    const state = before ? stateOf(before) : undefined;
    if (state !== 'running' && state !== 'requires_action') {
      skipped.push(`no turn was running when session/close was sent (${lineOf(context, close.index)})`);
      continue;
    }
    const answered = close.response!.index;
    const end = nextWorkEnd(analysis, sessionId, close.index);
    if (end === undefined || end.index > answered) {
      findings.push({
        index: answered,
        message: `session/close of session ${show(sessionId)} during a ${state} turn was answered before the turn ended`,
        expected: 'state_update idle with stopReason "cancelled" before the close is answered',
        actual:
          end === undefined
            ? 'no idle with a stopReason before the transcript ends'
            : `the idle came after the answer (${lineOf(context, end.index)})`,
      });
      continue;
    }
    if (end.update.stopReason === 'cancelled') continue;
    // Updates the agent wrote after it had read the close (see readMarker) show it kept working.
    const seen = Math.min(readMarker(context, close.index) ?? close.index, end.index);
    const between = live.filter(
      (update) => update.index > seen && update.index < end.index && stateOf(update) === undefined,
    );
    if (between.length === 0) {
      skipped.push(
        `the turn ended with ${show(end.update.stopReason)} (${lineOf(context, end.index)}) as session/close arrived: the two crossed`,
      );
      continue;
    }
    findings.push({
      index: end.index,
      message: `the agent kept working after session/close (${between.length} more update(s)) and did not report cancellation`,
      expected: 'stopReason "cancelled"',
      actual: `stopReason ${show(end.update.stopReason)}`,
    });
  }
  if (findings.length === 0 && skipped.length === closes.length) return notApplicable(skipped.join('; '));
  return checked(findings);
}

/**
 * session.delete.unknown-succeeds. Judged for each answered `session/delete` of a session the
 * transcript shows deleted already, or of an ID the live kit invented ({@link NEVER_CREATED_PREFIX});
 * a delete answered -32601 (the agent does not offer it) is not judged.
 */
export function checkDeleteUnknown(context: CheckContext): CheckOutcome {
  const deletes = context.analysis.requests.filter(
    (request) => request.from === 'client' && request.method === 'session/delete' && request.response,
  );
  const deleted = new Set<unknown>();
  const findings: RawFinding[] = [];
  let judged = 0;
  for (const request of deletes) {
    const sessionId = asRecord(request.params)?.sessionId;
    const response = request.response!;
    const unknown =
      deleted.has(sessionId) || (typeof sessionId === 'string' && sessionId.startsWith(NEVER_CREATED_PREFIX));
    if (response.ok) deleted.add(sessionId);
    if (!unknown || asRecord(response.error)?.code === -32601) continue;
    judged += 1;
    if (response.ok) continue;
    findings.push({
      index: response.index,
      message: `session/delete of ${deleted.has(sessionId) ? 'an already-deleted session' : 'a session that never existed'} (${show(sessionId)}) failed`,
      expected: 'an empty result: deleting it again succeeds silently',
      actual: `error ${show(response.error)}`,
    });
  }
  if (judged === 0) {
    return notApplicable('no session/delete of an already-deleted or never-created session was answered');
  }
  return checked(findings);
}
