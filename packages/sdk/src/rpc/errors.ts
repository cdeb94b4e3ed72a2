/**
 * JSON-RPC error codes used by ACP, plus two codes this SDK raises locally and never sends.
 *
 * The local codes sit in the range JSON-RPC reserves for implementations (-32000..-32099), at the
 * far end from ACP's own codes, so they cannot be mistaken for something a peer said.
 */
export const ErrorCodes = {
  /** The bytes received were not valid JSON (or not valid UTF-8). */
  ParseError: -32700,
  /** The JSON value is not a valid JSON-RPC 2.0 envelope. */
  InvalidRequest: -32600,
  /** The receiver does not handle this request method. */
  MethodNotFound: -32601,
  /** The params failed schema validation; `data` carries the pointer. */
  InvalidParams: -32602,
  /** The handler failed; the wire message is deliberately generic. */
  InternalError: -32603,
  /** The request was cancelled with `$/cancel_request`. */
  RequestCancelled: -32800,
  /** ACP: the agent requires authentication first. */
  AuthRequired: -32000,
  /** ACP: a referenced resource (for example a session) does not exist. */
  ResourceNotFound: -32002,
  /** ACP: the agent supports no protocol version at or below the one `initialize` asked for. */
  UnsupportedProtocolVersion: -32022,
  /** Local only: the connection closed (transport ended, process exited, or `close()`). */
  ConnectionClosed: -32099,
  /** Local only: the outgoing buffer limit was exceeded because the peer stopped reading. */
  OutgoingBufferFull: -32098,
} as const;

/** One of the numeric codes in {@link ErrorCodes}. */
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** A JSON-RPC error object as it appears on the wire. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** Structured `data` of a validation failure (-32602 for params, -32603 for a bad result). */
export interface ValidationErrorData {
  /** RFC 6901 pointer into the whole message, e.g. `/params/prompt/0/type`. */
  pointer: string;
  /** What the schema expected at that pointer, in words. */
  expected: string;
  /** Every issue the validator found, pointers relative to the message as well. */
  issues: ReadonlyArray<{ pointer: string; keyword: string; message: string; expected?: string }>;
}

/**
 * An error with a JSON-RPC code. Handlers throw it to send a specific error response; requests
 * reject with it when the peer answers with an error or the connection fails.
 */
export class RpcError<Data = unknown> extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** Optional structured detail, sent as the error object's `data`. */
  readonly data: Data | undefined;

  constructor(code: number, message: string, data?: Data, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }

  /** Rebuilds an error received from a peer. */
  static fromObject(error: RpcErrorObject): RpcError {
    return new RpcError(error.code, error.message, error.data);
  }

  /** The wire form; `data` is omitted when absent rather than sent as `null`. */
  toObject(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}
