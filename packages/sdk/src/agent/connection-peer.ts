import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientCapabilities,
  ClientNotificationMap,
  ClientRequestMap,
} from '@acp-kit/schema';
import type { Connection } from '../rpc/connection.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { ClientPeer } from './client-peer.js';

/** A connection as an agent holds it: it handles agent methods and calls client methods. */
export type AgentConnection = Connection<
  AgentRequestMap,
  AgentNotificationMap,
  ClientRequestMap,
  ClientNotificationMap
>;

/** Options of {@link connectionPeer}. */
export interface ConnectionPeerOptions {
  /** A label for diagnostics (for example `stdio` or `ws#3`). */
  label: string;
  /** What the client advertised in `initialize`, once it did. */
  capabilities?(): ClientCapabilities | undefined;
  /** Throws to refuse, before anything is sent, a request the client cannot answer. */
  checkOutgoing?(method: string): void;
}

/**
 * The {@link ClientPeer} that stands for one client connection inside sessions: updates become
 * `session/update` notifications (batched where the transport takes batches, with the log's seq
 * passed on to a wire codec), requests go out through the connection, and a client that cannot
 * keep up is closed with the reason (-32098 stays -32098; anything else becomes -32099).
 */
export function connectionPeer(connection: AgentConnection, options: ConnectionPeerOptions): ClientPeer {
  const { capabilities, checkOutgoing } = options;
  return {
    label: options.label,
    get open() {
      return !connection.isClosed;
    },
    maxMessageBytes: connection.maxMessageBytes,
    get capabilities() {
      return capabilities?.();
    },
    notify: (params, paramsJson, seq) => {
      const note = seq === undefined ? undefined : { seq };
      return paramsJson === undefined
        ? connection.sendNotification('session/update', params, note)
        : connection.sendSerializedNotification('session/update', params, paramsJson, note);
    },
    notifyBatch: (items) => connection.sendSerializedNotifications('session/update', items),
    notification: (method, params) => connection.sendNotification(method, params as never),
    request: (method, params, signal) => {
      try {
        checkOutgoing?.(method);
      } catch (error) {
        return Promise.reject(error);
      }
      return connection.sendRequest(method, params, signal ? { signal } : undefined) as never;
    },
    get pendingBytes() {
      return connection.pendingOutgoingBytes;
    },
    close: (reason) =>
      connection.close(
        reason instanceof RpcError
          ? reason
          : new RpcError(ErrorCodes.ConnectionClosed, `connection closed: ${reason.message}`, undefined, {
              cause: reason,
            }),
      ),
  };
}
