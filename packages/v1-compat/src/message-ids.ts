import type { MessageId, SessionId } from '@acp-kit/schema';
import { base64url, sha256 } from './sha256.js';

/** The three message kinds; each has its own ID space and its own position counter. */
export type MessageKind = 'user_message' | 'agent_message' | 'agent_thought';

/**
 * A fallback ID for a v1 message that has no `messageId` of its own: `m1_` + the first 22
 * base64url characters of SHA-256 over the session ID, the message kind and the message's
 * position among the session's messages of that kind issued by this bridge. The bridge uses it
 * only when {@link userMessageId} or {@link replyMessageId} would give an ID it already issued for
 * another message (positions only grow, so it is never issued twice). `epoch` salts the hash when
 * the session's history cannot be known (resumed without a replay to count from); such IDs are
 * unique but not reproducible.
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

/**
 * The ID the bridge gives a user message it has no `messageId` for: `m1_` + 22 base64url
 * characters of SHA-256 over the session ID, the message's content hash (see `ContentHash`) and
 * how many user messages of the session with that content came before it. It depends on what the
 * message says, not on where it sits: a replay that holds user entries never seen live (or lacks
 * some) still derives the same ID for every prompt the bridge forwarded, also in a bridge that
 * kept no record of the session.
 */
export function userMessageId(
  sessionId: SessionId,
  contentHash: string,
  occurrence: number,
  epoch = '',
): MessageId {
  const digest = base64url(sha256(`${sessionId}\nuser_message\n#${contentHash}\n${occurrence}\n${epoch}`));
  return `m1_${digest.slice(0, 22)}`;
}

/**
 * The ID the bridge gives an agent message or thought with no `messageId`: `m1_` + 22 base64url
 * characters of SHA-256 over the session ID, the kind, the ID of the user message it answers
 * (`''` before any) and its position among that turn's messages of its kind. The count restarts
 * at each user message, so a message the agent streamed live but does not replay (or the other
 * way round) moves at most the IDs later in its own turn.
 */
export function replyMessageId(
  sessionId: SessionId,
  kind: Exclude<MessageKind, 'user_message'>,
  after: MessageId | '',
  position: number,
  epoch = '',
): MessageId {
  const digest = base64url(sha256(`${sessionId}\n${kind}\n@${after}\n${position}\n${epoch}`));
  return `m1_${digest.slice(0, 22)}`;
}
