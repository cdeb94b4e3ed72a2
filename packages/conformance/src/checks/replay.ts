import { asRecord } from '../analysis/envelope.js';
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

/** A user message's content blocks as the prompt that submitted it gave them, when the request carries them. */
function promptContent(params: unknown): unknown[] | undefined {
  const prompt = asRecord(params)?.prompt;
  return Array.isArray(prompt) ? prompt : undefined;
}

/**
 * resume.replay.message-id — what the RFD promises of a replay (§Correlation and replay): a user
 * message the session had live that comes back in the replay comes back under its live ID with its
 * live content, and no ID names two contents. Per replay:
 * - a replayed ID the session had live, with other content than it had live: one ID, two contents;
 * - a replayed ID the session never had, whose content is that of a live user message the replay
 *   does not hold under its own ID: a live message replayed under a new ID;
 * - any other replayed ID the session never had is a message the agent retained but never showed
 *   live (a locally handled command, an imported entry): allowed, and reported as a note.
 * Messages seen only live may be absent from the replay: retention is the agent's choice.
 */
export function checkReplayIds(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const findings: RawFinding[] = [];
  const notes: RawFinding[] = [];
  let examined = 0;
  for (const resume of replays(analysis)) {
    // The session's live user messages before this replay: ID → content blocks (undefined while unknown).
    const live = new Map<string, unknown[] | undefined>();
    for (const prompt of analysis.prompts) {
      if (prompt.sessionId !== resume.sessionId || !prompt.messageId) continue;
      if (prompt.request.index >= resume.request.index) continue;
      live.set(prompt.messageId, promptContent(prompt.request.params));
    }
    const held = heldCopy(analysis, resume.sessionId, resume.request.index);
    for (const update of analysis.updates) {
      if (update.index >= resume.request.index) break;
      if (update.sessionId !== resume.sessionId || update.resume) continue;
      if (update.message?.family === 'user_message' && update.messageId)
        live.set(update.messageId, undefined);
    }
    for (const id of live.keys()) {
      if (held.has('user_message', id)) live.set(id, held.get('user_message', id));
      else if (live.get(id) === undefined) {
        const prompt = analysis.prompts.find((p) => p.sessionId === resume.sessionId && p.messageId === id);
        if (prompt) live.set(id, promptContent(prompt.request.params));
      }
    }
    if (live.size === 0) continue;
    // The replay's user messages, with the content the replay alone gives each.
    const store = new ContentStore();
    const order = new Map<string, number>();
    for (const update of windowOf(analysis, resume)) {
      if (update.message?.family !== 'user_message' || !update.messageId) continue;
      store.apply(update.message, update.messageId, update.update);
      order.set(update.messageId, update.index);
    }
    const unclaimed = new Map<string, string>();
    for (const [id, blocks] of live) if (!order.has(id) && blocks) unclaimed.set(id, renderContent(blocks));
    for (const [id, index] of order) {
      examined += 1;
      const content = renderContent(store.get('user_message', id));
      if (live.has(id)) {
        const blocks = live.get(id);
        if (blocks === undefined) continue;
        const had = renderContent(blocks);
        // Content appended to itself is the no-duplicate rule's finding.
        if (had === content || renderContent([...blocks, ...blocks]) === content) continue;
        findings.push({
          index,
          message: `replay gave user message ${show(id)} other content than it had live: one ID names two contents`,
          expected: had,
          actual: content,
        });
        continue;
      }
      const original = [...unclaimed].find(([, had]) => had === content)?.[0];
      if (original !== undefined) {
        unclaimed.delete(original);
        findings.push({
          index,
          message: `replay reported the live user message ${show(original)} under a new ID`,
          expected: `messageId ${show(original)}, the ID it had live`,
          actual: `messageId ${show(id)}`,
        });
        continue;
      }
      notes.push({
        index,
        message: `replay reported a user message the session never showed live, under a fresh ID ${show(id)}`,
        actual: content,
      });
    }
  }
  if (examined === 0)
    return notApplicable('no user message was replayed in a session with live history here');
  return { applicable: true, findings, notes };
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
