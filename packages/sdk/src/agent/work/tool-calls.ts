import type {
  BackgroundWork,
  SessionUpdate,
  TerminalExitStatus,
  TerminalUpdate,
  ToolCall,
  ToolCallContent,
  ToolCallId,
  ToolCallUpdate,
} from '@acp-kit/schema';
import { randomId } from '../../history/message-ids.js';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import { TaskQueue } from './task-queue.js';

/** Where a tool call or terminal reports to: its session's `update`. */
export interface UpdateSink {
  update(update: SessionUpdate, options?: { retain?: boolean }): Promise<void>;
  /** Aborted when the session's turn is cancelled (`session/cancel`). */
  readonly signal: AbortSignal;
  /** The background list may have changed: the session reports it if it did (after the update that changed it). */
  backgroundChanged(): Promise<void>;
}

/** The fields of a tool call other than its ID and the update tag. */
export type ToolCallFields = Omit<ToolCall, 'toolCallId' | 'capabilities'>;

/** Options of {@link AgentSession.toolCall}. */
export interface ToolCallOptions {
  /** Use this ID instead of a fresh `call_…` one (it must be new in the session). */
  toolCallId?: ToolCallId;
  /**
   * Advertise the cancel capability: the client may then send `tool_call/cancel` for this tool
   * call, which aborts {@link ToolCallHandle.signal} (default false).
   */
  cancellable?: boolean;
  /** Keep its updates for replay (default true). */
  retain?: boolean;
}

/**
 * A tool call being reported: each method appends one update to the session log (retained unless
 * `retain: false`), so attached clients see it now and `session/resume` replays it later under
 * the same `toolCallId`. Updates are upserts: omitted fields keep their values, `null` clears.
 */
export interface ToolCallHandle {
  /** The ID clients know it by. */
  readonly toolCallId: ToolCallId;
  /**
   * Aborted by `tool_call/cancel` for this tool call (only when created `cancellable`), or by
   * `session/cancel` of the turn it runs in.
   */
  readonly signal: AbortSignal;
  /** Changes fields (`tool_call_update`): status, title, content (replaces), rawOutput… */
  update(fields: ToolCallFields): Promise<void>;
  /** Appends one piece of content (`tool_call_content_chunk`). */
  content(content: ToolCallContent): Promise<void>;
  /**
   * Moves the tool call to the background: `session/cancel` no longer aborts its signal (only
   * `tool_call/cancel` or the session's close do), and every `state_update` lists it until its
   * final status (`completed`, `failed`, `cancelled`) was reported. A tool call whose content
   * embeds a terminal of this session is listed as that terminal (and stays listed until the
   * terminal's exit status was reported too). Resolves once the list naming it was appended
   * (at once when it already ended or runs in the background). From then on its reports are
   * written one at a time, in call order, through its own queue (as a background terminal's).
   */
  runInBackground(): Promise<void>;
}

/** The fields of a display terminal other than its ID and the update tag. */
export type TerminalFields = Omit<TerminalUpdate, 'sessionUpdate' | 'terminalId' | 'capabilities'>;

/** Options of {@link AgentSession.terminal}. */
export interface TerminalOptions {
  /** Use this ID instead of a fresh `term_…` one. */
  terminalId?: string;
  /** Advertise the cancel capability: `terminal/cancel` then aborts {@link TerminalHandle.signal}. */
  cancellable?: boolean;
  /** Keep its updates for replay (default true). */
  retain?: boolean;
}

/**
 * A display terminal: the agent shows a command's output to clients (`terminal_update`,
 * `terminal_output_chunk`); nothing runs on the client. Embed it in a tool call's content with
 * `{ type: 'terminal', terminalId }`. Retained and replayed like tool calls.
 */
export interface TerminalHandle {
  /** The ID clients know it by. */
  readonly terminalId: string;
  /** Aborted by `terminal/cancel` (when created `cancellable`) or `session/cancel` of the turn. */
  readonly signal: AbortSignal;
  /** Appends output (`terminal_output_chunk`). */
  output(data: string): Promise<void>;
  /** Changes fields (`terminal_update`): command, cwd, size, the whole output… */
  update(fields: TerminalFields): Promise<void>;
  /** Reports how the command ended (`terminal_update` with `exitStatus`). */
  exit(status: TerminalExitStatus): Promise<void>;
  /**
   * Moves the terminal to the background: `session/cancel` no longer aborts its signal (only
   * `terminal/cancel` or the session's close do), and every `state_update` lists it until its
   * exit status was reported. Resolves once the list naming it was appended (at once when it
   * already exited or runs in the background).
   *
   * From then on its reports go through its own queue (`TaskQueue`): one write at a time, in call
   * order, so a flood of output cannot delay the foreground turn or other work by more than one
   * entry; output that waits is merged into chunks of up to 32 KiB, and past 1 MiB waiting (a
   * producer that does not await `output()`) the excess is dropped and a line saying how many
   * bytes were dropped is written in its place.
   */
  runInBackground(): Promise<void>;
}

/** Something a cancel request can stop. */
interface Cancellable {
  readonly controller: AbortController;
  /** The handle's signal: the controller's or the turn's, whichever aborts first. */
  readonly signal: AbortSignal;
  readonly cancellable: boolean;
  /** Stops the turn's cancel from aborting {@link signal} (the work moved to the background). */
  readonly detach: () => void;
}

/** A handle moved to the background: what it is listed as, and whether it still runs. */
interface Backgrounded {
  readonly item: () => BackgroundWork;
  readonly ended: () => boolean;
}

const FINAL_STATUSES = new Set(['completed', 'failed', 'cancelled']);

/**
 * A tool call or terminal that has ended, as its registry keeps it: whether it advertised cancel
 * (a cancel of it is still answered as before), without its signals. A session of hours may run
 * thousands of tool calls, and each one's two abort controllers, their signals and listeners would
 * otherwise stay until the session is closed.
 */
type Ended = boolean;

/**
 * The tool calls and terminals of one live session, by ID, for `tool_call/cancel` and
 * `terminal/cancel`. IDs stay until the session is closed (they are never reused); an entry lets
 * go of its signals once its work has ended.
 */
export class WorkRegistry {
  readonly #toolCalls = new Map<string, Cancellable | Ended>();
  readonly #terminals = new Map<string, Cancellable | Ended>();
  /** Terminals whose exit status was reported. */
  readonly #exited = new Set<string>();
  /** Work moved to the background, in the order it moved. */
  readonly #background = new Set<Backgrounded>();

  /**
   * The background list now: each backgrounded handle that has not ended, once (by the item it is
   * listed as), in the order they moved to the background.
   */
  background(): BackgroundWork[] {
    const list = new Map<string, BackgroundWork>();
    for (const work of this.#background) {
      if (work.ended()) continue;
      const item = work.item();
      list.set(JSON.stringify(item), item);
    }
    return [...list.values()];
  }

  /** Whether any work was ever moved to the background here (the session then reports a list). */
  get reportsBackground(): boolean {
    return this.#background.size > 0;
  }

  async #toBackground(sink: UpdateSink, entry: Cancellable, work: Backgrounded): Promise<void> {
    if (work.ended() || this.#background.has(work)) return;
    entry.detach();
    this.#background.add(work);
    await sink.backgroundChanged();
  }

  /** Starts a tool call: reports it at once with `fields` and returns its handle. */
  async toolCall(
    sink: UpdateSink,
    fields: ToolCallFields,
    options: ToolCallOptions = {},
  ): Promise<ToolCallHandle> {
    const toolCallId = options.toolCallId ?? randomId('call_');
    if (this.#toolCalls.has(toolCallId)) {
      throw new RpcError(
        ErrorCodes.InternalError,
        `toolCallId ${JSON.stringify(toolCallId)} is already used in this session`,
      );
    }
    const entry = cancellable(sink.signal, options.cancellable ?? false);
    this.#toolCalls.set(toolCallId, entry);
    const retain = { retain: options.retain ?? true };
    let final = false;
    let terminalId: string | undefined;
    const observe = (more: { status?: unknown; content?: unknown }): void => {
      if (typeof more.status === 'string' && FINAL_STATUSES.has(more.status)) final = true;
      if (Array.isArray(more.content)) {
        const embedded = more.content.find(isTerminalContent);
        if (embedded !== undefined) terminalId = embedded.terminalId;
      }
    };
    const work: Backgrounded = {
      item: () =>
        terminalId !== undefined && this.#terminals.has(terminalId)
          ? { type: 'terminal', terminalId }
          : { type: 'tool_call', toolCallId },
      ended: () =>
        final &&
        (terminalId === undefined || !this.#terminals.has(terminalId) || this.#exited.has(terminalId)),
    };
    const send = async (more: ToolCallFields): Promise<void> => {
      await sink.update({ sessionUpdate: 'tool_call_update', toolCallId, ...more } as ToolCallUpdate, retain);
      observe(more);
      if (this.#background.has(work)) await sink.backgroundChanged();
      if (work.ended()) end(this.#toolCalls, toolCallId, entry);
    };
    observe(fields);
    await sink.update(
      {
        sessionUpdate: 'tool_call_update',
        toolCallId,
        ...fields,
        ...(entry.cancellable ? { capabilities: { cancel: {} } } : {}),
      } as ToolCallUpdate,
      retain,
    );
    if (work.ended()) end(this.#toolCalls, toolCallId, entry);
    const content = async (more: ToolCallContent): Promise<void> => {
      await sink.update({ sessionUpdate: 'tool_call_content_chunk', toolCallId, content: more }, retain);
      if (!isTerminalContent(more)) return;
      terminalId = more.terminalId;
      if (this.#background.has(work)) await sink.backgroundChanged();
    };
    // In the background, the tool call's reports go through its own queue (one write at a time).
    let queue: TaskQueue | undefined;
    return {
      toolCallId,
      signal: entry.signal,
      update: (more) => (queue ? queue.run(() => send(more)) : send(more)),
      content: (more) => (queue ? queue.run(() => content(more)) : content(more)),
      runInBackground: () => {
        queue ??= new TaskQueue();
        return this.#toBackground(sink, entry, work);
      },
    };
  }

  /** Opens a display terminal: reports it at once with `fields` and returns its handle. */
  async terminal(
    sink: UpdateSink,
    fields: TerminalFields,
    options: TerminalOptions = {},
  ): Promise<TerminalHandle> {
    const terminalId = options.terminalId ?? randomId('term_');
    if (this.#terminals.has(terminalId)) {
      throw new RpcError(
        ErrorCodes.InternalError,
        `terminalId ${JSON.stringify(terminalId)} is already used in this session`,
      );
    }
    const entry = cancellable(sink.signal, options.cancellable ?? false);
    this.#terminals.set(terminalId, entry);
    const retain = { retain: options.retain ?? true };
    const work: Backgrounded = {
      item: () => ({ type: 'terminal', terminalId }),
      ended: () => this.#exited.has(terminalId),
    };
    const send = async (more: TerminalFields): Promise<void> => {
      await sink.update({ sessionUpdate: 'terminal_update', terminalId, ...more } as TerminalUpdate, retain);
      if (more.exitStatus === undefined || more.exitStatus === null) return;
      this.#exited.add(terminalId);
      end(this.#terminals, terminalId, entry);
      // A backgrounded tool call listed as this terminal may end with it too.
      if (this.#background.size > 0) await sink.backgroundChanged();
    };
    if (fields.exitStatus !== undefined && fields.exitStatus !== null) this.#exited.add(terminalId);
    await sink.update(
      {
        sessionUpdate: 'terminal_update',
        terminalId,
        ...fields,
        ...(entry.cancellable ? { capabilities: { cancel: {} } } : {}),
      } as TerminalUpdate,
      retain,
    );
    if (this.#exited.has(terminalId)) end(this.#terminals, terminalId, entry);
    const output = (data: string): Promise<void> =>
      sink.update({ sessionUpdate: 'terminal_output_chunk', terminalId, data }, retain);
    // In the background, the terminal's reports go through its own bounded queue (see TaskQueue).
    let queue: TaskQueue | undefined;
    return {
      terminalId,
      signal: entry.signal,
      output: (data) => (queue ? queue.output(data) : output(data)),
      update: (more) => (queue ? queue.run(() => send(more)) : send(more)),
      exit: (exitStatus) => (queue ? queue.run(() => send({ exitStatus })) : send({ exitStatus })),
      runInBackground: () => {
        queue ??= new TaskQueue(output);
        return this.#toBackground(sink, entry, work);
      },
    };
  }

  /** `tool_call/cancel`: aborts the tool call's signal. */
  cancelToolCall(toolCallId: string): void {
    cancel(this.#toolCalls.get(toolCallId), 'tool call', '/params/toolCallId', toolCallId);
  }

  /** `terminal/cancel`: aborts the terminal's signal. */
  cancelTerminal(terminalId: string): void {
    cancel(this.#terminals.get(terminalId), 'terminal', '/params/terminalId', terminalId);
  }

  /** Aborts everything still running (the session was closed). */
  abortAll(reason: unknown): void {
    for (const entry of [...this.#toolCalls.values(), ...this.#terminals.values()])
      if (typeof entry !== 'boolean') entry.controller.abort(reason);
  }
}

function cancellable(turn: AbortSignal, advertised: boolean): Cancellable {
  const controller = new AbortController();
  const combined = new AbortController();
  const onTurn = (): void => combined.abort(turn.reason);
  if (turn.aborted) combined.abort(turn.reason);
  else turn.addEventListener('abort', onTurn, { once: true });
  controller.signal.addEventListener('abort', () => combined.abort(controller.signal.reason), { once: true });
  return {
    controller,
    signal: combined.signal,
    cancellable: advertised,
    detach: () => turn.removeEventListener('abort', onTurn),
  };
}

/**
 * Work of `id` has ended: its entry becomes {@link Ended}, and its signal no longer listens to the
 * turn's (whose listeners would keep it, and through it the handle, for as long as the turn's
 * signal lives).
 */
function end(entries: Map<string, Cancellable | Ended>, id: string, entry: Cancellable): void {
  entry.detach();
  entries.set(id, entry.cancellable);
}

function isTerminalContent(value: unknown): value is { type: 'terminal'; terminalId: string } {
  const content = value as { type?: unknown; terminalId?: unknown } | null;
  return content?.type === 'terminal' && typeof content.terminalId === 'string';
}

function cancel(entry: Cancellable | Ended | undefined, what: string, pointer: string, id: string): void {
  if (entry === undefined) {
    throw new RpcError(ErrorCodes.ResourceNotFound, `No ${what} ${JSON.stringify(id)} in this session`, {
      pointer,
      [what === 'terminal' ? 'terminalId' : 'toolCallId']: id,
    });
  }
  if (!(typeof entry === 'boolean' ? entry : entry.cancellable)) {
    throw new RpcError(
      ErrorCodes.InvalidParams,
      `The ${what} ${JSON.stringify(id)} does not advertise the cancel capability`,
      {
        pointer,
        expected: `a ${what} whose capabilities include cancel`,
      },
    );
  }
  // An ended one has nothing left to stop: the cancel is answered, as it was while it ran.
  if (typeof entry === 'boolean') return;
  entry.controller.abort(
    new RpcError(ErrorCodes.RequestCancelled, `The ${what} was cancelled by the client.`),
  );
}
