import type { ContentBlock, MessageId, SessionId } from '@acp-kit/schema';
import type { ConversationMessage, MessageKind, StoredMeta } from './types.js';

const EMPTY: readonly ContentBlock[] = Object.freeze([]);

/** Lifecycle of a local submission. `resolved` means the response named its `messageId`. */
export type LocalStatus = 'pending' | 'resolved' | 'unknown' | 'failed';

/**
 * A message the agent reported. Content lives in a mutable array so a chunk is one `push`;
 * immutable views are produced lazily and cached per `version`.
 */
export class MessageRecord {
  content: ContentBlock[] = [];
  /** True once any update or chunk carried content; until then a linked local entry shows its own. */
  contentReported = false;
  meta: StoredMeta = null;
  local: LocalEntry | null = null;
  version = 0;
  private view: ConversationMessage | null = null;
  private viewVersion = -1;

  constructor(
    readonly kind: MessageKind,
    readonly messageId: MessageId,
    readonly position: number,
  ) {}

  get key(): string {
    return `${this.kind}:${this.messageId}`;
  }

  toView(): ConversationMessage {
    if (this.view !== null && this.viewVersion === this.version) return this.view;
    const showLocal = this.local !== null && !this.contentReported;
    const content = showLocal ? this.local!.content : freezeCopy(this.content);
    this.view = Object.freeze({
      key: this.key,
      kind: this.kind,
      messageId: this.messageId,
      content,
      meta: this.meta,
      origin: 'agent',
      localId: this.local?.localId ?? null,
      error: undefined,
      position: this.position,
    });
    this.viewVersion = this.version;
    return this.view;
  }
}

/** An optimistic user message this client submitted. */
export class LocalEntry {
  status: LocalStatus = 'pending';
  messageId: MessageId | null = null;
  error: unknown = undefined;
  /** The agent's record once the agent reported `messageId`; the entry then renders through it. */
  record: MessageRecord | null = null;
  version = 0;
  private view: ConversationMessage | null = null;
  private viewVersion = -1;

  constructor(
    readonly localId: string,
    readonly sessionId: SessionId,
    readonly content: readonly ContentBlock[],
  ) {}

  get key(): string {
    return `local:${this.localId}`;
  }

  toView(): ConversationMessage {
    if (this.view !== null && this.viewVersion === this.version) return this.view;
    this.view = Object.freeze({
      key: this.key,
      kind: 'user_message',
      messageId: this.messageId,
      content: this.content,
      meta: null,
      origin:
        this.status === 'unknown'
          ? 'local-unknown'
          : this.status === 'failed'
            ? 'local-failed'
            : 'local-pending',
      localId: this.localId,
      error: this.error,
      position: null,
    });
    this.viewVersion = this.version;
    return this.view;
  }
}

function freezeCopy(content: readonly ContentBlock[]): readonly ContentBlock[] {
  return content.length === 0 ? EMPTY : Object.freeze(content.slice());
}
