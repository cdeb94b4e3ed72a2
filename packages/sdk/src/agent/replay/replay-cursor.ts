import type { ReplayFrom, ResumeSessionRequest } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';

/**
 * The replay a `session/resume` asks for: undefined for none, the cursor when it is one this SDK
 * replays from (`start`); any other cursor type is -32602 at `/params/replayFrom/type`. Shared by
 * the agent and adapters (the v1 agent bridge) so both answer the same.
 */
export function replayCursorOf(request: Pick<ResumeSessionRequest, 'replayFrom'>): ReplayFrom | undefined {
  const cursor = request.replayFrom ?? undefined;
  if (cursor !== undefined && cursor.type !== 'start') {
    throw new RpcError(
      ErrorCodes.InvalidParams,
      `Unsupported replay cursor type ${JSON.stringify(cursor.type)}`,
      {
        pointer: '/params/replayFrom/type',
        expected: 'start',
      },
    );
  }
  return cursor;
}
