import type { ContentBlock, MessageId } from '@acp-kit/schema';
import type { MessageRef, ReplayVia, RetainedMessage } from './history-store.js';
import { chunkUpdate, messageChange, messageUpdate } from './message-updates.js';
import type { LogEntry, NewLogEntry } from './session-log.js';

/** A retained message as the fold holds it (arrays are copied on the way out). */
interface FoldedMessage {
  readonly seq: number;
  readonly kind: RetainedMessage['kind'];
  readonly messageId: MessageId;
  via: ReplayVia;
  content: ContentBlock[];
  meta: Readonly<Record<string, unknown>> | null;
  /** The last whole-content update set the content to `[]`: chunks that follow replay as chunks. */
  reset: boolean;
}

const refKey = (ref: MessageRef): string => `${ref.kind}\u0000${ref.messageId}`;

/**
 * The entries that write a message in its replay form: one whole-content update (`full`), or an
 * update with `content: []` followed by one chunk per block (`chunks`). `claim` claims the message.
 */
export function messageEntries(
  ref: MessageRef,
  content: readonly ContentBlock[],
  via: ReplayVia,
  options: { readonly meta?: Readonly<Record<string, unknown>> | null; readonly claim?: boolean } = {},
): NewLogEntry[] {
  const claim = options.claim ? { claim: { kind: ref.kind, messageId: ref.messageId } } : {};
  if (via === 'full')
    return [{ update: messageUpdate(ref.kind, ref.messageId, content, options.meta), ...claim }];
  return [
    { update: messageUpdate(ref.kind, ref.messageId, [], options.meta), ...claim },
    ...content.map((block) => ({ update: chunkUpdate(ref.kind, ref.messageId, block) })),
  ];
}

/**
 * One session's retained messages, folded from its log's retained entries in seq order: each
 * message in the order it was first retained, with its current content and `_meta`.
 *
 * The replay preference is read from the shape of the log, the form {@link messageEntries} writes:
 * a message opened with content is `full`, one opened empty is `chunks`; a later update with
 * content makes it `full`, and chunks after an update that emptied it make it `chunks`. (For empty
 * content the two forms replay the same updates, so an emptied message keeps its preference.)
 */
export class MessageFold {
  /** The log's seq this fold has read to (retained and live-only entries alike). */
  readSeq = 0;
  /** Dense: `messages[i].seq === i + 1`, so a page read is a slice. */
  readonly messages: FoldedMessage[] = [];
  readonly #byRef = new Map<string, FoldedMessage>();
  /** Retained messages by bare ID (usually one; more when IDs repeat across kinds). */
  readonly #byId = new Map<MessageId, FoldedMessage[]>();

  /** Applies entries read or appended after {@link readSeq}, in seq order; older ones are skipped. */
  apply(entries: readonly Pick<LogEntry, 'seq' | 'update' | 'retain'>[]): void {
    for (const entry of entries) {
      if (entry.seq <= this.readSeq) continue;
      this.readSeq = entry.seq;
      if (entry.retain) this.#change(entry.update);
    }
  }

  /** The message `ref` names, or undefined. */
  get(ref: MessageRef): FoldedMessage | undefined {
    return this.#byRef.get(refKey(ref));
  }

  /** The messages retained under the bare ID `messageId` (one per kind). */
  withId(messageId: MessageId): readonly FoldedMessage[] {
    return this.#byId.get(messageId) ?? [];
  }

  #change(update: LogEntry['update']): void {
    const change = messageChange(update);
    if (change === undefined) return;
    let message = this.#byRef.get(refKey(change));
    if (change.op === 'chunk') {
      message ??= this.#open(change, [], null);
      message.content.push(change.block);
      if (message.reset) message.via = 'chunks';
      return;
    }
    if (message === undefined) {
      this.#open(change, [...(change.content ?? [])], change.meta ?? null);
      return;
    }
    if (change.content !== undefined) {
      message.content = [...change.content];
      message.reset = change.content.length === 0;
      if (!message.reset) message.via = 'full';
    }
    if (change.meta !== undefined) message.meta = change.meta;
  }

  #open(
    ref: MessageRef,
    content: ContentBlock[],
    meta: Readonly<Record<string, unknown>> | null,
  ): FoldedMessage {
    const empty = content.length === 0;
    const message: FoldedMessage = {
      seq: this.messages.length + 1,
      kind: ref.kind,
      messageId: ref.messageId,
      via: empty ? 'chunks' : 'full',
      content,
      meta,
      reset: empty,
    };
    this.messages.push(message);
    this.#byRef.set(refKey(ref), message);
    const sameId = this.#byId.get(ref.messageId);
    if (sameId === undefined) this.#byId.set(ref.messageId, [message]);
    else sameId.push(message);
    return message;
  }
}

/** A folded message as the message-level API hands it out (a copy of its content array). */
export function retainedMessage(message: FoldedMessage): RetainedMessage {
  return {
    seq: message.seq,
    kind: message.kind,
    messageId: message.messageId,
    via: message.via,
    content: [...message.content],
    meta: message.meta,
  };
}
