import { UNSTABLE_UPDATE_KINDS } from '../../unstable-surface.js';
import {
  type AvailableCommand,
  type ContentBlock,
  isKnownUpdateKind,
  type JsonRpcError,
  type SessionConfigOption,
  type SessionId,
  type StopReason,
  UPDATE_KIND_TABLE,
  type Usage,
} from '@acp-kit/schema';
import { BackgroundList } from './background-work.js';
import type { SessionChanges } from './change-collector.js';
import { type LocalEntry, MessageRecord } from './entries.js';
import type { IdleOutcome } from './turn-end.js';
import { patchMeta } from './meta-patch.js';
import { upsertFields } from './upsert-fields.js';

/** The keys of a message upsert the store keeps in a record's own fields; the rest go to `fields`. */
const MESSAGE_OWN_KEYS: ReadonlySet<string> = new Set(['sessionUpdate', 'messageId', 'content', '_meta']);

/** Whether a message upsert carries a key besides the message's own (see {@link MESSAGE_OWN_KEYS}). */
function hasOtherKeys(update: RawUpdate): boolean {
  for (const key in update) if (!MESSAGE_OWN_KEYS.has(key) && Object.hasOwn(update, key)) return true;
  return false;
}
import { type RawUpdate, type Rejection, SessionEntities } from './session-entities.js';
import type {
  ConnectionState,
  ConversationDiagnostic,
  ConversationMessage,
  ConversationSnapshot,
  MessageKind,
  SessionStateView,
  WorkState,
} from './types.js';

export type { RawUpdate } from './session-entities.js';

type Diagnose = (diagnostic: ConversationDiagnostic) => void;

/** How the store applies one update kind. */
type Reducer = (session: SessionConversation, update: RawUpdate, changes: SessionChanges | null) => void;

/** A message upsert: the kind is its own message kind. */
const upsert =
  (kind: MessageKind): Reducer =>
  (session, update, changes) =>
    session.upsert(kind, update, changes);

/** A chunk: appends to the message kind the generated table names as its `chunkOf`. */
const chunk =
  (
    kind: keyof {
      [K in keyof typeof UPDATE_KIND_TABLE as (typeof UPDATE_KIND_TABLE)[K]['chunkOf'] extends MessageKind
        ? K
        : never]: 0;
    },
  ): Reducer =>
  (session, update, changes) =>
    session.chunk(UPDATE_KIND_TABLE[kind].chunkOf, update, changes);

/** An update applied by the session's {@link SessionEntities}; a rejection becomes a diagnostic. */
const entity =
  (
    apply: (entities: SessionEntities, update: RawUpdate, changes: SessionChanges | null) => Rejection,
  ): Reducer =>
  (session, update, changes) =>
    session.applyEntity(update, changes, apply);

/**
 * The store's reducer: one entry per update kind of the schema, typed from the generated
 * update-kind table, so a kind the schema gains and the store does not handle fails to compile.
 * Kinds outside the table (a newer agent's, extensions) never reach it: they are kept as
 * {@link OtherUpdateView}s.
 */
export const REDUCERS: { readonly [K in keyof typeof UPDATE_KIND_TABLE]: Reducer } = {
  user_message: upsert('user_message'),
  user_message_chunk: chunk('user_message_chunk'),
  agent_message: upsert('agent_message'),
  agent_message_chunk: chunk('agent_message_chunk'),
  agent_thought: upsert('agent_thought'),
  agent_thought_chunk: chunk('agent_thought_chunk'),
  state_update: (session, update, changes) => session.applyState(update, changes),
  tool_call_update: entity((e, u, c) => e.toolCall(u, c)),
  tool_call_content_chunk: entity((e, u, c) => e.toolCallContent(u, c)),
  terminal_update: entity((e, u, c) => e.terminal(u, c)),
  terminal_output_chunk: entity((e, u, c) => e.terminalOutput(u, c)),
  plan_update: entity((e, u, c) => e.plan(u, c)),
  plan_removed: entity((e, u, c) => e.planRemoved(u, c)),
  available_commands_update: entity((e, u, c) => e.availableCommandsUpdate(u, c)),
  config_option_update: entity((e, u, c) => e.configOptionUpdate(u, c)),
  session_info_update: entity((e, u, c) => e.sessionInfoUpdate(u, c)),
  usage_update: entity((e, u, c) => e.usage(u, c)),
  notice: entity((e, u, c) => e.notice(u, c)),
  compaction_update: entity((e, u, c) => e.compaction(u, c)),
  compaction_summary_chunk: entity((e, u, c) => e.compactionSummary(u, c)),
  session_message: upsert('session_message'),
  session_message_chunk: chunk('session_message_chunk'),
  subagent_update: entity((e, u, c) => e.subagent(u, c)),
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * One session's conversation: the feed in first-reported order, local submissions, aggregate state,
 * and every other kind of update (see {@link SessionEntities}). Every message update is O(1)
 * (amortised); views are rebuilt lazily on `snapshot()`.
 */
export class SessionConversation {
  readonly #order: MessageRecord[] = [];
  readonly #records: Record<MessageKind, Map<string, MessageRecord>> = {
    user_message: new Map(),
    agent_message: new Map(),
    agent_thought: new Map(),
    session_message: new Map(),
  };
  /** Local entries not (yet) rendered through an agent record, in submission order. */
  readonly #locals = new Set<LocalEntry>();
  /** User-message IDs that a response associated with a local entry. */
  readonly #claims = new Map<string, LocalEntry>();
  /** Inserted submissions whose turn has not ended yet. */
  readonly #awaitingTurn = new Set<LocalEntry>();
  /** User messages reported since the last `idle` that ended work. */
  readonly #openUserRecords = new Set<MessageRecord>();
  #nextPosition = 0;

  #state: WorkState = 'unknown';
  #stopReason: StopReason | null = null;
  #usage: Usage | null = null;
  #completedTurns = 0;
  #connection: ConnectionState = 'connected';
  /** Tool calls, terminals, plans, options, commands, info, usage, notices, unknown kinds. */
  readonly #entities = new SessionEntities(() => this.#nextPosition++);
  /** The background work the last state update listed. */
  readonly #background = new BackgroundList();

  #messagesDirty = true;
  /** Set when the message list must be rebuilt whole (an entry added, removed or linked). */
  #orderDirty = true;
  /** Records changed since the last snapshot, each once; the list is patched at their indexes. */
  readonly #queued: MessageRecord[] = [];
  /**
   * The message list of the last snapshot, kept mutable: copying a plain array is a memory copy,
   * while copying a frozen one takes V8's slow element-by-element path (about 100× slower).
   */
  #viewList: ConversationMessage[] | null = null;
  #stateDirty = true;
  #cached: ConversationSnapshot | null = null;
  /** Parts of the last snapshot, reused while their dirty flag is clear (structural sharing). */
  #previousParts: {
    messages: readonly ConversationMessage[];
    state: SessionStateView;
  } | null = null;

  readonly #diagnose: Diagnose;

  readonly #unstable: boolean;

  constructor(
    readonly sessionId: SessionId,
    diagnose: Diagnose,
    unstable = false,
  ) {
    this.#diagnose = diagnose;
    this.#unstable = unstable;
  }

  /** Applies one update body; never throws on agent input. */
  apply(update: RawUpdate, changes: SessionChanges | null): void {
    const tag = update.sessionUpdate;
    // An unstable kind is known only to a store that opted in; to any other it is a newer kind.
    if (isKnownUpdateKind(tag) && (this.#unstable || !UNSTABLE_UPDATE_KINDS.has(tag))) {
      REDUCERS[tag](this, update, changes);
      return;
    }
    if (tag.startsWith('_')) {
      this.#report('extension_update', `ignored extension update "${tag}"`, tag);
      return;
    }
    // A kind of a newer protocol version: tolerated, and kept visible rather than dropped.
    this.keepOther(tag, update, changes);
    this.#report('unknown_update_kind', `kept unknown update kind "${tag}" in otherUpdates`, tag);
  }

  /** @internal Keeps an update under its kind in `otherUpdates`, replacing the previous one. */
  keepOther(tag: string, update: RawUpdate, changes: SessionChanges | null): void {
    this.#entities.other(tag, update, changes);
    this.#cached = null;
  }

  /** @internal Applies an update that {@link SessionEntities} holds; a rejection becomes a diagnostic. */
  applyEntity(
    update: RawUpdate,
    changes: SessionChanges | null,
    apply: (entities: SessionEntities, update: RawUpdate, changes: SessionChanges | null) => Rejection,
  ): void {
    const rejection = apply(this.#entities, update, changes);
    if (rejection !== null) {
      this.#report('malformed_update', rejection, update.sessionUpdate);
      return;
    }
    this.#cached = null;
  }

  /** Replaces the configuration options with the list a session response carried. */
  setConfigOptions(options: readonly SessionConfigOption[], changes: SessionChanges | null): void {
    this.#entities.setConfigOptions(options, changes);
    this.#cached = null;
  }

  /** Replaces the available commands with the list a session response carried. */
  setAvailableCommands(commands: readonly AvailableCommand[], changes: SessionChanges | null): void {
    this.#entities.setAvailableCommands(commands, changes);
    this.#cached = null;
  }

  /** Applies a message upsert (`user_message`, `agent_message`, `agent_thought`). */
  upsert(kind: MessageKind, update: RawUpdate, changes: SessionChanges | null): void {
    const { messageId, content } = update;
    if (typeof messageId !== 'string') {
      this.#report('malformed_update', `${kind} without a string messageId`, kind);
      return;
    }
    if (content !== undefined && content !== null && !Array.isArray(content)) {
      this.#report('malformed_update', `${kind} "${messageId}" has non-array content`, kind);
      return;
    }
    const record = this.#records[kind].get(messageId) ?? this.#create(kind, messageId, changes);
    if (content !== undefined) {
      // Copy: the store appends to this array later and must not mutate the caller's object.
      record.content = content === null ? [] : (content as ContentBlock[]).slice();
      record.contentReported = true;
    }
    record.meta = patchMeta(record.meta, update._meta);
    // Most upserts carry only the message's own keys: they leave the other fields as they are
    // without copying anything.
    if (hasOtherKeys(update)) {
      const fields = upsertFields(record.fields, update, MESSAGE_OWN_KEYS);
      record.fields = Object.keys(fields).length === 0 ? null : fields;
    }
    this.#touch(record, changes);
  }

  /** Applies a chunk to the message kind it belongs to. */
  chunk(kind: MessageKind, update: RawUpdate, changes: SessionChanges | null): void {
    const { messageId, content } = update;
    if (typeof messageId !== 'string') {
      this.#report('malformed_update', `${kind}_chunk without a string messageId`, `${kind}_chunk`);
      return;
    }
    if (!isObject(content)) {
      this.#report('malformed_update', `${kind}_chunk "${messageId}" has no content block`, `${kind}_chunk`);
      return;
    }
    const record = this.#records[kind].get(messageId) ?? this.#create(kind, messageId, changes);
    record.content.push(content as ContentBlock);
    record.contentReported = true;
    this.#touch(record, changes);
  }

  #create(kind: MessageKind, messageId: string, changes: SessionChanges | null): MessageRecord {
    const record = new MessageRecord(kind, messageId, this.#nextPosition++);
    record.index = this.#order.length;
    this.#records[kind].set(messageId, record);
    this.#order.push(record);
    this.#orderDirty = true;
    if (kind === 'user_message') {
      this.#openUserRecords.add(record);
      const local = this.#claims.get(messageId);
      if (local !== undefined) this.#attach(local, record, changes);
    }
    if (changes) changes.orderChanged = true;
    return record;
  }

  #touch(record: MessageRecord, changes: SessionChanges | null): void {
    record.version++;
    if (!record.queued) {
      record.queued = true;
      this.#queued.push(record);
    }
    this.#messagesDirty = true;
    this.#cached = null;
    if (changes) changes.message(record.key);
  }

  #attach(local: LocalEntry, record: MessageRecord, changes: SessionChanges | null): void {
    record.local = local;
    local.record = record;
    this.#locals.delete(local);
    record.version++;
    this.#orderDirty = true;
    this.#messagesDirty = true;
    this.#cached = null;
    if (changes) {
      changes.orderChanged = true;
      changes.message(local.key);
      changes.message(record.key);
    }
  }

  /** Applies a `state_update`. */
  /** Whether an `unknown` state replaced work in progress (so the next idle with a reason ends a turn). */
  #workBeforeUnknown = false;

  applyState(update: RawUpdate, changes: SessionChanges | null): void {
    const next = update.state;
    if (typeof next !== 'string') {
      this.#report('malformed_update', 'state_update without a state', 'state_update');
      return;
    }
    const previous = this.#state;
    this.#state = next as WorkState;
    // `unknown` (unstable) after work: the agent lost sight of it, so an idle that follows ends it.
    if (next === 'unknown' && previous !== 'idle' && previous !== 'unknown') this.#workBeforeUnknown = true;
    // A state this SDK does not know keeps the background list unless it carries one.
    const known = next === 'running' || next === 'idle' || next === 'requires_action' || next === 'unknown';
    if (known || update.background !== undefined) this.#applyBackground(update.background, changes);
    if (next === 'idle') {
      const entering = previous !== 'idle';
      const { stopReason, usage } = update;
      if (stopReason !== undefined || entering) this.#stopReason = (stopReason ?? null) as StopReason | null;
      if (usage !== undefined || entering) this.#usage = (usage ?? null) as Usage | null;
      const afterWork = previous !== 'unknown' || this.#workBeforeUnknown;
      if (entering && afterWork && stopReason !== undefined && stopReason !== null) {
        this.#completedTurns++;
      }
      this.#workBeforeUnknown = false;
      if (typeof stopReason === 'string') this.#endWork(update, stopReason);
    }
    this.#stateDirty = true;
    this.#cached = null;
    changes?.flag('state_update');
  }

  #applyBackground(background: unknown, changes: SessionChanges | null): void {
    const changed = this.#background.apply(background, this.#entities, (code, message) =>
      this.#report(code, message, 'state_update'),
    );
    if (changed) changes?.background();
  }

  /**
   * An `idle` with a stop reason ended the work in progress: every submission inserted before it
   * (and every user message reported before it) has its turn end now. Submissions inserted later
   * wait for the next one.
   */
  #endWork(update: RawUpdate, stopReason: StopReason): void {
    const idle: IdleOutcome = {
      stopReason,
      usage: (update.usage ?? null) as Usage | null,
      error: (update.error ?? null) as JsonRpcError | null,
    };
    for (const record of this.#openUserRecords) record.turnEnd = idle;
    this.#openUserRecords.clear();
    const ending = [...this.#awaitingTurn];
    this.#awaitingTurn.clear();
    for (const local of ending) local.turn.end(local.messageId as string, idle);
  }

  /** Fails the turn of every inserted submission still waiting (the connection was lost, the session forgotten). */
  failTurns(error: (local: LocalEntry) => unknown): void {
    const failing = [...this.#awaitingTurn];
    this.#awaitingTurn.clear();
    for (const local of failing) local.turn.fail(error(local));
  }

  /** Records a new optimistic submission. */
  addLocal(local: LocalEntry, changes: SessionChanges | null): void {
    this.#locals.add(local);
    this.localChanged(local, changes, true);
  }

  /**
   * Associates a local entry with the agent's user-message ID. Returns false (and leaves the entry
   * alone) when another submission already claimed that ID.
   */
  resolveLocal(local: LocalEntry, messageId: string, changes: SessionChanges | null): boolean {
    const other = this.#claims.get(messageId);
    if (other !== undefined && other !== local) return false;
    local.status = 'resolved';
    local.messageId = messageId;
    local.error = undefined;
    this.#claims.set(messageId, local);
    const record = this.#records.user_message.get(messageId);
    // Inserted: when the agent reported the message first, at that report; else now.
    if (record?.turnEnd) local.turn.end(messageId, record.turnEnd);
    else if (!local.turn.settled) this.#awaitingTurn.add(local);
    if (record !== undefined) this.#attach(local, record, changes);
    else this.localChanged(local, changes, false);
    return true;
  }

  /** Re-renders a local entry whose status changed. */
  localChanged(local: LocalEntry, changes: SessionChanges | null, orderChanged: boolean): void {
    local.version++;
    // Local entries are few and sit after the reported ones: their changes rebuild the list.
    this.#orderDirty = true;
    this.#messagesDirty = true;
    this.#cached = null;
    if (changes) {
      changes.message(local.key);
      if (orderChanged) changes.orderChanged = true;
    }
  }

  /** Drops a local entry that never became (or will never be matched to) an agent message. */
  removeLocal(local: LocalEntry, changes: SessionChanges | null): void {
    if (!this.#locals.delete(local)) return;
    if (local.messageId !== null && this.#claims.get(local.messageId) === local)
      this.#claims.delete(local.messageId);
    this.localChanged(local, changes, true);
  }

  /** Local entries of this session, for `forget`. */
  localEntries(): Iterable<LocalEntry> {
    return new Set([...this.#locals, ...this.#claims.values()]);
  }

  setConnection(connection: ConnectionState, changes: SessionChanges | null): void {
    if (this.#connection === connection) return;
    this.#connection = connection;
    this.#stateDirty = true;
    this.#cached = null;
    changes?.flag('state_update');
  }

  snapshot(): ConversationSnapshot {
    if (this.#cached !== null) return this.#cached;
    const previous = this.#previousParts;
    const messages = this.#messagesDirty || !previous ? this.#buildMessages() : previous.messages;
    const state = this.#stateDirty || !previous ? this.#buildState() : previous.state;
    this.#messagesDirty = this.#stateDirty = false;
    this.#previousParts = { messages, state };
    const entities = this.#entities;
    this.#cached = Object.freeze({
      sessionId: this.sessionId,
      messages,
      state,
      toolCalls: entities.toolCalls.views(),
      plans: entities.plans.views(),
      contextUsage: entities.contextUsage,
      otherUpdates: entities.others.views(),
      terminals: entities.terminals.views(),
      compactions: entities.compactions.views(),
      subagents: entities.subagents.views(),
      configOptions: entities.configOptions,
      availableCommands: entities.availableCommands,
      sessionInfo: entities.sessionInfo,
      notices: entities.notices,
      background: this.#background.views(entities),
    });
    return this.#cached;
  }

  /**
   * The message list. When only existing reported messages changed, the kept list is patched at
   * their indexes and copied (references only), so the cost does not depend on the length of the
   * messages left untouched; otherwise it is rebuilt from the cached views.
   */
  #buildMessages(): readonly ConversationMessage[] {
    const queued = this.#queued;
    let list = this.#viewList;
    if (this.#orderDirty || list === null) {
      list = new Array(this.#order.length);
      for (let i = 0; i < this.#order.length; i++) list[i] = this.#order[i]!.toView();
      for (const local of this.#locals) list.push(local.toView());
      this.#viewList = list;
    } else {
      for (const record of queued) list[record.index] = record.toView();
    }
    for (const record of queued) record.queued = false;
    queued.length = 0;
    this.#orderDirty = false;
    return Object.freeze(list.slice());
  }

  #buildState(): SessionStateView {
    return Object.freeze({
      state: this.#state,
      stopReason: this.#stopReason,
      usage: this.#usage,
      completedTurns: this.#completedTurns,
      connection: this.#connection,
    });
  }

  #report(code: ConversationDiagnostic['code'], message: string, sessionUpdate?: string): void {
    this.#diagnose({ code, sessionId: this.sessionId, message, ...(sessionUpdate ? { sessionUpdate } : {}) });
  }
}
