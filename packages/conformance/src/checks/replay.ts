import { sessionKey } from '../analysis/attribution.js';
import { ContentStore, renderContent } from '../analysis/messages.js';
import type { Analysis, ResumeRecord, UpdateRecord } from '../analysis/model.js';
import type { CheckOutcome } from '../rules/types.js';
import { type CheckContext, checked, lineOf, notApplicable, type RawFinding, show } from './context.js';

function windowOf(analysis: Analysis, resume: ResumeRecord): UpdateRecord[] {
  return analysis.updates.filter((update) => update.resume === resume);
}

/** Message updates of a replay window, grouped by (family, messageId) in order of first appearance. */
function replayedMessages(analysis: Analysis, resume: ResumeRecord): Map<string, UpdateRecord[]> {
  const groups = new Map<string, UpdateRecord[]>();
  for (const update of windowOf(analysis, resume)) {
    if (!update.message || !update.messageId) continue;
    const key = `${update.message.family}\u0000${update.messageId}`;
    const group = groups.get(key) ?? [];
    group.push(update);
    groups.set(key, group);
  }
  return groups;
}

/** A whole-message update that sets content ([], null or blocks), which resets what a client holds. */
function resets(update: UpdateRecord): boolean {
  return !update.message!.chunk && 'content' in update.update;
}

/** The client's copy of a session's messages from the live updates before `index`. */
function heldCopy(analysis: Analysis, sessionId: unknown, index: number): ContentStore {
  const store = new ContentStore();
  for (const update of analysis.updates) {
    if (update.index >= index) break;
    if (update.sessionId !== sessionId || update.resume || !update.message || !update.messageId) continue;
    store.apply(update.message, update.messageId, update.update);
  }
  return store;
}

const replays = (analysis: Analysis): ResumeRecord[] => analysis.resumes.filter((resume) => resume.replay);

/** resume.replay.message-id */
export function checkReplayIds(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const findings: RawFinding[] = [];
  let examined = 0;
  for (const resume of replays(analysis)) {
    const known = new Set<string>();
    for (const prompt of analysis.prompts) {
      if (prompt.messageId && prompt.request.index < resume.request.index) {
        known.add(sessionKey(prompt.sessionId, prompt.messageId));
      }
    }
    for (const update of analysis.updates) {
      if (update.index >= resume.request.index) break;
      if (!update.resume && update.message?.family === 'user_message' && update.messageId) {
        known.add(sessionKey(update.sessionId, update.messageId));
      }
    }
    const sessionKnown = [...known].some((key) =>
      key.startsWith(`${JSON.stringify(resume.sessionId)}\u0000`),
    );
    if (!sessionKnown) continue;
    for (const update of windowOf(analysis, resume)) {
      if (update.message?.family !== 'user_message' || !update.messageId) continue;
      examined += 1;
      if (known.has(sessionKey(update.sessionId, update.messageId))) continue;
      findings.push({
        index: update.index,
        message: 'replay reported a user message under an ID this session never returned or reported',
        expected: 'the messageId the user message had live',
        actual: `messageId ${show(update.messageId)}`,
      });
    }
  }
  if (examined === 0)
    return notApplicable('no user message was replayed in a session with live history here');
  return checked(findings);
}

/** resume.replay.reset-before-chunks */
export function checkReplayReset(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const findings: RawFinding[] = [];
  let examined = 0;
  for (const resume of replays(analysis)) {
    for (const group of replayedMessages(analysis, resume).values()) {
      const firstChunk = group.find((update) => update.message!.chunk);
      if (!firstChunk) continue;
      examined += 1;
      if (resets(group[0]!)) continue;
      findings.push({
        index: firstChunk.index,
        message: `replay streamed ${show(firstChunk.messageId)} as chunks without first resetting it`,
        expected: `${group[0]!.message!.family} with messageId ${show(firstChunk.messageId)} and content: [] before its first chunk`,
        actual:
          group[0] === firstChunk
            ? `${show(firstChunk.sessionUpdate)} first`
            : `${show(group[0]!.sessionUpdate)} without content first (${lineOf(context, group[0]!.index)})`,
      });
    }
  }
  if (examined === 0) return notApplicable('no message was replayed as chunks');
  return checked(findings);
}

/** resume.replay.no-duplicate */
export function checkReplayNoDuplicate(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const findings: RawFinding[] = [];
  let examined = 0;
  for (const resume of replays(analysis)) {
    const held = heldCopy(analysis, resume.sessionId, resume.request.index);
    const after = held.clone();
    const groups = replayedMessages(analysis, resume);
    for (const group of groups.values()) {
      for (const update of group) after.apply(update.message!, update.messageId!, update.update);
    }
    for (const group of groups.values()) {
      const first = group[0]!;
      const family = first.message!.family;
      // A message replayed without a reset is the reset rule's finding; one never seen live has no reference.
      if (!resets(first) || !held.has(family, first.messageId!)) continue;
      examined += 1;
      const live = renderContent(held.get(family, first.messageId!));
      const replayed = renderContent(after.get(family, first.messageId!));
      if (live === replayed) continue;
      findings.push({
        index: group.at(-1)!.index,
        message: `after replay, ${family} ${show(first.messageId)} no longer matches the content it had live`,
        expected: live,
        actual: replayed,
      });
    }
  }
  if (examined === 0) return notApplicable('no message seen live was replayed');
  return checked(findings);
}

/** resume.no-replay-without-replay-from */
export function checkNoReplayWithoutCursor(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const plain = analysis.resumes.filter((resume) => !resume.replay);
  if (plain.length === 0) return notApplicable('no session/resume without replayFrom was sent');
  const findings: RawFinding[] = [];
  for (const resume of plain) {
    const seen = new Set<string>();
    for (const update of analysis.updates) {
      if (update.index >= resume.request.index) break;
      if (update.sessionId === resume.sessionId && update.message && update.messageId) {
        seen.add(`${update.message.family}\u0000${update.messageId}`);
      }
    }
    const replayed = windowOf(analysis, resume).filter(
      (update) =>
        update.message && update.messageId && seen.has(`${update.message.family}\u0000${update.messageId}`),
    );
    if (replayed.length === 0) continue;
    findings.push({
      index: replayed[0]!.index,
      message: `session/resume without replayFrom (${lineOf(context, resume.request.index)}) replayed ${replayed.length} update(s) of earlier messages`,
      expected: 'no replay',
      actual: `${show(replayed[0]!.sessionUpdate)} for ${show(replayed[0]!.messageId)}`,
    });
  }
  return checked(findings);
}
