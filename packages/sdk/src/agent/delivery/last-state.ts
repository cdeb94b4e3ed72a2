import type { BackgroundWork, SessionId } from '@acp-kit/schema';
import type { SessionLog } from '../../history/session-log.js';
import type { SessionActivity } from '../turns/turn-tracker.js';

/** How far back a session loaded from the log looks for its last reported activity. */
const ACTIVITY_LOOKBACK_PAGES = 8;
/** Entries read per page while looking back. */
const PAGE = 1024;

/** Whether a state update's `state` is an activity this SDK knows. */
export function isActivity(value: unknown): value is SessionActivity {
  return value === 'idle' || value === 'running' || value === 'requires_action';
}

/**
 * The activity the log last reported for a session, looking back a few pages from `lastSeq`
 * (idle if none), and the background list that state update carried (undefined if it carried
 * none): where a session loaded from the log starts.
 */
export async function lastState(
  log: SessionLog,
  sessionId: SessionId,
  lastSeq: number,
): Promise<{ activity: SessionActivity; background?: BackgroundWork[] }> {
  let end = lastSeq;
  for (let pages = 0; end > 0 && pages < ACTIVITY_LOOKBACK_PAGES; pages++) {
    const from = Math.max(0, end - PAGE);
    const page = await log.read(sessionId, { afterSeq: from, limit: end - from });
    for (let i = page.entries.length - 1; i >= 0; i--) {
      const update = page.entries[i]!.update as {
        sessionUpdate: string;
        state?: unknown;
        background?: unknown;
      };
      if (update.sessionUpdate === 'state_update' && isActivity(update.state)) {
        return Array.isArray(update.background)
          ? { activity: update.state, background: update.background as BackgroundWork[] }
          : { activity: update.state };
      }
    }
    end = from;
  }
  return { activity: 'idle' };
}
