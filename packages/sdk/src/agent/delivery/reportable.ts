import type { SessionId, SessionUpdate } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';

/**
 * Throws an invalid-params error unless every update can be sent, as a `session/update` of
 * `sessionId`, within `limit` bytes (the smallest message limit of the attached clients), so that
 * a message is either retained, reported and acknowledged, or none of these. Replay never sends an
 * update larger than one that was appended, so this also keeps retained content replayable.
 * Returns the bytes of their reports. `envelope` is {@link reportEnvelopeBytes} of the session, for a
 * caller that keeps it (a session's writer checks every chunk it streams).
 */
export function reportableBytes(
  sessionId: SessionId,
  updates: readonly SessionUpdate[],
  limit: number,
  envelope = reportEnvelopeBytes(sessionId),
): number {
  let total = 0;
  for (const update of updates) {
    let json: string;
    try {
      json = JSON.stringify(update);
      if (typeof json !== 'string') throw new TypeError('not JSON');
    } catch {
      throw new RpcError(
        ErrorCodes.InvalidParams,
        'The message cannot be reported: its content cannot be serialized',
        {
          pointer: '/params/prompt',
          expected: 'content that can be serialized to JSON',
        },
      );
    }
    const bytes = envelope + Buffer.byteLength(json, 'utf8');
    if (bytes > limit) {
      throw new RpcError(
        ErrorCodes.InvalidParams,
        `The message cannot be reported: its update would be ${bytes} bytes, over the ${limit}-byte message limit`,
        { pointer: '/params/prompt', expected: `content whose report fits in ${limit} bytes` },
      );
    }
    total += bytes;
    lastChecked = update;
    lastCheckedJson = json;
  }
  return total;
}

/** The bytes of a `session/update` report of `sessionId` around its update's JSON. */
export function reportEnvelopeBytes(sessionId: SessionId): number {
  return Buffer.byteLength(
    `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(sessionId)},"update":}}`,
    'utf8',
  );
}

/**
 * The JSON of the last update {@link reportableBytes} checked: delivery sends it as it was checked
 * instead of serializing the update again, once per attached client (a streamed chunk is usually
 * checked and then delivered before the next is checked). One slot, not a map by update: logs keep
 * their updates, and a JSON copy kept beside each would double what they hold.
 */
let lastChecked: SessionUpdate | undefined;
let lastCheckedJson = '';

/** The JSON of `update` as {@link reportableBytes} checked it, if it was the last one checked. */
export function checkedUpdateJson(update: SessionUpdate): string | undefined {
  return update === lastChecked ? lastCheckedJson : undefined;
}
