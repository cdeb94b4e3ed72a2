import type { BridgeLossListener } from '../bridge-loss.js';
import type {
  AvailableCommand,
  RequestPermissionResponse as V2RequestPermissionResponse,
  SessionUpdate as V2SessionUpdate,
  Usage as V2Usage,
} from '@acp-kit/schema';
import { type AgentSession, type ClientPeer, ErrorCodes, type PendingPrompt, RpcError } from '@acp-kit/sdk';
import type { AdapterSession } from '@acp-kit/sdk/adapter';
import {
  v1ToV2ContentBlock,
  v1ToV2RequestPermissionRequest,
  v1ToV2ToolCall,
  v1ToV2StopReason,
  v2ToV1ContentBlock,
  v2ToV1RequestPermissionResponse,
} from '../generated/compat/converters.js';
import type * as V1 from '../generated/v1/types.js';
import { convertParams } from '../compat-error.js';
import type { MessageTracker } from './message-tracker.js';
import { RecentIds } from './recent-ids.js';
import { SessionOptions } from './session-options.js';
import { SessionPaths } from './session-paths.js';
import { v1UpdateToV2 } from './update-to-v2.js';
import type { V1Chunk } from './message-tracker.js';
import { messageChunkToV2, replayedToV2 } from './update-converters.js';
import { UPDATES_TO_V2 } from '../generated/compat/update-to-v2.js';

/** The error a prompt gets when the bridge cannot record message IDs. */
function ledgerError(error: unknown): RpcError {
  const reason = error instanceof Error ? error.message : String(error);
  return new RpcError(ErrorCodes.InternalError, `The bridge cannot record message IDs: ${reason}`);
}

/** What a bridged session needs from the bridge: the v1 agent and how to explain its failures. */
export interface V1AgentLink {
  prompt(params: V1.PromptRequest): Promise<V1.PromptResponse>;
  cancel(params: V1.CancelNotification): Promise<void>;
  toBridgeError(error: unknown): RpcError;
  /** Told what of a v1 update had no v2 form and was left out. */
  onLoss?: BridgeLossListener;
}

interface Turn {
  readonly prompt: PendingPrompt;
  readonly peer: ClientPeer;
  inserted: boolean;
  /** The prompt was refused because its ID could not be recorded: the turn's updates go nowhere. */
  refused?: boolean;
  /** A v2 client cancelled the session while this turn ran. */
  cancelled?: boolean;
}

interface Held {
  readonly prompt: PendingPrompt;
  readonly peer: ClientPeer;
  readonly onAbort: () => void;
}

interface Replay {
  /** The client the replay goes to; undefined when the bridge only counts (resume without replay). */
  readonly peer: ClientPeer | undefined;
}

/** How many tool call IDs a session remembers as announced (older ones may be announced again). */
export const KNOWN_TOOL_CALLS = 4096;

/** The v1 message chunk kinds (those the mapping hands to `messageChunkToV2`): the updates that do not end a run of chunks. */
const CHUNK_KINDS: ReadonlySet<string> = new Set(
  Object.entries(UPDATES_TO_V2)
    .filter(([, entry]) => entry.convert === messageChunkToV2)
    .map(([kind]) => kind),
);

/**
 * One v1 session seen through v2: the v2 side is the SDK's adapter seam, an {@link AdapterSession}
 * (its {@link AgentSession} reports through the session log), the v1 side the
 * agent's updates and prompt responses. Everything the v1 agent says about the session is
 * applied in arrival order on one queue, so insertion, updates and the end of a turn can never
 * overtake each other.
 *
 * Insertion evidence for the running turn's prompt, whichever comes first: the agent's
 * `user_message_chunk` echo (its `messageId` is reused when it has one), any other update of the
 * turn (including a permission request), or the v1 prompt response. Never earlier.
 */
export class BridgedSession {
  /** The v2 side: clients, replays and prompts (the SDK's adapter seam). */
  readonly adapter: AdapterSession;
  /** The v2 session updates, activity and permission requests are reported through. */
  readonly agentSession: AgentSession;
  readonly #tracker: MessageTracker;
  readonly #link: V1AgentLink;
  #chain: Promise<void> = Promise.resolve();
  readonly #held: Held[] = [];
  #turn: Turn | undefined;
  #replay: Replay | undefined;
  /** The session's modes and configuration options, as the v1 agent last reported them. */
  readonly options = new SessionOptions();
  /**
   * The directories the bridge's client services reach for this session (its cwd and the
   * additionalDirectories its client gave), replaced by each session/new, fork or resume.
   */
  paths: SessionPaths;
  /** The commands the v1 agent last announced (v2 form), for session/resume answers. */
  commands: AvailableCommand[] | undefined;
  /** The tool calls v2 clients were shown (by a v1 tool_call or tool_call_update), the latest ones. */
  readonly #toolCalls = new RecentIds(KNOWN_TOOL_CALLS);
  /** Open permission requests, answered `cancelled` by {@link BridgedSession.cancel}. */
  readonly #withdraw = new Set<() => void>();
  /** Waiting for the current turn to end (see {@link BridgedSession.cancelForClose}). */
  readonly #turnEnded = new Set<() => void>();
  /** The v2 clients following this session through the bridge. */
  readonly #followers = new Set<ClientPeer>();
  /**
   * The subagents the v1 agent announced here (`subagent_update`) that the bridge opened: whoever
   * follows this session follows them too, as v1 delivers a child's updates to the parent's client
   * with no load or resume.
   */
  readonly #children = new Set<BridgedSession>();
  /**
   * The session's place among subagents, as the SDK's subagent guard reads it: the parent that
   * announced it (none for an ordinary session) and whether the parent's latest `subagent_update`
   * lets clients cancel its work.
   */
  readonly family: { parent: BridgedSession | undefined; cancellable: boolean } = {
    parent: undefined,
    cancellable: false,
  };

  /** The session takes its first task once the adapter is ready (its history record exists). */
  constructor(adapter: AdapterSession, tracker: MessageTracker, link: V1AgentLink) {
    this.adapter = adapter;
    this.agentSession = adapter.session;
    this.#tracker = tracker;
    this.#link = link;
    this.paths = new SessionPaths(adapter.session.cwd);
    this.#chain = adapter.ready
      .then(() => tracker.load())
      .then(
        () => undefined,
        (error: unknown) => {
          this.#broken = error;
        },
      );
  }

  /** Why the session cannot issue message IDs (its ledger could not be read), if it cannot. */
  #broken: unknown;

  /** The session's ID (the v1 agent's own). */
  get id(): string {
    return this.agentSession.id;
  }

  /** The session's working directory. */
  get cwd(): string {
    return this.agentSession.cwd;
  }

  /** Runs a task after everything queued before it; a failing task does not stop the queue. */
  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const next = this.#chain.then(task);
    this.#chain = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  /** Applies one `session/update` from the v1 agent; settles once it was (never rejects). */
  fromV1(update: V1.SessionUpdate): Promise<void> {
    return this.#enqueue(() => this.#apply(update)).catch(() => undefined);
  }

  /** Holds this session's later work until `done` settles (a child behind its announcement). */
  after(done: Promise<void>): void {
    this.#enqueue(() => done).catch(() => undefined);
  }

  /** Attaches a v2 client to this session and to the subagents under it. */
  follow(peer: ClientPeer): void {
    this.adapter.attach(peer);
    this.#followers.add(peer);
    for (const child of this.#children) child.follow(peer);
  }

  /** Detaches a v2 client from this session and from the subagents under it. */
  unfollow(peer: ClientPeer): void {
    this.adapter.detach(peer);
    this.#followers.delete(peer);
    for (const child of this.#children) child.unfollow(peer);
  }

  /** Takes a newly opened session as a subagent of this one: its followers follow it from now on. */
  adopt(child: BridgedSession): void {
    child.family.parent = this;
    this.#children.add(child);
    for (const peer of this.#followers) child.follow(peer);
  }

  /** The subagents announced here that the bridge opened. */
  get children(): ReadonlySet<BridgedSession> {
    return this.#children;
  }

  /**
   * Reports an update of the bridge's own (not the v1 agent's) in order: after every v1 update
   * that arrived before it, as the v1 agent sent them. Settles once reported; rejects with the
   * session log's error.
   */
  report(update: V2SessionUpdate): Promise<void> {
    return this.#enqueue(() => this.agentSession.update(update));
  }

  /**
   * Runs a report of the bridge's own (a file write or a terminal it serves the v1 agent) after
   * every v1 update that arrived before it. A client request from the agent is evidence that the
   * running turn's prompt was taken, as a permission request is: the prompt is inserted first.
   * It does not end a run of message chunks (the v1 agent's replay will not hold the report, so
   * the chunks around it stay one message). Resolves undefined without reporting when the turn's
   * prompt was refused or the session cannot issue message IDs.
   */
  inTurn<T>(report: (session: AgentSession) => Promise<T>): Promise<T | undefined> {
    return this.#enqueue(async () => {
      if (this.#broken !== undefined) return undefined;
      const turn = this.#turn;
      if (turn !== undefined && !turn.inserted && !turn.refused) await this.#insert(turn);
      if (turn?.refused) return undefined;
      return report(this.agentSession);
    });
  }

  async #apply(update: V1.SessionUpdate): Promise<void> {
    if (this.#broken !== undefined) return;
    if (this.#replay !== undefined) return this.#applyReplay(update, this.#replay);
    const turn = this.#turn;
    if (turn?.refused) return;
    if (turn !== undefined && !turn.inserted) {
      if (update.sessionUpdate === 'user_message_chunk') {
        const echo = update as V1.UserMessageChunk;
        const { messageId } = this.#tracker.chunk('user_message', echo.messageId, echo.content);
        await this.#insert(turn, messageId);
        if (!turn.inserted) return;
        // The agent's echo is authoritative: it replaces the submitted content just reported.
        await this.agentSession.update({
          sessionUpdate: 'user_message',
          messageId,
          content: [v1ToV2ContentBlock(echo.content)],
        });
        return;
      }
      await this.#insert(turn);
      if (!turn.inserted) return;
    }
    const converted = this.#convert(update, false);
    await this.#tracker.persist();
    for (const u of converted) await this.agentSession.update(u);
  }

  async #applyReplay(update: V1.SessionUpdate, replay: Replay): Promise<void> {
    // A replayed message is held until its ID is decided (by content: see MessageTracker).
    const converted = CHUNK_KINDS.has(update.sessionUpdate)
      ? this.#tracker.replayChunk(update as V1Chunk).flatMap(replayedToV2)
      : [...this.#tracker.replayBreak().flatMap(replayedToV2), ...this.#convert(update, true)];
    await this.#tracker.persist();
    if (replay.peer === undefined) return;
    for (const u of converted) await this.adapter.replayTo(replay.peer, u);
  }

  /** v2 updates for one v1 update; in a replay a new message first gets `content: []` (RFD). */
  #convert(update: V1.SessionUpdate, replaying: boolean): V2SessionUpdate[] {
    const kind = update.sessionUpdate;
    if (!CHUNK_KINDS.has(kind)) this.#tracker.breakRun();
    if (kind === 'tool_call' || kind === 'tool_call_update')
      this.#toolCalls.add((update as V1.ToolCallUpdate).toolCallId);
    const converted = v1UpdateToV2(update, {
      tracker: this.#tracker,
      options: this.options,
      replaying,
      leftOut: (pointer, reason) => this.#link.onLoss?.({ sessionId: this.id, in: kind, pointer, reason }),
    });
    for (const u of converted)
      if (u.sessionUpdate === 'available_commands_update')
        this.commands = (u as { availableCommands: AvailableCommand[] }).availableCommands;
    return converted;
  }

  /**
   * Settles the turn's prompt as inserted and reports the turn running. The ID is in the ledger
   * before the receipt goes out; when it cannot be recorded the prompt fails instead (and the
   * turn's updates go nowhere, as nothing was inserted).
   */
  async #insert(turn: Turn, messageId?: string): Promise<void> {
    const id = messageId ?? this.#tracker.startPrompt();
    try {
      await this.#tracker.persist();
    } catch (error) {
      turn.refused = true;
      if (turn.prompt.state === 'pending') turn.prompt.reject(ledgerError(error));
      return;
    }
    turn.inserted = true;
    if (turn.prompt.state === 'pending') {
      // Not retained by the bridge: the v1 agent keeps the history and replays it on session/load.
      await turn.prompt.insert({ messageId: id, retain: false }).catch(() => undefined);
    }
    await this.agentSession.running();
  }

  /** Takes a v2 prompt: sent to the v1 agent now, or held until its current turn ends. */
  submit(prompt: PendingPrompt, peer: ClientPeer): void {
    const onAbort = (): void => {
      const index = this.#held.findIndex((h) => h.prompt === prompt);
      if (index < 0) return;
      this.#held.splice(index, 1);
      if (prompt.state === 'pending') {
        prompt.reject(
          new RpcError(ErrorCodes.RequestCancelled, 'The prompt was cancelled before the v1 agent took it.'),
        );
      }
    };
    prompt.signal.addEventListener('abort', onAbort, { once: true });
    this.#held.push({ prompt, peer, onAbort });
    this.#enqueue(async () => this.#startNext()).catch(() => undefined);
  }

  #startNext(): void {
    if (this.#turn !== undefined) return;
    const next = this.#held.shift();
    if (next === undefined) return;
    next.prompt.signal.removeEventListener('abort', next.onAbort);
    if (this.#broken !== undefined) {
      if (next.prompt.state === 'pending') next.prompt.reject(ledgerError(this.#broken));
      this.#startNext();
      return;
    }
    // Converted before the turn starts: a block with no v1 form (an unknown content type, which a
    // v2 receiver must accept) refuses this prompt with -32602 and its pointer, and the next one runs.
    let v1Prompt: V1.ContentBlock[];
    try {
      v1Prompt = convertParams(() => next.prompt.content.map((b) => v2ToV1ContentBlock(b)), '/params/prompt');
    } catch (error) {
      if (next.prompt.state === 'pending') next.prompt.reject(this.#link.toBridgeError(error));
      this.#startNext();
      return;
    }
    const turn: Turn = { prompt: next.prompt, peer: next.peer, inserted: false };
    this.#turn = turn;
    // The bridge knows what it forwards: the prompt anchors the conversation for replays.
    this.#tracker.beginTurn(v1Prompt);
    this.#link.prompt({ sessionId: this.id, prompt: v1Prompt }).then(
      (result) => this.#enqueue(() => this.#finish(turn, result)),
      (error: unknown) => this.#enqueue(() => this.#fail(turn, error)),
    );
  }

  async #finish(turn: Turn, result: V1.PromptResponse): Promise<void> {
    if (!turn.inserted && !turn.refused) await this.#insert(turn);
    this.#tracker.breakRun();
    await this.#tracker.persist().catch(() => undefined);
    this.#turn = undefined;
    if (!turn.inserted) {
      // The prompt was refused (its ID could not be recorded): there is no turn to end.
      this.#wakeTurnEnded();
      this.#startNext();
      return;
    }
    // The bridge is the agent the v2 client talks to: once it has accepted a cancel for this turn,
    // the turn ends `cancelled`, even if the v1 agent finished before the cancel reached it.
    const stopReason = v1ToV2StopReason(result.stopReason);
    // v1's unstable PromptResponse.usage has the v2 Usage shape: it becomes the idle state's usage.
    const usage = result.usage ?? undefined;
    await this.agentSession.idle(
      turn.cancelled && stopReason === 'end_turn' ? 'cancelled' : stopReason,
      usage as V2Usage | undefined,
    );
    this.#wakeTurnEnded();
    this.#startNext();
  }

  async #fail(turn: Turn, error: unknown): Promise<void> {
    this.#tracker.breakRun();
    this.#turn = undefined;
    if (!turn.inserted) {
      if (turn.prompt.state === 'pending') turn.prompt.reject(this.#link.toBridgeError(error));
    } else if (turn.cancelled) {
      // The v2 client cancelled this turn and the v1 agent then failed it (its cancelled work
      // surfacing as an error): the turn ends cancelled, as upstream's draft asks of an agent whose
      // cancelled work throws, not as a failure.
      await this.agentSession.idle('cancelled');
    } else {
      // The v1 agent failed after taking the prompt: its receipt is out, so the failure is the
      // turn's outcome (v2 stop reason error) rather than an answer to the prompt.
      // The v1 error's data (often the agent's own reason, e.g. the network failure) is kept.
      const { code, message, data } = this.#link.toBridgeError(error);
      await this.agentSession.idle('error', undefined, {
        code,
        message,
        ...(data === undefined ? {} : { data }),
      });
    }
    this.#wakeTurnEnded();
    this.#startNext();
  }

  #wakeTurnEnded(): void {
    for (const wake of this.#turnEnded) wake();
    this.#turnEnded.clear();
  }

  /**
   * v2 `session/close` of this session: cancels it as {@link cancel} does, then resolves once the
   * turn running then has ended — its `idle`, `cancelled` unless the v1 agent had already finished,
   * written to the session's clients — or at once when `signal` aborts (the close was withdrawn,
   * or its client left). The v1 agent ends a cancelled turn by answering its prompt.
   */
  async cancelForClose(signal: AbortSignal): Promise<void> {
    const running = this.#turn !== undefined;
    await this.cancel();
    if (!running || this.#turn === undefined || signal.aborted) return;
    let wake = (): void => undefined;
    const ended = new Promise<void>((resolve) => {
      wake = resolve;
      this.#turnEnded.add(resolve);
    });
    const onAbort = (): void => wake();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await ended;
    } finally {
      this.#turnEnded.delete(wake);
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** v2 `session/cancel`: held prompts are dropped (nothing inserted), the v1 turn is cancelled. */
  async cancel(): Promise<void> {
    for (const held of this.#held.splice(0)) {
      held.prompt.signal.removeEventListener('abort', held.onAbort);
      if (held.prompt.state === 'pending') {
        held.prompt.reject(
          new RpcError(
            ErrorCodes.RequestCancelled,
            'The session was cancelled before the v1 agent took this prompt.',
          ),
        );
      }
    }
    if (this.#turn) this.#turn.cancelled = true;
    // Aborts the session's signal: a permission request still open on the v2 side is withdrawn
    // and answers the v1 agent `cancelled`, as v1 expects after session/cancel.
    this.adapter.cancel();
    for (const withdraw of this.#withdraw) withdraw();
    await this.#link.cancel({ sessionId: this.id });
  }

  /** The v1 agent is gone: prompts it never took fail with the reason. */
  failHeld(error: RpcError): void {
    for (const held of this.#held.splice(0)) {
      if (held.prompt.state === 'pending') held.prompt.reject(error);
    }
  }

  /**
   * A v1 permission request is an update of the running turn (so evidence of insertion); it is
   * asked of the client whose prompt started the turn, with `requires_action` while it waits.
   */
  async requestPermission(params: V1.RequestPermissionRequest): Promise<V1.RequestPermissionResponse> {
    let peer: ClientPeer | undefined;
    let refused = false;
    await this.#enqueue(async () => {
      const turn = this.#turn;
      if (turn !== undefined && !turn.inserted && !turn.refused) await this.#insert(turn);
      refused = turn?.refused === true;
      this.#tracker.breakRun();
      peer = turn?.peer;
      // A tool call first named here (no tool_call before it, as several agents do) is announced
      // first, so the conversation shows it like any other, not only inside the request.
      const toolCallId = params.toolCall.toolCallId;
      if (!refused && !this.#toolCalls.has(toolCallId)) {
        this.#toolCalls.add(toolCallId);
        const { status, ...fields } = v1ToV2ToolCall(params.toolCall);
        await this.agentSession
          .update({ sessionUpdate: 'tool_call_update', ...fields, status: status ?? 'pending' })
          .catch(() => undefined);
      }
    });
    // Nothing was inserted for this turn: no client may be asked on its behalf.
    if (refused) return { outcome: { outcome: 'cancelled' } };
    const { sessionId: _sessionId, ...request } = v1ToV2RequestPermissionRequest(params);
    // v1 expects its client to answer open permission requests `cancelled` right after
    // session/cancel; the bridge does so itself instead of waiting for the v2 client.
    let withdraw!: () => void;
    const withdrawn = new Promise<V2RequestPermissionResponse>((resolve) => {
      withdraw = () => resolve({ outcome: { outcome: 'cancelled' } });
    });
    this.#withdraw.add(withdraw);
    try {
      const response = await Promise.race([this.agentSession.requestPermission(request, peer), withdrawn]);
      return v2ToV1RequestPermissionResponse(response);
    } finally {
      this.#withdraw.delete(withdraw);
    }
  }

  /**
   * Runs a v1 `session/load`: every update it replays goes only to `peer` (or nowhere when the
   * bridge just recounts positions), with message positions counted from the start again.
   */
  async load<T>(peer: ClientPeer | undefined, run: () => Promise<T>): Promise<T> {
    await this.#enqueue(async () => {
      if (this.#broken !== undefined) throw ledgerError(this.#broken);
      this.#tracker.beginReplay();
      this.#replay = { peer };
      if (peer !== undefined) this.adapter.attach(peer, { replay: true });
    });
    try {
      return await run();
    } finally {
      // Queued behind every update the load replayed, which arrived before its response.
      await this.#enqueue(async () => {
        const last = this.#tracker.endReplay().flatMap(replayedToV2);
        await this.#tracker.persist();
        const to = this.#replay?.peer;
        this.#replay = undefined;
        if (to !== undefined) for (const u of last) await this.adapter.replayTo(to, u);
      });
      if (peer !== undefined) await this.adapter.endReplay(peer);
    }
  }
}
