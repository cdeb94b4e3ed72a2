import type { SessionNotification } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import type { AgentSession } from '../agent-session.js';
import type { ClientPeer } from '../connection/client-peer.js';
import type { ReplayedUpdate } from './log-replay.js';

/**
 * Backlog of a replaying client's connection (bytes handed to it and not yet taken by its
 * transport) past which the replay waits for the transport before sending more.
 */
const REPLAY_BACKLOG_BYTES = 256 * 1024;

/**
 * Serialized size (in UTF-16 code units) at which a group of replayed updates is handed to a
 * connection that takes batches: one write per group, and the backlog is checked between groups.
 */
const GROUP_CHARS = 64 * 1024;

type Serialized = { params: SessionNotification; paramsJson: string };

/**
 * Sends a replay's batches of updates to the resuming client, in order. Updates are handed to the
 * connection without waiting for each to be written — the replay waits for the transport only
 * when the connection's backlog passes {@link REPLAY_BACKLOG_BYTES} and at the end of each batch —
 * so a long replay is not one round trip per update, and the backlog stays far below the
 * connection's outgoing limit however fast the log reads. A connection that takes batches
 * ({@link ClientPeer.notifyBatch}) gets the updates serialized here (an update replayed unchanged
 * as its stored text) in groups of about {@link GROUP_CHARS}, each one write to its transport. The
 * first failure is thrown once the updates sent before it were handed over; a client whose
 * connection closed is detached (see `AgentSession.sendTo`).
 */
export async function sendReplay(
  session: AgentSession,
  peer: ClientPeer,
  batches: AsyncIterable<readonly ReplayedUpdate[]>,
): Promise<void> {
  if (peer.notifyBatch !== undefined) {
    await sendGrouped(session, peer, batches);
    return;
  }
  let failure: { error: unknown } | undefined;
  const fail = (error: unknown): void => {
    failure ??= { error };
  };
  for await (const batch of batches) {
    let last: Promise<void> | undefined;
    for (const { update, json } of batch) {
      last = session.clients.sendTo(peer, update, json).catch(fail);
      if ((peer.pendingBytes ?? 0) > REPLAY_BACKLOG_BYTES) await last;
      if (failure !== undefined) throw failure.error;
    }
    await last;
    if (failure !== undefined) throw failure.error;
  }
}

async function sendGrouped(
  session: AgentSession,
  peer: ClientPeer,
  batches: AsyncIterable<readonly ReplayedUpdate[]>,
): Promise<void> {
  let failure: { error: unknown } | undefined;
  const fail = (error: unknown): void => {
    failure ??= { error };
  };
  const idJson = JSON.stringify(session.id);
  let group: Serialized[] = [];
  let chars = 0;
  let last: Promise<void> | undefined;
  const handOver = async (): Promise<void> => {
    if (group.length > 0) {
      last = session.clients.sendBatchTo(peer, group).catch(fail);
      group = [];
      chars = 0;
      if ((peer.pendingBytes ?? 0) > REPLAY_BACKLOG_BYTES) await last;
    }
    if (failure !== undefined) throw failure.error;
  };
  for await (const batch of batches) {
    for (const { update, json } of batch) {
      let text = json;
      if (text === undefined) {
        try {
          text = JSON.stringify(update);
        } catch (error) {
          await handOver();
          await last;
          if (failure !== undefined) throw failure.error;
          throw new RpcError(ErrorCodes.InternalError, 'message could not be serialized to JSON', undefined, {
            cause: error,
          });
        }
      }
      const paramsJson = `{"sessionId":${idJson},"update":${text}}`;
      group.push({ params: { sessionId: session.id, update }, paramsJson });
      chars += paramsJson.length;
      if (chars >= GROUP_CHARS) await handOver();
    }
    await handOver();
    await last;
    if (failure !== undefined) throw failure.error;
  }
}
