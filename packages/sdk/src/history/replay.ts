import type { SessionId, SessionUpdate } from '@acp-kit/schema';
import type { HistoryStore, RetainedMessage, StreamMessagesOptions } from './history-store.js';

/**
 * Streams a session's retained log in `seq` order over `readMessages`, one page in memory at a
 * time, so a 100k-message history replays without loading everything at once. Implementations can
 * use it as their `messages()`.
 */
export async function* retainedMessages(
  store: Pick<HistoryStore, 'readMessages'>,
  sessionId: SessionId,
  options: StreamMessagesOptions = {},
): AsyncGenerator<RetainedMessage, void, undefined> {
  let afterSeq: number | null = options.afterSeq ?? 0;
  while (afterSeq !== null) {
    const page = await store.readMessages(sessionId, { afterSeq, limit: options.pageSize });
    yield* page.messages;
    afterSeq = page.nextAfterSeq;
  }
}

/**
 * The `session/update` bodies that replay one retained message: a single full-content update, or
 * (for `via: 'chunks'`) an update with `content: []` followed by one chunk per block, so that the
 * chunks never append to a copy the client already holds.
 */
export function replayUpdates(message: RetainedMessage): SessionUpdate[] {
  const meta = message.meta === null ? {} : { _meta: message.meta };
  const head = { sessionUpdate: message.kind, messageId: message.messageId, ...meta };
  if (message.via === 'full') return [{ ...head, content: [...message.content] } as SessionUpdate];
  const updates = [{ ...head, content: [] } as SessionUpdate];
  const chunkTag = `${message.kind}_chunk`;
  for (const block of message.content) {
    updates.push({ sessionUpdate: chunkTag, messageId: message.messageId, content: block } as SessionUpdate);
  }
  return updates;
}
