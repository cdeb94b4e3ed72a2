/**
 * `$/cancel_request` both ways: the method, reading the request ID an incoming one names, the
 * bound on our withdrawn requests that still wait for a late answer, and the -32800 errors.
 */

import { ErrorCodes, RpcError } from './errors.js';
import { isRpcId, type RpcId } from './messages.js';

/** The method ACP uses to cancel an in-flight request (LSP's `$/cancelRequest`, ACP spelling). */
export const CANCEL_REQUEST_METHOD = '$/cancel_request';

/**
 * How many requests this side withdrew (`$/cancel_request` sent) may wait at once for the peer's
 * late answer: 256. A peer that never answers withdrawn requests cannot make a connection hold
 * more; past the bound the oldest one is forgotten (its promise rejects -32800) and an answer to it
 * that comes later is reported as an unknown response.
 */
export const MAX_WITHDRAWN_REQUESTS = 256;

/** The request ID the params of an incoming `$/cancel_request` name, or `undefined` if they name none. */
export function cancelledRequestId(params: unknown): RpcId | undefined {
  const requestId =
    typeof params === 'object' && params !== null ? (params as { requestId?: unknown }).requestId : undefined;
  return isRpcId(requestId) ? requestId : undefined;
}

/** What a handler aborted by `$/cancel_request` (or by the close) is answered with when it throws. */
export function requestCancelledError(): RpcError {
  return new RpcError(ErrorCodes.RequestCancelled, 'Request cancelled');
}

/** What a request whose signal was aborted before it was sent rejects with. */
export function cancelledBeforeSentError(method: string): RpcError {
  return new RpcError(ErrorCodes.RequestCancelled, `${method} was cancelled before it was sent`);
}

/** What the oldest withdrawn request rejects with once too many wait for a late answer. */
export function withdrawnGivenUpError(method: string): RpcError {
  return new RpcError(
    ErrorCodes.RequestCancelled,
    `${method} was withdrawn and the peer never answered; given up after ${MAX_WITHDRAWN_REQUESTS} later withdrawals`,
  );
}
