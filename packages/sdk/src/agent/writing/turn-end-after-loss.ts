import type { SessionUpdate } from '@acp-kit/schema';
import type { NewLogEntry } from '../../history/session-log.js';
import { ErrorCodes } from '../../rpc/errors.js';

/** The error a turn ends with when updates written behind it never reached the log. */
export const LOST_OUTPUT_ERROR = {
  code: ErrorCodes.InternalError,
  message: "Part of the turn's output could not be stored, so it was never reported; the turn ended here.",
} as const;

type StateUpdate = { sessionUpdate: 'state_update'; state?: unknown; stopReason?: unknown; error?: unknown };

/**
 * The turn end a call still writes after updates written behind it were lost, or undefined when
 * the call ends no turn. A call ends the turn when its last state update says `idle`; that entry
 * alone is kept (anything else in the call would follow the hole). An idle that ends work (it has
 * a stop reason) ends it with stop reason `error` and {@link LOST_OUTPUT_ERROR}: the clients saw
 * the output only up to the loss, so the agent's own stop reason (`end_turn`, say) would tell
 * them a cut reply was complete. An `error` the agent gave is kept; so are usage and the rest.
 */
export function turnEndAfterLoss(entries: readonly NewLogEntry[]): NewLogEntry[] | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    const update = entry.update as StateUpdate;
    if (update.sessionUpdate !== 'state_update') continue;
    if (update.state !== 'idle') return undefined;
    if (update.stopReason === undefined || update.stopReason === null) return [entry];
    if (update.stopReason === 'error' && update.error !== undefined && update.error !== null) return [entry];
    const failed = { ...update, stopReason: 'error', error: { ...LOST_OUTPUT_ERROR } };
    return [{ ...entry, update: failed as unknown as SessionUpdate }];
  }
  return undefined;
}
