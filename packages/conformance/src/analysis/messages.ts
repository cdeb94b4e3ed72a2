/** The three message families of ACP v2; each has its own ID space. */
export type MessageFamily = 'user_message' | 'agent_message' | 'agent_thought';

/** How a `sessionUpdate` kind touches a message: a whole-message upsert or an appended chunk. */
export interface MessageUpdateKind {
  family: MessageFamily;
  chunk: boolean;
}

const KINDS: Record<string, MessageUpdateKind> = {
  user_message: { family: 'user_message', chunk: false },
  user_message_chunk: { family: 'user_message', chunk: true },
  agent_message: { family: 'agent_message', chunk: false },
  agent_message_chunk: { family: 'agent_message', chunk: true },
  agent_thought: { family: 'agent_thought', chunk: false },
  agent_thought_chunk: { family: 'agent_thought', chunk: true },
};

/** The message family and form of a `sessionUpdate` kind, or undefined for non-message updates. */
export function messageUpdateKind(sessionUpdate: unknown): MessageUpdateKind | undefined {
  return typeof sessionUpdate === 'string' ? KINDS[sessionUpdate] : undefined;
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
