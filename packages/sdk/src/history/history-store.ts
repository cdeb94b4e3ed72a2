import type { ContentBlock, MessageId, SessionId } from '@acp-kit/schema';
import type { MessageKind } from '../client/conversation/types.js';

export type { MessageKind };

/** The message kinds an agent can retain for replay; each has its own `messageId` space. */
export type RetainedMessageKind = MessageKind;

/**
 * How a retained message is replayed: `full` as one update carrying the whole content, `chunks` as
 * an update with `content: []` followed by one chunk per block (the reset keeps replayed chunks from
 * being appended to a copy the client already holds).
 */
export type ReplayVia = 'full' | 'chunks';

/** Identifies one retained message: `messageId` is unique per kind within a session. */
export interface MessageRef {
  /** Message kind. */
  readonly kind: RetainedMessageKind;
  /** Agent-owned message ID. */
  readonly messageId: MessageId;
}

/**
 * A retained message named by `{kind, messageId}`, or by its ID alone. The bare ID is convenient for
 * IDs from `nextMessageId` (unique across kinds); if the same ID is retained under two kinds, the
 * store fails with `invalid_argument` instead of guessing.
 */
export type MessageTarget = MessageRef | MessageId;

/** A session as recorded by a {@link HistoryStore}. */
export interface HistorySession {
  /** Session ID. */
  readonly sessionId: SessionId;
  /** Working directory the session was created with. */
  readonly cwd: string;
  /** Creation time, ISO 8601. */
  readonly createdAt: string;
}

/** Input of {@link HistoryStore.createSession}. */
export interface NewHistorySession {
  /** Session ID (agent-owned); generated (`sess_…`) when omitted. */
  readonly sessionId?: SessionId;
  /** Working directory. */
  readonly cwd: string;
  /** Creation time, ISO 8601; defaults to now. */
  readonly createdAt?: string;
}

/** Input of {@link HistoryStore.appendMessage}. */
export interface NewRetainedMessage extends MessageRef {
  /** Content so far (chunks may follow through `appendChunk`). */
  readonly content: readonly ContentBlock[];
  /** Replay preference; default `chunks` when `content` is empty (chunks will follow), else `full`. */
  readonly via?: ReplayVia;
  /** Message `_meta` to replay with the message, if any. */
  readonly meta?: Readonly<Record<string, unknown>> | null;
}

/** One entry of a session's retained log, as read back. */
export interface RetainedMessage extends MessageRef {
  /** Position in the session log: starts at 1, strictly increasing in append order, never reused. */
  readonly seq: number;
  /** Current content. */
  readonly content: readonly ContentBlock[];
  /** Replay preference. */
  readonly via: ReplayVia;
  /** Message `_meta`, or null. */
  readonly meta: Readonly<Record<string, unknown>> | null;
}

/** Options of {@link HistoryStore.readMessages}. */
export interface ReadMessagesOptions {
  /** Return messages with `seq` greater than this (0 or omitted: from the start). */
  readonly afterSeq?: number;
  /** Page size; implementations cap it (see {@link MAX_PAGE_SIZE}). */
  readonly limit?: number;
}

/** Options of {@link HistoryStore.messages}. */
export interface StreamMessagesOptions {
  /** Start after this `seq` (default 0: from the start). */
  readonly afterSeq?: number;
  /** Messages fetched per page. */
  readonly pageSize?: number;
}

/** One page of a session's retained log. */
export interface MessagePage {
  /** Messages in `seq` order. */
  readonly messages: readonly RetainedMessage[];
  /** Pass as `afterSeq` to read the next page; null when this page reached the end. */
  readonly nextAfterSeq: number | null;
}

/** Options of {@link HistoryStore.listSessions}. */
export interface ListSessionsOptions {
  /** Opaque cursor from a previous page. */
  readonly cursor?: string | null;
  /** Page size; implementations cap it. */
  readonly limit?: number;
}

/** One page of sessions, in creation order. */
export interface SessionPage {
  /** Sessions in creation order. */
  readonly sessions: readonly HistorySession[];
  /** Cursor for the next page; null at the end. */
  readonly nextCursor: string | null;
}

/** Default page size of `readMessages` and `listSessions`. */
export const DEFAULT_PAGE_SIZE = 256;
/** Largest page size an implementation must honour; larger requests are capped. */
export const MAX_PAGE_SIZE = 4096;

/**
 * Agent-side retained history, the source of `session/resume` replay.
 *
 * Every method is async so a network database can implement it. Guarantees every implementation
 * must keep (checked by the shared contract tests):
 * - a session's log is append-only: `seq` starts at 1 and strictly increases; entries keep their position;
 * - a `(kind, messageId)` pair is retained at most once per session;
 * - `nextMessageId` never returns an ID issued before in that session, nor one passed to
 *   `appendMessage`, also after the store is closed and reopened;
 * - errors are {@link HistoryStoreError}s with a code.
 */
export interface HistoryStore {
  /** Records a new session (generating its ID if omitted); fails with `session_exists` if the ID is taken. */
  createSession(session: NewHistorySession): Promise<HistorySession>;
  /** The session, or undefined. */
  getSession(sessionId: SessionId): Promise<HistorySession | undefined>;
  /** Sessions in creation order, one page at a time. */
  listSessions(options?: ListSessionsOptions): Promise<SessionPage>;
  /** Deletes a session and its log; false if it did not exist. */
  deleteSession(sessionId: SessionId): Promise<boolean>;
  /** Issues a fresh message ID for the session (unique, never reused) and records it. */
  nextMessageId(sessionId: SessionId): Promise<MessageId>;
  /** Appends a message to the session log and records its ID as issued. */
  appendMessage(sessionId: SessionId, message: NewRetainedMessage): Promise<RetainedMessage>;
  /** Appends one block to a retained message's content. */
  appendChunk(sessionId: SessionId, target: MessageTarget, block: ContentBlock): Promise<void>;
  /** Replaces a retained message's content (`null` clears it); optionally changes its replay preference. */
  replaceContent(
    sessionId: SessionId,
    target: MessageTarget,
    content: readonly ContentBlock[] | null,
    options?: { readonly via?: ReplayVia },
  ): Promise<void>;
  /** Whether the message is in the session's retained log. */
  isRetained(sessionId: SessionId, target: MessageTarget): Promise<boolean>;
  /** Reads one page of the log. */
  readMessages(sessionId: SessionId, options?: ReadMessagesOptions): Promise<MessagePage>;
  /**
   * Streams the whole log (or the part after `afterSeq`) in `seq` order, one page in memory at a
   * time. Fails with `session_not_found` on the first iteration for an unknown session.
   */
  messages(sessionId: SessionId, options?: StreamMessagesOptions): AsyncIterable<RetainedMessage>;
  /** Releases resources; later calls fail with `closed`. Idempotent. */
  close(): Promise<void>;
}
