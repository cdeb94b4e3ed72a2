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
  readonly #following: () => Promise<void>;
  readonly #writer: SessionWriter;
  /** The bytes of this session's reports around their updates (see {@link reportEnvelopeBytes}). */
  readonly #envelope: number;

  constructor(
    sessionId: SessionId,
    log: SessionLog,
    delivery: SessionDelivery,
    following: () => Promise<void>,
    writeBehind: WriteBehindLimits | false | undefined,
  ) {
    this.#sessionId = sessionId;
    this.#log = log;
    this.#delivery = delivery;
    this.#following = following;
    this.#envelope = reportEnvelopeBytes(sessionId);
    const behind = writeBehind === false ? undefined : (writeBehind ?? log.writeBehind);
    this.#writer = new SessionWriter((entries) => log.append(sessionId, entries), behind);
  }

  /**
   * Appends entries behind the session's earlier appends. With `behind`, resolves (undefined) as
   * soon as the writer takes them within its write-behind limits; otherwise once the log has them.
   */
  async write(entries: readonly NewLogEntry[], behind: boolean): Promise<SeqRange | undefined> {
    await this.#following();
    if (this.#delivery.mustPace()) await this.#delivery.pace();
    const bytes = this.assertReportable(entries.map((entry) => entry.update));
    try {
      return await this.#writer.write(entries, behind, bytes);
    } catch (error) {
      if (error instanceof HistoryStoreError && error.code === 'duplicate_message') {
        throw usedId(error.messageId as MessageId);
      }
      throw error;
    }
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
    await this.#following();
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
      chunk: (block) => write(chunkUpdate(kind, messageId, block), true),
      replace: (content) => write(messageUpdate(kind, messageId, content), false),
    };
  }

  async #unusedId(kind: MessageKind, wanted: MessageId | undefined): Promise<MessageId> {
    if (wanted === undefined) return this.#log.nextMessageId(this.#sessionId);
    if (await this.#log.isClaimed(this.#sessionId, { kind, messageId: wanted })) throw usedId(wanted);
    return wanted;
  }
}
