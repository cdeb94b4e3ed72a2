import {
  type BackgroundItem,
  backgroundOf,
  describeItem,
  entityFacts,
  itemKey,
  itemPointer,
  sessionUpdates,
  sessionsWithBackground,
} from '../analysis/background.js';
import { endsWork, liveUpdates, nextWorkEnd, stateOf } from '../analysis/model.js';
import type { CheckOutcome } from '../rules/types.js';
import { type CheckContext, checked, lineOf, notApplicable, type RawFinding, show } from './context.js';

const NONE = 'no state_update reported a background list';

/**
 * Sessions whose announcements this transcript can hold: created on this connection, or resumed
 * here with replay (which sends the history again). A session first met through a resume without
 * replay was announced elsewhere, so what its lists name cannot be judged here.
 */
function announcedHere(context: CheckContext, sessionId: unknown): boolean {
  const { analysis } = context;
  return (
    (typeof sessionId === 'string' && analysis.created.has(sessionId)) ||
    analysis.resumes.some((resume) => resume.sessionId === sessionId && resume.replay)
  );
}

/** background.announced-first: every listed item was created by an earlier update of its session. */
export function checkBackgroundAnnounced(context: CheckContext): CheckOutcome {
  const sessions = sessionsWithBackground(context.analysis).filter((id) => announcedHere(context, id));
  if (sessions.length === 0) return notApplicable(NONE);
  const findings: RawFinding[] = [];
  for (const sessionId of sessions) {
    const announced = new Set<string>();
    for (const update of sessionUpdates(context.analysis, sessionId)) {
      const facts = entityFacts(update);
      if (facts.announces) announced.add(itemKey(facts.announces));
      for (const item of backgroundOf(update) ?? []) {
        if (announced.has(itemKey(item))) continue;
        findings.push({
          index: update.index,
          pointer: itemPointer(item),
          message: `the background list names ${describeItem(item)}, which no earlier update of session ${show(sessionId)} announced`,
          expected: `a ${item.kind === 'terminal' ? 'terminal_update' : 'tool_call_update'} creating it before the first list that names it`,
          actual: 'listed first',
        });
        announced.add(itemKey(item));
      }
    }
  }
  return checked(findings);
}

/** background.final-before-removal: an item leaves the list only after its end was reported. */
export function checkBackgroundRemoval(context: CheckContext): CheckOutcome {
  const sessions = sessionsWithBackground(context.analysis);
  if (sessions.length === 0) return notApplicable(NONE);
  const findings: RawFinding[] = [];
  for (const sessionId of sessions) {
    const ended = new Set<string>();
    let previous: BackgroundItem[] | undefined;
    let previousIndex = -1;
    for (const update of sessionUpdates(context.analysis, sessionId)) {
      const facts = entityFacts(update);
      if (facts.announces && facts.final) ended.add(itemKey(facts.announces));
      const items = backgroundOf(update);
      if (!items) continue;
      const now = new Set(items.map(itemKey));
      for (const item of previous ?? []) {
        if (now.has(itemKey(item)) || ended.has(itemKey(item))) continue;
        findings.push({
          index: update.index,
          message: `${describeItem(item)}, listed at ${lineOf(context, previousIndex)}, left the background list before its end was reported`,
          expected:
            item.kind === 'terminal'
              ? 'a terminal_update with exitStatus before the list that drops it'
              : 'a tool_call_update with a final status (completed, failed, cancelled) before the list that drops it',
          actual: 'dropped without one',
        });
      }
      previous = items;
      previousIndex = update.index;
    }
  }
  return checked(findings);
}

/**
 * background.listed-once: no item twice in one list, and process-backed work listed as its
 * terminal only — not also as the tool call whose content shows that terminal.
 */
export function checkBackgroundListedOnce(context: CheckContext): CheckOutcome {
  const sessions = sessionsWithBackground(context.analysis);
  if (sessions.length === 0) return notApplicable(NONE);
  const findings: RawFinding[] = [];
  for (const sessionId of sessions) {
    const terminalsOf = new Map<string, Set<string>>();
    for (const update of sessionUpdates(context.analysis, sessionId)) {
      const facts = entityFacts(update);
      const toolCallId = update.update.toolCallId;
      if (facts.terminals.length > 0 && typeof toolCallId === 'string') {
        const known = terminalsOf.get(toolCallId) ?? new Set<string>();
        for (const terminal of facts.terminals) known.add(terminal);
        terminalsOf.set(toolCallId, known);
      }
      const items = backgroundOf(update);
      if (!items) continue;
      const seen = new Set<string>();
      const listedTerminals = new Set(
        items.filter((item) => item.kind === 'terminal').map((item) => item.id),
      );
      for (const item of items) {
        if (seen.has(itemKey(item))) {
          findings.push({
            index: update.index,
            pointer: itemPointer(item),
            message: `the background list names ${describeItem(item)} twice`,
            expected: 'each piece of work listed once',
            actual: `a second entry for ${describeItem(item)}`,
          });
          continue;
        }
        seen.add(itemKey(item));
        if (item.kind !== 'tool_call') continue;
        const both = [...(terminalsOf.get(item.id) ?? [])].find((terminal) => listedTerminals.has(terminal));
        if (both === undefined) continue;
        findings.push({
          index: update.index,
          pointer: itemPointer(item),
          message: `the background list names ${describeItem(item)} and its terminal ${show(both)}`,
          expected: 'process-backed work listed as its terminal only',
          actual: 'listed as both',
        });
      }
    }
  }
  return checked(findings);
}

/** background.every-state-update: once a session reported a list, each later state_update does. */
export function checkBackgroundEveryState(context: CheckContext): CheckOutcome {
  const sessions = sessionsWithBackground(context.analysis);
  if (sessions.length === 0) return notApplicable(NONE);
  const findings: RawFinding[] = [];
  for (const sessionId of sessions) {
    let reportingSince: number | undefined;
    for (const update of sessionUpdates(context.analysis, sessionId)) {
      if (stateOf(update) === undefined) continue;
      if (backgroundOf(update) !== undefined) {
        reportingSince ??= update.index;
        continue;
      }
      // A list that is present but malformed is update.schema's to report.
      if (
        reportingSince === undefined ||
        (update.update.background !== undefined && update.update.background !== null)
      )
        continue;
      findings.push({
        index: update.index,
        pointer: '/params/update/background',
        message: `session ${show(sessionId)} reports background work (since ${lineOf(context, reportingSince)}) but this state_update carries no list`,
        expected: 'the background list on every state_update (an empty list when nothing runs)',
        actual: show(update.update.background),
      });
    }
  }
  return checked(findings);
}

/**
 * background.cancel-leaves-running: session/cancel stops foreground work only. Each item of the
 * last list before a cancel is still listed on the idle that ends the cancelled work. An item whose
 * end was reported between the cancel and that idle, and which that idle no longer lists, was
 * stopped by the cancel (or ended in that window by chance: hence advisory). Items dropped without
 * any end are background.final-before-removal's.
 */
export function checkCancelLeavesBackground(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const findings: RawFinding[] = [];
  let judged = 0;
  for (const cancel of analysis.cancels) {
    const live = liveUpdates(analysis, cancel.sessionId);
    const before = live.filter((update) => update.index < cancel.index && backgroundOf(update)).at(-1);
    const listed = before ? backgroundOf(before)! : [];
    const end = nextWorkEnd(analysis, cancel.sessionId, cancel.index);
    if (listed.length === 0 || !end) continue;
    judged += 1;
    const stillListed = new Set((backgroundOf(end) ?? []).map(itemKey));
    for (const item of listed) {
      if (stillListed.has(itemKey(item))) continue;
      const ending = live.find((update) => {
        const facts = entityFacts(update);
        return (
          update.index < end.index &&
          facts.final &&
          facts.announces &&
          itemKey(facts.announces) === itemKey(item)
        );
      });
      if (!ending || ending.index < cancel.index) continue;
      findings.push({
        index: ending.index,
        message: `${describeItem(item)} was running in the background when session/cancel came (${lineOf(context, cancel.index)}) and was stopped by it`,
        expected:
          'background work keeps running through session/cancel (tool_call/cancel or terminal/cancel stop it)',
        actual: `its end reported after the cancel, and dropped from the list at ${lineOf(context, end.index)}`,
      });
    }
  }
  if (judged === 0) return notApplicable('no session/cancel came while background work was listed');
  return checked(findings);
}

/**
 * background.repeat-not-completion: an idle repeated without a running in between (a snapshot,
 * typically of background work after a turn) ends nothing, so it reports no new usage.
 */
export function checkRepeatedIdleUsage(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const findings: RawFinding[] = [];
  let repeats = 0;
  for (const sessionId of new Set(analysis.updates.map((update) => update.sessionId))) {
    let open = false;
    let lastEndUsage: unknown;
    let seenIdle = false;
    for (const update of liveUpdates(analysis, sessionId)) {
      const state = stateOf(update);
      if (state === 'running' || state === 'requires_action') open = true;
      if (state !== 'idle') continue;
      if (open || !seenIdle) {
        open = false;
        seenIdle = true;
        if (endsWork(update)) lastEndUsage = update.update.usage;
        continue;
      }
      repeats += 1;
      const usage = update.update.usage;
      if (usage === undefined || usage === null || JSON.stringify(usage) === JSON.stringify(lastEndUsage))
        continue;
      findings.push({
        index: update.index,
        pointer: '/params/update/usage',
        message: 'an idle repeated without a running since the last one reports usage of its own',
        expected: 'no usage on a repeated snapshot, or the last one repeated',
        actual: show(usage),
      });
    }
  }
  if (repeats === 0) return notApplicable('no idle was repeated without a running in between');
  return checked(findings);
}
