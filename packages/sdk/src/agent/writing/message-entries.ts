import type { ContentBlock, MessageId, SessionUpdate } from '@acp-kit/schema';
import type { MessageKind, ReplayVia } from '../../history/history-store.js';
import { chunkUpdate, messageUpdate } from '../../history/message-updates.js';
import type { NewLogEntry } from '../../history/session-log.js';

/**
 * The updates that report a whole message: one update with the content (`via: 'full'`), or an
 * empty one followed by one chunk per block.
 */
export function reportUpdates(
  kind: MessageKind,
  messageId: MessageId,
  content: readonly ContentBlock[],
  via: ReplayVia,
): SessionUpdate[] {
  if (via === 'full') return [messageUpdate(kind, messageId, content)];
  return [
    messageUpdate(kind, messageId, []),
    ...content.map((block): SessionUpdate => chunkUpdate(kind, messageId, block)),
  ];
}

/** Log entries for a message's report; the first claims its ID, so the message is written once. */
export function claimFirst(
  kind: MessageKind,
  messageId: MessageId,
  updates: readonly SessionUpdate[],
  retain: boolean,
): NewLogEntry[] {
  return updates.map((update, i) => ({
    update,
    retain,
    ...(i === 0 ? { claim: { kind, messageId } } : {}),
  }));
}
