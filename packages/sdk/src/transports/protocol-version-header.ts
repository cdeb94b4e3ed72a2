/**
 * `Acp-Protocol-Version`: the header a Streamable HTTP client SHOULD send on every request after
 * `initialize`, carrying the protocol version that `initialize` negotiated. Shared by the client
 * (which sends it) and the endpoint (which refuses a request whose header disagrees with its
 * connection). Browser-safe: no Node imports.
 */

/** The header's name. */
export const PROTOCOL_VERSION_HEADER = 'Acp-Protocol-Version';

/**
 * The `protocolVersion` of an `initialize` answer's result, as header text; undefined when the
 * answer is an error or has none.
 */
export function negotiatedVersion(answer: string): string | undefined {
  try {
    const version = (JSON.parse(answer) as { result?: { protocolVersion?: unknown } } | null)?.result
      ?.protocolVersion;
    return typeof version === 'number' || typeof version === 'string' ? String(version) : undefined;
  } catch {
    return undefined;
  }
}
