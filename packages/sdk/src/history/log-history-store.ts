import type { ContentBlock, MessageId, SessionId } from '@acp-kit/schema';
import { HistoryStoreError } from './errors.js';
import {
  type HistorySession,
  type HistoryStore,
  type ListSessionsOptions,
  MAX_PAGE_SIZE,
  type MessagePage,
  type MessageTarget,
  type NewHistorySession,
  type NewRetainedMessage,
  type ReadMessagesOptions,
  type ReplayVia,
  type RetainedMessage,
  type SessionPage,
  type StreamMessagesOptions,
} from './history-store.js';
import { MessageFold, messageEntries, retainedMessage } from './message-fold.js';
import { chunkUpdate } from './message-updates.js';
import { retainedMessages } from './replay.js';
import type { NewLogEntry, SessionLog } from './session-log.js';
import {
  afterSeq,
  ambiguousTarget,
  checkBlock,
  checkContent,
  checkNewMessage,
  checkNewSession,
  checkTarget,
  checkVia,
  defaultVia,
  pageLimit,
} from './validate.js';

/**
 * The message-level view of any {@link SessionLog}: a {@link HistoryStore} whose retained messages
 * are the log's retained entries folded per message. It keeps nothing of its own on disk. Every
 * write is one `append` to the log (so the log's followers, on every replica, see it), and every
 * read first folds the entries appended since its last read, by anyone.
 *
 * The fold of each session it reads stays in memory (content blocks by reference; arrays are
 * copied in and out). It is for tools, imports and tests; agents replay from the log itself.
 */
export class LogHistoryStore<Log extends SessionLog = SessionLog> implements HistoryStore {
  readonly #folds = new Map<SessionId, MessageFold>();

  constructor(
    /** The session log this store is a view of; give it (not the store) to an agent. */
    readonly log: Log,
  ) {}

  async createSession(session: NewHistorySession): Promise<HistorySession> {
    const record = await this.log.createSession(checkNewSession(session));
    this.#folds.delete(record.sessionId);
    return toHistorySession(record);
  }

  async getSession(sessionId: SessionId): Promise<HistorySession | undefined> {
    const record = await this.log.getSession(sessionId);
    return record === undefined ? undefined : toHistorySession(record);
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionPage> {
    const page = await this.log.listSessions(options);
    return { sessions: page.sessions.map(toHistorySession), nextCursor: page.nextCursor };
  }

  async deleteSession(sessionId: SessionId): Promise<boolean> {
    this.#folds.delete(sessionId);
    return this.log.deleteSession(sessionId);
  }

  nextMessageId(sessionId: SessionId): Promise<MessageId> {
    return this.log.nextMessageId(sessionId);
  }

  async appendMessage(sessionId: SessionId, message: NewRetainedMessage): Promise<RetainedMessage> {
    const fold = await this.#appendAll(sessionId, [message]);
    return retainedMessage(fold.get(message)!);
  }

  /**
   * Appends many messages to one session as one `append` (an import, a migration): all of them or
   * none. Returns how many were appended.
   */
  async appendMessages(sessionId: SessionId, messages: Iterable<NewRetainedMessage>): Promise<number> {
    const list = [...messages];
    if (list.length > 0) await this.#appendAll(sessionId, list);
    else await this.#fold(sessionId); // the session checks, as for a batch
    return list.length;
  }

  async appendChunk(sessionId: SessionId, target: MessageTarget, block: ContentBlock): Promise<void> {
    const { fold, message } = await this.#target(sessionId, target, () => checkBlock(block, '/block'));
    await this.#append(sessionId, fold, [{ update: chunkUpdate(message.kind, message.messageId, block) }]);
  }

  /**
   * Replaces a message's content, written in its replay form: as it is unless `options.via`
   * changes it (see {@link MessageFold} for how the form is read back).
   */
  async replaceContent(
    sessionId: SessionId,
    target: MessageTarget,
    content: readonly ContentBlock[] | null,
    options: { readonly via?: ReplayVia } = {},
  ): Promise<void> {
    const { fold, message } = await this.#target(sessionId, target, () => {
      if (content !== null) checkContent(content, '/content');
      if (options.via !== undefined) checkVia(options.via, '/via');
    });
    await this.#append(sessionId, fold, messageEntries(message, content ?? [], options.via ?? message.via));
  }

  async isRetained(sessionId: SessionId, target: MessageTarget): Promise<boolean> {
    const fold = await this.#fold(sessionId);
    checkTarget(target);
    return typeof target === 'string' ? fold.withId(target).length > 0 : fold.get(target) !== undefined;
  }

  async readMessages(sessionId: SessionId, options: ReadMessagesOptions = {}): Promise<MessagePage> {
    const fold = await this.#fold(sessionId);
    const start = afterSeq(options.afterSeq);
    const limit = pageLimit(options.limit);
    const slice = fold.messages.slice(start, start + limit);
    const last = slice.at(-1);
    return {
      messages: slice.map(retainedMessage),
      nextAfterSeq: last !== undefined && last.seq < fold.messages.length ? last.seq : null,
    };
  }

  messages(sessionId: SessionId, options: StreamMessagesOptions = {}): AsyncIterable<RetainedMessage> {
    return retainedMessages(this, sessionId, options);
  }

  close(): Promise<void> {
    this.#folds.clear();
    return this.log.close();
  }

  /** Validates the messages and appends them in their replay form, each claiming its ID. */
  async #appendAll(sessionId: SessionId, messages: readonly NewRetainedMessage[]): Promise<MessageFold> {
    const fold = await this.#fold(sessionId);
    const entries: NewLogEntry[] = [];
    for (const message of messages) {
      checkNewMessage(message);
      const meta = message.meta ? Object.freeze({ ...message.meta }) : null;
      entries.push(...messageEntries(message, message.content, defaultVia(message), { meta, claim: true }));
    }
    try {
      return await this.#append(sessionId, fold, entries);
    } catch (error) {
      if (!(error instanceof HistoryStoreError) || error.code !== 'duplicate_message') throw error;
      const taken = messages.find((m) => m.messageId === error.messageId) ?? messages[0]!;
      throw new HistoryStoreError(
        'duplicate_message',
        `${taken.kind} "${taken.messageId}" is already retained`,
        {
          sessionId,
          messageId: taken.messageId,
        },
      );
    }
  }

  /** Appends to the log and folds what was appended (reading first when others appended meanwhile). */
  async #append(
    sessionId: SessionId,
    fold: MessageFold,
    entries: readonly NewLogEntry[],
  ): Promise<MessageFold> {
    const { first } = await this.log.append(sessionId, entries);
    if (first !== fold.readSeq + 1) return this.#fold(sessionId);
    fold.apply(
      entries.map((entry, i) => ({ seq: first + i, update: entry.update, retain: entry.retain ?? true })),
    );
    return fold;
  }

  /**
   * The session's fold, brought up to the log's last entry. The read fails first for a closed log
   * or an unknown session, before any argument check, as every store does.
   */
  async #fold(sessionId: SessionId): Promise<MessageFold> {
    let fold = this.#folds.get(sessionId) ?? new MessageFold();
    for (;;) {
      const after = fold.readSeq;
      const page = await this.log.read(sessionId, {
        afterSeq: after,
        limit: MAX_PAGE_SIZE,
        retainedOnly: true,
      });
      if (page.lastSeq < after) {
        // The session was deleted and created again behind this view's back: fold it anew.
        fold = new MessageFold();
        continue;
      }
      fold.apply(page.entries);
      if (page.entries.length < MAX_PAGE_SIZE) {
        fold.readSeq = Math.max(fold.readSeq, page.lastSeq);
        break;
      }
    }
    this.#folds.set(sessionId, fold);
    return fold;
  }

  /** The one retained message `target` names, after the session check and `checks`. */
  async #target(sessionId: SessionId, target: MessageTarget, checks: () => void) {
    const fold = await this.#fold(sessionId);
    checkTarget(target);
    checks();
    const found =
      typeof target === 'string' ? fold.withId(target) : [fold.get(target)].filter((m) => m !== undefined);
    const messageId = typeof target === 'string' ? target : target.messageId;
    if (found.length > 1) ambiguousTarget(messageId, sessionId);
    const message = found[0];
    if (message === undefined) {
      throw new HistoryStoreError('message_not_found', `message "${messageId}" is not retained`, {
        sessionId,
        messageId,
      });
    }
    return { fold, message };
  }
}

function toHistorySession(record: HistorySession): HistorySession {
  return Object.freeze({ sessionId: record.sessionId, cwd: record.cwd, createdAt: record.createdAt });
}
