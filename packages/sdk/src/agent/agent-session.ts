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
  SessionUpdate,
  StopReason,
  SystemPrompt,
  Usage,
} from '@acp-kit/schema';
import type { MessageKind, ReplayVia } from '../history/history-store.js';
import type { LogEntry, SessionLog } from '../history/session-log.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { type AgentSessionOptions, DEFAULT_MAX_HELD, type InsertContext } from './agent-session-options.js';
import { SessionAsks } from './asks/session-asks.js';
import { BackgroundReport } from './work/background-report.js';
import type { ClientPeer } from './connection/client-peer.js';
import {
  type CompactionFields,
  type CompactionHandle,
  type CompactionOptions,
  startCompaction,
} from './work/compaction.js';
import type { ElicitOptions, FormElicitation, UrlElicitation } from './asks/elicitation.js';
import { isActivity } from './delivery/last-state.js';
import { LogFollower } from './delivery/log-follower.js';
import type { InsertOptions } from './turns/pending-prompt.js';
import { settingsOf, updateSettings } from './sessions/session-settings.js';
import {
  type OutgoingMessage,
  type OutgoingMessageOptions,
  SessionAppender,
} from './writing/session-appender.js';
import { SessionDelivery } from './delivery/session-delivery.js';
import { SubagentFamily, type SubagentOptions, type SubagentPatch } from './sessions/subagents.js';
import { mirroredState, SubagentAnnouncements, subagentPatch } from './sessions/subagent-announcements.js';
import { closeController } from './sessions/close-controller.js';
import { IdleWaiters, unlessWithdrawn } from './turns/idle-waiters.js';
import { idleUpdate, stateSnapshot } from './turns/state-updates.js';
import { type SessionActivity, TurnTracker } from './turns/turn-tracker.js';
import { refuseUnstableUpdate, unstableNotEnabled } from '../unstable-surface.js';
import {
  type TerminalFields,
  type TerminalHandle,
  type TerminalOptions,
  type ToolCallFields,
  type ToolCallHandle,
  type ToolCallOptions,
  WorkRegistry,
} from './work/tool-calls.js';

export type { SessionActivity } from './turns/turn-tracker.js';

export type { OutgoingMessage, OutgoingMessageOptions } from './writing/session-appender.js';

export type { AgentSessionOptions, InsertContext } from './agent-session-options.js';

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
  /** Appends to the log in call order, writing streamed chunks behind when the log suggests it. */
  readonly #appender: SessionAppender;
  /** The attached clients and the sends to them. */
  readonly #delivery: SessionDelivery;
  /** The turn and cancel state. */
  readonly #turns = new TurnTracker();
  readonly #closed = closeController();
  /** The subscription to the log, and the position it reached. */
  readonly #follower: LogFollower;
  /** Callers of {@link whenIdle} waiting for this process's turn to end. */
  readonly #idleWaiters = new IdleWaiters(
    () => !this.#turns.turnHere || this.#closed.signal.aborted || this.#follower.lost,
  );
  readonly #work = new WorkRegistry();
  /** The background list each state update carries, once the session reports background work. */
  readonly #background = new BackgroundReport(this.#work);
  /** The permission requests and elicitations asked, and the `requires_action` they report. */
  readonly #asks: SessionAsks;

  /** @internal The session's parent and children (subagents, unstable). */
  readonly family = new SubagentFamily();
  readonly #unstable: boolean;
  /** The subagents started here, until their announcement reached the attached clients. */
  readonly #subagents: SubagentAnnouncements;

  /** @internal Sessions are created by the agent. */
  constructor(id: SessionId, cwd: string, log: SessionLog, options: AgentSessionOptions = {}) {
    this.id = id;
    this.cwd = cwd;
    this.#log = log;
    this.#subagents = new SubagentAnnouncements(options.spawn);
    this.#unstable = options.unstable ?? false;
    this.#delivery = new SessionDelivery(id, options.maxHeldUpdates ?? DEFAULT_MAX_HELD);
    this.#asks = new SessionAsks(id, this.#delivery, this.#turns, {
      requiresAction: () => this.requiresAction(),
      running: () => this.running(),
    });
    this.#appender = new SessionAppender(
      id,
      log,
      this.#delivery,
      { following: () => this.following(), ready: () => this.#follower.ready },
      options.writeBehind,
    );
    this.#follower = new LogFollower(log, id, this.#closed.signal, {
      started: (last) => {
        this.#turns.fromLog(last.activity);
        if (last.background !== undefined) this.#background.fromLog(last.background);
      },
      entry: (entry) => this.#handOn(entry),
      moved: () => this.#idleWaiters.wake(),
    });
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
    return this.#background.reported;
  }

  /** The seq of the last log entry handed to attached clients. */
  get position(): number {
    return this.#follower.position;
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
    this.#follower.close();
    this.#delivery.detachAll();
    this.#idleWaiters.wake();
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
    return this.#idleWaiters.wait();
  }

  /**
   * @internal For `session/close` after a cancel: resolves once no turn is open here (see
   * {@link whenIdle}) and every attached client was handed the log up to its end then — the
   * turn's `idle` with its stop reason among it, whichever replica wrote it — or at once when
   * `signal` aborts (the close request was withdrawn, or its client left).
   */
  async settledForClose(signal: AbortSignal): Promise<void> {
    await unlessWithdrawn(signal, async () => {
      await this.whenIdle();
      await this.following();
      const record = await this.#log.getSession(this.id);
      if (record !== undefined) await this.#follower.reached(record.lastSeq);
      await Promise.all([...this.#delivery.peers()].map((peer) => this.#delivery.released(peer)));
    });
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
    return this.#follower.following();
  }

  /** A log entry reached the session: it updates the activity and goes to every attached client. */
  #handOn(entry: LogEntry): void {
    const update = entry.update as { sessionUpdate: string; state?: unknown; background?: unknown };
    if (update.sessionUpdate === 'state_update' && isActivity(update.state)) {
      this.#turns.fromLog(update.state);
      if (Array.isArray(update.background)) this.#background.fromLog(update.background as BackgroundWork[]);
    }
    this.#delivery.deliver({ sessionId: this.id, update: entry.update }, entry.seq);
    // A child's announcement reached the attached clients: they follow the child too, and subagent() returns it.
    if (update.sessionUpdate === 'subagent_update')
      this.#subagents.announced(entry.update as { sessionId?: unknown }, this.family, () =>
        this.#delivery.peers(),
      );
  }

  /**
   * @internal The attached clients and the sends to them: a client attaches at the session's
   * position and receives every entry after it (with `hold`, they wait until `release`, while it
   * gets a replay); `sendTo` / `sendBatchTo` send it updates outside the log.
   */
  get clients(): SessionDelivery {
    return this.#delivery;
  }

  /**
   * Reports an update to every attached client by appending it to the log. State updates are
   * live-only by default; every other kind (tool calls, plans, usage, messages…) is retained for
   * replay unless `retain: false`. Resolves once the log has it — except a chunk (a `…_chunk`
   * update) on a log that writes behind ({@link AgentOptions.writeBehind}), which resolves once
   * it is queued within the limits; a failure to write it is thrown by the session's next update.
   */
  async update(update: SessionUpdate, options: { retain?: boolean } = {}): Promise<void> {
    if (!this.#unstable) refuseUnstableUpdate(update);
    const retain = options.retain ?? update.sessionUpdate !== 'state_update';
    if (update.sessionUpdate === 'state_update') update = this.#background.withList(update);
    await this.#appender.write([{ update, retain }], update.sessionUpdate.endsWith('_chunk'));
    // A subagent's state is mirrored on its parent (the parent's clients see the child's activity).
    const parent = this.family.parent;
    if (parent !== undefined && update.sessionUpdate === 'state_update')
      await parent.update(mirroredState(this.id, update));
  }

  /**
   * Starts a subagent (unstable, upstream's subagents draft): creates a child session in this
   * agent, announces it to this session's clients with a `subagent_update` (retained, so a resume
   * replays it), and resolves with the child once the announcement reached them — from then on they
   * follow the child with no `session/resume`, a resume of this session replays the child's history
   * too, and the child's state updates are mirrored on this session. Report the child's work on
   * the returned session like any other (`running()`, `agentMessage()`, `idle()`…). Clients may
   * not prompt, close or configure the child; with `cancellable` they may cancel its work.
   */
  async subagent(options: SubagentOptions = {}): Promise<AgentSession> {
    if (!this.#unstable) throw unstableNotEnabled('AgentSession.subagent() (subagent_update)', 'Agent');
    return this.#subagents.start(this, options, this.#closed.signal);
  }

  /**
   * Changes what this session reports about one of its subagents (`subagent_update` by the upsert
   * rules: omitted fields unchanged, `null` clears); `cancellable` changes whether the client may
   * cancel the child's work.
   */
  async patchSubagent(sessionId: SessionId, patch: SubagentPatch & { cancellable?: boolean }): Promise<void> {
    await this.update(subagentPatch(this.family, this.id, sessionId, patch));
  }

  /**
   * @internal The background list may have changed (a handle moved to the background or ended):
   * when it did, reports a state snapshot with the current activity and the new list — while idle
   * a repeated idle with no stop reason and no usage, which ends nothing.
   */
  async backgroundChanged(): Promise<void> {
    if (!this.#background.changed()) return;
    await this.update({ sessionUpdate: 'state_update', state: this.#turns.activity } as SessionUpdate);
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
    const { messageId, range } = await this.#appender.appendMessage('user_message', content, options);
    // Inserted while idle, the prompt's turn is the next one; inserted during a turn, it is that turn's.
    this.#turns.inserted(context.arrival);
    // The receipt follows the report: wait until the report was handed to the submitting client.
    await this.#follower.reached(range.last);
    if (context.peer !== undefined) await this.#delivery.released(context.peer);
    return messageId;
  }

  /**
   * @internal Resolves once the session handed every entry up to `seq` to `peer` (after its replay,
   * if it is receiving one): a receipt for a message another replica inserted follows its report.
   */
  async reportedTo(peer: ClientPeer, seq: number): Promise<void> {
    await this.#follower.reached(seq);
    await this.#delivery.released(peer);
  }

  /**
   * Reserves a fresh message ID without inserting anything. Holding an ID is not insertion: a
   * prompt is acknowledged only by `insert({ messageId })`, which may use the reserved ID later.
   */
  reserveMessageId(): Promise<MessageId> {
    return this.#log.nextMessageId(this.id);
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
    const { messageId } = await this.#appender.appendMessage(kind, content, {
      retain: options.retain ?? true,
      via: options.via ?? 'full',
      messageId: options.messageId,
    });
    return messageId;
  }

  /** Starts an agent message, streamed with chunks or replaced whole. */
  agentMessage(options: OutgoingMessageOptions = {}): Promise<OutgoingMessage> {
    return this.#appender.outgoing('agent_message', options);
  }

  /** Starts an agent thought (visible reasoning), streamed with chunks or replaced whole. */
  thought(options: OutgoingMessageOptions = {}): Promise<OutgoingMessage> {
    return this.#appender.outgoing('agent_thought', options);
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
      await this.update(idleUpdate(stopReason, usage, error));
    } finally {
      // A turn started again (running() while this idle was written) stays open.
      if (this.#turns.activity === 'idle') {
        this.#turns.turnHere = false;
        this.#idleWaiters.wake();
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
    await this.#delivery.sendTo(peer, stateSnapshot(state, background));
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

  /**
   * The system prompt the client gave the session (unstable: `systemPrompt` on `session/new`,
   * replaced by a resume or fork that carries one), or null: then the agent's own instructions
   * apply. In `override` mode it replaces the agent's built-in default instructions; in `append` it
   * is added to them.
   */
  async systemPrompt(): Promise<SystemPrompt | null> {
    return settingsOf(await this.#log.getSession(this.id)).systemPrompt ?? null;
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
   * clients that advertised the mode in `initialize` are asked — `options.client` first, every
   * other attached one at once if it goes away (the first answer wins). While the question is pending the session reports
   * `requires_action`. Resolves with the client's answer, or `{ action: 'cancel' }` when no
   * client can answer or `options.signal` (default: the turn's signal) aborts — the request is
   * then withdrawn with `$/cancel_request`.
   */
  async elicit(
    request: FormElicitation | UrlElicitation,
    options: ElicitOptions = {},
  ): Promise<CreateElicitationResponse> {
    return this.#asks.elicit(request, options, options.signal ?? this.signal);
  }

  /** Tells attached clients that a URL elicitation finished (`elicitation/complete`). */
  async completeElicitation(elicitationId: string): Promise<void> {
    await this.#asks.completeElicitation(elicitationId);
  }

  /**
   * Asks a client for permission. While the request is pending the session reports
   * `requires_action`; once answered it reports `running` again. `preferred` is the client to
   * ask (normally the one whose prompt started the work). A client that leaves never freezes the
   * session: when the one asked has gone — also while the request is pending — the request is
   * asked of every other attached client at once, the first answer winning and the request
   * withdrawn from the rest (so one silent client cannot keep the others from answering); with none
   * left (or once the turn's signal aborts) it resolves `{ outcome: { outcome: 'cancelled' } }`, so
   * the work goes on to its stop reason. An answer that is not a permission outcome fails with -32603.
   */
  async requestPermission(
    params: Omit<RequestPermissionRequest, 'sessionId'>,
    preferred?: ClientPeer,
  ): Promise<RequestPermissionResponse> {
    return this.#asks.requestPermission(params, preferred, this.signal);
  }
}
