import {
  chunkUpdate,
  type HistorySession,
  type HistoryStore,
  HistoryStoreError,
  historyValidation as check,
  type ListSessionsOptions,
  type MessagePage,
  type MessageRef,
  type MessageTarget,
  messageChange,
  messageUpdate,
  type NewHistorySession,
  type NewLogEntry,
  type NewRetainedMessage,
  type ReadMessagesOptions,
  type ReplayVia,
  type RetainedMessage,
  retainedMessages,
  type SessionPage,
  type StreamMessagesOptions,
} from '@acp-kit/sdk';
import { PostgresSessionLog, type PostgresSessionLogOptions } from './postgres-session-log.js';

/** Options of {@link PostgresHistoryStore.open}. */
export interface PostgresHistoryStoreOptions extends PostgresSessionLogOptions {}

// Protocol types through the SDK's history API, so this package depends on @acp-kit/sdk alone.
type ContentBlock = RetainedMessage['content'][number];
type MessageId = MessageRef['messageId'];
type SessionId = HistorySession['sessionId'];
type Update = NewLogEntry['update'];

interface PageRow {
  ordinal: string;
  kind: RetainedMessage['kind'];
  message_id: string;
  via: ReplayVia;
  body: string | null;
}

/**
 * A {@link HistoryStore} in PostgreSQL: a message-level view of a {@link PostgresSessionLog}
 * ({@link PostgresHistoryStore.log}), as the memory and SQLite stores are views of theirs. Every
 * write is an append to the log (so the log's followers, on every replica, see it), and the
 * retained messages it reads back are the log's retained entries folded per message. The log keeps
 * an index of its retained messages (order, kind, ID, replay preference; no content) written in
 * the same statement as each append, so a page of messages is one indexed read.
 *
 * Open it with {@link PostgresHistoryStore.open}, which connects, checks the schema and runs pending
 * migrations (once, under an advisory lock, when replicas start together); problems surface there
 * as a {@link HistoryStoreError} naming the database (password removed).
 */
export class PostgresHistoryStore implements HistoryStore {
  private constructor(
    /** The session log this store is a view of; an agent given this store uses it. */
    readonly log: PostgresSessionLog,
  ) {}

  /** Connects to the database at `connectionString` (a `postgres://` URL) and migrates its schema. */
  static async open(
    connectionString: string,
    options: PostgresHistoryStoreOptions = {},
  ): Promise<PostgresHistoryStore> {
    return new PostgresHistoryStore(await PostgresSessionLog.open(connectionString, options));
  }

  /** The PostgreSQL schema holding the tables. */
  get schema(): string {
    return this.log.schema;
  }

  /** The database, as error messages name it (no password). */
  get location(): string {
    return this.log.location;
  }

  async createSession(session: NewHistorySession): Promise<HistorySession> {
    return toSession(await this.log.createSession(check.checkNewSession(session)));
  }

  async getSession(sessionId: SessionId): Promise<HistorySession | undefined> {
    const record = await this.log.getSession(sessionId);
    return record === undefined ? undefined : toSession(record);
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionPage> {
    const page = await this.log.listSessions(options);
    return { sessions: page.sessions.map(toSession), nextCursor: page.nextCursor };
  }

  deleteSession(sessionId: SessionId): Promise<boolean> {
    return this.log.deleteSession(sessionId);
  }

  nextMessageId(sessionId: SessionId): Promise<MessageId> {
    return this.log.nextMessageId(sessionId);
  }

  async appendMessage(sessionId: SessionId, message: NewRetainedMessage): Promise<RetainedMessage> {
    await this.#session(sessionId); // closed / unknown session first
    check.checkNewMessage(message);
    const via = check.defaultVia(message);
    const meta = message.meta ? { ...message.meta } : null;
    const ref = { kind: message.kind, messageId: message.messageId };
    const entries: NewLogEntry[] =
      via === 'full'
        ? [{ update: messageUpdate(message.kind, message.messageId, message.content, meta), claim: ref }]
        : [
            { update: messageUpdate(message.kind, message.messageId, [], meta), claim: ref },
            ...message.content.map((block) => ({
              update: chunkUpdate(message.kind, message.messageId, block),
            })),
          ];
    let messages: number;
    try {
      ({ messages } = await this.log.appendWithVia(sessionId, entries, via));
    } catch (error) {
      if (error instanceof HistoryStoreError && error.code === 'duplicate_message') {
        throw new HistoryStoreError(
          'duplicate_message',
          `${message.kind} "${message.messageId}" is already retained`,
          { sessionId, messageId: message.messageId },
        );
      }
      throw error;
    }
    // The append opened this message (its claim was new) and nothing else: it is the last one.
    return {
      seq: messages,
      kind: message.kind,
      messageId: message.messageId,
      via,
      content: [...message.content],
      meta,
    };
  }

  async appendChunk(sessionId: SessionId, target: MessageTarget, block: ContentBlock): Promise<void> {
    const ref = await this.#locate(sessionId, target, () => check.checkBlock(block, '/block'));
    await this.log.appendWithVia(
      sessionId,
      [{ update: chunkUpdate(ref.kind, ref.messageId, block) }],
      undefined,
    );
  }

  async replaceContent(
    sessionId: SessionId,
    target: MessageTarget,
    content: readonly ContentBlock[] | null,
    options: { readonly via?: ReplayVia } = {},
  ): Promise<void> {
    const ref = await this.#locate(sessionId, target, () => {
      if (content !== null) check.checkContent(content, '/content');
      if (options.via !== undefined) check.checkVia(options.via, '/via');
    });
    await this.log.appendWithVia(
      sessionId,
      [{ update: messageUpdate(ref.kind, ref.messageId, content ?? []) }],
      options.via,
    );
  }

  async isRetained(sessionId: SessionId, target: MessageTarget): Promise<boolean> {
    await this.#session(sessionId);
    check.checkTarget(target);
    return (await this.#find(sessionId, target)).length > 0;
  }

  async readMessages(sessionId: SessionId, options: ReadMessagesOptions = {}): Promise<MessagePage> {
    await this.#session(sessionId);
    const after = check.afterSeq(options.afterSeq);
    const limit = check.pageLimit(options.limit);
    // One statement, so the page of messages and their entries come from one snapshot.
    const rows = await this.log.queryView<PageRow>(
      `WITH s AS (SELECT ordinal FROM $S.log_sessions WHERE session_id = $1),
            page AS (
              SELECT m.session, m.ordinal, m.kind, m.message_id, m.via FROM $S.log_messages m, s
              WHERE m.session = s.ordinal AND m.ordinal > $2 ORDER BY m.ordinal LIMIT $3
            )
       SELECT p.ordinal, p.kind, p.message_id, p.via, e.body
       FROM page p LEFT JOIN $S.log_entries e
         ON e.session = p.session AND e.message = p.ordinal AND e.retain
       ORDER BY p.ordinal, e.seq`,
      [sessionId, after, limit + 1],
      sessionId,
    );
    const messages: RetainedMessage[] = [];
    let current:
      | { seq: number; kind: RetainedMessage['kind']; messageId: string; via: ReplayVia }
      | undefined;
    let content: ContentBlock[] = [];
    let meta: Readonly<Record<string, unknown>> | null = null;
    const flush = () => {
      if (current !== undefined) messages.push({ ...current, content, meta });
    };
    for (const row of rows) {
      const seq = Number(row.ordinal);
      if (current?.seq !== seq) {
        flush();
        current = { seq, kind: row.kind, messageId: row.message_id, via: row.via };
        content = [];
        meta = null;
      }
      if (row.body === null) continue;
      const change = messageChange(JSON.parse(row.body) as Update);
      if (change === undefined) continue;
      if (change.op === 'chunk') content.push(change.block);
      else {
        if (change.content !== undefined) content = [...change.content];
        if (change.meta !== undefined) meta = change.meta;
      }
    }
    flush();
    const page = messages.slice(0, limit);
    const last = page.at(-1);
    return {
      messages: page,
      nextAfterSeq: messages.length > limit && last !== undefined ? last.seq : null,
    };
  }

  messages(sessionId: SessionId, options: StreamMessagesOptions = {}): AsyncIterable<RetainedMessage> {
    return retainedMessages(this, sessionId, options);
  }

  close(): Promise<void> {
    return this.log.close();
  }

  /** Fails with `closed` or `session_not_found` before any argument check, as the other stores do. */
  async #session(sessionId: SessionId): Promise<void> {
    await this.log.read(sessionId, { limit: 1 });
  }

  /** The retained messages named by `target` (a bare ID may name several kinds). */
  async #find(sessionId: SessionId, target: MessageTarget): Promise<MessageRef[]> {
    const [kind, messageId] = typeof target === 'string' ? [null, target] : [target.kind, target.messageId];
    const rows = await this.log.queryView<{ kind: RetainedMessage['kind'] }>(
      `SELECT m.kind FROM $S.log_messages m JOIN $S.log_sessions s ON m.session = s.ordinal
       WHERE s.session_id = $1 AND m.message_id = $2 AND ($3::text IS NULL OR m.kind = $3) LIMIT 2`,
      [sessionId, messageId, kind],
      sessionId,
    );
    return rows.map((row) => ({ kind: row.kind, messageId }));
  }

  /** The one retained message `target` names; fails as the other stores do when there is none or several. */
  async #locate(sessionId: SessionId, target: MessageTarget, checks: () => void): Promise<MessageRef> {
    await this.#session(sessionId);
    check.checkTarget(target);
    checks();
    const found = await this.#find(sessionId, target);
    const messageId = typeof target === 'string' ? target : target.messageId;
    if (found.length > 1) check.ambiguousTarget(messageId, sessionId);
    if (found[0] === undefined) {
      throw new HistoryStoreError('message_not_found', `message "${messageId}" is not retained`, {
        sessionId,
        messageId,
      });
    }
    return found[0];
  }
}

function toSession(record: HistorySession): HistorySession {
  return Object.freeze({ sessionId: record.sessionId, cwd: record.cwd, createdAt: record.createdAt });
}
