import { ErrorCodes, RpcError } from '@acp-kit/sdk/rpc';

/** A value that has no form on the other protocol version. */
export class CompatError extends Error {
  /** RFC 6901 pointer to the offending part, relative to the value being converted. */
  readonly pointer: string;

  constructor(message: string, pointer = '') {
    super(message);
    this.name = 'CompatError';
    this.pointer = pointer;
  }
}

/**
 * Converts request params for the other side; a {@link CompatError} becomes the JSON-RPC error
 * -32602 with the pointer into the request, so the client learns what it sent that cannot cross.
 */
export function convertParams<T>(convert: () => T, pointerPrefix = '/params'): T {
  try {
    return convert();
  } catch (error) {
    if (!(error instanceof CompatError)) throw error;
    throw new RpcError(ErrorCodes.InvalidParams, `Invalid params: ${error.message}`, {
      pointer: `${pointerPrefix}${error.pointer}`,
      expected: 'a value the other protocol version can express',
    });
  }
}
