import { ErrorCodes, RpcError } from '../rpc/errors.js';

/** The `data` of error -32022 (schema/v2 `UnsupportedProtocolVersionErrorData`). */
export interface UnsupportedProtocolVersionData {
  /** The version the client asked for. */
  requested: number;
  /** The versions the agent does support. */
  supported: number[];
}

/**
 * The v2 answer to an `initialize` asking for a version below every version the agent serves:
 * -32022 with the requested and the supported versions.
 */
export function unsupportedProtocolVersion(
  requested: number,
  supported: readonly number[],
): RpcError<UnsupportedProtocolVersionData> {
  const list = [...supported].sort((a, b) => a - b);
  return new RpcError(
    ErrorCodes.UnsupportedProtocolVersion,
    `Unsupported protocol version ${requested}: this agent speaks ${list.join(' and ')}`,
    { requested, supported: list },
  );
}
