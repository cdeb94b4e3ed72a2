import type { ContentBlock, MessageId, SessionId } from '@acp-kit/schema';
import { HistoryStoreError } from './errors.js';
import type {
  HistorySession,
  HistoryStore,
  ListSessionsOptions,
  MessagePage,
  MessageRef,
  MessageTarget,
  NewHistorySession,
  NewRetainedMessage,
  ReadMessagesOptions,
  ReplayVia,
  RetainedMessage,
  SessionPage,
  StreamMessagesOptions,
} from './history-store.js';
import { MemorySessionLog } from './memory-session-log.js';
import { chunkUpdate, messageChange, messageUpdate } from './message-updates.js';
import { retainedMessages } from './replay.js';
import type { LogEntry, NewLogEntry, SessionLog } from './session-log.js';
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

interface StoredMessage {
  readonly seq: number;
  readonly kind: RetainedMessage['kind'];
  readonly messageId: MessageId;
  via: ReplayVia;
  content: ContentBlock[];
  meta: Readonly<Record<string, unknown>> | null;
}

interface Projection {
  /** Dense: `messages[i].seq === i + 1`, so a page read is a slice. */
  readonly messages: StoredMessage[];
  readonly byRef: Map<string, StoredMessage>;
  /** Retained messages by bare ID (usually one; more when native IDs repeat across kinds). */
  readonly byId: Map<MessageId, StoredMessage[]>;
}

/** Options of {@link MemoryHistoryStore}. */
export interface MemoryHistoryStoreOptions {
  /** Message ID generator (default: random `msg_…` IDs); collisions with issued IDs are retried. */
  readonly generateMessageId?: () => string;
}

const refKey = (ref: MessageRef): string => `${ref.kind}\u0000${ref.messageId}`;

/**
 * The memory session log behind a {@link MemoryHistoryStore}: keeps the per-message projection
 * (retained messages with their current content) that the message-level API reads.
 */
class ProjectedMemoryLog extends MemorySessionLog {
  readonly projections = new Map<SessionId, Projection>();
  /** Replay preference for the message the next append opens or replaces (message-level API). */
  viaOverride: ReplayVia | undefined;

  projection(sessionId: SessionId): Projection {
    let projection = this.projections.get(sessionId);
    if (projection === undefined) {
      projection = { messages: [], byRef: new Map(), byId: new Map() };
      this.projections.set(sessionId, projection);
    }
    return projection;
  }

  protected override committed(sessionId: SessionId, entries: readonly LogEntry[]): void {
    const via = this.viaOverride;
    this.viaOverride = undefined;
    for (const entry of entries) {
      if (!entry.retain) continue;
      const change = messageChange(entry.update);
      if (change === undefined) continue;
      const projection = this.projection(sessionId);
      const key = refKey(change);
      let stored = projection.byRef.get(key);
      if (change.op === 'chunk') {
        if (stored === undefined) stored = this.#open(projection, change, [], 'chunks', null);
        stored.content.push(change.block);
        continue;
      }
      if (stored === undefined) {
        const content = change.content ?? [];
        this.#open(
          projection,
          change,
          [...content],
          via ?? (content.length === 0 ? 'chunks' : 'full'),
          change.meta ?? null,
        );
        continue;
      }
      if (change.content !== undefined) stored.content = [...change.content];
      if (change.meta !== undefined) stored.meta = change.meta;
      if (via !== undefined) stored.via = via;
    }
  }

  protected override removed(sessionId: SessionId): void {
    this.projections.delete(sessionId);
  }

  #open(
    projection: Projection,
    ref: MessageRef,
    content: ContentBlock[],
    via: ReplayVia,
    meta: Readonly<Record<string, unknown>> | null,
  ): StoredMessage {
    const stored: StoredMessage = {
      seq: projection.messages.length + 1,
      kind: ref.kind,
      messageId: ref.messageId,
      via,
      content,
      meta,
    };
    projection.messages.push(stored);
    projection.byRef.set(refKey(ref), stored);
    const sameId = projection.byId.get(ref.messageId);
    if (sameId === undefined) projection.byId.set(ref.messageId, [stored]);
    else sameId.push(stored);
    return stored;
  }
}

/**
 * An in-memory {@link HistoryStore}: for tests, demos and agents whose history need not survive a
 * restart. It is a message-level view of a {@link MemorySessionLog} ({@link MemoryHistoryStore.log}):
 * every message-level write is appended to the log (and so reported to the log's followers), and
 * the retained messages it reads back are the log's retained entries folded per message. Content
 * blocks are kept by reference; arrays are copied in and out.
 */
export class MemoryHistoryStore implements HistoryStore {
  readonly #log: ProjectedMemoryLog;

  constructor(options: MemoryHistoryStoreOptions = {}) {
    this.#log = new ProjectedMemoryLog(options);
  }

  /** The session log this store is a view of; an agent given this store uses it. */
  get log(): SessionLog {
    return this.#log;
  }

  async createSession(session: NewHistorySession): Promise<HistorySession> {
    const input = checkNewSession(session);
    const record = await this.#log.createSession(input);
    return toHistorySession(record);
  }

  async getSession(sessionId: SessionId): Promise<HistorySession | undefined> {
    const record = await this.#log.getSession(sessionId);
    return record === undefined ? undefined : toHistorySession(record);
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionPage> {
    const page = await this.#log.listSessions(options);
    return { sessions: page.sessions.map(toHistorySession), nextCursor: page.nextCursor };
  }

  deleteSession(sessionId: SessionId): Promise<boolean> {
    return this.#log.deleteSession(sessionId);
  }

  nextMessageId(sessionId: SessionId): Promise<MessageId> {
    return this.#log.nextMessageId(sessionId);
  }

  async appendMessage(sessionId: SessionId, message: NewRetainedMessage): Promise<RetainedMessage> {
    await this.#log.read(sessionId, { limit: 1 }); // closed / unknown session first
    checkNewMessage(message);
    const via = defaultVia(message);
    const meta = message.meta ? Object.freeze({ ...message.meta }) : null;
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
    this.#log.viaOverride = via;
    try {
      await this.#log.append(sessionId, entries);
    } catch (error) {
      if (error instanceof HistoryStoreError && error.code === 'duplicate_message') {
        throw new HistoryStoreError(
          'duplicate_message',
          `${message.kind} "${message.messageId}" is already retained`,
          { sessionId, messageId: message.messageId },
        );
      }
      throw error;
    } finally {
      this.#log.viaOverride = undefined;
    }
    return view(this.#log.projection(sessionId).byRef.get(refKey(ref))!);
  }

  async appendChunk(sessionId: SessionId, target: MessageTarget, block: ContentBlock): Promise<void> {
    const stored = await this.#target(sessionId, target, () => checkBlock(block, '/block'));
    await this.#log.append(sessionId, [{ update: chunkUpdate(stored.kind, stored.messageId, block) }]);
  }

  async replaceContent(
    sessionId: SessionId,
    target: MessageTarget,
    content: readonly ContentBlock[] | null,
    options: { readonly via?: ReplayVia } = {},
  ): Promise<void> {
    const stored = await this.#target(sessionId, target, () => {
      if (content !== null) checkContent(content, '/content');
      if (options.via !== undefined) checkVia(options.via, '/via');
    });
    this.#log.viaOverride = options.via;
    try {
      await this.#log.append(sessionId, [
        { update: messageUpdate(stored.kind, stored.messageId, content ?? []) },
      ]);
    } finally {
      this.#log.viaOverride = undefined;
    }
  }

  async isRetained(sessionId: SessionId, target: MessageTarget): Promise<boolean> {
    await this.#log.read(sessionId, { limit: 1 }); // session checks
    checkTarget(target);
    const projection = this.#log.projection(sessionId);
    return typeof target === 'string' ? projection.byId.has(target) : projection.byRef.has(refKey(target));
  }

  async readMessages(sessionId: SessionId, options: ReadMessagesOptions = {}): Promise<MessagePage> {
    await this.#log.read(sessionId, { limit: 1 }); // session checks
    const start = afterSeq(options.afterSeq);
    const limit = pageLimit(options.limit);
    const { messages } = this.#log.projection(sessionId);
    const slice = messages.slice(start, start + limit);
    const last = slice.at(-1);
    return {
      messages: slice.map(view),
      nextAfterSeq: last !== undefined && last.seq < messages.length ? last.seq : null,
    };
  }

  messages(sessionId: SessionId, options: StreamMessagesOptions = {}): AsyncIterable<RetainedMessage> {
    return retainedMessages(this, sessionId, options);
  }

  close(): Promise<void> {
    return this.#log.close();
  }

  async #target(sessionId: SessionId, target: MessageTarget, checks: () => void): Promise<StoredMessage> {
    await this.#log.read(sessionId, { limit: 1 }); // closed / unknown session first
    checkTarget(target);
    checks();
    const projection = this.#log.projection(sessionId);
    let stored: StoredMessage | undefined;
    if (typeof target === 'string') {
      const candidates = projection.byId.get(target);
      if (candidates !== undefined && candidates.length > 1) ambiguousTarget(target, sessionId);
      stored = candidates?.[0];
    } else {
      stored = projection.byRef.get(refKey(target));
    }
    if (stored === undefined) {
      const messageId = typeof target === 'string' ? target : target.messageId;
      throw new HistoryStoreError('message_not_found', `message "${messageId}" is not retained`, {
        sessionId,
        messageId,
      });
    }
    return stored;
  }
}

function toHistorySession(record: HistorySession): HistorySession {
  return Object.freeze({ sessionId: record.sessionId, cwd: record.cwd, createdAt: record.createdAt });
}

function view(stored: StoredMessage): RetainedMessage {
  return {
    seq: stored.seq,
    kind: stored.kind,
    messageId: stored.messageId,
    via: stored.via,
    content: [...stored.content],
    meta: stored.meta,
  };
}
