import type { MessageId, SessionId } from '@acp-kit/schema';
import { base64url, sha256 } from './sha256.js';

/** The three message kinds; each has its own ID space and its own position counter. */
export type MessageKind = 'user_message' | 'agent_message' | 'agent_thought';

/**
 * The ID the bridge gives a v1 message that has no `messageId` of its own.
 *
 * Rule: `m1_` + the first 22 base64url characters of SHA-256 over the session ID, the message
 * kind and the message's position among the session's messages of that kind (0, 1, 2 … in
 * conversation order). A v1 agent that replays a session through `session/load` replays the same
 * messages in the same order, so the same message gets the same ID again — also after the bridge
 * restarts. `epoch` salts the hash when the position cannot be known (the session was resumed
 * without a replay to count from); such IDs are unique but not reproducible.
 */
export function derivedMessageId(
  sessionId: SessionId,
  kind: MessageKind,
  position: number,
  epoch = '',
): MessageId {
  // Plain TypeScript SHA-256: the same IDs in Node and in a browser (the inspector page derives them too).
  const digest = base64url(sha256(`${sessionId}\n${kind}\n${position}\n${epoch}`));
  return `m1_${digest.slice(0, 22)}`;
}
