import { setMaxListeners } from 'node:events';
import type {
  AvailableCommand,
  BackgroundWork,
  ContentBlock,
  CreateElicitationResponse,
  Notice,
  PlanContent,
  SessionConfigOption,
  UsageUpdate,
  JsonRpcError,
  MessageId,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionId,
  SessionNotification,
  KnownSessionUpdate,
  SessionUpdate,
  StopReason,
  Usage,
} from '@acp-kit/schema';
import { HistoryStoreError } from '../history/errors.js';
import type { MessageKind, ReplayVia } from '../history/history-store.js';
import { chunkUpdate, messageUpdate } from '../history/message-updates.js';
import type {
  LogEntry,
  LogSubscription,
  NewLogEntry,
  SeqRange,
  SessionLog,
  WriteBehindLimits,
} from '../history/session-log.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { ClientPeer } from './client-peer.js';
import {
  type CompactionFields,
  type CompactionHandle,
  type CompactionOptions,
  startCompaction,
} from './compaction.js';
import { askClients, type ElicitOptions, type FormElicitation, type UrlElicitation } from './elicitation.js';
import type { InsertOptions } from './pending-prompt.js';
import { settingsOf, updateSettings } from './session-settings.js';
import { SessionDelivery } from './session-delivery.js';
import { type SessionActivity, TurnTracker } from './turn-tracker.js';
import { SessionWriter } from './session-writer.js';
import {
  type TerminalFields,
  type TerminalHandle,
  type TerminalOptions,
  type ToolCallFields,
  type ToolCallHandle,
  type ToolCallOptions,
  WorkRegistry,
} from './tool-calls.js';

export type { SessionActivity } from './turn-tracker.js';

/** Options for a message the agent writes (an agent message or thought). */
export interface OutgoingMessageOptions {
  /** Keep it for replay (default `true`). */
  retain?: boolean;
  /** Use this ID instead of a fresh one (an adapter reusing the underlying agent's IDs); must be unused. */
  messageId?: MessageId;
}

/**
 * An agent message or thought being written. Chunks append; `replace` upserts the whole content.
 * Every call appends the change to the session log (retained for replay unless `retain: false`);
 * attached clients receive it from there.
 */
export interface OutgoingMessage {
  /** The agent-assigned ID the message is reported under. */
  readonly messageId: MessageId;
  /** Appends one block (`agent_message_chunk` / `agent_thought_chunk`). */
  chunk(block: ContentBlock): Promise<void>;
  /** Replaces the whole content (`agent_message` / `agent_thought` with `content`). */
  replace(content: readonly ContentBlock[]): Promise<void>;
}

/** Options of an {@link AgentSession} (set by the agent). */
export interface AgentSessionOptions {
  /**
   * Live updates a client may have waiting while it receives a replay; past this the client is
   * too slow to follow the session and is disconnected. Default 65 536.
   */
  readonly maxHeldUpdates?: number;
  /**
   * How far streamed chunks may run ahead of the log (see {@link AgentOptions.writeBehind});
   * `false` waits for the log on every update. Default: what the log suggests
   * ({@link SessionLog.writeBehind}), none for the in-process logs.
   */
  readonly writeBehind?: WriteBehindLimits | false;
}

/** What the agent passes along with an insertion (see {@link AgentSession.insertUserMessage}). */
export interface InsertContext {
  /** The submitting client: the insertion resolves once its report was handed to that client. */
  readonly peer?: ClientPeer;
  /** The session's cancel generation when the prompt arrived (from {@link AgentSession.promptArrived}). */
  readonly arrival?: number;
}

/** One attached client: where its updates go, and the live updates held while it replays. */
const DEFAULT_MAX_HELD = 65_536;
/** How far back a session loaded from the log looks for its last reported activity. */
const ACTIVITY_LOOKBACK_PAGES = 8;

/**
 * One session inside an agent: a view of its log in the {@link SessionLog}, the clients attached to
 * it, and its cancellation state.
 *
 * Everything a prompt handler reports is appended to the log, and only the log feeds clients: the
 * session follows its log (one subscription, from the log's end when the session was loaded) and
 * hands each entry to every attached client's connection, whose outgoing queue is bounded (a client
 * that stops reading is disconnected with -32098 once its queue is full; nobody waits for it). A
 * client attaches at the position the session has reached — "read to N, then follow from N + 1" —
 * so a replay reads the log up to N while the entries after N wait for it. Two agents sharing one
 * log therefore show their clients the same updates in the same order, and the session's activity
 * is whatever the log last said.
 */
export class AgentSession {
  /** The session's ID. */
  readonly id: SessionId;
  /** The working directory it was created or last resumed with. */
  cwd: string;
  readonly #log: SessionLog;
  /** Issues message IDs: the session's log. */
  readonly #ids: Pick<SessionLog, 'nextMessageId'>;
  /** Appends to the log in call order, writing streamed chunks behind when the log suggests it. */
  readonly #writer: SessionWriter;
  /** The attached clients and the sends to them. */
  readonly #delivery: SessionDelivery;
  /** The turn and cancel state. */
  readonly #turns = new TurnTracker();
  #position = 0;
  #following: Promise<void> | undefined;
  #subscription: LogSubscription | undefined;
  readonly #closed = unboundedListeners(new AbortController());
  #lost: unknown;
  readonly #waiters = new Set<{ seq: number; resolve: () => void }>();
  /** Callers of {@link whenIdle} waiting for this process's turn to end. */
  readonly #idleWaiters = new Set<() => void>();
  #permissionsPending = 0;
  readonly #work = new WorkRegistry();
  /** Whether the session reports background work: every state update then carries a list. */
  #reportsBackground = false;
  /** The background list as of {@link position} (the last one the log delivered). */
  #reportedBackground: BackgroundWork[] = [];
  /** The list the last state update appended here carried (JSON), to report only changes. */
  #listed = '[]';

  /** @internal Sessions are created by the agent. */
  constructor(id: SessionId, cwd: string, log: SessionLog, options: AgentSessionOptions = {}) {
    this.id = id;
    this.cwd = cwd;
    this.#log = log;
    this.#ids = log;
    this.#delivery = new SessionDelivery(id, options.maxHeldUpdates ?? DEFAULT_MAX_HELD);
    const writeBehind =
      options.writeBehind === false ? undefined : (options.writeBehind ?? this.#log.writeBehind);
    this.#writer = new SessionWriter((entries) => this.#log.append(this.id, entries), writeBehind);
  }

  /** The log this session lives in. */
  get log(): SessionLog {
    return this.#log;
  }

  /**
   * The session's activity: set at once by `running()`, `idle()` and `requiresAction()` (before
   * their state update is in the log), and by every state update the log reports.
   */
  get activity(): SessionActivity {
    return this.#turns.activity;
  }

  /**
   * The activity as of {@link position}: what the last state update handed to attached clients
   * said. A client attached at the position is told this one, so it never hears `idle` before the
   * updates of the turn that are still being written.
   */
  get reportedActivity(): SessionActivity {
    return this.#turns.reported;
  }

  /**
   * The background list as of {@link position} (what the last state update handed to attached
   * clients listed), or undefined while the session does not report background work.
   */
  get reportedBackground(): readonly BackgroundWork[] | undefined {
    return this.#reportsBackground ? this.#reportedBackground : undefined;
  }

  /** The seq of the last log entry handed to attached clients. */
  get position(): number {
    return this.#position;
  }

  /**
   * Aborted by `session/cancel` while the work it belongs to is pending or running; a new turn
   * (the first `running()` after `idle()`) gets a fresh one unless a prompt in it was cancelled
   * before the turn started.
   */
  get signal(): AbortSignal {
    return this.#turns.signal;
  }

  /**
   * Aborted when the session is closed (`session/close`, `session/delete` or
   * {@link Agent.closeSession}): the agent no longer holds it. Work still running may finish and
   * append to the log (that history stays), but no client follows this object any more.
   */
  get closed(): AbortSignal {
    return this.#closed.signal;
  }

  /**
   * @internal Closes the live session: aborts its work, detaches every client and stops following
   * the log. The log itself is untouched.
   */
  close(): void {
    if (this.#closed.signal.aborted) return;
    this.#turns.close();
    this.#closed.abort(new RpcError(ErrorCodes.RequestCancelled, 'The session was closed.'));
    this.#work.abortAll(this.#closed.signal.reason);
    this.#subscription?.close();
    this.#subscription = undefined;
    this.#delivery.detachAll();
    for (const waiter of this.#waiters) waiter.resolve();
    this.#waiters.clear();
    this.#wakeIdleWaiters();
  }

  /**
   * Resolves once no turn started by this object is open: every `running()` / `requiresAction()`
   * called here was followed by an `idle()` whose state update the log took (or whose write
   * failed) — at once when no turn runs here (a state another process left in the log is not
   * waited for) — or once the session is closed or stops following its log. A process that shuts
   * down waits for this before it closes the history, so a turn that was still ending (for example
   * one whose permission request ended `cancelled` because its only client left) writes its stop
   * reason, and the session is not left `running` or `requires_action` for the next process to
   * report.
   */
  whenIdle(): Promise<void> {
    if (this.#settledIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.add(resolve));
  }

  #settledIdle(): boolean {
    return !this.#turns.turnHere || this.#closed.signal.aborted || this.#lost !== undefined;
  }

  #wakeIdleWaiters(): void {
    if (this.#idleWaiters.size === 0 || !this.#settledIdle()) return;
    for (const resolve of this.#idleWaiters) resolve();
    this.#idleWaiters.clear();
  }

  /** How many clients are attached. */
  get attachedCount(): number {
    return this.#delivery.size;
  }

  /**
   * @internal Starts following the log (once); resolves when the session knows its position and
   * activity. Fails with -32002 while the session is not in the log.
   */
  following(): Promise<void> {
    this.#following ??= this.#follow().catch((error: unknown) => {
      this.#following = undefined;
      throw error;
    });
    return this.#following;
  }

  async #follow(): Promise<void> {
    const record = await this.#log.getSession(this.id);
    if (record === undefined) {
      throw new RpcError(ErrorCodes.ResourceNotFound, 'Session not found', { sessionId: this.id });
    }
    const last = await lastState(this.#log, this.id, record.lastSeq);
    this.#turns.fromLog(last.activity);
    if (last.background !== undefined) this.#fromLogBackground(last.background);
    this.#position = record.lastSeq;
    if (this.#closed.signal.aborted) return;
    this.#subscription = this.#log.subscribe(this.id, record.lastSeq, {
      entries: (batch) => this.#fanOut(batch),
      error: (error) => {
        this.#lost = error;
        this.#following = undefined;
        for (const waiter of this.#waiters) waiter.resolve();
        this.#waiters.clear();
        this.#wakeIdleWaiters();
      },
    });
  }

  #fanOut(batch: readonly LogEntry[]): void {
    for (const entry of batch) {
      this.#position = entry.seq;
      const update = entry.update as { sessionUpdate: string; state?: unknown };
      if (update.sessionUpdate === 'state_update' && isActivity(update.state)) {
        this.#turns.fromLog(update.state);
        const { background } = update as { background?: unknown };
        if (Array.isArray(background)) this.#fromLogBackground(background as BackgroundWork[]);
      }
      this.#delivery.deliver({ sessionId: this.id, update: entry.update }, entry.seq);
    }
    for (const waiter of this.#waiters) {
      if (waiter.seq <= this.#position) {
        this.#waiters.delete(waiter);
        waiter.resolve();
      }
    }
    this.#wakeIdleWaiters();
  }

  /** Resolves once the session handed every entry up to `seq` to its clients. */
  #reached(seq: number): Promise<void> {
    if (seq <= this.#position || this.#lost !== undefined || this.#closed.signal.aborted) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.add({ seq, resolve }));
  }

  /**
   * @internal Attaches a client at the session's current position: it receives every entry after
   * it. With `hold`, those entries wait until {@link release} (while the client gets a replay).
   */
  attach(peer: ClientPeer, hold = false): void {
    this.#delivery.attach(peer, hold);
  }

  /** @internal Whether a client is attached (receives, or holds during a replay, the entries after its position). */
  isAttached(peer: ClientPeer): boolean {
    return this.#delivery.isAttached(peer);
  }

  /** @internal Sends a client the entries held during its replay, then lets entries flow to it. */
  release(peer: ClientPeer): Promise<void> {
    return this.#delivery.release(peer);
  }

  /** @internal Detaches a client (its connection closed). Work in the session goes on. */
  detach(peer: ClientPeer): void {
    this.#delivery.detach(peer);
  }

  /**
   * @internal Sends one update to one client only, outside the log (replay goes to the resuming
   * client). `json`, when given, is JSON text of `update` on one line (a log entry's stored text).
   */
  sendTo(peer: ClientPeer, update: SessionUpdate, json?: string): Promise<void> {
    return this.#delivery.sendTo(peer, update, json);
  }

  /**
   * @internal Sends several updates to one client only, outside the log, in order, handed to its
   * connection together (see {@link ClientPeer.notifyBatch}; one by one without it).
   */
  sendBatchTo(
    peer: ClientPeer,
    items: readonly { params: SessionNotification; paramsJson: string }[],
  ): Promise<void> {
    return this.#delivery.sendBatchTo(peer, items);
  }

  /**
   * Reports an update to every attached client by appending it to the log. State updates are
   * live-only by default; every other kind (tool calls, plans, usage, messages…) is retained for
   * replay unless `retain: false`. Resolves once the log has it — except a chunk (a `…_chunk`
   * update) on a log that writes behind ({@link AgentOptions.writeBehind}), which resolves once
   * it is queued within the limits; a failure to write it is thrown by the session's next update.
   */
  async update(update: SessionUpdate, options: { retain?: boolean } = {}): Promise<void> {
    const retain = options.retain ?? update.sessionUpdate !== 'state_update';
    if (update.sessionUpdate === 'state_update') update = this.#withBackground(update);
    await this.#write([{ update, retain }], update.sessionUpdate.endsWith('_chunk'));
  }

  /**
   * A state update with the session's background list, once the session reports one (a list the
   * caller set is kept): the list is built from the handles moved to the background here, each
   * listed after its announcing update and dropped only after its end was appended.
   */
  #withBackground(update: SessionUpdate): SessionUpdate {
    if (this.#work.reportsBackground) this.#reportsBackground = true;
    if (!this.#reportsBackground) return update;
    const given = (update as { background?: unknown }).background;
    if (given !== undefined && given !== null) return update;
    const background = this.#work.background();
    this.#listed = JSON.stringify(background);
    return { ...update, background } as SessionUpdate;
  }

  /** A state update the log delivered carried a background list. */
  #fromLogBackground(background: BackgroundWork[]): void {
    this.#reportsBackground = true;
    this.#reportedBackground = background;
  }

  /**
   * @internal The background list may have changed (a handle moved to the background or ended):
   * when it did, reports a state snapshot with the current activity and the new list — while idle
   * a repeated idle with no stop reason and no usage, which ends nothing.
   */
  async backgroundChanged(): Promise<void> {
    this.#reportsBackground = true;
    if (JSON.stringify(this.#work.background()) === this.#listed) return;
    await this.update({ sessionUpdate: 'state_update', state: this.#turns.activity } as SessionUpdate);
  }

  /** Appends entries, each call after the one before, and resolves once the log has them. */
  async #append(entries: readonly NewLogEntry[]): Promise<{ first: number; last: number }> {
    return (await this.#write(entries, false))!;
  }

  /**
   * Appends entries: checks that every update can be sent to every attached client (so nothing is
   * retained that cannot be reported or replayed), queues them behind the session's earlier
   * appends, and maps a duplicate claim to the ID error. With `behind`, resolves (undefined) as
   * soon as the session's writer takes them within its write-behind limits.
   */
  async #write(entries: readonly NewLogEntry[], behind: boolean): Promise<SeqRange | undefined> {
    await this.following();
    await this.#delivery.pace();
    const bytes = this.#assertReportable(entries.map((entry) => entry.update));
    try {
      return await this.#writer.write(entries, behind, bytes);
    } catch (error) {
      if (error instanceof HistoryStoreError && error.code === 'duplicate_message') {
        throw new RpcError(
          ErrorCodes.InternalError,
          `messageId ${JSON.stringify(error.messageId)} is already used in this session`,
        );
      }
      throw error;
    }
  }

  /**
   * Throws an invalid-params error unless every update can be sent to every attached client, so
   * that a message is either retained, reported and acknowledged, or none of these. Replay never
   * sends an update larger than one that was appended, so this also keeps retained content replayable.
   * Returns the bytes of their reports.
   */
  #assertReportable(updates: readonly SessionUpdate[]): number {
    const limit = this.#delivery.messageLimit();
    let total = 0;
    for (const update of updates) {
      let json: string;
      try {
        json = JSON.stringify({
          jsonrpc: '2.0',
          method: 'session/update',
          params: { sessionId: this.id, update },
        });
      } catch {
        throw new RpcError(
          ErrorCodes.InvalidParams,
          'The message cannot be reported: its content cannot be serialized',
          {
            pointer: '/params/prompt',
            expected: 'content that can be serialized to JSON',
          },
        );
      }
      // Headroom for the longest form replay may use for it (a chunk tag instead of the message tag).
      const bytes = Buffer.byteLength(json, 'utf8');
      if (bytes > limit) {
        throw new RpcError(
          ErrorCodes.InvalidParams,
          `The message cannot be reported: its update would be ${bytes} bytes, over the ${limit}-byte message limit`,
          { pointer: '/params/prompt', expected: `content whose report fits in ${limit} bytes` },
        );
      }
      total += bytes;
    }
    return total;
  }

  /**
   * @internal Counts a prompt as pending work (a `session/cancel` before it is settled applies to
   * it); returns its arrival generation and a function to call when it is settled.
   */
  promptArrived(): { arrival: number; settled: () => void } {
    return this.#turns.promptArrived();
  }

  /** @internal Implements {@link PendingPrompt.insert}. */
  async insertUserMessage(
    content: readonly ContentBlock[],
    options: Required<Omit<InsertOptions, 'messageId'>> & { messageId: MessageId | undefined },
    context: InsertContext = {},
  ): Promise<MessageId> {
    // A closed session inserts nothing more: its prompts are answered -32800 (see `closed`).
    this.#closed.signal.throwIfAborted();
    this.#assertReportable(reportUpdates('user_message', 'pending', content, options.via));
    const messageId = options.messageId ?? (await this.#ids.nextMessageId(this.id));
    const range = await this.#append(
      claimFirst(
        'user_message',
        messageId,
        reportUpdates('user_message', messageId, content, options.via),
        options.retain,
      ),
    );
    // Inserted while idle, the prompt's turn is the next one; inserted during a turn, it is that turn's.
    this.#turns.inserted(context.arrival);
    // The receipt follows the report: wait until the report was handed to the submitting client.
    await this.#reached(range.last);
    if (context.peer !== undefined) await this.#delivery.released(context.peer);
    return messageId;
  }

  /**
   * @internal Resolves once the session handed every entry up to `seq` to `peer` (after its replay,
   * if it is receiving one): a receipt for a message another replica inserted follows its report.
   */
  async reportedTo(peer: ClientPeer, seq: number): Promise<void> {
    await this.#reached(seq);
    await this.#delivery.released(peer);
  }

  /**
   * Reserves a fresh message ID without inserting anything. Holding an ID is not insertion: a
   * prompt is acknowledged only by `insert({ messageId })`, which may use the reserved ID later.
   */
  reserveMessageId(): Promise<MessageId> {
    return this.#ids.nextMessageId(this.id);
  }

  async #unusedId(kind: MessageKind, wanted: MessageId | undefined): Promise<MessageId> {
    if (wanted === undefined) return this.#ids.nextMessageId(this.id);
    if (await this.#log.isClaimed(this.id, { kind, messageId: wanted })) {
      throw new RpcError(
        ErrorCodes.InternalError,
        `messageId ${JSON.stringify(wanted)} is already used in this session`,
      );
    }
    return wanted;
  }

  /**
   * Inserts a message that did not come from a prompt (imported history, a message the agent
   * writes on the user's behalf). It gets an agent-generated ID, is retained unless told otherwise,
   * and is reported like any other message.
   */
  async importMessage(
    kind: MessageKind,
    content: readonly ContentBlock[],
    options: { retain?: boolean; via?: ReplayVia; messageId?: MessageId } = {},
  ): Promise<MessageId> {
    const via = options.via ?? 'full';
    this.#assertReportable(reportUpdates(kind, 'pending', content, via));
    const messageId = options.messageId ?? (await this.#ids.nextMessageId(this.id));
    await this.#append(
      claimFirst(kind, messageId, reportUpdates(kind, messageId, content, via), options.retain ?? true),
    );
    return messageId;
  }

  /** Starts an agent message, streamed with chunks or replaced whole. */
  agentMessage(options: OutgoingMessageOptions = {}): Promise<OutgoingMessage> {
    return this.#outgoing('agent_message', options);
  }

  /** Starts an agent thought (visible reasoning), streamed with chunks or replaced whole. */
  thought(options: OutgoingMessageOptions = {}): Promise<OutgoingMessage> {
    return this.#outgoing('agent_thought', options);
  }

  async #outgoing(
    kind: 'agent_message' | 'agent_thought',
    options: OutgoingMessageOptions,
  ): Promise<OutgoingMessage> {
    const retain = options.retain ?? true;
    await this.following();
    const messageId = await this.#unusedId(kind, options.messageId);
    // The first write claims the ID (a message never written is never reported).
    let claimed = false;
    const write = async (update: SessionUpdate, chunk: boolean): Promise<void> => {
      const claim = claimed ? undefined : { kind, messageId };
      claimed = true;
      try {
        await this.#write([{ update, retain, ...(claim ? { claim } : {}) }], chunk);
      } catch (error) {
        if (claim) claimed = false;
        throw error;
      }
    };
    return {
      messageId,
      chunk: (block) => write(chunkUpdate(kind, messageId, block), true),
      replace: (content) => write(messageUpdate(kind, messageId, content), false),
    };
  }

  /**
   * Reports that foreground work started (or resumed after `requires_action`). A new turn (after
   * `idle`) gets a fresh cancel signal — already aborted if a prompt it runs was cancelled before
   * the turn started.
   */
  async running(): Promise<void> {
    this.#turns.running();
    await this.update({ sessionUpdate: 'state_update', state: 'running' });
  }

  /**
   * Reports that foreground work ended, with why and, when known, its token usage. With stop
   * reason `error`, `error` says what failed (the prompt's response was already sent, so a failure
   * after insertion is reported here).
   */
  async idle(stopReason?: StopReason, usage?: Usage, error?: JsonRpcError): Promise<void> {
    this.#turns.activity = 'idle';
    try {
      await this.update({
        sessionUpdate: 'state_update',
        state: 'idle',
        ...(stopReason === undefined ? {} : { stopReason }),
        ...(usage === undefined ? {} : { usage }),
        ...(error === undefined ? {} : { error }),
      });
    } finally {
      // A turn started again (running() while this idle was written) stays open.
      if (this.#turns.activity === 'idle') {
        this.#turns.turnHere = false;
        this.#wakeIdleWaiters();
      }
    }
  }

  /**
   * @internal Sends one client the session's current state (after a resume, so the client does not
   * take the resume response for `idle`).
   */
  async sendStateTo(
    peer: ClientPeer,
    state: SessionActivity = this.#turns.reported,
    background: readonly BackgroundWork[] | undefined = this.reportedBackground,
  ): Promise<void> {
    const update: KnownSessionUpdate = {
      sessionUpdate: 'state_update',
      state,
      ...(background === undefined ? {} : { background: [...background] }),
    };
    await this.sendTo(peer, update);
  }

  /** Reports that the work is blocked on the user. */
  async requiresAction(): Promise<void> {
    this.#turns.requiresAction();
    await this.update({ sessionUpdate: 'state_update', state: 'requires_action' });
  }

  /**
   * @internal `session/cancel`: applies to the work pending or running when it arrives — the
   * running turn's signal aborts, and a prompt received or inserted but whose turn has not started
   * yet starts its turn already cancelled. With nothing pending or running it does nothing.
   */
  cancel(): void {
    this.#turns.cancel();
  }

  /** @internal The session's tool calls and terminals, for `tool_call/cancel` and `terminal/cancel`. */
  get work(): WorkRegistry {
    return this.#work;
  }

  /**
   * Starts a tool call and reports it (`tool_call_update` with `fields`); the handle reports its
   * progress. Retained and replayed by `session/resume` under its `toolCallId`. With
   * `cancellable`, the client may stop it with `tool_call/cancel` (the handle's signal aborts).
   */
  toolCall(fields: ToolCallFields = {}, options: ToolCallOptions = {}): Promise<ToolCallHandle> {
    return this.#work.toolCall(this, fields, options);
  }

  /**
   * Opens a display terminal (`terminal_update`), whose output the agent streams with
   * `output()` (`terminal_output_chunk`). Nothing runs on the client: the agent shows output it
   * produced. Retained and replayed under its `terminalId`.
   */
  terminal(fields: TerminalFields = {}, options: TerminalOptions = {}): Promise<TerminalHandle> {
    return this.#work.terminal(this, fields, options);
  }

  /**
   * Starts reporting a compaction of the session's context (`compaction_update`, `in_progress`
   * unless `fields` says otherwise); the handle streams its summary and reports how it ended.
   * Retained and replayed by `session/resume` under its `compactionId`.
   */
  compaction(
    fields: Partial<CompactionFields> = {},
    options: CompactionOptions = {},
  ): Promise<CompactionHandle> {
    return startCompaction(this, fields, options);
  }

  /** Replaces the session's plan (`plan_update`, retained). */
  plan(plan: PlanContent): Promise<void> {
    return this.update({ sessionUpdate: 'plan_update', plan });
  }

  /** Reports context-window usage and cost (`usage_update`, retained). */
  usage(usage: Omit<UsageUpdate, 'sessionUpdate'>): Promise<void> {
    return this.update({ sessionUpdate: 'usage_update', ...usage } as UsageUpdate);
  }

  /** Shows the user a notice (`notice`, retained). */
  notice(notice: Omit<Notice, 'sessionUpdate'>): Promise<void> {
    return this.update({ sessionUpdate: 'notice', ...notice } as Notice);
  }

  /**
   * Sets what `session/list` says about the session — its title (`null` clears it) — and tells
   * attached clients (`session_info_update`, retained).
   */
  async setTitle(title: string | null): Promise<void> {
    await this.following();
    const record = await this.#log.updateSession(this.id, { title });
    await this.update({ sessionUpdate: 'session_info_update', title, updatedAt: record.updatedAt });
  }

  /** The session's configuration options with their current values (as last set). */
  async configOptions(): Promise<SessionConfigOption[]> {
    return [...(settingsOf(await this.#log.getSession(this.id)).configOptions ?? [])];
  }

  /**
   * Replaces the session's configuration options (kept in the session directory, so they survive
   * a restart) and tells attached clients (`config_option_update`, retained).
   */
  async setConfigOptions(configOptions: readonly SessionConfigOption[]): Promise<void> {
    await this.following();
    await updateSettings(this.#log, this.id, () => ({ configOptions }));
    await this.update({ sessionUpdate: 'config_option_update', configOptions: [...configOptions] });
  }

  /** The commands available in the session (as last set). */
  async availableCommands(): Promise<AvailableCommand[]> {
    return [...(settingsOf(await this.#log.getSession(this.id)).availableCommands ?? [])];
  }

  /**
   * Replaces the commands available in the session (kept in the directory, returned by
   * `session/resume`) and tells attached clients (`available_commands_update`, retained).
   */
  async setAvailableCommands(commands: readonly AvailableCommand[]): Promise<void> {
    await this.following();
    await updateSettings(this.#log, this.id, () => ({ availableCommands: commands }));
    await this.update({ sessionUpdate: 'available_commands_update', availableCommands: [...commands] });
  }

  /**
   * Asks the user for structured input (`elicitation/create`): a form, or a URL to open. Only
   * clients that advertised the mode in `initialize` are asked — `options.client` first, another
   * attached one if it goes away. While the question is pending the session reports
   * `requires_action`. Resolves with the client's answer, or `{ action: 'cancel' }` when no
   * client can answer or `options.signal` (default: the turn's signal) aborts — the request is
   * then withdrawn with `$/cancel_request`.
   */
  async elicit(
    request: FormElicitation | UrlElicitation,
    options: ElicitOptions = {},
  ): Promise<CreateElicitationResponse> {
    const signal = options.signal ?? this.signal;
    // Asked during a turn, the turn waits on the user; asked while idle, nothing is reported.
    const blocking = this.#turns.activity !== 'idle';
    if (blocking) this.#permissionsPending += 1;
    try {
      if (blocking && this.#permissionsPending === 1 && this.#turns.activity !== 'requires_action') {
        await this.requiresAction();
      }
      return await askClients(this.id, request, () => this.#delivery.peers(), signal, options);
    } finally {
      if (blocking) {
        this.#permissionsPending -= 1;
        if (this.#permissionsPending === 0 && this.#turns.activity === 'requires_action')
          await this.running();
      }
    }
  }

  /** Tells attached clients that a URL elicitation finished (`elicitation/complete`). */
  async completeElicitation(elicitationId: string): Promise<void> {
    await Promise.all(
      [...this.#delivery.peers()]
        .filter((peer) => peer.open && peer.notification !== undefined)
        .map((peer) => peer.notification!('elicitation/complete', { elicitationId }).catch(() => undefined)),
    );
  }

  /**
   * Asks a client for permission. While the request is pending the session reports
   * `requires_action`; once answered it reports `running` again. `preferred` is the client to
   * ask (normally the one whose prompt started the work). A client that leaves never freezes the
   * session: when the one asked has gone — also while the request is pending — the request is
   * asked of the next attached client not asked yet, and with none left (or once the turn's signal
   * aborts) it resolves `{ outcome: { outcome: 'cancelled' } }`, so the work goes on to its stop
   * reason. An answer that is not a permission outcome fails with -32603.
   */
  async requestPermission(
    params: Omit<RequestPermissionRequest, 'sessionId'>,
    preferred?: ClientPeer,
  ): Promise<RequestPermissionResponse> {
    this.#permissionsPending += 1;
    const signal = this.signal;
    const asked = new Set<ClientPeer>();
    try {
      for (;;) {
        const peer =
          preferred?.open && this.#delivery.isAttached(preferred) && !asked.has(preferred)
            ? preferred
            : [...this.#delivery.peers()].find((candidate) => candidate.open && !asked.has(candidate));
        if (!peer || signal.aborted) return { outcome: { outcome: 'cancelled' } };
        asked.add(peer);
        if (this.#permissionsPending === 1 && this.#turns.activity !== 'requires_action')
          await this.requiresAction();
        try {
          const answer = peer.request(
            'session/request_permission',
            { ...params, sessionId: this.id },
            signal,
          );
          // On cancel the request is withdrawn ($/cancel_request); the work does not wait for the
          // client to acknowledge that.
          const response = await Promise.race([answer, aborted(signal)]);
          if (!isPermissionResponse(response)) {
            throw new RpcError(
              ErrorCodes.InternalError,
              'The client answered the permission request without an outcome.',
            );
          }
          return response;
        } catch (error) {
          if (signal.aborted) return { outcome: { outcome: 'cancelled' } };
          // The client went away while asked: ask another one, if any is attached.
          if (!peer.open) continue;
          throw error;
        }
      }
    } finally {
      this.#permissionsPending -= 1;
      if (this.#permissionsPending === 0 && this.#turns.activity === 'requires_action') await this.running();
    }
  }
}

function isActivity(value: unknown): value is SessionActivity {
  return value === 'idle' || value === 'running' || value === 'requires_action';
}

function isPermissionResponse(value: unknown): value is RequestPermissionResponse {
  const outcome = (value as { outcome?: { outcome?: unknown } } | null)?.outcome;
  return typeof outcome === 'object' && outcome !== null && typeof outcome.outcome === 'string';
}

/**
 * The activity the log last reported, looking back a few pages from `lastSeq` (idle if none), and
 * the background list that state update carried (undefined if it carried none).
 */
async function lastState(
  log: SessionLog,
  sessionId: SessionId,
  lastSeq: number,
): Promise<{ activity: SessionActivity; background?: BackgroundWork[] }> {
  let end = lastSeq;
  for (let pages = 0; end > 0 && pages < ACTIVITY_LOOKBACK_PAGES; pages++) {
    const from = Math.max(0, end - 1024);
    const page = await log.read(sessionId, { afterSeq: from, limit: end - from });
    for (let i = page.entries.length - 1; i >= 0; i--) {
      const update = page.entries[i]!.update as {
        sessionUpdate: string;
        state?: unknown;
        background?: unknown;
      };
      if (update.sessionUpdate === 'state_update' && isActivity(update.state)) {
        return Array.isArray(update.background)
          ? { activity: update.state, background: update.background as BackgroundWork[] }
          : { activity: update.state };
      }
    }
    end = from;
  }
  return { activity: 'idle' };
}

/** Log entries for a message's report; the first claims its ID. */
function claimFirst(
  kind: MessageKind,
  messageId: MessageId,
  updates: readonly SessionUpdate[],
  retain: boolean,
): NewLogEntry[] {
  return updates.map((update, i) => ({
    update,
    retain,
    ...(i === 0 ? { claim: { kind, messageId } } : {}),
  }));
}

/** The updates that report a message: one whole update, or a reset followed by one chunk per block. */
function reportUpdates(
  kind: MessageKind,
  messageId: MessageId,
  content: readonly ContentBlock[],
  via: ReplayVia,
): SessionUpdate[] {
  if (via === 'full') return [messageUpdate(kind, messageId, content)];
  return [
    messageUpdate(kind, messageId, []),
    ...content.map((block): SessionUpdate => chunkUpdate(kind, messageId, block)),
  ];
}

/** Resolves with a `cancelled` outcome once `signal` aborts (never, if it never does). */
function aborted(signal: AbortSignal): Promise<RequestPermissionResponse> {
  const cancelled: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };
  if (signal.aborted) return Promise.resolve(cancelled);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(cancelled), { once: true }));
}

/**
 * Lifts Node's listener-count warning on `controller`'s signal: every prompt waiting for insertion
 * listens for the session's close (and stops listening once it settles), so a session with more
 * than ten prompts pending at once is normal, not a leak.
 */
function unboundedListeners(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}
