import {
  type HistorySession,
  type HistoryStore,
  HistoryStoreError,
  historyValidation as check,
  type ListSessionsOptions,
  type MessagePage,
  type MessageRef,
  type MessageTarget,
  type NewHistorySession,
  type NewRetainedMessage,
  type ReadMessagesOptions,
  type ReplayVia,
  type RetainedMessage,
  type LogEntry,
  messageUpdate,
  chunkUpdate,
  type NewLogEntry,
  retainedMessages,
  type SessionPage,
  type StreamMessagesOptions,
} from '@acp-kit/sdk';
import type Database from 'better-sqlite3';
import { SqliteSessionLog, type SqliteSessionLogOptions } from './sqlite-session-log.js';

/** Options of {@link SqliteHistoryStore.open}. */
export interface SqliteHistoryStoreOptions extends SqliteSessionLogOptions {}

// Protocol types through the SDK's history API, so this package depends on @acp-kit/sdk alone.
type ContentBlock = RetainedMessage['content'][number];
type MessageId = MessageRef['messageId'];
type SessionId = HistorySession['sessionId'];

interface MessageRow {
  seq: number;
  kind: RetainedMessage['kind'];
  message_id: string;
  via: ReplayVia;
  meta: string | null;
}
interface LocatedRow {
  seq: number;
  block_count: number;
}

function prepareAll(db: Database.Database) {
  return {
    byRef: db.prepare<[number, string, string], LocatedRow>(
      'SELECT seq, block_count FROM messages WHERE session = ? AND kind = ? AND message_id = ?',
    ),
    byId: db.prepare<[number, string], LocatedRow & { kind: RetainedMessage['kind'] }>(
      'SELECT seq, block_count, kind FROM messages WHERE session = ? AND message_id = ? LIMIT 2',
    ),
    pageMessages: db.prepare<[number, number, number], MessageRow>(
      'SELECT seq, kind, message_id, via, meta FROM messages WHERE session = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
    // Raw rows ([seq, block]) and all() rather than objects and iterate(): this is the replay hot path.
    pageBlocks: db
      .prepare<[number, number, number], [number, string]>(
        'SELECT seq, block FROM blocks WHERE session = ? AND seq > ? AND seq <= ? ORDER BY seq, idx',
      )
      .raw(true),
  };
}

/**
 * A {@link HistoryStore} in one SQLite file (better-sqlite3, WAL mode), for agents whose retained
 * history and issued message IDs must survive restarts.
 *
 * Open it with {@link SqliteHistoryStore.open}; problems with the file (locked, read-only, corrupt,
 * from a newer version, someone else's database) surface there as a {@link HistoryStoreError} naming
 * the path — the file is never rewritten to make it fit. Methods are async to honour the interface
 * but run synchronously on the calling thread; each write is one transaction.
 */
export class SqliteHistoryStore implements HistoryStore {
  readonly #sql: ReturnType<typeof prepareAll>;

  private constructor(
    /** The session log on the same file; an agent given this store uses it. */
    readonly log: SqliteSessionLog,
  ) {
    this.#sql = prepareAll(log.db);
  }

  /** The database file. */
  get path(): string {
    return this.log.path;
  }

  /** Opens (creating if needed) the history database at `path`, migrating its schema. */
  static open(path: string, options: SqliteHistoryStoreOptions = {}): SqliteHistoryStore {
    return new SqliteHistoryStore(SqliteSessionLog.open(path, options));
  }

  async createSession(session: NewHistorySession): Promise<HistorySession> {
    this.log.open();
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
    const [result] = await this.#appendAll(sessionId, [message]);
    return result!;
  }

  /**
   * Appends many messages to one session in a single transaction (an import, a migration): all of
   * them or none. Returns how many were appended.
   */
  async appendMessages(sessionId: SessionId, messages: Iterable<NewRetainedMessage>): Promise<number> {
    return (await this.#appendAll(sessionId, messages)).length;
  }

  async appendChunk(sessionId: SessionId, target: MessageTarget, block: ContentBlock): Promise<void> {
    const entries = this.log.write('append to', () => {
      check.checkTarget(target);
      check.checkBlock(block, '/block');
      const row = this.log.sessionRow(sessionId);
      const ref = this.#locate(row.ordinal, sessionId, target);
      return this.log.appendRows(row, [{ update: chunkUpdate(ref.kind, ref.messageId, block) }]);
    });
    this.log.publish(sessionId, entries);
  }

  async replaceContent(
    sessionId: SessionId,
    target: MessageTarget,
    content: readonly ContentBlock[] | null,
    options: { readonly via?: ReplayVia } = {},
  ): Promise<void> {
    const entries = this.log.write('write to', () => {
      check.checkTarget(target);
      if (content !== null) check.checkContent(content, '/content');
      if (options.via !== undefined) check.checkVia(options.via, '/via');
      const row = this.log.sessionRow(sessionId);
      const ref = this.#locate(row.ordinal, sessionId, target);
      return this.log.appendRows(
        row,
        [{ update: messageUpdate(ref.kind, ref.messageId, content ?? []) }],
        options.via,
      );
    });
    this.log.publish(sessionId, entries);
  }

  async isRetained(sessionId: SessionId, target: MessageTarget): Promise<boolean> {
    return this.log.run('read', () => {
      check.checkTarget(target);
      const { ordinal } = this.log.sessionRow(sessionId);
      const row =
        typeof target === 'string'
          ? this.#sql.byId.get(ordinal, target)
          : this.#sql.byRef.get(ordinal, target.kind, target.messageId);
      return row !== undefined;
    });
  }

  async readMessages(sessionId: SessionId, options: ReadMessagesOptions = {}): Promise<MessagePage> {
    // A read transaction: the message page and its blocks come from one consistent snapshot.
    return this.log.write(
      'read',
      () => {
        const after = check.afterSeq(options.afterSeq);
        const limit = check.pageLimit(options.limit);
        const { ordinal } = this.log.sessionRow(sessionId);
        const rows = this.#sql.pageMessages.all(ordinal, after, limit + 1);
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        const content = new Map<number, ContentBlock[]>();
        if (last !== undefined) {
          for (const [seq, block] of this.#sql.pageBlocks.all(ordinal, after, last.seq)) {
            const blocks = content.get(seq);
            if (blocks === undefined) content.set(seq, [JSON.parse(block) as ContentBlock]);
            else blocks.push(JSON.parse(block) as ContentBlock);
          }
        }
        return {
          messages: page.map((row) => ({
            seq: row.seq,
            kind: row.kind,
            messageId: row.message_id,
            via: row.via,
            content: content.get(row.seq) ?? [],
            meta: row.meta === null ? null : (JSON.parse(row.meta) as Record<string, unknown>),
          })),
          nextAfterSeq: rows.length > limit && last !== undefined ? last.seq : null,
        };
      },
      'deferred',
    );
  }

  messages(sessionId: SessionId, options: StreamMessagesOptions = {}): AsyncIterable<RetainedMessage> {
    return retainedMessages(this, sessionId, options);
  }

  close(): Promise<void> {
    return this.log.close();
  }

  async #appendAll(sessionId: SessionId, messages: Iterable<NewRetainedMessage>): Promise<RetainedMessage[]> {
    const published: LogEntry[] = [];
    const results = this.log.write('append to', () => {
      const row = this.log.sessionRow(sessionId);
      const out: RetainedMessage[] = [];
      for (const message of messages) {
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
        try {
          published.push(...this.log.appendRows(row, entries, via));
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
        out.push({
          seq: row.last_seq,
          kind: message.kind,
          messageId: message.messageId,
          via,
          content: [...message.content],
          meta,
        });
      }
      return out;
    });
    this.log.publish(sessionId, published);
    return results;
  }

  #locate(ordinal: number, sessionId: SessionId, target: MessageTarget): MessageRef {
    if (typeof target === 'string') {
      const rows = this.#sql.byId.all(ordinal, target);
      if (rows.length > 1) check.ambiguousTarget(target, sessionId);
      if (rows[0] !== undefined) return { kind: rows[0].kind, messageId: target };
    } else if (this.#sql.byRef.get(ordinal, target.kind, target.messageId) !== undefined) {
      return target;
    }
    const messageId = typeof target === 'string' ? target : target.messageId;
    throw new HistoryStoreError('message_not_found', `message "${messageId}" is not retained`, {
      sessionId,
      messageId,
    });
  }
}

function toSession(record: HistorySession): HistorySession {
  return Object.freeze({ sessionId: record.sessionId, cwd: record.cwd, createdAt: record.createdAt });
}
