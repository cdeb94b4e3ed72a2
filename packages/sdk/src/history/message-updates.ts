import {
  type ContentBlock,
  type MessageId,
  type SessionUpdate,
  UPDATE_KIND_TABLE,
  UPDATE_KINDS,
} from '@acp-kit/schema';
import type { MessageKind } from './history-store.js';

/** The message kinds, read from the generated update-kind table: the kinds keyed by `messageId` that chunks append to. */
const MESSAGE_KINDS: ReadonlySet<string> = new Set(
  UPDATE_KINDS.filter(
    (kind) => UPDATE_KIND_TABLE[kind].idField === 'messageId' && UPDATE_KIND_TABLE[kind].chunk !== null,
  ),
);

/** The chunk update tag of each message kind, from the generated update-kind table. */
export const CHUNK_OF = Object.fromEntries(
  [...MESSAGE_KINDS].map((kind) => [kind, UPDATE_KIND_TABLE[kind as MessageKind].chunk]),
) as { readonly [K in MessageKind]: (typeof UPDATE_KIND_TABLE)[K]['chunk'] };

const KIND_OF_CHUNK: ReadonlyMap<string, MessageKind> = new Map(
  Object.entries(CHUNK_OF).map(([kind, chunk]) => [chunk, kind as MessageKind]),
);

/** Whether an update tag names a message kind. */
export function isMessageKind(tag: string): tag is MessageKind {
  return MESSAGE_KINDS.has(tag);
}

/** What one log entry does to a message, if it is about a message. */
export type MessageChange =
  /** A whole-content upsert (`user_message`/`agent_message`/`agent_thought` with `content`). */
  | {
      readonly op: 'upsert';
      readonly kind: MessageKind;
      readonly messageId: MessageId;
      readonly content: readonly ContentBlock[] | undefined;
      readonly meta: Readonly<Record<string, unknown>> | undefined;
    }
  /** One block appended (`*_chunk`). */
  | {
      readonly op: 'chunk';
      readonly kind: MessageKind;
      readonly messageId: MessageId;
      readonly block: ContentBlock;
    };

/** Reads a log entry's update as a change to a message; undefined for any other update kind. */
export function messageChange(update: SessionUpdate): MessageChange | undefined {
  const raw = update as unknown as Record<string, unknown>;
  const tag = raw.sessionUpdate as string;
  const messageId = raw.messageId;
  if (typeof messageId !== 'string') return undefined;
  if (isMessageKind(tag)) {
    return {
      op: 'upsert',
      kind: tag,
      messageId,
      content: Array.isArray(raw.content) ? (raw.content as ContentBlock[]) : undefined,
      meta:
        typeof raw._meta === 'object' && raw._meta !== null
          ? (raw._meta as Record<string, unknown>)
          : undefined,
    };
  }
  const kind = KIND_OF_CHUNK.get(tag);
  if (kind === undefined || typeof raw.content !== 'object' || raw.content === null) return undefined;
  return { op: 'chunk', kind, messageId, block: raw.content as ContentBlock };
}

/** A whole-content message update. */
export function messageUpdate(
  kind: MessageKind,
  messageId: MessageId,
  content: readonly ContentBlock[],
  meta?: Readonly<Record<string, unknown>> | null,
): SessionUpdate {
  return {
    sessionUpdate: kind,
    messageId,
    content: [...content],
    ...(meta ? { _meta: meta } : {}),
  } as SessionUpdate;
}

/** A one-block chunk update. */
export function chunkUpdate(kind: MessageKind, messageId: MessageId, block: ContentBlock): SessionUpdate {
  return { sessionUpdate: CHUNK_OF[kind], messageId, content: block } as SessionUpdate;
}
