import type { ContentBlock, MessageId, SessionId, SessionUpdate } from '@acp-kit/schema';
import { HistoryStoreError } from '../../history/errors.js';
import type { MessageKind, ReplayVia } from '../../history/history-store.js';
import { chunkUpdate, messageUpdate } from '../../history/message-updates.js';
import type { NewLogEntry, SeqRange, SessionLog, WriteBehindLimits } from '../../history/session-log.js';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import { claimFirst, reportUpdates } from './message-entries.js';
import { reportableBytes, reportEnvelopeBytes } from '../delivery/reportable.js';
import type { SessionDelivery } from '../delivery/session-delivery.js';
import { SessionWriter } from './session-writer.js';

/** Options for a message the agent writes (an agent message or thought). */
export interface OutgoingMessageOptions {
  /** Keep it for replay (default `true`). */
  retain?: boolean;
  /** Use this ID instead of a fresh one (an adapter reusing the underlying agent's IDs); must be unused. */
  messageId?: MessageId;
}

/**
 * An agent message or thought being written. Chunks append; `replace` upserts the whole content.
 * Every call appends the change to the session log (retained for replay unless `retain: false`);
 * attached clients receive it from there.
 */
export interface OutgoingMessage {
  /** The agent-assigned ID the message is reported under. */
  readonly messageId: MessageId;
  /** Appends one block (`agent_message_chunk` / `agent_thought_chunk`). */
  chunk(block: ContentBlock): Promise<void>;
  /** Replaces the whole content (`agent_message` / `agent_thought` with `content`). */
  replace(content: readonly ContentBlock[]): Promise<void>;
}

/** How a whole message is appended (see {@link SessionAppender.appendMessage}). */
export interface MessageAppend {
  readonly retain: boolean;
  readonly via: ReplayVia;
  /** The ID to report it under; a fresh one from the log when undefined. */
  readonly messageId: MessageId | undefined;
}

/** The session's following of its log, as its appender needs it. */
export interface SessionFollowing {
  /** Starts following (once); resolves when the session knows its position. */
  following(): Promise<void>;
  /** Whether {@link following} resolved and still holds (no need to wait for it). */
  ready(): boolean;
}

/** The error for a message ID the session already used. */
function usedId(messageId: MessageId): RpcError {
  return new RpcError(
    ErrorCodes.InternalError,
    `messageId ${JSON.stringify(messageId)} is already used in this session`,
  );
}

/**
 * A session's write path: every report is appended to its log through here, in call order. Before
 * an append it waits until the session follows its log and its slowest client is within pace,
 * and checks that each update fits every attached client (so nothing is retained that cannot be
 * reported or replayed); a message's first entry claims its ID, and a duplicate claim is the ID
 * error. Streamed chunks may be written behind, within the limits the log suggests.
 */
export class SessionAppender {
  readonly #sessionId: SessionId;
  readonly #log: SessionLog;
  readonly #delivery: SessionDelivery;
  readonly #follower: SessionFollowing;
  readonly #writer: SessionWriter;
  /** Writes waiting to be handed to the writer (for the log to be followed, or for pace). */
  #waiting = 0;
  /** The bytes of this session's reports around their updates (see {@link reportEnvelopeBytes}). */
  readonly #envelope: number;

  constructor(
    sessionId: SessionId,
    log: SessionLog,
    delivery: SessionDelivery,
    follower: SessionFollowing,
    writeBehind: WriteBehindLimits | false | undefined,
  ) {
    this.#sessionId = sessionId;
    this.#log = log;
    this.#delivery = delivery;
    this.#follower = follower;
    this.#envelope = reportEnvelopeBytes(sessionId);
    const behind = writeBehind === false ? undefined : (writeBehind ?? log.writeBehind);
    this.#writer = new SessionWriter((entries) => log.append(sessionId, entries), behind);
  }

  /**
   * Appends entries behind the session's earlier appends. With `behind`, resolves undefined as
   * soon as the writer takes them within its write-behind limits (without limits, once the log has
   * them); otherwise with their seqs once the log has them.
   */
  write(entries: readonly NewLogEntry[], behind: boolean): Promise<SeqRange | undefined> {
    // The hot path (a streamed chunk): the session follows its log, no client is behind and no
    // earlier write waits, so the entries are checked and handed to the writer now, in call order.
    if (this.#waiting === 0 && this.#follower.ready() && !this.#delivery.mustPace()) {
      let bytes: number;
      try {
        bytes = this.assertReportable(
          entries.length === 1 ? [entries[0]!.update] : entries.map((e) => e.update),
        );
      } catch (error) {
        return Promise.reject(error);
      }
      return this.#hand(entries, behind, bytes);
    }
    return this.#writeLater(entries, behind);
  }

  /** {@link write} once the session follows its log and its fastest client is within pace. */
  async #writeLater(entries: readonly NewLogEntry[], behind: boolean): Promise<SeqRange | undefined> {
    let bytes: number;
    this.#waiting += 1;
    try {
      await this.#follower.following();
      if (this.#delivery.mustPace()) await this.#delivery.pace();
      bytes = this.assertReportable(entries.map((entry) => entry.update));
    } finally {
      // Handed on in this same step, so no later write can pass it.
      this.#waiting -= 1;
    }
    return this.#hand(entries, behind, bytes);
  }

  /** Hands checked entries to the writer; a claim of a used message ID becomes the ID error. */
  #hand(entries: readonly NewLogEntry[], behind: boolean, bytes: number): Promise<SeqRange | undefined> {
    const written = this.#writer.write(entries, behind, bytes);
    if (!entries.some((entry) => entry.claim !== undefined)) return written;
    return written.catch((error: unknown) => {
      if (error instanceof HistoryStoreError && error.code === 'duplicate_message') {
        throw usedId(error.messageId as MessageId);
      }
      throw error;
    });
  }

  /** The bytes of the updates' reports; throws -32602 unless each fits every attached client. */
  assertReportable(updates: readonly SessionUpdate[]): number {
    return reportableBytes(this.#sessionId, updates, this.#delivery.messageLimit(), this.#envelope);
  }

  /**
   * Appends a whole message (a prompt's user message, an imported one): checked to fit before an
   * ID is taken, its first entry claiming the ID. Resolves with the ID and the entries' seqs.
   */
  async appendMessage(
    kind: MessageKind,
    content: readonly ContentBlock[],
    options: MessageAppend,
  ): Promise<{ messageId: MessageId; range: SeqRange }> {
    this.assertReportable(reportUpdates(kind, 'pending', content, options.via));
    const messageId = options.messageId ?? (await this.#log.nextMessageId(this.#sessionId));
    const entries = claimFirst(
      kind,
      messageId,
      reportUpdates(kind, messageId, content, options.via),
      options.retain,
    );
    const range = (await this.write(entries, false))!;
    return { messageId, range };
  }

  /** Starts an agent message or thought; its first write claims its ID (one never written is never reported). */
  async outgoing(
    kind: 'agent_message' | 'agent_thought',
    options: OutgoingMessageOptions,
  ): Promise<OutgoingMessage> {
    const retain = options.retain ?? true;
    await this.#follower.following();
    const messageId = await this.#unusedId(kind, options.messageId);
    let claimed = false;
    const write = async (update: SessionUpdate, chunk: boolean): Promise<void> => {
      const claim = claimed ? undefined : { kind, messageId };
      claimed = true;
      try {
        await this.write([{ update, retain, ...(claim ? { claim } : {}) }], chunk);
      } catch (error) {
        if (claim) claimed = false;
        throw error;
      }
    };
    return {
      messageId,
      // A chunk after the claim is written behind and resolves undefined: its promise is the writer's.
      chunk: (block) =>
        claimed
          ? (this.write(
              [{ update: chunkUpdate(kind, messageId, block), retain }],
              true,
            ) as Promise<undefined>)
          : write(chunkUpdate(kind, messageId, block), true),
      replace: (content) => write(messageUpdate(kind, messageId, content), false),
    };
  }

  async #unusedId(kind: MessageKind, wanted: MessageId | undefined): Promise<MessageId> {
    if (wanted === undefined) return this.#log.nextMessageId(this.#sessionId);
    if (await this.#log.isClaimed(this.#sessionId, { kind, messageId: wanted })) throw usedId(wanted);
    return wanted;
  }
}
