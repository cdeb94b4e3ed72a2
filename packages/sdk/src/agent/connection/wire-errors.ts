import { HistoryStoreError } from '../../history/errors.js';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';

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
