/**
 * The errors a {@link Connection} answers, rejects or closes with, shaped in one place: their codes,
 * messages and `data` are part of what a peer or a caller sees, so they are built here and
 * nowhere else (cancellation's own live in `cancellation.ts`).
 */

import { scanEnvelope } from './envelope-scan.js';
import { ErrorCodes, RpcError, type ValidationErrorData } from './errors.js';
import type { RpcId } from './messages.js';
import type { FrameError } from './ndjson.js';
import type { ValidationIssue } from './validation.js';

/** The reason the connection closes with when the peer ended its stream or the transport failed. */
export function peerEndedError(reason: Error | undefined): RpcError {
  return new RpcError(
    ErrorCodes.ConnectionClosed,
    reason ? `connection closed: ${reason.message}` : 'connection closed: the peer ended the stream',
    undefined,
    { cause: reason },
  );
}

/** The default reason of {@link Connection.close}. */
export function closedLocallyError(): RpcError {
  return new RpcError(ErrorCodes.ConnectionClosed, 'connection closed locally');
}

/** The reason the connection closes with when the transport refused a write. */
export function writeFailedError(cause: unknown): RpcError {
  return new RpcError(
    ErrorCodes.ConnectionClosed,
    `connection closed: write failed (${cause instanceof Error ? cause.message : String(cause)})`,
    undefined,
    { cause },
  );
}

/** A message this side would send is larger than its size limit; nothing was sent. */
export function oversizedError(bytes: number, limit: number): RpcError {
  return new RpcError(
    ErrorCodes.InternalError,
    `outgoing message of ${bytes} bytes exceeds the limit of ${limit} bytes`,
    { reason: 'oversized', bytes, limit },
  );
}

/** Whether `error` is an {@link oversizedError}. */
export function isOversizedError(error: unknown): error is RpcError {
  return error instanceof RpcError && (error.data as { reason?: unknown })?.reason === 'oversized';
}

/** A send would pass the outgoing-queue limit: the peer is not reading (the connection closes with it). */
export function queueFullError(limit: number, queued: number, bytes: number): RpcError {
  return new RpcError(
    ErrorCodes.OutgoingBufferFull,
    `outgoing buffer limit of ${limit} bytes exceeded (${queued} bytes queued, ` +
      `${bytes} more requested): the peer is not reading, so the connection was closed`,
    { limit, queued },
  );
}

/** A message could not be turned into JSON text (a cycle, a BigInt); nothing was sent. */
export function unserializableError(cause: unknown): RpcError {
  return new RpcError(ErrorCodes.InternalError, 'message could not be serialized to JSON', undefined, {
    cause,
  });
}

/** What a handler that threw something other than an {@link RpcError} is answered with. */
export function internalError(): RpcError {
  return new RpcError(ErrorCodes.InternalError, 'Internal error');
}

/** What replaces a handler's result that is too large to send. */
export function resultTooLargeError(): RpcError {
  return new RpcError(ErrorCodes.InternalError, 'Internal error: result too large');
}

/** The answer to a frame that is not JSON. */
export function parseError(): RpcError {
  return new RpcError(ErrorCodes.ParseError, 'Parse error: the message is not valid JSON');
}

/** The answer to a message (or a batch) that is not a valid request; `data` names the cause. */
export function invalidRequestError(reason: string, data: Record<string, unknown>): RpcError {
  return new RpcError(ErrorCodes.InvalidRequest, `Invalid request: ${reason}`, data);
}

/** The answer to a request whose id a request of the peer still being handled holds. */
export function duplicateIdError(): RpcError {
  return new RpcError(
    ErrorCodes.InvalidRequest,
    'Invalid request: id is already in use by a pending request',
    {
      pointer: '/id',
      reason: 'duplicate id',
    },
  );
}

/** What one of our requests fails with when its response is not a valid envelope. */
export function invalidResponseError(reason: string, pointer: string): RpcError {
  return new RpcError(ErrorCodes.InvalidRequest, `invalid response: ${reason}`, { pointer });
}

/** The answer to a request for a method nothing handles. */
export function methodNotFoundError(method: string): RpcError {
  return new RpcError(ErrorCodes.MethodNotFound, `Method not found: ${method}`, { method });
}

/** The answer to a request whose params the validator refused. */
export function invalidParamsError(issues: ValidationIssue[]): RpcError<ValidationErrorData> {
  return validationError(ErrorCodes.InvalidParams, 'Invalid params', '/params', issues);
}

/** What one of our requests fails with when the validator refused its result. */
export function invalidResultError(method: string, issues: ValidationIssue[]): RpcError<ValidationErrorData> {
  return validationError(ErrorCodes.InternalError, `Invalid result for ${method}`, '/result', issues);
}

/** Any failure of a send as the {@link RpcError} its promise rejects with. */
export function toRpcError(error: unknown): RpcError {
  return error instanceof RpcError
    ? error
    : new RpcError(ErrorCodes.InternalError, error instanceof Error ? error.message : String(error));
}

/**
 * Builds a validation error whose pointers are relative to the whole message (`/params/…`): the
 * first issue names the pointer and what was expected, every issue is kept in `data.issues`.
 */
export function validationError(
  code: number,
  label: string,
  prefix: string,
  issues: readonly ValidationIssue[],
): RpcError<ValidationErrorData> {
  const rebased = issues.map((issue) => ({ ...issue, pointer: `${prefix}${issue.pointer}` }));
  const first = rebased[0];
  const pointer = first?.pointer ?? prefix;
  const expected = first ? (first.expected ?? first.message) : 'a valid value';
  return new RpcError(code, `${label} at ${pointer}: expected ${expected}`, {
    pointer,
    expected,
    issues: rebased,
  });
}

/** What a frame the reader could not decode means, and how it is answered. */
export interface FrameFailure {
  /** The ID the kept start of the frame names, if it names one. */
  id: RpcId | null;
  /** The exact text of that ID, to echo a big integer exactly. */
  idText: string | undefined;
  /** The error the request is answered with (or our request fails with). */
  failure: RpcError;
  /** The frame is a response: it fails our request of that ID, and is never answered. */
  isResponse: boolean;
}

/**
 * Reads a frame error: the kept start of an oversized frame often names the request, so it is
 * answered by ID and the peer is not left waiting; a broken response is told apart from a request.
 */
export function readFrameError(error: FrameError): FrameFailure {
  const scan = error.reason === 'oversized' ? scanEnvelope(error.head ?? error.excerpt) : undefined;
  const code = error.reason === 'oversized' ? ErrorCodes.InvalidRequest : ErrorCodes.ParseError;
  const members = scan?.members ?? [];
  return {
    id: scan?.id ?? null,
    idText: scan?.idText ?? undefined,
    failure: new RpcError(code, error.message, { reason: error.reason, bytes: error.bytes }),
    isResponse:
      !members.includes('method') &&
      !members.includes('params') &&
      (members.includes('result') || members.includes('error')),
  };
}
