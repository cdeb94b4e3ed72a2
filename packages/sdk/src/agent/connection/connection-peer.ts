import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientCapabilities,
  ClientNotificationMap,
  ClientRequestMap,
  SessionNotification,
} from '@acp-kit/schema';
import type { Connection } from '../../rpc/connection.js';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
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
  /**
   * Where both come from instead, without a closure each: the connection's method gate (its
   * `clientCapabilities` and `checkOutgoing`).
   */
  gate?: { readonly clientCapabilities: ClientCapabilities | undefined; checkOutgoing(method: string): void };
}

/**
 * A client connection as a {@link ClientPeer}: a class, so a server holding thousands of idle
 * connections keeps one copy of these methods rather than a set of closures per connection.
 */
class ConnectionPeer implements ClientPeer {
  readonly label: string;
  readonly maxMessageBytes: number | undefined;
  readonly #connection: AgentConnection;
  readonly #options: ConnectionPeerOptions;

  constructor(connection: AgentConnection, options: ConnectionPeerOptions) {
    this.#connection = connection;
    this.#options = options;
    this.label = options.label;
    this.maxMessageBytes = connection.maxMessageBytes;
  }

  get open(): boolean {
    return !this.#connection.isClosed;
  }

  get capabilities(): ClientCapabilities | undefined {
    const options = this.#options;
    return options.gate ? options.gate.clientCapabilities : options.capabilities?.();
  }

  get pendingBytes(): number {
    return this.#connection.pendingOutgoingBytes;
  }

  notify(params: SessionNotification, paramsJson?: string, seq?: number): Promise<void> {
    const note = seq === undefined ? undefined : { seq };
    return paramsJson === undefined
      ? this.#connection.sendNotification('session/update', params, note)
      : this.#connection.sendSerializedNotification('session/update', params, paramsJson, note);
  }

  notifyBatch(items: readonly { params: SessionNotification; paramsJson: string }[]): Promise<void> {
    return this.#connection.sendSerializedNotifications('session/update', items);
  }

  notification<M extends Exclude<keyof ClientNotificationMap, 'session/update'>>(
    method: M,
    params: ClientNotificationMap[M],
  ): Promise<void> {
    return this.#connection.sendNotification(method, params as never);
  }

  request<M extends keyof ClientRequestMap>(
    method: M,
    params: ClientRequestMap[M]['params'],
    signal?: AbortSignal,
  ): Promise<ClientRequestMap[M]['result']> {
    const options = this.#options;
    try {
      if (options.gate) options.gate.checkOutgoing(method);
      else options.checkOutgoing?.(method);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#connection.sendRequest(method, params as never, signal ? { signal } : undefined) as never;
  }

  close(reason: Error): void {
    this.#connection.close(
      reason instanceof RpcError
        ? reason
        : new RpcError(ErrorCodes.ConnectionClosed, `connection closed: ${reason.message}`, undefined, {
            cause: reason,
          }),
    );
  }
}

/**
 * The {@link ClientPeer} that stands for one client connection inside sessions: updates become
 * `session/update` notifications (batched where the transport takes batches, with the log's seq
 * passed on to a wire codec), requests go out through the connection, and a client that cannot
 * keep up is closed with the reason (-32098 stays -32098; anything else becomes -32099).
 */
export function connectionPeer(connection: AgentConnection, options: ConnectionPeerOptions): ClientPeer {
  return new ConnectionPeer(connection, options);
}
