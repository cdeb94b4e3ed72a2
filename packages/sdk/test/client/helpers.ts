import type { ContentBlock, SessionNotification } from '@acp-kit/schema';
import type { ConversationSnapshot, MessageKind } from '../../src/client/conversation/index.js';

export const SESSION = 'sess_1';

/** A text content block. */
export function text(value: string): ContentBlock {
  return { type: 'text', text: value } as ContentBlock;
}

/** Wraps an update body in `session/update` params. */
export function note(update: Record<string, unknown>, sessionId = SESSION): SessionNotification {
  return { sessionId, update } as unknown as SessionNotification;
}

/** Full-content (or metadata-only) message update. */
export function upsert(
  kind: MessageKind,
  messageId: string,
  content?: ContentBlock[] | null,
  extra: Record<string, unknown> = {},
): SessionNotification {
  return note({ sessionUpdate: kind, messageId, ...(content !== undefined ? { content } : {}), ...extra });
}

/** One streamed chunk. */
export function chunk(kind: MessageKind, messageId: string, block: ContentBlock): SessionNotification {
  return note({ sessionUpdate: `${kind}_chunk`, messageId, content: block });
}

/** `state_update` notification. */
export function state(value: string, extra: Record<string, unknown> = {}): SessionNotification {
  return note({ sessionUpdate: 'state_update', state: value, ...extra });
}

/** The texts of every message, as `key=text|text` strings, for compact assertions. */
export function texts(snapshot: ConversationSnapshot): string[] {
  return snapshot.messages.map(
    (m) => `${m.key}=${m.content.map((b) => (b as { text?: string }).text ?? `<${b.type}>`).join('|')}`,
  );
}

/** Settles to 'pending' when the promise has not settled after the microtask queue drained. */
export async function peek<T>(promise: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([
    promise,
    new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), 10)),
  ]);
}
