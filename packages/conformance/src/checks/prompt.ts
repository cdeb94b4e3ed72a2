import { reportOf, sessionKey } from '../analysis/attribution.js';
import { asRecord } from '../analysis/envelope.js';
import { nextWorkEnd } from '../analysis/model.js';
import { stuckOnFutureValue } from './baseline.js';
import type { CheckOutcome } from '../rules/types.js';
import { type CheckContext, checked, lineOf, notApplicable, type RawFinding, show } from './context.js';

const NO_ACCEPTED = 'no session/prompt was answered successfully';

/** prompt.response.message-id */
export function checkResponseMessageId(context: CheckContext): CheckOutcome {
  const accepted = context.analysis.prompts.filter((prompt) => prompt.status === 'accepted');
  if (accepted.length === 0) return notApplicable(NO_ACCEPTED);
  const findings: RawFinding[] = [];
  for (const prompt of accepted) {
    if (prompt.messageId) continue;
    const result = asRecord(prompt.request.response!.result);
    findings.push({
      index: prompt.request.response!.index,
      message: 'session/prompt succeeded without a usable messageId',
      expected: 'result.messageId: a non-empty string',
      actual:
        result && 'messageId' in result
          ? `messageId: ${show(result.messageId)}`
          : `result ${show(prompt.request.response!.result)}`,
    });
  }
  return checked(findings);
}

/** prompt.user-message.reported */
export function checkUserMessageReported(context: CheckContext): CheckOutcome {
  const accepted = context.analysis.prompts.filter((prompt) => prompt.status === 'accepted');
  if (accepted.length === 0) return notApplicable(NO_ACCEPTED);
  const findings: RawFinding[] = [];
  for (const prompt of accepted) {
    if (reportOf(context.analysis, context.attribution, prompt)) continue;
    findings.push({
      index: prompt.request.response!.index,
      message: `no user message was reported in session ${show(prompt.sessionId)} for this accepted prompt`,
      expected: `a user_message or user_message_chunk with messageId ${show(prompt.messageId ?? '(the returned ID)')}`,
      actual: 'none in the transcript',
    });
  }
  return checked(findings);
}

/** prompt.user-message.same-id */
export function checkUserMessageSameId(context: CheckContext): CheckOutcome {
  const withId = context.analysis.prompts.filter(
    (prompt) => prompt.status === 'accepted' && prompt.messageId,
  );
  if (withId.length === 0) return notApplicable('no session/prompt returned a messageId to compare with');
  const findings: RawFinding[] = context.attribution.claims
    .filter((claim) => claim.kind === 'accepted-under-other-id')
    .map((claim) => ({
      index: claim.update.index,
      message: `the user message for the prompt at ${lineOf(context, claim.prompt.request.index)} was reported under another ID`,
      expected: `messageId ${show(claim.prompt.messageId)} (returned at ${lineOf(context, claim.prompt.request.response!.index)})`,
      actual: `messageId ${show(claim.update.messageId)}`,
    }));
  return checked(findings);
}

/** prompt.message-id.distinct */
export function checkDistinctIds(context: CheckContext): CheckOutcome {
  const withId = context.analysis.prompts.filter(
    (prompt) => prompt.status === 'accepted' && prompt.messageId,
  );
  const perSession = new Map<unknown, number>();
  for (const prompt of withId) perSession.set(prompt.sessionId, (perSession.get(prompt.sessionId) ?? 0) + 1);
  if (![...perSession.values()].some((count) => count >= 2)) {
    return notApplicable('no session had two accepted prompts to compare');
  }
  const seen = new Map<string, number>();
  const findings: RawFinding[] = [];
  for (const prompt of withId) {
    const key = sessionKey(prompt.sessionId, prompt.messageId!);
    const earlier = seen.get(key);
    const index = prompt.request.response!.index;
    if (earlier === undefined) {
      seen.set(key, index);
      continue;
    }
    findings.push({
      index,
      message: `messageId ${show(prompt.messageId)} was already returned for another submission`,
      expected: 'a messageId not used before in this session',
      actual: `the same ID as the response at ${lineOf(context, earlier)}`,
    });
  }
  return checked(findings);
}

/**
 * prompt.response.before-idle. The work a prompt starts is known only from where its user message
 * was reported (its insertion); a prompt whose message was never reported is left to
 * prompt.user-message.reported, except that a prompt never answered at all is always a violation.
 */
export function checkResponseBeforeIdle(context: CheckContext): CheckOutcome {
  const { analysis, attribution } = context;
  const candidates = analysis.prompts.filter((prompt) => prompt.status !== 'rejected');
  if (candidates.length === 0) return notApplicable('no session/prompt could be accepted');
  const findings: RawFinding[] = [];
  let compared = 0;
  for (const prompt of candidates) {
    const report = reportOf(analysis, attribution, prompt);
    if (prompt.status === 'unanswered') {
      if (stuckOnFutureValue(analysis, prompt.request)) continue;
      findings.push({
        index: prompt.request.index,
        message: 'session/prompt was never answered',
        expected: 'a response once the message is inserted',
        actual: report
          ? `no response, although its user message was reported at ${lineOf(context, report.index)}`
          : 'no response',
      });
      continue;
    }
    if (!report) continue;
    compared += 1;
    const workEnd = nextWorkEnd(analysis, prompt.sessionId, report.index);
    const response = prompt.request.response!.index;
    if (workEnd && response > workEnd.index) {
      findings.push({
        index: response,
        message: 'the prompt response was held until the work it started had ended',
        expected: `the response before the idle at ${lineOf(context, workEnd.index)}`,
        actual: `the response after it, at ${lineOf(context, response)}`,
      });
    }
  }
  if (compared === 0 && findings.length === 0) {
    return notApplicable('no accepted prompt had a reported user message to place its insertion');
  }
  return checked(findings);
}
