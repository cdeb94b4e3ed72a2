import type {
  ClientCapabilities,
  ClientNotificationMap,
  ClientRequestMap,
  SessionNotification,
} from '@acp-kit/schema';

/**
 * One client connection as the agent sees it: where a session's updates go and whom the agent
 * can ask for permission. The agent keeps one per connection that created or resumed a session.
 */
export interface ClientPeer {
  /** A label for diagnostics (for example `stdio` or `ws#3`). */
  readonly label: string;
  /**
   * Sends a `session/update` notification. Resolves when the transport has taken it. `paramsJson`,
   * when given, is JSON text of `params` on one line, which the peer may send as is. `seq`, when
   * given, is the seq of the session-log entry the update reports (absent for updates outside the
   * log: a replay, the current state after a resume); a peer may pass it on to its connection's
   * wire codec, which orders a turn's updates by it.
   */
  notify(params: SessionNotification, paramsJson?: string, seq?: number): Promise<void>;
  /**
   * Optional: sends several `session/update` notifications in order, each with the JSON text of its
   * params (on one line), handed to the transport together. Resolves when the transport has taken
   * them all; rejects with the first failure, after the ones before it were handed over.
   */
  notifyBatch?(items: readonly { params: SessionNotification; paramsJson: string }[]): Promise<void>;
  /** Sends a request the client handles, such as `session/request_permission`. */
  request<M extends keyof ClientRequestMap>(
    method: M,
    params: ClientRequestMap[M]['params'],
    signal?: AbortSignal,
  ): Promise<ClientRequestMap[M]['result']>;
  /** Whether the connection is still open. */
  readonly open: boolean;
  /** The largest message the connection will send, in bytes (unlimited when absent). */
  readonly maxMessageBytes?: number;
  /** Bytes handed to the connection and not yet accepted by its transport (its backlog). */
  readonly pendingBytes?: number;
  /** What the client advertised in `initialize` (elicitation modes…), once it did. */
  readonly capabilities?: ClientCapabilities | undefined;
  /** Sends another notification the client handles, such as `elicitation/complete`. */
  notification?<M extends Exclude<keyof ClientNotificationMap, 'session/update'>>(
    method: M,
    params: ClientNotificationMap[M],
  ): Promise<void>;
  /** Disconnects the client (it cannot keep up); `reason` says why, for diagnostics. */
  close?(reason: Error): void;
}
