import type { ContentBlock, MessageId, SessionId } from '@acp-kit/schema';
import { ReportedMessageView } from './message-view.js';
import { type IdleOutcome, TurnWatch } from './turn-end.js';
import type { ConversationMessage, MessageKind, StoredMeta } from './types.js';
import type { StoredFields } from './upsert-fields.js';

const EMPTY: readonly ContentBlock[] = Object.freeze([]);

/** Lifecycle of a local submission. `resolved` means the response named its `messageId`. */
export type LocalStatus = 'pending' | 'resolved' | 'unknown' | 'failed';

/**
 * A message the agent reported. Content lives in an append-only array so a chunk is one `push`
 * (an update carrying a whole content array replaces the array, never edits it); immutable views
 * are produced per `version` in constant time, whatever the message's length (see {@link messageView}).
 */
export class MessageRecord {
  /** Append-only: views share it and read only the prefix that existed when they were made. */
  content: ContentBlock[] = [];
  /** Index in the session's feed order (records are never removed or moved). */
  index = -1;
  /** Whether the session has queued this record for the next snapshot. */
  queued = false;
  /** The last frozen copy of a content prefix, shared by views over the same prefix. */
  frozen: FrozenPrefix | null = null;
  /** True once any update or chunk carried content; until then a linked local entry shows its own. */
  contentReported = false;
  meta: StoredMeta = null;
  /** The upserts' other fields, patched by the upsert rules (null while there are none). */
  fields: StoredFields | null = null;
  local: LocalEntry | null = null;
  /** For a user message: how the first work that ended after it was reported ended (see TurnWatch). */
  turnEnd: IdleOutcome | null = null;
  version = 0;
  #view: ConversationMessage | null = null;
  #viewVersion = -1;

  /** `<kind>:<messageId>`, computed once: it is read on every update. */
  readonly key: string;

  constructor(
    readonly kind: MessageKind,
    readonly messageId: MessageId,
    readonly position: number,
  ) {
    this.key = `${kind}:${messageId}`;
  }

  toView(): ConversationMessage {
    if (this.#view !== null && this.#viewVersion === this.version) return this.#view;
    const showLocal = this.local !== null && !this.contentReported;
    this.#view = showLocal
      ? Object.freeze({
          key: this.key,
          kind: this.kind,
          messageId: this.messageId,
          content: this.local!.content,
          meta: this.meta,
          ...(this.fields === null ? {} : { fields: this.fields }),
          origin: 'agent',
          localId: this.local?.localId ?? null,
          error: undefined,
          position: this.position,
        })
      : new ReportedMessageView(this, this.content, this.content.length);
    this.#viewVersion = this.version;
    return this.#view;
  }

  /** The frozen first `length` blocks of `backing`, copied once per distinct prefix. */
  prefix(backing: readonly ContentBlock[], length: number): readonly ContentBlock[] {
    if (length === 0) return EMPTY;
    const frozen = this.frozen;
    if (frozen !== null && frozen.backing === backing && frozen.length === length) return frozen.blocks;
    const blocks = Object.freeze(backing.slice(0, length));
    this.frozen = { backing, length, blocks };
    return blocks;
  }
}

/** A frozen copy of the first `length` blocks of an append-only content array. */
interface FrozenPrefix {
  readonly backing: readonly ContentBlock[];
  readonly length: number;
  readonly blocks: readonly ContentBlock[];
}

/** An optimistic user message this client submitted. */
export class LocalEntry {
  status: LocalStatus = 'pending';
  messageId: MessageId | null = null;
  error: unknown = undefined;
  /** The agent's record once the agent reported `messageId`; the entry then renders through it. */
  record: MessageRecord | null = null;
  /** When the work that took this submission in ends. */
  readonly turn = new TurnWatch();
  version = 0;
  #view: ConversationMessage | null = null;
  #viewVersion = -1;

  constructor(
    readonly localId: string,
    readonly sessionId: SessionId,
    readonly content: readonly ContentBlock[],
  ) {}

  get key(): string {
    return `local:${this.localId}`;
  }

  toView(): ConversationMessage {
    if (this.#view !== null && this.#viewVersion === this.version) return this.#view;
    this.#view = Object.freeze({
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
    this.#viewVersion = this.version;
    return this.#view;
  }
}
