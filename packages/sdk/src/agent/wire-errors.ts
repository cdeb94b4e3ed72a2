import { HistoryStoreError } from '../history/errors.js';
import { findUnstorableText, STORABLE_TEXT } from '../history/storable-text.js';
import type { RequestContext } from '../rpc/connection.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';

/**
 * The one seam where domain errors become wire errors. An {@link RpcError} passes through; a
 * {@link HistoryStoreError} answers with its JSON-RPC code (an unknown session is -32002, a bad
 * argument -32602; storage trouble is -32603 without details); anything else is `fallback`.
 */
export function toWireError(error: unknown, fallback: () => RpcError): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof HistoryStoreError) {
    const code = error.rpcCode;
    if (code === ErrorCodes.InternalError) return fallback();
    return new RpcError(
      code,
      error.message,
      error.sessionId === undefined ? undefined : { sessionId: error.sessionId },
    );
  }
  return fallback();
}

/**
 * Wraps a request handler so that a {@link HistoryStoreError} it throws reaches the client through
 * {@link toWireError}; any other error passes unchanged to the connection's own handling. Params
 * holding a string no history store keeps unchanged (U+0000 or an unpaired surrogate, see
 * {@link findUnstorableText}) are refused first, -32602 at that string's pointer: such a string
 * would otherwise be stored changed by one store and refused by another in the middle of a turn.
 */
export function wire<P, R>(handler: (params: P, context: RequestContext) => Promise<R>) {
  return async (params: P, context: RequestContext): Promise<R> => {
    const unstorable = findUnstorableText(params, '/params');
    if (unstorable !== undefined) {
      throw new RpcError(ErrorCodes.InvalidParams, `${unstorable}: expected ${STORABLE_TEXT}`, {
        pointer: unstorable,
        expected: STORABLE_TEXT,
      });
    }
    try {
      return await handler(params, context);
    } catch (error) {
      if (error instanceof HistoryStoreError) {
        throw toWireError(error, () => new RpcError(ErrorCodes.InternalError, 'Internal error'));
      }
      throw error;
    }
  };
}
