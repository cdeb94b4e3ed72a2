import type { ContentBlock } from '@acp-kit/schema';
import type { ConversationMessage, MessageKind, MessageOrigin, StoredMeta } from './types.js';

/** What a view reads of the message it shows (a `MessageRecord`, in `entries.ts`). */
export interface ViewedMessage {
  readonly key: string;
  readonly kind: MessageKind;
  readonly messageId: string;
  readonly meta: StoredMeta;
  readonly fields: Readonly<Record<string, unknown>> | null;
  readonly local: { readonly localId: string } | null;
  readonly position: number;
  /** The frozen first `length` blocks of `backing`, copied once per distinct prefix. */
  prefix(backing: readonly ContentBlock[], length: number): readonly ContentBlock[];
}

/**
 * The `content` accessor every {@link ReportedMessageView} shares. One getter function for all
 * views keeps them on one hidden class: a getter created per object (an object literal's
 * `get content()`) gives each view its own, which made creating a view about eight times dearer.
 */
const CONTENT: PropertyDescriptor = {
  get(this: ReportedMessageView): readonly ContentBlock[] {
    return ReportedMessageView.content(this);
  },
  enumerable: true,
  configurable: false,
};

/**
 * A frozen view of a reported message that costs the same whatever the message's length: its
 * `content` is the first `length` blocks of the record's append-only array, frozen on first read
 * and then kept. Later chunks append past `length` and a full update swaps the array, so what a
 * view shows never changes. `content` is an own enumerable property (spread and `JSON.stringify`
 * see it); the bookkeeping lives in private fields, which freezing leaves writable.
 */
export class ReportedMessageView implements ConversationMessage {
  declare readonly key: string;
  declare readonly kind: MessageKind;
  declare readonly messageId: string;
  declare readonly content: readonly ContentBlock[];
  declare readonly meta: StoredMeta;
  declare readonly fields?: Readonly<Record<string, unknown>>;
  declare readonly origin: MessageOrigin;
  declare readonly localId: string | null;
  declare readonly error: unknown;
  declare readonly position: number | null;
  readonly #record: ViewedMessage;
  readonly #backing: readonly ContentBlock[];
  readonly #length: number;
  #content: readonly ContentBlock[] | undefined = undefined;

  constructor(record: ViewedMessage, backing: readonly ContentBlock[], length: number) {
    this.#record = record;
    this.#backing = backing;
    this.#length = length;
    const self = this as { -readonly [K in keyof ConversationMessage]: ConversationMessage[K] };
    self.key = record.key;
    self.kind = record.kind;
    self.messageId = record.messageId;
    Object.defineProperty(this, 'content', CONTENT);
    self.meta = record.meta;
    if (record.fields !== null) self.fields = record.fields;
    self.origin = 'agent';
    self.localId = record.local?.localId ?? null;
    self.error = undefined;
    self.position = record.position;
    Object.freeze(this);
  }

  /** @internal The frozen content prefix of `view`, copied on first read only. */
  static content(view: ReportedMessageView): readonly ContentBlock[] {
    view.#content ??= view.#record.prefix(view.#backing, view.#length);
    return view.#content;
  }
}

// Views compare like the plain objects they stand for (`toStrictEqual`, `x.constructor === Object`).
Reflect.deleteProperty(ReportedMessageView.prototype, 'constructor');
