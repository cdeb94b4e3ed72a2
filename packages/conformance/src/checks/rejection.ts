import { validateParams } from '@acp-kit/schema';
import { asRecord } from '../analysis/envelope.js';
import type { Analysis, PromptRecord } from '../analysis/model.js';
import type { CheckOutcome } from '../rules/types.js';
import { type CheckContext, checked, lineOf, notApplicable, type RawFinding, show } from './context.js';

/** Why a prompt must be rejected, or undefined when it may be accepted. */
interface MustReject {
  why: 'invalid-params' | 'unknown-session';
  detail: string;
}

/**
 * A prompt must be rejected when its params break the schema (empty `prompt`, malformed content),
 * or — when the transcript starts at initialize, so every session this connection may use is
 * visible — when its session was neither created nor resumed on this connection before it.
 */
export function mustReject(analysis: Analysis, prompt: PromptRecord): MustReject | undefined {
  const checkedParams = validateParams('session/prompt', prompt.request.params);
  if (checkedParams && !checkedParams.ok) {
    const issue = checkedParams.issues[0]!;
    return {
      why: 'invalid-params',
      detail: `params${issue.pointer}: expected ${issue.expected ?? issue.message}`,
    };
  }
  if (!analysis.fromStart || typeof prompt.sessionId !== 'string') return undefined;
  const before = prompt.request.index;
  const createdAt = analysis.created.get(prompt.sessionId);
  if (createdAt !== undefined && createdAt < before) return undefined;
  const resumed = analysis.resumes.some(
    (resume) =>
      resume.sessionId === prompt.sessionId && resume.request.index < before && resume.request.response?.ok,
  );
  if (resumed) return undefined;
  return {
    why: 'unknown-session',
    detail: `session ${show(prompt.sessionId)} was never created or resumed here`,
  };
}

/** prompt.rejected.error */
export function checkRejectedWithError(context: CheckContext): CheckOutcome {
  const findings: RawFinding[] = [];
  let candidates = 0;
  for (const prompt of context.analysis.prompts) {
    const reason = mustReject(context.analysis, prompt);
    if (!reason) continue;
    candidates += 1;
    if (prompt.status !== 'accepted') continue;
    findings.push({
      index: prompt.request.response!.index,
      message: `a prompt that must be rejected (${reason.detail}) was accepted`,
      expected: 'a JSON-RPC error response',
      actual: `result ${show(prompt.request.response!.result)}`,
    });
  }
  if (candidates === 0) return notApplicable('no prompt in the transcript had to be rejected');
  return checked(findings);
}

/** prompt.rejected.no-user-message */
export function checkNoUserMessageForRejected(context: CheckContext): CheckOutcome {
  if (!context.analysis.prompts.some((prompt) => prompt.status === 'rejected')) {
    return notApplicable('no session/prompt was rejected');
  }
  const findings: RawFinding[] = context.attribution.claims
    .filter((claim) => claim.kind === 'rejected')
    .map((claim) => ({
      index: claim.update.index,
      message: `a user message was reported for the prompt rejected at ${lineOf(context, claim.prompt.request.response!.index)}`,
      expected: 'no user message for a rejected prompt',
      actual: `${show(claim.update.sessionUpdate)} with messageId ${show(claim.update.messageId)}`,
    }));
  return checked(findings);
}

const EXPECTED_CODE = { 'invalid-params': -32602, 'unknown-session': -32002 } as const;

/** prompt.rejected.error-code */
export function checkRejectionCodes(context: CheckContext): CheckOutcome {
  const findings: RawFinding[] = [];
  let candidates = 0;
  for (const prompt of context.analysis.prompts) {
    const reason = mustReject(context.analysis, prompt);
    if (!reason || prompt.status !== 'rejected') continue;
    candidates += 1;
    const code = asRecord(prompt.request.response!.error)?.code;
    const expected = EXPECTED_CODE[reason.why];
    if (code === expected) continue;
    findings.push({
      index: prompt.request.response!.index,
      message: `a prompt rejected for ${reason.why === 'invalid-params' ? 'invalid params' : 'an unknown session'} used an unconventional error code`,
      expected: `code ${expected}`,
      actual: `code ${show(code)}`,
    });
  }
  if (candidates === 0) return notApplicable('no prompt that had to be rejected was rejected');
  return checked(findings);
}
