import type {
  AvailableCommand,
  ContentBlock,
  MessageId,
  SessionConfigOption,
  SessionId,
  SessionNotification,
} from '@acp-kit/schema';
import { ChangeCollector } from './change-collector.js';
import { LocalEntry } from './entries.js';
import { ConversationStoreError } from './errors.js';
import { type RawUpdate, SessionConversation } from './session-conversation.js';
import type { TurnEnd } from './turn-end.js';
import type {
  ConnectionState,
  ConversationDiagnostic,
  ConversationListener,
  ConversationSnapshot,
  ConversationStoreOptions,
} from './types.js';

const EMPTY_STATE = Object.freeze({
  state: 'unknown',
  stopReason: null,
  usage: null,
  completedTurns: 0,
  connection: 'connected',
} as const);

/**
 * Client-side conversation state for any number of sessions, built from `session/update`
 * notifications by the v2 upsert rules, plus this client's optimistic submissions.
 *
 * Pure logic: no I/O, no timers. Feed order is the order in which the agent first reported each
 * `messageId`; a local submission is tied to a message only through `resolvePending` (the prompt
 * response), never by content or arrival order.
 */
export class ConversationStore {
  readonly #sessions = new Map<SessionId, SessionConversation>();
  readonly #locals = new Map<string, LocalEntry>();
  readonly #listeners = new Set<ConversationListener>();
  readonly #onDiagnostic: (diagnostic: ConversationDiagnostic) => void;
  #nextLocal = 1;
  #lastSession: SessionConversation | null = null;

  readonly #unstable: boolean;

  constructor(options: ConversationStoreOptions = {}) {
    this.#onDiagnostic = options.onDiagnostic ?? (() => {});
    this.#unstable = options.unstable ?? false;
  }

  /** Whether the store holds the unstable update kinds ({@link ConversationStoreOptions.unstable}). */
  get unstable(): boolean {
    return this.#unstable;
  }

  /** Applies one `session/update` notification's params. Listeners are called once afterwards. */
  apply(notification: SessionNotification): void {
    // The hot path: no closure per update (see batch).
    const collector = this.#listeners.size > 0 ? new ChangeCollector() : null;
    this.#applyOne(notification, collector);
    if (collector !== null) this.#notify(collector);
  }

  /** Applies notifications in order as one batch: listeners are called once, after the last one. */
  applyBatch(notifications: Iterable<SessionNotification>): void {
    this.#batch((collector) => {
      for (const notification of notifications) this.#applyOne(notification, collector);
    });
  }

  /**
   * Adds an optimistic user message for a prompt about to be sent and returns its `localId`.
   * Every call creates a distinct entry, even for identical content.
   */
  addPending(
    sessionId: SessionId,
    content: readonly ContentBlock[],
    options: { localId?: string } = {},
  ): string {
    const localId = options.localId ?? `local-${this.#nextLocal++}`;
    if (this.#locals.has(localId)) {
      throw new ConversationStoreError(
        'duplicate_local_id',
        `localId "${localId}" is already in use`,
        localId,
      );
    }
    const local = new LocalEntry(localId, sessionId, Object.freeze(content.slice()));
    this.#locals.set(localId, local);
    this.#batch((collector) => this.#session(sessionId).addLocal(local, collector?.for(sessionId) ?? null));
    return localId;
  }

  /**
   * Associates a submission with the `messageId` from its prompt response. Works whether the
   * agent's `user_message` update arrived before or after; exactly one entry is then shown, carrying
   * the agent's content once reported. Also accepted after `markOutcomeUnknown` (a late response
   * is knowledge, not a guess). If another submission already claimed the ID, the agent broke ID
   * uniqueness: a `duplicate_message_id` diagnostic is emitted and the entry becomes `local-unknown`.
   */
  resolvePending(localId: string, messageId: MessageId): void {
    const local = this.#local(localId);
    if (local.status === 'resolved') {
      if (local.messageId === messageId) return;
      throw new ConversationStoreError(
        'invalid_transition',
        `localId "${localId}" is already resolved to "${local.messageId}"`,
        localId,
      );
    }
    if (local.status === 'failed') {
      throw new ConversationStoreError('invalid_transition', `localId "${localId}" was rejected`, localId);
    }
    this.#batch((collector) => {
      const session = this.#session(local.sessionId);
      const changes = collector?.for(local.sessionId) ?? null;
      if (session.resolveLocal(local, messageId, changes)) return;
      this.#onDiagnostic({
        code: 'duplicate_message_id',
        sessionId: local.sessionId,
        message: `prompt response named messageId "${messageId}", already claimed by another submission`,
      });
      local.status = 'unknown';
      local.turn.fail(outcomeUnknown(localId));
      session.localChanged(local, changes, false);
    });
  }

  /** Marks a submission as rejected by the agent (nothing was inserted); the entry shows as `local-failed`. */
  rejectPending(localId: string, error: unknown): void {
    const local = this.#local(localId);
    if (local.status === 'resolved') {
      throw new ConversationStoreError(
        'invalid_transition',
        `localId "${localId}" was already inserted`,
        localId,
      );
    }
    local.status = 'failed';
    local.error = error;
    local.turn.fail(error);
    this.#batch((collector) =>
      this.#session(local.sessionId).localChanged(local, collector?.for(local.sessionId) ?? null, false),
    );
  }

  /**
   * Marks a still-pending submission whose response will never arrive (connection lost). The entry
   * stays `local-unknown` and is never matched to a later or replayed message. No-op when the
   * outcome is already known.
   */
  markOutcomeUnknown(localId: string): void {
    const local = this.#local(localId);
    if (local.status !== 'pending') return;
    local.status = 'unknown';
    local.turn.fail(outcomeUnknown(localId));
    this.#batch((collector) =>
      this.#session(local.sessionId).localChanged(local, collector?.for(local.sessionId) ?? null, false),
    );
  }

  /** Removes a failed or unknown-outcome entry from the feed (e.g. the user dismissed it). */
  dismissPending(localId: string): void {
    const local = this.#local(localId);
    if (local.status !== 'failed' && local.status !== 'unknown') {
      throw new ConversationStoreError(
        'invalid_transition',
        `only failed or unknown entries can be dismissed; "${localId}" is ${local.status}`,
        localId,
      );
    }
    this.#locals.delete(localId);
    this.#batch((collector) =>
      this.#session(local.sessionId).removeLocal(local, collector?.for(local.sessionId) ?? null),
    );
  }

  /** Records whether the agent owning `sessionId` is reachable; a killed agent is `disconnected`, not idle. */
  setConnection(sessionId: SessionId, connection: ConnectionState): void {
    const session = this.#session(sessionId);
    if (connection === 'disconnected') {
      session.failTurns(
        (local) =>
          new ConversationStoreError(
            'disconnected',
            `the connection to the agent was lost before the turn of "${local.localId}" ended`,
            local.localId,
          ),
      );
    }
    this.#batch((collector) => session.setConnection(connection, collector?.for(sessionId) ?? null));
  }

  /**
   * Replaces a session's configuration options with the list a response carried (`session/new`,
   * `session/resume`, `session/set_config_option`); {@link Client} calls it for you.
   */
  setConfigOptions(sessionId: SessionId, options: readonly SessionConfigOption[]): void {
    this.#batch((collector) =>
      this.#session(sessionId).setConfigOptions(options, collector?.for(sessionId) ?? null),
    );
  }

  /** Replaces a session's available commands with the list a `session/new` or `session/resume` response carried. */
  setAvailableCommands(sessionId: SessionId, commands: readonly AvailableCommand[]): void {
    this.#batch((collector) =>
      this.#session(sessionId).setAvailableCommands(commands, collector?.for(sessionId) ?? null),
    );
  }

  /**
   * Resolves when the work that took in this submission ends: at the first `idle` carrying a stop
   * reason that the store applies after the submission's insertion (its `user_message` update, or
   * the prompt response when that came first). The previous turn's `idle` never counts, however
   * late its update arrives relative to the submit. Resolves at once when that already happened.
   *
   * Rejects with the agent's error when the prompt was rejected, and with a
   * {@link ConversationStoreError} whose code is `outcome_unknown` (no response came),
   * `disconnected` (the connection was lost before the end) or `forgotten` (the session was
   * forgotten). `signal` stops waiting: the promise rejects with its reason.
   */
  turnEnd(localId: string, options: { signal?: AbortSignal } = {}): Promise<TurnEnd> {
    return this.#local(localId).turn.wait(options.signal);
  }

  /** An immutable view of one session (empty for a session never seen). Cheap when nothing changed. */
  snapshot(sessionId: SessionId): ConversationSnapshot {
    const session = this.#sessions.get(sessionId);
    if (session !== undefined) return session.snapshot();
    return Object.freeze({
      sessionId,
      messages: [],
      state: EMPTY_STATE,
      toolCalls: [],
      plans: [],
      contextUsage: null,
      otherUpdates: [],
      terminals: [],
      compactions: [],
      subagents: [],
      configOptions: null,
      availableCommands: null,
      sessionInfo: null,
      notices: [],
      background: null,
    });
  }

  /** IDs of every session the store holds, in first-seen order. */
  sessionIds(): SessionId[] {
    return [...this.#sessions.keys()];
  }

  /** Drops everything held for a session, including its local submissions. */
  forget(sessionId: SessionId): void {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return;
    for (const local of session.localEntries()) {
      this.#locals.delete(local.localId);
      local.turn.fail(
        new ConversationStoreError('forgotten', `session "${sessionId}" was forgotten`, local.localId),
      );
    }
    this.#sessions.delete(sessionId);
    if (this.#lastSession === session) this.#lastSession = null;
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  subscribe(listener: ConversationListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #applyOne(notification: SessionNotification, collector: ChangeCollector | null): void {
    const { sessionId, update } = notification as { sessionId: unknown; update: unknown };
    if (typeof sessionId !== 'string') {
      this.#onDiagnostic({
        code: 'malformed_update',
        sessionId: '',
        message: 'notification without a sessionId',
      });
      return;
    }
    const session = this.#session(sessionId);
    const raw = update as RawUpdate | null | undefined;
    if (typeof raw !== 'object' || raw === null || typeof raw.sessionUpdate !== 'string') {
      this.#onDiagnostic({
        code: 'malformed_update',
        sessionId,
        message: 'update without a sessionUpdate tag',
      });
      return;
    }
    session.apply(raw, collector?.for(sessionId) ?? null);
  }

  #batch(run: (collector: ChangeCollector | null) => void): void {
    const collector = this.#listeners.size > 0 ? new ChangeCollector() : null;
    run(collector);
    if (collector !== null) this.#notify(collector);
  }

  /** Calls every listener with what the batch changed (nothing when it changed nothing). */
  #notify(collector: ChangeCollector): void {
    const changes = collector.drain();
    if (changes.length === 0) return;
    // Every listener sees the batch even if one throws; the store is consistent either way.
    let failure: { error: unknown } | null = null;
    for (const listener of [...this.#listeners]) {
      try {
        listener(changes);
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== null) throw failure.error;
  }

  #session(sessionId: SessionId): SessionConversation {
    const last = this.#lastSession;
    if (last !== null && last.sessionId === sessionId) return last;
    let session = this.#sessions.get(sessionId);
    if (session === undefined) {
      session = new SessionConversation(sessionId, this.#onDiagnostic, this.#unstable);
      this.#sessions.set(sessionId, session);
    }
    this.#lastSession = session;
    return session;
  }

  #local(localId: string): LocalEntry {
    const local = this.#locals.get(localId);
    if (local === undefined) {
      throw new ConversationStoreError(
        'unknown_local_id',
        `no submission with localId "${localId}"`,
        localId,
      );
    }
    return local;
  }
}

function outcomeUnknown(localId: string): ConversationStoreError {
  return new ConversationStoreError(
    'outcome_unknown',
    `the outcome of "${localId}" is unknown: no prompt response identified its message`,
    localId,
  );
}
