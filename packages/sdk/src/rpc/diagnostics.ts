import type { RpcId } from './messages.js';

/** What kind of irregularity a connection observed. None of these stop the connection. */
export type DiagnosticKind =
  /** A frame was not valid JSON; answered with -32700. */
  | 'parse-error'
  /** A frame could not be decoded (oversized, invalid UTF-8, binary); answered with an error. */
  | 'frame-error'
  /** A JSON value that is not a valid envelope; answered with -32600 (or fails the matching request). */
  | 'invalid-message'
  /**
   * A response (it carries `result` or `error` and no `method`) that is not a valid envelope, such as
   * one carrying both: never answered, since JSON-RPC answers requests only; fails the matching
   * request when there is one.
   */
  | 'invalid-response'
  /** A request for a method with no handler; answered with -32601. */
  | 'unknown-method'
  /** Request params failed validation; answered with -32602. */
  | 'invalid-params'
  /** A notification nobody handles (methods starting with `_` are dropped without this). */
  | 'unknown-notification'
  /** Notification params failed validation; the notification was dropped. */
  | 'invalid-notification-params'
  /** A request handler threw something other than an RpcError; answered with a generic -32603. */
  | 'request-handler-error'
  /** A notification handler threw or rejected. */
  | 'notification-handler-error'
  /** A response whose id matches no pending request. */
  | 'unknown-response'
  /** The peer sent an error response with a null id: it could not read something we sent. */
  | 'peer-error'
  /** A result of one of our requests failed validation; that request was rejected. */
  | 'invalid-result'
  /** An event listener (message tap, close listener) threw. */
  | 'listener-error';

/** One observation from a connection, for logs and debugging tools. */
export interface Diagnostic {
  /** What happened. */
  kind: DiagnosticKind;
  /** Explanation in words; never contains more than {@link excerpt} of peer input. */
  message: string;
  /** The method involved, when known. */
  method?: string;
  /** The request id involved, when known. */
  id?: RpcId | null;
  /**
   * For params or a result that failed validation: the JSON pointer, within the whole message
   * (`/params/…`), of the first value the schema refused.
   */
  pointer?: string;
  /** The start of the offending frame, truncated. */
  excerpt?: string;
  /** The underlying error (for handler failures: the real error the wire message hides). */
  error?: unknown;
}
