import { ErrorCodes, RpcError } from '../rpc/errors.js';

/** The protocol version an `initialize` request asks for, when the message is one and says one. */
export function initializeVersion(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const message = value as { method?: unknown; id?: unknown; params?: unknown };
  if (message.method !== 'initialize' || message.id === undefined || message.id === null) return undefined;
  const version = (message.params as { protocolVersion?: unknown } | null | undefined)?.protocolVersion;
  return typeof version === 'number' && Number.isSafeInteger(version) && version >= 0 ? version : undefined;
}

/** The first `initialize` request of a batch that asks for a usable version, and where it is. */
export function batchedInitialize(
  entries: readonly unknown[],
): { index: number; requested: number } | undefined {
  for (const [index, entry] of entries.entries()) {
    const requested = initializeVersion(entry);
    if (requested !== undefined) return { index, requested };
  }
  return undefined;
}

/**
 * The answer to a batch whose `initialize` asks for a version below 2, as one JSON-RPC 2.0 batch
 * answer (an array with one response per request; notifications are not answered). No version
 * below 2 has batches, so nothing in it is processed and the connection stays undecided: the
 * `initialize` gets `refusal` (-32022 when no codec serves the version) or -32600 saying to send it
 * alone, and every other request gets -32600 naming the `initialize` that could not negotiate.
 */
export function refuseBatch(
  entries: readonly unknown[],
  initialize: { index: number; requested: number },
  refusal: RpcError | undefined,
): unknown[] {
  const { index, requested } = initialize;
  const answers: unknown[] = [];
  for (const [i, entry] of entries.entries()) {
    const id = requestId(entry);
    if (id === undefined) continue;
    const error =
      i === index
        ? (refusal ??
          new RpcError(
            ErrorCodes.InvalidRequest,
            `Invalid request: initialize for protocol version ${requested} cannot be batched (version ${requested} has no batches); send it as a single message`,
            { pointer: `/${i}`, expected: 'initialize as a single message, not in a batch' },
          ))
        : new RpcError(
            ErrorCodes.InvalidRequest,
            `Invalid request: not processed, because the initialize at /${index} of this batch asks for protocol version ${requested}, which has no batches`,
            { pointer: `/${i}`, expected: 'a single message after a single initialize' },
          );
    answers.push({ jsonrpc: '2.0', id, error: error.toObject() });
  }
  return answers;
}

/** The id of a request entry (string or number), or undefined for notifications and junk. */
function requestId(entry: unknown): string | number | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
  const { id, method } = entry as { id?: unknown; method?: unknown };
  if (typeof method !== 'string') return undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}
