import {
  checkInitializeInfo,
  checkSessionClose,
  checkSessionList,
  checkUnknownValuesTolerated,
} from '../checks/baseline.js';
import {
  checkBackgroundAnnounced,
  checkBackgroundEveryState,
  checkBackgroundListedOnce,
  checkBackgroundRemoval,
  checkCancelLeavesBackground,
  checkRepeatedIdleUsage,
} from '../checks/background.js';
import { checkContext } from '../checks/context.js';
import {
  checkDistinctIds,
  checkResponseBeforeIdle,
  checkResponseMessageId,
  checkUserMessageReported,
  checkUserMessageSameId,
} from '../checks/prompt.js';
import {
  checkNoUserMessageForRejected,
  checkRejectedWithError,
  checkRejectionCodes,
} from '../checks/rejection.js';
import {
  checkNoReplayWithoutCursor,
  checkReplayIds,
  checkReplayNoDuplicate,
  checkReplayReset,
} from '../checks/replay.js';
import {
  checkAgentMessages,
  checkClientMessages,
  checkUpdateSchema,
  checkUpdateSessionIds,
} from '../checks/schema.js';
import { checkCancel, checkRunningBeforeIdle, checkStopReasons, checkWorkEnds } from '../checks/state.js';
import { checkSubagentsAnnounced } from '../checks/subagents.js';
import { checkForkNoDuplicate, checkForkRetained } from '../checks/fork.js';
import { checkSessionMessageReplay } from '../checks/session-messages.js';
import { checkNesAnswered, checkNesContext, checkNesKinds, checkNesPositions } from '../checks/nes.js';
import { checkOmittedParams } from '../checks/omitted-params.js';
import { checkCloseCancelsTurn, checkDeleteUnknown } from '../checks/session-teardown.js';
import type { CheckContext } from '../checks/context.js';
import type { TranscriptEntry } from '../transcript/parse.js';
import { RULES, type RuleId } from './catalog.js';
import type { CheckOutcome, Finding, RuleResult } from './types.js';

const CHECKS: Partial<Record<RuleId, (context: CheckContext) => CheckOutcome>> = {
  'prompt.response.message-id': checkResponseMessageId,
  'prompt.user-message.reported': checkUserMessageReported,
  'prompt.user-message.same-id': checkUserMessageSameId,
  'prompt.message-id.distinct': checkDistinctIds,
  'prompt.response.before-idle': checkResponseBeforeIdle,
  'prompt.rejected.error': checkRejectedWithError,
  'prompt.rejected.no-user-message': checkNoUserMessageForRejected,
  'prompt.rejected.error-code': checkRejectionCodes,
  'state.running-before-idle': checkRunningBeforeIdle,
  'state.stop-reason.known': checkStopReasons,
  'state.work-ends': checkWorkEnds,
  'cancel.ends-cancelled': checkCancel,
  'background.announced-first': checkBackgroundAnnounced,
  'background.final-before-removal': checkBackgroundRemoval,
  'background.listed-once': checkBackgroundListedOnce,
  'background.every-state-update': checkBackgroundEveryState,
  'background.cancel-leaves-running': checkCancelLeavesBackground,
  'background.repeat-not-completion': checkRepeatedIdleUsage,
  'resume.replay.message-id': checkReplayIds,
  'resume.replay.reset-before-chunks': checkReplayReset,
  'resume.replay.no-duplicate': checkReplayNoDuplicate,
  'resume.no-replay-without-replay-from': checkNoReplayWithoutCursor,
  'update.schema': checkUpdateSchema,
  'update.session-id': checkUpdateSessionIds,
  'subagent.announced-first': checkSubagentsAnnounced,
  'fork.replay.retained': checkForkRetained,
  'fork.replay.no-duplicate': checkForkNoDuplicate,
  'session-message.replay': checkSessionMessageReplay,
  'nes.suggestion.kind-advertised': checkNesKinds,
  'nes.suggest.context-requested': checkNesContext,
  'nes.suggestion.position-inside': checkNesPositions,
  'nes.suggest.answered': checkNesAnswered,
  'agent-message.schema': checkAgentMessages,
  'client-message.schema': checkClientMessages,
  'baseline.initialize.info': checkInitializeInfo,
  'jsonrpc.params.omitted': checkOmittedParams,
  'session.close.cancels-turn': checkCloseCancelsTurn,
  'session.delete.unknown-succeeds': checkDeleteUnknown,
  'baseline.session-list': checkSessionList,
  'baseline.session-close': checkSessionClose,
  'baseline.unknown-values': checkUnknownValuesTolerated,
};

/** The outcome of every rule on one transcript, with findings located by line. */
export type TranscriptOutcomes = Map<
  RuleId,
  { applicable: true; findings: Finding[]; notes?: Finding[] } | { applicable: false; reason: string }
>;

/** Runs every transcript rule over one connection's transcript. */
export function evaluateTranscript(
  entries: readonly TranscriptEntry[],
  options: { live: boolean; scenario?: string },
): TranscriptOutcomes {
  const context = checkContext(entries, options.live);
  const outcomes: TranscriptOutcomes = new Map();
  for (const rule of RULES) {
    const check = CHECKS[rule.id];
    if (!check) continue;
    const outcome = check(context);
    if (!outcome.applicable) {
      outcomes.set(rule.id, outcome);
      continue;
    }
    const locate = (finding: (typeof outcome.findings)[number]): Finding => {
      const located: Finding = { ruleId: rule.id, ...finding };
      if (finding.index !== undefined) located.line = entries[finding.index]?.line ?? finding.index + 1;
      if (options.scenario) located.scenario = options.scenario;
      return located;
    };
    outcomes.set(rule.id, {
      applicable: true,
      findings: outcome.findings.map(locate),
      notes: (outcome.notes ?? []).map(locate),
    });
  }
  return outcomes;
}

/**
 * Folds per-transcript outcomes into one verdict per rule: FAIL when any transcript broke it, PASS
 * when at least one transcript checked it and none broke it, SKIP (with every reason) otherwise.
 */
export function combineOutcomes(all: readonly TranscriptOutcomes[]): RuleResult[] {
  return RULES.map((rule): RuleResult => {
    const findings: Finding[] = [];
    const notes: Finding[] = [];
    const reasons: string[] = [];
    let checkedSomewhere = false;
    for (const outcomes of all) {
      const outcome = outcomes.get(rule.id);
      if (!outcome) continue;
      if (outcome.applicable) {
        checkedSomewhere = true;
        // One by one: spreading a rule's findings as arguments overflows the call stack once there
        // are tens of thousands of them (a long transcript that breaks a rule on every update).
        for (const finding of outcome.findings) findings.push(finding);
        for (const note of outcome.notes ?? []) notes.push(note);
      } else if (!reasons.includes(outcome.reason)) {
        reasons.push(outcome.reason);
      }
    }
    const base = {
      id: rule.id,
      statement: rule.statement,
      source: rule.source,
      tier: rule.tier,
      ...(notes.length > 0 ? { notes } : {}),
    };
    if (findings.length > 0) return { ...base, status: 'fail', findings };
    if (checkedSomewhere) return { ...base, status: 'pass', findings };
    return { ...base, status: 'skip', reason: reasons.join('; ') || 'not checked', findings };
  });
}
