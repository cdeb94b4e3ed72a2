import {
  type ChunkedUpdateKind,
  UPDATE_KIND_TABLE,
  UPDATE_KINDS,
  type UpdateKindKeyedBy,
} from '@acp-kit/schema';

/**
 * The message families of ACP v2 (user, agent, thought and, unstable, inter-session messages);
 * each has its own ID space. Derived from the generated update-kind table: the kinds keyed by
 * `messageId` that chunks append to, so a message kind the schema gains is one here too.
 */
export type MessageFamily = Extract<ChunkedUpdateKind, UpdateKindKeyedBy<'messageId'>>;

/** How a `sessionUpdate` kind touches a message: a whole-message upsert or an appended chunk. */
export interface MessageUpdateKind {
  family: MessageFamily;
  chunk: boolean;
}

/** Each message kind of the generated table: a family's whole kind and its chunk kind. */
const KINDS: ReadonlyMap<string, MessageUpdateKind> = new Map(
  UPDATE_KINDS.flatMap((kind): [string, MessageUpdateKind][] => {
    const row = UPDATE_KIND_TABLE[kind];
    if (row.idField !== 'messageId') return [];
    const family = (row.chunkOf ?? (row.chunk !== null ? kind : null)) as MessageFamily | null;
    return family === null ? [] : [[kind, Object.freeze({ family, chunk: row.chunkOf !== null })]];
  }),
);

/** The message family and form of a `sessionUpdate` kind, or undefined for non-message updates. */
export function messageUpdateKind(sessionUpdate: unknown): MessageUpdateKind | undefined {
  return typeof sessionUpdate === 'string' ? KINDS.get(sessionUpdate) : undefined;
}

/**
 * A client's copy of message contents, maintained with the v2 upsert rules: a whole update with
 * `content` replaces (null clears), without `content` leaves it alone; a chunk appends one block.
 */
export class ContentStore {
  readonly #contents = new Map<string, unknown[]>();

  /** Applies one message update. */
  apply(kind: MessageUpdateKind, messageId: string, update: Record<string, unknown>): void {
    const key = `${kind.family}\u0000${messageId}`;
    const current = this.#contents.get(key) ?? [];
    if (kind.chunk) {
      this.#contents.set(key, [...current, update.content]);
    } else if (!('content' in update)) {
      this.#contents.set(key, current);
    } else {
      this.#contents.set(key, Array.isArray(update.content) ? [...update.content] : []);
    }
  }

  /** Whether the store holds the message. */
  has(family: MessageFamily, messageId: string): boolean {
    return this.#contents.has(`${family}\u0000${messageId}`);
  }

  /** The message's content blocks (empty when unknown). */
  get(family: MessageFamily, messageId: string): unknown[] {
    return this.#contents.get(`${family}\u0000${messageId}`) ?? [];
  }

  /** An independent copy, so replay can be applied without touching the original. */
  clone(): ContentStore {
    const copy = new ContentStore();
    for (const [key, value] of this.#contents) copy.#contents.set(key, [...value]);
    return copy;
  }
}

/**
 * A comparable rendering of content: adjacent text blocks are joined, because an agent may retain
 * streamed text as one block and replay it whole — the same text either way.
 */
export function renderContent(blocks: readonly unknown[]): string {
  const parts: string[] = [];
  let text: string | undefined;
  for (const block of blocks) {
    const record =
      typeof block === 'object' && block !== null ? (block as Record<string, unknown>) : undefined;
    if (record?.type === 'text' && typeof record.text === 'string') {
      text = (text ?? '') + record.text;
      continue;
    }
    if (text !== undefined) parts.push(JSON.stringify(text));
    text = undefined;
    parts.push(JSON.stringify(block));
  }
  if (text !== undefined) parts.push(JSON.stringify(text));
  return parts.join(' + ');
}
