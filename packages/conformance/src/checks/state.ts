import { KNOWN_ENUM_VALUES } from '@acp-kit/schema';
import { reportOf } from '../analysis/attribution.js';
import { endsWork, liveUpdates, nextWorkEnd, stateOf, type UpdateRecord } from '../analysis/model.js';
import type { CheckOutcome } from '../rules/types.js';
import { type CheckContext, checked, lineOf, notApplicable, type RawFinding, show } from './context.js';

/**
 * state.running-before-idle. State updates are snapshots: an idle repeated without a running in
 * between is fine as long as it repeats the last stop reason (it reports nothing new). What fails
 * is an idle that ends work no running started — in a new session before it was ever running, or
 * after an earlier idle with a different stop reason.
 */
export function checkRunningBeforeIdle(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const findings: RawFinding[] = [];
  let examined = 0;
  for (const [sessionId] of analysis.created) {
    let open = false;
    let lastEnd: UpdateRecord | undefined;
    for (const update of liveUpdates(analysis, sessionId)) {
      const state = stateOf(update);
      if (state === 'running' || state === 'requires_action') open = true;
      if (!endsWork(update)) continue;
      examined += 1;
      const reason = update.update.stopReason;
      if (!open && !lastEnd) {
        findings.push({
          index: update.index,
          message: `session ${show(sessionId)} reported the end of work before it was ever running`,
          expected: 'state_update running before the idle that carries a stopReason',
          actual: `idle with stopReason ${show(reason)} first`,
        });
      } else if (!open && lastEnd && lastEnd.update.stopReason !== reason) {
        findings.push({
          index: update.index,
          message: `session ${show(sessionId)} ended work again without a running since the idle at ${lineOf(context, lastEnd.index)}`,
          expected: `running first, or a snapshot repeating stopReason ${show(lastEnd.update.stopReason)}`,
          actual: `idle with stopReason ${show(reason)}`,
        });
      }
      open = false;
      lastEnd = update;
    }
  }
  if (examined === 0) return notApplicable('no session created here reported an idle with a stopReason');
  return checked(findings);
}

/** state.stop-reason.known */
export function checkStopReasons(context: CheckContext): CheckOutcome {
  const withReason = context.analysis.updates.filter((update) => endsWork(update));
  if (withReason.length === 0) return notApplicable('no idle carried a stopReason');
  const findings: RawFinding[] = [];
  for (const update of withReason) {
    const reason = update.update.stopReason;
    // The schema is the one list of stop reasons. Receivers accept any string (v2), but values
    // that neither the schema defines nor start with `_` are reserved for later protocol versions.
    const known = (KNOWN_ENUM_VALUES.StopReason as readonly unknown[]).includes(reason);
    if (known || (typeof reason === 'string' && reason.startsWith('_'))) continue;
    findings.push({
      index: update.index,
      message: 'idle carried an unknown stopReason',
      expected: `one of ${KNOWN_ENUM_VALUES.StopReason.join(', ')}, or a string starting with _`,
      actual: show(reason),
    });
  }
  return checked(findings);
}

/** state.work-ends */
export function checkWorkEnds(context: CheckContext): CheckOutcome {
  const { analysis, attribution } = context;
  const accepted = analysis.prompts.filter((prompt) => prompt.status === 'accepted');
  if (accepted.length === 0) return notApplicable('no session/prompt was answered successfully');
  const findings: RawFinding[] = [];
  for (const prompt of accepted) {
    const anchor = reportOf(analysis, attribution, prompt)?.index ?? prompt.request.response!.index;
    if (nextWorkEnd(analysis, prompt.sessionId, anchor)) continue;
    findings.push({
      index: anchor,
      message: `the work started by the prompt at ${lineOf(context, prompt.request.index)} never ended`,
      expected: 'a state_update idle with a stopReason afterwards',
      actual: 'none before the transcript ends',
    });
  }
  return checked(findings);
}

/**
 * Index of the agent's first answer to a client request sent after `index`. Agents read their
 * input in order, so by the time that answer is written the agent has read everything sent before
 * the request — a cancel included. The live kit sends such a request right after each cancel and
 * each session/close.
 */
export function readMarker(context: CheckContext, index: number): number | undefined {
  const answers = context.analysis.requests
    .filter((request) => request.from === 'client' && request.index > index && request.response)
    .map((request) => request.response!.index);
  return answers.length > 0 ? Math.min(...answers) : undefined;
}

/**
 * cancel.ends-cancelled. Only a turn still running when the agent had read the cancel can be
 * judged. That point is the answer to the first request sent after the cancel when there is one
 * (see {@link readMarker}), else the cancel itself. A turn that had ended before that point crossed
 * the cancel on the wire and is skipped; one that kept producing updates after it and then ended
 * without "cancelled" fails.
 */
export function checkCancel(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  if (analysis.cancels.length === 0) return notApplicable('no session/cancel was sent');
  const findings: RawFinding[] = [];
  const skipped: string[] = [];
  for (const cancel of analysis.cancels) {
    const live = liveUpdates(analysis, cancel.sessionId);
    const before = live
      .filter((update) => update.index < cancel.index && stateOf(update) !== undefined)
      .at(-1);
    const stateAtCancel = before ? stateOf(before) : undefined;
    if (stateAtCancel !== 'running' && stateAtCancel !== 'requires_action') {
      skipped.push(
        `the turn had already ended when session/cancel was sent (${lineOf(context, cancel.index)})`,
      );
      continue;
    }
    const end = nextWorkEnd(analysis, cancel.sessionId, cancel.index);
    if (!end) {
      findings.push({
        index: cancel.index,
        message: 'session/cancel during a running turn was never followed by an idle',
        expected: 'state_update idle with stopReason "cancelled"',
        actual: 'no idle with a stopReason before the transcript ends',
      });
      continue;
    }
    if (end.update.stopReason === 'cancelled') continue;
    const seen = Math.min(readMarker(context, cancel.index) ?? cancel.index, end.index);
    const after: UpdateRecord[] = live.filter(
      (update) => update.index > seen && update.index < end.index && stateOf(update) === undefined,
    );
    if (after.length === 0) {
      skipped.push(
        `the turn ended with ${show(end.update.stopReason)} (${lineOf(context, end.index)}) before the agent could have read session/cancel: the two crossed`,
      );
      continue;
    }
    findings.push({
      index: end.index,
      message: `the agent kept working after reading session/cancel (${after.length} more update(s)) and did not report cancellation`,
      expected: 'stopReason "cancelled"',
      actual: `stopReason ${show(end.update.stopReason)}`,
    });
  }
  if (findings.length === 0 && skipped.length === analysis.cancels.length)
    return notApplicable(skipped.join('; '));
  return checked(findings);
}
