import type { ContentBlock, MessageId, SessionId } from '@acp-kit/schema';
import { HistoryStoreError } from './errors.js';
import { issueMessageId, randomMessageId } from './message-ids.js';
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
import { retainedMessages } from './replay.js';
import {
  afterSeq,
  ambiguousTarget,
  checkBlock,
  checkContent,
  checkId,
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
  readonly meta: Readonly<Record<string, unknown>> | null;
}

interface StoredSession {
  readonly info: HistorySession;
  readonly ordinal: number;
  /** Dense: `log[i].seq === i + 1`, so a page read is a slice. */
  readonly log: StoredMessage[];
  readonly byRef: Map<string, StoredMessage>;
  /** Retained messages by bare ID (usually one; more when native IDs repeat across kinds). */
  readonly byId: Map<MessageId, StoredMessage[]>;
  readonly issued: Set<MessageId>;
}

/** Options of {@link MemoryHistoryStore}. */
export interface MemoryHistoryStoreOptions {
  /** Message ID generator (default: random `msg_…` IDs); collisions with issued IDs are retried. */
  readonly generateMessageId?: () => string;
}

const refKey = (ref: MessageRef): string => `${ref.kind}\u0000${ref.messageId}`;

/**
 * An in-memory {@link HistoryStore}: for tests, demos and agents whose history need not survive a
 * restart. Content blocks are kept by reference; arrays are copied in and out.
 */
export class MemoryHistoryStore implements HistoryStore {
  private readonly sessions = new Map<SessionId, StoredSession>();
  private readonly generate: () => string;
  private nextOrdinal = 1;
  private closed = false;

  constructor(options: MemoryHistoryStoreOptions = {}) {
    this.generate = options.generateMessageId ?? randomMessageId;
  }

  async createSession(session: NewHistorySession): Promise<HistorySession> {
    this.open();
    const input = checkNewSession(session);
    if (this.sessions.has(input.sessionId)) {
      throw new HistoryStoreError('session_exists', `session "${input.sessionId}" already exists`, {
        sessionId: input.sessionId,
      });
    }
    const info = Object.freeze({ ...input });
    this.sessions.set(input.sessionId, {
      info,
      ordinal: this.nextOrdinal++,
      log: [],
      byRef: new Map(),
      byId: new Map(),
      issued: new Set(),
    });
    return info;
  }

  async getSession(sessionId: SessionId): Promise<HistorySession | undefined> {
    this.open();
    return this.sessions.get(sessionId)?.info;
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionPage> {
    this.open();
    const limit = pageLimit(options.limit);
    const after = options.cursor ? Number(options.cursor) : 0;
    if (!Number.isInteger(after) || after < 0) {
      throw new HistoryStoreError('invalid_argument', '/cursor: expected a cursor from a previous page', {
        pointer: '/cursor',
      });
    }
    const page: StoredSession[] = [];
    let more = false;
    for (const session of this.sessions.values()) {
      if (session.ordinal <= after) continue;
      if (page.length === limit) {
        more = true;
        break;
      }
      page.push(session);
    }
    return {
      sessions: page.map((s) => s.info),
      nextCursor: more ? String(page.at(-1)!.ordinal) : null,
    };
  }

  async deleteSession(sessionId: SessionId): Promise<boolean> {
    this.open();
    return this.sessions.delete(sessionId);
  }

  async nextMessageId(sessionId: SessionId): Promise<MessageId> {
    const session = this.session(sessionId);
    return issueMessageId(sessionId, this.generate, (id) => {
      if (session.issued.has(id)) return false;
      session.issued.add(id);
      return true;
    });
  }

  async appendMessage(sessionId: SessionId, message: NewRetainedMessage): Promise<RetainedMessage> {
    const session = this.session(sessionId);
    checkNewMessage(message);
    const key = refKey(message);
    if (session.byRef.has(key)) {
      throw new HistoryStoreError(
        'duplicate_message',
        `${message.kind} "${message.messageId}" is already retained`,
        {
          sessionId,
          messageId: message.messageId,
        },
      );
    }
    const stored: StoredMessage = {
      seq: session.log.length + 1,
      kind: message.kind,
      messageId: message.messageId,
      via: defaultVia(message),
      content: [...message.content],
      meta: message.meta ? Object.freeze({ ...message.meta }) : null,
    };
    session.log.push(stored);
    session.byRef.set(key, stored);
    const sameId = session.byId.get(message.messageId);
    if (sameId === undefined) session.byId.set(message.messageId, [stored]);
    else sameId.push(stored);
    session.issued.add(message.messageId);
    return view(stored);
  }

  async appendChunk(sessionId: SessionId, target: MessageTarget, block: ContentBlock): Promise<void> {
    const session = this.session(sessionId);
    checkTarget(target);
    checkBlock(block, '/block');
    this.message(session, sessionId, target).content.push(block);
  }

  async replaceContent(
    sessionId: SessionId,
    target: MessageTarget,
    content: readonly ContentBlock[] | null,
    options: { readonly via?: ReplayVia } = {},
  ): Promise<void> {
    const session = this.session(sessionId);
    checkTarget(target);
    if (content !== null) checkContent(content, '/content');
    if (options.via !== undefined) checkVia(options.via, '/via');
    const stored = this.message(session, sessionId, target);
    stored.content = content === null ? [] : [...content];
    if (options.via !== undefined) stored.via = options.via;
  }

  async isRetained(sessionId: SessionId, target: MessageTarget): Promise<boolean> {
    const session = this.session(sessionId);
    checkTarget(target);
    return typeof target === 'string' ? session.byId.has(target) : session.byRef.has(refKey(target));
  }

  async readMessages(sessionId: SessionId, options: ReadMessagesOptions = {}): Promise<MessagePage> {
    const session = this.session(sessionId);
    const start = afterSeq(options.afterSeq);
    const limit = pageLimit(options.limit);
    const slice = session.log.slice(start, start + limit);
    const last = slice.at(-1);
    return {
      messages: slice.map(view),
      nextAfterSeq: last !== undefined && last.seq < session.log.length ? last.seq : null,
    };
  }

  messages(sessionId: SessionId, options: StreamMessagesOptions = {}): AsyncIterable<RetainedMessage> {
    return retainedMessages(this, sessionId, options);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private open(): void {
    if (this.closed) throw new HistoryStoreError('closed', 'the history store is closed');
  }

  private session(sessionId: SessionId): StoredSession {
    this.open();
    checkId(sessionId, '/sessionId');
    const session = this.sessions.get(sessionId);
    if (session === undefined) {
      throw new HistoryStoreError('session_not_found', `no session "${sessionId}"`, { sessionId });
    }
    return session;
  }

  private message(session: StoredSession, sessionId: SessionId, target: MessageTarget): StoredMessage {
    let stored: StoredMessage | undefined;
    if (typeof target === 'string') {
      const candidates = session.byId.get(target);
      if (candidates !== undefined && candidates.length > 1) ambiguousTarget(target, sessionId);
      stored = candidates?.[0];
    } else {
      stored = session.byRef.get(refKey(target));
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
