import type {
  RequestPermissionRequest as V2RequestPermissionRequest,
  SessionId,
  ToolCallContent,
  SessionUpdate as V2SessionUpdate,
  UserMessageChunk as V2UserMessageChunk,
  UserMessageUpdate as V2UserMessageUpdate,
  Usage,
} from '@acp-kit/schema';
import type { BridgeLossListener } from '../bridge-loss.js';
import { CompatError } from '../compat-error.js';
import { v2ToV1RequestPermissionRequest } from '../generated/compat/converters.js';
import type * as V1 from '../generated/v1/types.js';
import type { TerminalShown } from './background-to-v1.js';
import { ChunkWriter } from './chunk-writer.js';
import { type TurnError, TurnWatcher } from './turn-watcher.js';
import { type LeftOut, type UpdateToV1Context, v2UpdateToV1 } from './update-to-v1.js';

/** Sends one v1 update to the v1 client; resolves when its transport took it. */
export type SendV1Update = (sessionId: SessionId, update: V1.SessionUpdate) => Promise<void> | void;

/** A v1 prompt not answered yet. */
export interface OpenPrompt {
  /** The v1 client cancelled the session while this prompt was open: `sent` at that moment. */
  cancelledAt: number | undefined;
}

/**
 * How a {@link SessionView} places updates in the session's stream: `'arrival'` numbers them as they
 * arrive (the process-level bridge, which sees only the wire); `'log'` takes each live update's seq
 * in the session log (the in-process codec, which the agent tells it), and gives updates sent outside
 * the log — a replay, the current state after a resume — no place at all, so they end no turn.
 */
export type StreamNumbering = 'arrival' | 'log';

/**
 * What the v2→v1 translation keeps per session: the positions of the session's v2 updates (by
 * arrival, or the log's seqs; {@link TurnWatcher} decides turn ends by them), the v1 chunks already
 * shown, and the v1 prompts still open. Shared by the process-level bridge and the in-process codec.
 */
export class SessionView {
  readonly turns = new TurnWatcher();
  readonly writer = new ChunkWriter();
  /** The tool calls the v1 client was shown, with their whole v2 content so far. */
  readonly toolCalls = new Map<string, ToolCallContent[]>();
  /** The terminals the agent reported (shown as v1 tool calls once in the background). */
  readonly terminals = new Map<string, TerminalShown>();
  /** User messages the v1 client submitted itself: it already shows them, so they are not echoed. */
  readonly ownMessages = new Set<string>();
  /** The position of the last update placed in the stream (by arrival: how many were received). */
  received = 0;
  /**
   * v1 prompts whose v2 response has not arrived (updates wait so the echo can be recognised), and
   * v1 prompts whose turn ended but whose answer has not gone out yet (updates after the idle wait
   * for it: see {@link answered}).
   */
  answering = 0;
  buffered: { seq: number; update: V2SessionUpdate }[] = [];
  /** A v1 session/load is replaying: everything goes out, the client's own prompts included. */
  loading = false;
  /** v1 prompts sent to the v2 side and not answered yet. */
  readonly open = new Set<OpenPrompt>();
  /** How many v1 prompts were sent to the v2 side so far. */
  sent = 0;
  /**
   * The session's state as its `state_update`s last said (`unknown` until one arrives; the
   * bridge sets `idle` for a session it created, which has run nothing yet).
   */
  state = 'unknown';
  readonly #onLoss: BridgeLossListener | undefined;
  readonly #numbering: StreamNumbering;
  readonly #capabilities: () => V1.ClientCapabilities | undefined;
  /** How many placeholder tool calls permission requests got. */
  #placeholders = 0;

  /**
   * `onLoss` is told what of an update had no v1 form and was left out (nothing is dropped
   * silently); `numbering` says where positions come from (default: arrival); `capabilities` gives
   * what the v1 client advertised in its `initialize` (a kind it did not ask for is not sent).
   */
  constructor(
    onLoss?: BridgeLossListener,
    numbering: StreamNumbering = 'arrival',
    capabilities: () => V1.ClientCapabilities | undefined = () => undefined,
  ) {
    this.#onLoss = onLoss;
    this.#numbering = numbering;
    this.#capabilities = capabilities;
  }

  /** Forgets what the v1 client was shown (it loads the session and starts from nothing). */
  startLoading(): void {
    this.writer.reset();
    this.toolCalls.clear();
    this.terminals.clear();
    this.loading = true;
  }

  /**
   * One v2 update of this session: placed in the stream (`logSeq` is its seq in the session log,
   * when the sender knows it), noted for turn ends, then translated and sent — or held while a v1
   * prompt waits for its v2 answer (so the prompt's own echo can be recognised). Returns what the
   * last send returned.
   */
  receive(
    sessionId: SessionId,
    update: V2SessionUpdate,
    send: SendV1Update,
    logSeq?: number,
  ): Promise<void> | void {
    const seq = this.#place(logSeq);
    if (seq === undefined) {
      // Outside the log: shown, but no turn starts or ends at it.
    } else if (update.sessionUpdate === 'user_message' || update.sessionUpdate === 'user_message_chunk') {
      this.turns.userMessage((update as V2UserMessageUpdate | V2UserMessageChunk).messageId, seq);
    } else if (update.sessionUpdate === 'state_update' && update.state === 'idle') {
      const idle = update as {
        stopReason?: V1.StopReason | null;
        error?: TurnError | null;
        usage?: Usage | null;
      };
      // A turn it ends is answered first: what follows waits until that answer went out
      // (see {@link answered}), so a v1 client sees background updates after its prompt's answer.
      if (this.#endsTurn(idle.stopReason))
        this.answering += this.turns.idle(idle.stopReason, seq, idle.error, idle.usage);
      else this.turns.saw(seq);
    } else {
      this.turns.saw(seq);
    }
    if (update.sessionUpdate === 'state_update' && typeof update.state === 'string')
      this.state = update.state;
    if (this.answering > 0 && !this.loading) {
      this.buffered.push({ seq: seq ?? this.received, update });
      return;
    }
    return this.forward(sessionId, update, send);
  }

  /**
   * Whether an `idle` ends a turn. By log position every placed idle does (the current state a
   * resume reports has no position). By arrival that state cannot be told apart from a live
   * update, so an idle without a stop reason while the session was already idle ends nothing: it
   * reports a state, and no turn ran since (for example the state after a load, while a prompt is
   * inserted but its turn has not started).
   */
  #endsTurn(stopReason: unknown): boolean {
    if (this.#numbering === 'log') return true;
    return (stopReason !== undefined && stopReason !== null) || this.state !== 'idle';
  }

  /** An update's position: the next by arrival, or its log seq (none when it is outside the log). */
  #place(logSeq: number | undefined): number | undefined {
    if (this.#numbering === 'arrival') return ++this.received;
    if (logSeq !== undefined) this.received = Math.max(this.received, logSeq);
    return logSeq;
  }

  /** Translates one v2 update (see `v2UpdateToV1`) and sends what it becomes. */
  forward(sessionId: SessionId, update: V2SessionUpdate, send: SendV1Update): Promise<void> | void {
    const kind = update.sessionUpdate;
    const leftOut = (pointer: string, reason: string) =>
      this.#onLoss?.({ sessionId, in: kind, pointer, reason });
    let converted: V1.SessionUpdate[];
    try {
      converted = v2UpdateToV1(update, this.#context(leftOut), this.#capabilities());
    } catch (error) {
      if (!(error instanceof CompatError)) throw error;
      // No v1 form at all (see the lossy table): reported, not sent.
      leftOut('', `${error.message} (at ${error.pointer})`);
      return;
    }
    return converted.map((u) => send(sessionId, u)).at(-1);
  }

  /** What the update converters read and change: this session as the v1 client was shown it. */
  #context(leftOut: LeftOut): UpdateToV1Context {
    return {
      writer: this.writer,
      toolCalls: this.toolCalls,
      terminals: this.terminals,
      ownMessages: this.ownMessages,
      loading: this.loading,
      capabilities: this.#capabilities(),
      leftOut,
    };
  }

  /**
   * The v1 form of a v2 permission request. A v1 request always names a tool call, which the v1
   * client must have been shown: one it was not shown is announced first (a v1 `tool_call`,
   * pending). A request about something else than a tool call (a command, say) that names none
   * gets a tool call of its own, under an ID no other tool call of the session has; once the
   * client answers (`answered`, with its v1 response, or nothing when the request failed) that
   * tool call is settled: completed when an option was selected, failed otherwise.
   */
  askPermission(
    sessionId: SessionId,
    params: V2RequestPermissionRequest,
    send: SendV1Update,
  ): { request: V1.RequestPermissionRequest; answered: (response?: V1.RequestPermissionResponse) => void } {
    const request = v2ToV1RequestPermissionRequest(params);
    const subject = params.subject as { type?: string; toolCallId?: unknown } | null | undefined;
    const named = subject?.type === 'tool_call' || typeof subject?.toolCallId === 'string';
    if (!named) {
      let toolCallId: string;
      do toolCallId = `permission-${++this.#placeholders}`;
      while (this.toolCalls.has(toolCallId));
      request.toolCall = { ...request.toolCall, toolCallId };
    } else if (subject?.type !== 'tool_call') {
      request.toolCall = { ...request.toolCall, toolCallId: subject.toolCallId as string };
    }
    const { toolCallId } = request.toolCall;
    if (!this.toolCalls.has(toolCallId)) {
      this.toolCalls.set(toolCallId, []);
      send(sessionId, {
        status: 'pending',
        ...request.toolCall,
        sessionUpdate: 'tool_call',
        title: request.toolCall.title ?? params.title,
      } as V1.NewToolCall);
    }
    const answered = (response?: V1.RequestPermissionResponse): void => {
      if (named) return; // the agent reports its own tool call's progress
      const selected = response?.outcome.outcome === 'selected';
      send(sessionId, {
        sessionUpdate: 'tool_call_update',
        toolCallId,
        status: selected ? 'completed' : 'failed',
      });
    };
    return { request, answered };
  }

  /**
   * The v2 response of a v1 prompt arrived (`messageId` names its inserted message; undefined when
   * it was refused): the updates held for its echo go out — but when an idle already ended its
   * turn, only those up to that idle, and the rest wait for its answer. Returns whether they wait
   * (the caller then calls {@link answered} once it wrote the answer).
   */
  responded(sessionId: SessionId, messageId: string | undefined, send: SendV1Update): boolean {
    this.answering -= 1;
    const ended = messageId === undefined ? undefined : this.turns.endedFor(messageId);
    if (ended === undefined) {
      if (this.answering === 0) this.flush(sessionId, Number.POSITIVE_INFINITY, send);
      return false;
    }
    if (this.answering === 0) this.flush(sessionId, ended.seq, send);
    this.answering += 1;
    return true;
  }

  /**
   * The answer of a v1 prompt whose turn an idle ended went out (or was handed to the transport):
   * the updates held behind it follow once no other prompt is being answered.
   */
  answered(sessionId: SessionId, send: SendV1Update): void {
    this.answering -= 1;
    if (this.answering === 0) this.flush(sessionId, Number.POSITIVE_INFINITY, send);
  }

  /** Sends the held updates up to position `through`. */
  flush(sessionId: SessionId, through: number, send: SendV1Update): void {
    while (this.buffered.length > 0 && (this.buffered[0]?.seq ?? Number.POSITIVE_INFINITY) <= through) {
      const next = this.buffered.shift();
      if (next !== undefined) this.forward(sessionId, next.update, send);
    }
  }
}
