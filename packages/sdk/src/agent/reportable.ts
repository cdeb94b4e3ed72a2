import type { SessionId, SessionUpdate } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../rpc/errors.js';

/**
 * Throws an invalid-params error unless every update can be sent, as a `session/update` of
 * `sessionId`, within `limit` bytes (the smallest message limit of the attached clients), so that
 * a message is either retained, reported and acknowledged, or none of these. Replay never sends an
 * update larger than one that was appended, so this also keeps retained content replayable.
 * Returns the bytes of their reports.
 */
export function reportableBytes(
  sessionId: SessionId,
  updates: readonly SessionUpdate[],
  limit: number,
): number {
  let total = 0;
  for (const update of updates) {
    let json: string;
    try {
      json = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } });
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
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > limit) {
      throw new RpcError(
        ErrorCodes.InvalidParams,
        `The message cannot be reported: its update would be ${bytes} bytes, over the ${limit}-byte message limit`,
        { pointer: '/params/prompt', expected: `content whose report fits in ${limit} bytes` },
      );
    }
    total += bytes;
  }
  return total;
}
