import type { MessageId, SessionId } from '@acp-kit/schema';
import { HistoryStoreError } from './errors.js';
import { decodeListCursor, encodeListCursor } from './list-cursor.js';
import type { MessageRef } from './history-store.js';
import { LogFollowers } from './log-followers.js';
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
  record: SessionRecord;
  readonly ordinal: number;
  /** Dense: `log[i].seq === i + 1`. */
  readonly log: LogEntry[];
  readonly claims: Set<string>;
  readonly issued: Set<MessageId>;
}

/** Options of {@link MemorySessionLog}. */
export interface MemorySessionLogOptions {
  /** Message ID generator (default: random `msg_…` IDs); collisions are retried. */
  readonly generateMessageId?: () => string;
}

const claimKey = (ref: MessageRef): string => `${ref.kind}\u0000${ref.messageId}`;

/**
 * An in-memory {@link SessionLog}: for tests, demos and agents whose sessions need not survive a
 * restart. Several agents given the same instance share its sessions (subscriptions see every
 * append made through it). Entries are kept by reference.
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
      ordinal: this.#nextOrdinal++,
      log: [],
      claims: new Set(),
      issued: new Set(),
    });
    return record;
  }

  async getSession(sessionId: SessionId): Promise<SessionRecord | undefined> {
    this.#open();
    return this.#sessions.get(sessionId)?.record;
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
      sessions: page.map((s) => s.record),
      nextCursor: more ? encodeListCursor(page.at(-1)!.ordinal) : null,
    };
  }

  async updateSession(sessionId: SessionId, patch: SessionPatch): Promise<SessionRecord> {
    const session = this.#session(sessionId);
    checkPatch(patch);
    session.record = Object.freeze({
      ...session.record,
      ...(patch.cwd === undefined ? {} : { cwd: patch.cwd }),
      ...(patch.title === undefined ? {} : { title: patch.title }),
      ...(patch.config === undefined ? {} : { config: patch.config }),
      updatedAt: now(session.record.updatedAt),
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
    session.record = Object.freeze({
      ...session.record,
      lastSeq: last,
      updatedAt: now(session.record.updatedAt),
    });
    this.#followers.published(sessionId, stored);
    return { first, last };
  }

  async read(sessionId: SessionId, options: ReadLogOptions = {}): Promise<LogPage> {
    const session = this.#session(sessionId);
    const start = afterSeq(options.afterSeq);
    const limit = pageLimit(options.limit);
    if (!options.retainedOnly) {
      return { entries: session.log.slice(start, start + limit), lastSeq: session.log.length };
    }
    const entries: LogEntry[] = [];
    for (let i = start; i < session.log.length && entries.length < limit; i++) {
      const entry = session.log[i]!;
      if (entry.retain) entries.push(entry);
    }
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
