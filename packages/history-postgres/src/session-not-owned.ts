import { HistoryStoreError } from '@acp-kit/sdk';

/** Why a replica may not write to a session (see {@link SessionNotOwnedError}). */
export type NotOwnedReason =
  /** This replica held the session's lease and lost it: it lapsed and another replica took it. */
  | 'lost'
  /** Another replica holds the session's lease. */
  | 'held_elsewhere';

/**
 * An append refused because this replica does not hold the session's lease: it lost it (paused
 * past the lease time, then taken over) or another replica holds it. Nothing was written. Its
 * `code` is `locked`, like every refused fenced append, so agents and the wire treat it as a
 * storage failure (-32603); `reason` tells the two cases apart.
 */
export class SessionNotOwnedError extends HistoryStoreError {
  /** Lost here, or held by another replica. */
  readonly reason: NotOwnedReason;

  constructor(sessionId: string, reason: NotOwnedReason, replica?: string) {
    const here = replica === undefined ? 'this replica' : `replica "${replica}"`;
    super(
      'locked',
      reason === 'lost'
        ? `session "${sessionId}" is not owned here: ${here} lost its lease (another replica took the session over), so the write was refused`
        : `session "${sessionId}" is owned by another replica: ${here} cannot write to it, so the write was refused`,
      { sessionId },
    );
    this.reason = reason;
  }
}
