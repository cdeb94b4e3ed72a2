import { asRecord } from '../analysis/envelope.js';
import type { Analysis, UpdateRecord } from '../analysis/model.js';
import type { CheckOutcome } from '../rules/types.js';
import { type CheckContext, checked, lineOf, notApplicable, type RawFinding, show } from './context.js';

/** A `subagent_update` naming a child, and where it was sent. */
interface Announcement {
  index: number;
  parent: unknown;
  child: string;
}

/** Every `subagent_update` of the transcript that names a child session, in order. */
export function announcements(analysis: Analysis): Announcement[] {
  return analysis.updates.flatMap((update: UpdateRecord) => {
    if (update.sessionUpdate !== 'subagent_update') return [];
    const child = asRecord(update.update)?.sessionId;
    return typeof child === 'string' ? [{ index: update.index, parent: update.sessionId, child }] : [];
  });
}

/**
 * `subagent.announced-first` (unstable surface): a child session is announced with a
 * `subagent_update` on its parent before any update bears the child's ID, and a session does not
 * announce itself. Not applicable to a transcript without subagents, so a stable-only agent is
 * never failed by it.
 */
export function checkSubagentsAnnounced(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const announced = announcements(analysis);
  if (announced.length === 0) return notApplicable('no subagent_update in the transcript (unstable surface)');
  const firstAnnouncement = new Map<string, Announcement>();
  for (const a of announced) if (!firstAnnouncement.has(a.child)) firstAnnouncement.set(a.child, a);
  const findings: RawFinding[] = [];
  for (const a of announced) {
    if (a.parent === a.child) {
      findings.push({
        index: a.index,
        pointer: '/params/update/sessionId',
        message: 'a session announces itself as its own subagent',
        expected: 'a child session ID other than the parent’s',
        actual: `sessionId ${show(a.child)}`,
      });
    }
  }
  const reported = new Set<string>();
  for (const update of analysis.updates) {
    const id = update.sessionId;
    if (typeof id !== 'string' || reported.has(id)) continue;
    const announcement = firstAnnouncement.get(id);
    if (announcement === undefined) continue;
    reported.add(id);
    if (update.index < announcement.index) {
      findings.push({
        index: update.index,
        pointer: '/params/sessionId',
        message: `an update bears the child session ${show(id)} before its parent announced it`,
        expected: `the subagent_update on ${lineOf(context, announcement.index)} first`,
        actual: `${show(update.sessionUpdate)} for the child`,
      });
    }
  }
  return checked(findings);
}
