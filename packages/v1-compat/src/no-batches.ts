import { ErrorCodes } from '@acp-kit/sdk';

/**
 * The answer to a JSON-RPC batch on a v1 connection, in either direction: v1 has no batches, so
 * the batch is refused whole with one -32600 (`id: null`, as JSON-RPC 2.0 answers a request whose
 * id cannot be known) and nothing in it is processed; the connection goes on.
 */
export function v1BatchRefusal(): {
  jsonrpc: '2.0';
  id: null;
  error: { code: number; message: string; data: unknown };
} {
  return {
    jsonrpc: '2.0',
    id: null,
    error: {
      code: ErrorCodes.InvalidRequest,
      message: 'Invalid request: a v1 connection takes no batches',
      data: { pointer: '', expected: 'one JSON-RPC message (v1 has no batches)' },
    },
  };
}
