import type { AgentSession } from './agent-session.js';
import type { ClientPeer } from './client-peer.js';
import type { ReplayedUpdate } from './log-replay.js';

/**
 * Backlog of a replaying client's connection (bytes handed to it and not yet taken by its
 * transport) past which the replay waits for the transport before sending more.
 */
const REPLAY_BACKLOG_BYTES = 256 * 1024;

/**
 * Sends a replay's batches of updates to the resuming client, in order. Updates are handed to the
 * connection without waiting for each to be written — the replay waits for the transport only
 * when the connection's backlog passes {@link REPLAY_BACKLOG_BYTES} and at the end of each batch —
 * so a long replay is not one round trip per update, and the backlog stays far below the
 * connection's outgoing limit however fast the log reads. The first failure is thrown once the
 * updates sent before it were handed over; a client whose connection closed is detached (see
 * `AgentSession.sendTo`).
 */
export async function sendReplay(
  session: AgentSession,
  peer: ClientPeer,
  batches: AsyncIterable<readonly ReplayedUpdate[]>,
): Promise<void> {
  let failure: { error: unknown } | undefined;
  const fail = (error: unknown): void => {
    failure ??= { error };
  };
  for await (const batch of batches) {
    let last: Promise<void> | undefined;
    for (const { update, json } of batch) {
      last = session.sendTo(peer, update, json).catch(fail);
      if ((peer.pendingBytes ?? 0) > REPLAY_BACKLOG_BYTES) await last;
      if (failure !== undefined) throw failure.error;
    }
    await last;
    if (failure !== undefined) throw failure.error;
  }
}
