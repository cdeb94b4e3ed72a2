import type { LogEntry, SeqRange } from '@acp-kit/sdk';
import type { PostgresSessionLog } from './postgres-session-log.js';
import type { SessionLease } from './session-leases.js';

/** How {@link endInterruptedTurn} ends the turn. */
export type InterruptedStopReason = 'error' | 'cancelled';

/**
 * For a replica that has just taken a session over (its lease says `takenOver`): if the session's
 * last state is not `idle` — its previous owner died mid-turn — appends the `idle` that ends that
 * turn, with stop reason `error` (and a JSON-RPC error saying why) or `cancelled`, fenced by the
 * new lease. Clients following the session on any replica see the turn end instead of waiting
 * forever. Returns the appended range, or undefined when the session was idle already.
 */
export async function endInterruptedTurn(
  log: PostgresSessionLog,
  sessionId: string,
  lease: SessionLease,
  stopReason: InterruptedStopReason = 'error',
): Promise<SeqRange | undefined> {
  const last = await log.lastState(sessionId);
  const state = (last?.update as { state?: unknown } | undefined)?.state;
  if (state === undefined || state === 'idle') return undefined;
  const update = {
    sessionUpdate: 'state_update',
    state: 'idle',
    stopReason,
    ...(stopReason === 'error'
      ? {
          error: {
            code: -32603,
            message: 'the agent replica running this turn stopped; another replica took the session over',
          },
        }
      : {}),
  } as unknown as LogEntry['update'];
  // Live-only, as every state_update the agent reports: replay reports the state as of the resume.
  return log.appendAsOwner(sessionId, [{ update, retain: false }], lease);
}
