import type { MessageId, SessionId } from '@acp-kit/schema';
import { HistoryStoreError } from './errors.js';
import { decodeListCursor, encodeListCursor } from './list-cursor.js';
import type { MessageRef } from './history-store.js';
import { LogFollowers } from './log-followers.js';
import { PackedEntries } from './packed-entries.js';
import { issueMessageId, randomMessageId } from './message-ids.js';
import type {
  ListSessionRecordsOptions,
  LogEntry,
  LogListener,
  LogPage,
  LogSubscription,
  NewLogEntry,
  NewSessionRecord,
  ReadLogOptions,
  SeqRange,
  SessionLog,
  SessionPatch,
  SessionRecord,
  SessionRecordPage,
} from './session-log.js';
import {
  afterSeq,
  checkEntries,
  checkId,
  checkNewSessionRecord,
  checkPatch,
  checkRef,
  duplicateClaim,
  monotonicNow as now,
  pageLimit,
} from './validate.js';

interface StoredSession {
  /**
   * The record as last built; {@link current} brings `lastSeq` (the log's length) and `updatedAt`
   * up to date, so a streamed chunk's append builds no record.
   */
  record: SessionRecord;
  updatedAt: string;
  /** When the last append since `updatedAt` was brought up to date happened (ms), if any. */
  appendedMs: number | undefined;
  readonly ordinal: number;
  /** Dense: the entry at index `i` has seq `i + 1`. */
  readonly log: PackedEntries;
  readonly claims: Set<string>;
  readonly issued: Set<MessageId>;
}

/** Options of {@link MemorySessionLog}. */
export interface MemorySessionLogOptions {
  /** Message ID generator (default: random `msg_…` IDs); collisions are retried. */
  readonly generateMessageId?: () => string;
}

const claimKey = (ref: MessageRef): string => `${ref.kind}\u0000${ref.messageId}`;

/** A session's record with its current `lastSeq` and `updatedAt` (built again only after they moved). */
function current(session: StoredSession): SessionRecord {
  if (session.appendedMs !== undefined) {
    // Formatted when read, not per append: a log appends a streamed chunk at a time.
    const iso = new Date(session.appendedMs).toISOString();
    if (iso > session.updatedAt) session.updatedAt = iso;
    session.appendedMs = undefined;
  }
  const { record } = session;
  const lastSeq = session.log.length;
  if (record.lastSeq !== lastSeq || record.updatedAt !== session.updatedAt) {
    session.record = Object.freeze({ ...record, lastSeq, updatedAt: session.updatedAt });
  }
  return session.record;
}

/**
 * An in-memory {@link SessionLog}: for tests, demos and agents whose sessions need not survive a
 * restart. Several agents given the same instance share its sessions (subscriptions see every
 * append made through it). Entries are kept by reference, except that runs of plain text chunks
 * of one message kept for replay are packed (their texts joined, each chunk rebuilt when read:
 * the same JSON).
 */
export class MemorySessionLog implements SessionLog {
  readonly #sessions = new Map<SessionId, StoredSession>();
  readonly #followers = new LogFollowers();
  readonly #generate: () => string;
  #nextOrdinal = 1;
  #closed = false;

  constructor(options: MemorySessionLogOptions = {}) {
    this.#generate = options.generateMessageId ?? randomMessageId;
  }

  async createSession(session: NewSessionRecord): Promise<SessionRecord> {
    this.#open();
    const input = checkNewSessionRecord(session);
    if (this.#sessions.has(input.sessionId)) {
      throw new HistoryStoreError('session_exists', `session "${input.sessionId}" already exists`, {
        sessionId: input.sessionId,
      });
    }
    const record: SessionRecord = Object.freeze({ ...input, updatedAt: input.createdAt, lastSeq: 0 });
    this.#sessions.set(input.sessionId, {
      record,
      updatedAt: record.updatedAt,
      appendedMs: undefined,
      ordinal: this.#nextOrdinal++,
      log: new PackedEntries(),
      claims: new Set(),
      issued: new Set(),
    });
    return record;
  }

  async getSession(sessionId: SessionId): Promise<SessionRecord | undefined> {
    this.#open();
    const session = this.#sessions.get(sessionId);
    return session === undefined ? undefined : current(session);
  }

  async listSessions(options: ListSessionRecordsOptions = {}): Promise<SessionRecordPage> {
    this.#open();
    const limit = pageLimit(options.limit);
    const after = decodeListCursor(options.cursor);
    const page: StoredSession[] = [];
    let more = false;
    for (const session of this.#sessions.values()) {
      if (session.ordinal <= after) continue;
      if (page.length === limit) {
        more = true;
        break;
      }
      page.push(session);
    }
    return {
      sessions: page.map(current),
      nextCursor: more ? encodeListCursor(page.at(-1)!.ordinal) : null,
    };
  }

  async updateSession(sessionId: SessionId, patch: SessionPatch): Promise<SessionRecord> {
    const session = this.#session(sessionId);
    checkPatch(patch);
    const record = current(session);
    session.updatedAt = now(session.updatedAt);
    session.record = Object.freeze({
      ...record,
      ...(patch.cwd === undefined ? {} : { cwd: patch.cwd }),
      ...(patch.title === undefined ? {} : { title: patch.title }),
      ...(patch.config === undefined ? {} : { config: patch.config }),
      updatedAt: session.updatedAt,
    });
    return session.record;
  }

  async deleteSession(sessionId: SessionId): Promise<boolean> {
    this.#open();
    const existed = this.#sessions.delete(sessionId);
    if (existed) {
      this.#followers.fail(
        new HistoryStoreError('session_not_found', `session "${sessionId}" was deleted`, { sessionId }),
        sessionId,
      );
    }
    return existed;
  }

  async nextMessageId(sessionId: SessionId): Promise<MessageId> {
    const session = this.#session(sessionId);
    return issueMessageId(sessionId, this.#generate, (id) => {
      if (session.issued.has(id)) return false;
      session.issued.add(id);
      return true;
    });
  }

  async isClaimed(sessionId: SessionId, ref: MessageRef): Promise<boolean> {
    const session = this.#session(sessionId);
    checkRef(ref);
    return session.claims.has(claimKey(ref));
  }

  async append(sessionId: SessionId, entries: readonly NewLogEntry[]): Promise<SeqRange> {
    const session = this.#session(sessionId);
    checkEntries(entries);
    // Most appends are one streamed chunk with no claim: no set, no second pass for them.
    let fresh: Set<string> | undefined;
    for (const entry of entries) {
      if (entry.claim === undefined) continue;
      const key = claimKey(entry.claim);
      fresh ??= new Set<string>();
      if (session.claims.has(key) || fresh.has(key)) duplicateClaim(sessionId, entry.claim);
      fresh.add(key);
    }
    if (fresh !== undefined) {
      for (const entry of entries) {
        if (entry.claim === undefined) continue;
        session.claims.add(claimKey(entry.claim));
        session.issued.add(entry.claim.messageId);
      }
    }
    const first = session.log.length + 1;
    const stored: LogEntry[] = [];
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      const logged: LogEntry = { seq: first + i, update: entry.update, retain: entry.retain ?? true };
      stored.push(logged);
      session.log.push(logged);
    }
    const last = session.log.length;
    session.appendedMs = Date.now();
    this.#followers.published(sessionId, stored);
    return { first, last };
  }

  async read(sessionId: SessionId, options: ReadLogOptions = {}): Promise<LogPage> {
    const session = this.#session(sessionId);
    const start = afterSeq(options.afterSeq);
    const limit = pageLimit(options.limit);
    const entries = session.log.read(start, limit, options.retainedOnly === true);
    return { entries, lastSeq: session.log.length };
  }

  subscribe(sessionId: SessionId, afterSeqValue: number, listener: LogListener): LogSubscription {
    this.#open();
    checkId(sessionId, '/sessionId');
    const from = afterSeq(afterSeqValue);
    return this.#followers.subscribe(sessionId, from, listener, (id, options) => this.read(id, options));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#followers.fail(new HistoryStoreError('closed', 'the session log is closed'));
  }

  #open(): void {
    if (this.#closed) throw new HistoryStoreError('closed', 'the session log is closed');
  }

  #session(sessionId: SessionId): StoredSession {
    this.#open();
    checkId(sessionId, '/sessionId');
    const session = this.#sessions.get(sessionId);
    if (session === undefined) {
      throw new HistoryStoreError('session_not_found', `no session "${sessionId}"`, { sessionId });
    }
    return session;
  }
}
