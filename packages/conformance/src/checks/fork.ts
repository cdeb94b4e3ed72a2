import { asRecord } from '../analysis/envelope.js';
import { ContentStore, type MessageFamily, renderContent } from '../analysis/messages.js';
import type { Analysis, RequestRecord, ResumeRecord } from '../analysis/model.js';
import type { CheckOutcome } from '../rules/types.js';
import { type CheckContext, checked, lineOf, notApplicable, type RawFinding, show } from './context.js';

/** A message as a replay left it: family, ID, rendered content, and the index of its last update. */
interface ReplayedMessage {
  family: MessageFamily;
  messageId: string;
  content: string;
  /** The content as the message would render with its blocks appended twice. */
  doubled: string;
  index: number;
}

/** A successful `session/fork`, with the replays that show the source before it and the fork after it. */
interface ForkCase {
  request: RequestRecord;
  source: string;
  fork: string;
  /** The source's last replay answered before the fork was asked for: what the source retained. */
  sourceReplay: ResumeRecord;
  /** The fork's first replay, asked for before any prompt in the fork. */
  forkReplay: ResumeRecord;
}

/** The messages of one replay window, in order of first appearance, with the upsert rules applied. */
function replayed(analysis: Analysis, resume: ResumeRecord): ReplayedMessage[] {
  const store = new ContentStore();
  const order = new Map<string, ReplayedMessage>();
  for (const update of analysis.updates) {
    if (update.resume !== resume || !update.message || !update.messageId) continue;
    store.apply(update.message, update.messageId, update.update);
    const key = `${update.message.family}\u0000${update.messageId}`;
    const entry = order.get(key) ?? {
      family: update.message.family,
      messageId: update.messageId,
      content: '',
      doubled: '',
      index: update.index,
    };
    entry.index = update.index;
    order.set(key, entry);
  }
  return [...order.values()].map((entry) => {
    const blocks = store.get(entry.family, entry.messageId);
    return { ...entry, content: renderContent(blocks), doubled: renderContent([...blocks, ...blocks]) };
  });
}

/**
 * The forks a transcript can judge: a `session/fork` answered with a new session, a replay of the
 * source answered before it, and a replay of the fork asked for after it with no prompt to the fork
 * in between (so the fork's replay holds only what it got from the source).
 */
function forkCases(analysis: Analysis): ForkCase[] {
  const cases: ForkCase[] = [];
  for (const request of analysis.requests) {
    if (request.from !== 'client' || request.method !== 'session/fork' || !request.response?.ok) continue;
    const source = asRecord(request.params)?.sessionId;
    const fork = asRecord(request.response.result)?.sessionId;
    if (typeof source !== 'string' || typeof fork !== 'string' || fork === source) continue;
    const sourceReplay = analysis.resumes
      .filter((r) => r.replay && r.sessionId === source && r.end < request.index)
      .at(-1);
    const answeredAt = request.response.index;
    const forkReplay = analysis.resumes.find(
      (r) => r.replay && r.sessionId === fork && r.request.index > answeredAt,
    );
    if (sourceReplay === undefined || forkReplay === undefined || !Number.isFinite(forkReplay.end)) continue;
    const promptedFirst = analysis.prompts.some(
      (p) =>
        p.sessionId === fork && p.request.index > answeredAt && p.request.index < forkReplay.request.index,
    );
    if (promptedFirst) continue;
    cases.push({ request, source, fork, sourceReplay, forkReplay });
  }
  return cases;
}

const NO_FORK =
  'no session/fork with a replay of its source before it and of the fork after it (unstable surface)';

/**
 * `fork.replay.retained` (unstable surface): the fork's first replay holds every message the source
 * had retained, with the same content. The session-fork RFD leaves the fork's message IDs to the
 * agent (IDs are unique within one session): it may keep the source's or give new ones, but an ID
 * it keeps names the same message.
 */
export function checkForkRetained(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const cases = forkCases(analysis);
  if (cases.length === 0) return notApplicable(NO_FORK);
  const findings: RawFinding[] = [];
  for (const c of cases) {
    const source = replayed(analysis, c.sourceReplay);
    const fork = replayed(analysis, c.forkReplay);
    const unmatched = [...fork];
    for (const message of source) {
      const sameId = fork.find((m) => m.family === message.family && m.messageId === message.messageId);
      if (sameId !== undefined && sameId.content !== message.content) {
        if (sameId.content === message.doubled) continue; // the no-duplicate rule's finding
        findings.push({
          index: sameId.index,
          pointer: '/params/update',
          message: `the fork ${show(c.fork)} reuses the source's ${message.family} ID ${show(message.messageId)} for other content`,
          expected: `${message.content} (as the source replayed it, ${lineOf(context, message.index)}), or a new ID`,
          actual: sameId.content,
        });
        continue;
      }
      const at = unmatched.findIndex((m) => m.family === message.family && m.content === message.content);
      if (at >= 0) {
        unmatched.splice(at, 1);
        continue;
      }
      findings.push({
        index: c.forkReplay.end,
        message: `the fork ${show(c.fork)}'s replay lacks the source's ${message.family} ${show(message.messageId)}`,
        expected: `${message.content} (the source replayed it, ${lineOf(context, message.index)})`,
        actual: `no ${message.family} with that content in the fork's replay (${lineOf(context, c.forkReplay.request.index)} to ${lineOf(context, c.forkReplay.end)})`,
      });
    }
  }
  return checked(findings);
}

/**
 * `fork.replay.no-duplicate` (unstable surface): the fork's first replay holds the source's content
 * once: no message of the source replayed twice (under its ID and a new one, or its chunks appended
 * twice), and nothing beyond what the source had.
 */
export function checkForkNoDuplicate(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const cases = forkCases(analysis);
  if (cases.length === 0) return notApplicable(NO_FORK);
  const findings: RawFinding[] = [];
  for (const c of cases) {
    const source = replayed(analysis, c.sourceReplay);
    const fork = replayed(analysis, c.forkReplay);
    const budget = new Map<string, number>();
    for (const m of source)
      budget.set(`${m.family}\u0000${m.content}`, (budget.get(`${m.family}\u0000${m.content}`) ?? 0) + 1);
    for (const m of fork) {
      const twice = source.find((s) => s.family === m.family && s.content !== '' && s.doubled === m.content);
      if (twice !== undefined) {
        findings.push({
          index: m.index,
          pointer: '/params/update',
          message: `the fork ${show(c.fork)}'s replay repeats the source's ${m.family} ${show(twice.messageId)} within one message`,
          expected: twice.content,
          actual: m.content,
        });
        continue;
      }
      const key = `${m.family}\u0000${m.content}`;
      const left = budget.get(key);
      if (left === undefined) continue; // not the source's content: the retained rule judges what is missing
      if (left > 0) {
        budget.set(key, left - 1);
        continue;
      }
      findings.push({
        index: m.index,
        pointer: '/params/update',
        message: `the fork ${show(c.fork)}'s replay repeats the source's ${m.family} content a second time, as ${show(m.messageId)}`,
        expected: 'each of the source’s messages once',
        actual: m.content,
      });
    }
  }
  return checked(findings);
}
