/**
 * What a caller sets on a {@link Connection} and on one request it sends, the default limits, and
 * the small types of its sending and tapping methods.
 */

import type { Validator } from './validation.js';

/** Default cap on bytes handed to the writer but not yet accepted by the transport: 64 MiB. */
export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/**
 * Default cap on the entries of one incoming batch: 10 000, so that an error answer to every entry
 * (about 150 bytes each) still fits in one message under the default size limit.
 */
export const DEFAULT_MAX_BATCH_ENTRIES = 10_000;

/** One notification for {@link Connection.sendSerializedNotifications}: its params and their JSON text. */
export interface SerializedNotification {
  /** The params, as outgoing-message listeners see them. */
  readonly params: unknown;
  /** JSON text of `params` without line breaks. */
  readonly paramsJson: string;
}

/** Options for {@link Connection}. */
export interface ConnectionOptions {
  /**
   * Validates incoming params and the results of our requests. The JSON-RPC core knows no
   * protocol: without this option nothing is checked until a protocol layer brings its validator
   * ({@link Connection.useDefaultValidator} — `Agent.serve` and `Client` install ACP v2's
   * `schemaValidator`; a wire codec validates its own version). Pass `noValidation` to keep it off.
   */
  validator?: Validator;
  /**
   * Outgoing backpressure limit, in bytes of serialized JSON. See {@link Connection} for the policy.
   * Default: {@link DEFAULT_MAX_QUEUED_BYTES}.
   */
  maxQueuedBytes?: number;
  /**
   * Largest message this side will send, in bytes of serialized JSON. A bigger one is refused
   * locally (the send rejects; a too-large handler result becomes a -32603 answer) because the
   * peer would drop it and leave its request hanging. Default: {@link DEFAULT_MAX_MESSAGE_BYTES}.
   */
  maxMessageBytes?: number;
  /**
   * Most entries one incoming batch may hold; a longer batch is answered with a single -32600
   * (`id: null`), like an oversized line. Default: {@link DEFAULT_MAX_BATCH_ENTRIES}.
   */
  maxBatchEntries?: number;
}

/** Per-call options of {@link Connection.sendRequest}. */
export interface RequestOptions {
  /**
   * Aborting sends `$/cancel_request` for this request. The promise still settles with the peer's
   * answer (usually a -32800 error, or the result if the work had already finished), because for
   * some methods — `session/prompt` above all — whether the request took effect matters. If the
   * signal is already aborted, nothing is sent and the promise rejects with -32800 at once.
   */
  signal?: AbortSignal;
}

/** Direction of a message seen by {@link Connection.onMessage}. */
export type MessageDirection = 'in' | 'out';
