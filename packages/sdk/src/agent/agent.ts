import type {
  AgentCapabilities,
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
  Implementation,
  InitializeResponse,
  MessageId,
  NewSessionResponse,
  PromptResponse,
  ResumeSessionResponse,
  SessionId,
} from '@acp-kit/schema';
import { randomUUID } from 'node:crypto';
import type { ReplayVia } from '../history/history-store.js';
import { MemorySessionLog } from '../history/memory-session-log.js';
import type { SessionLog, WriteBehindLimits } from '../history/session-log.js';
import type { Connection, RequestContext } from '../rpc/connection.js';
import { schemaValidator } from '../codec/v2-validator.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { AgentSession } from './agent-session.js';
import { checkWriteBehind } from './session-writer.js';
import { ConnectionState } from './connection-state.js';
import type { AgentMethodOptions } from './method-options.js';
import {
  newSession,
  prepareResume,
  registerSessionMethods,
  requireAbsolute,
  runWorkRequest,
} from './session-methods.js';
import type { SessionSettings } from './session-settings.js';
import { withSettings } from './session-settings.js';
import { replayFromLog } from './log-replay.js';
import { sendReplay } from './send-replay.js';
import { MethodGate } from './method-gate.js';
import { wire } from './wire-errors.js';
import type { ClientPeer } from './client-peer.js';
import { PendingPrompt } from './pending-prompt.js';
import { forwardedPromptPeer } from './forwarded-prompt-peer.js';
import type { ForwardedPrompt, ForwardedReceipt, SessionOwnership } from './session-ownership.js';

/** The methods a connection may call before it completed `initialize` and any required login. */
const UNGATED_METHODS: ReadonlySet<string> = new Set(['initialize', 'auth/login', 'auth/logout']);

/** The protocol version this agent speaks. */
export const PROTOCOL_VERSION = 2;

/** A connection as an agent holds it: it handles agent methods and calls client methods. */
export type AgentConnection = Connection<
  AgentRequestMap,
  AgentNotificationMap,
  ClientRequestMap,
  ClientNotificationMap
>;

/** Everything a prompt handler is given. */
export interface PromptContext {
  /** The session the prompt was submitted to. */
  session: AgentSession;
  /** The client that submitted it (ask it for permission first). */
  client: ClientPeer;
}

/** Which application handler failed, and for which session (see {@link AgentOptions.onHandlerError}). */
export interface HandlerErrorContext {
  /** The handler that threw or rejected. */
  handler:
    | 'onPrompt'
    | 'onCancel'
    | 'onNewSession'
    | 'onResumeSession'
    | 'onCloseSession'
    | 'onDeleteSession'
    | 'listSessions'
    | 'setConfigOption'
    | 'login'
    | 'logout';
  /** The session it was called for (empty for handlers outside a session: list, login, logout). */
  sessionId: SessionId;
}

/** Options for {@link Agent}; the v2 session methods' handlers are in {@link AgentMethodOptions}. */
export interface AgentOptions extends AgentMethodOptions {
  /** The agent's name and version, sent in the `initialize` response. */
  info: Implementation;
  /**
   * Capabilities sent in the `initialize` response. The ones that gate methods (`session`,
   * `session.delete`, …) are set from the methods the agent serves, whatever is given here:
   * advertised when served, removed when not (see the generated `METHOD_CAPABILITIES`). Default:
   * `{}`, which becomes `{ session: {} }` for the session methods the agent serves. Include
   * `session.delete` to serve `session/delete`; with {@link AgentMethodOptions.auth}, `auth: {}`
   * (logout supported) is added unless given.
   */
  capabilities?: AgentCapabilities;
  /**
   * The {@link SessionLog} sessions live in (`SqliteSessionLog`, `PostgresSessionLog`…). Agents
   * given the same log share its sessions: their clients see the same updates in the same order.
   * Default: a fresh {@link MemorySessionLog}.
   */
  history?: SessionLog;
  /**
   * Live updates a client may have waiting while it receives a replay before it is disconnected
   * as too slow (default 65 536). Outside a replay a client's backlog is bounded by its
   * connection's outgoing queue (`maxQueuedBytes`, error -32098).
   */
  maxHeldUpdates?: number;
  /**
   * Lets streamed chunks (`…_chunk` updates: message and thought chunks, tool call content,
   * terminal output) run ahead of the log, within these limits: `chunk()` resolves once the chunk
   * is queued, and the session writes the chunks queued while an append is in flight together, in
   * order, in its next append — one round trip for many chunks instead of one each. Clients only
   * see what the log has. Everything else (insertions, state updates, the first write of a
   * message) still resolves once the log has it and everything before it, so `idle()` resolving
   * means the turn's chunks are in the log. When a write of chunks fails, the chunks queued after
   * it are not written either and the session's next update throws the error. `false` waits for
   * the log on every update. Default: what the log suggests ({@link SessionLog.writeBehind}:
   * `PostgresSessionLog` does, the in-process memory and SQLite logs do not).
   */
  writeBehind?: WriteBehindLimits | false;
  /**
   * How replay sends each retained message: `'full'` (the default: one whole update per message,
   * the fewest updates), `'chunks'` (`content: []` followed by one chunk per block), or
   * `'as-retained'` (whole messages whole, streamed ones as reset + chunks). Every style leaves a
   * client with exactly the retained content, never a duplicate.
   */
  replay?: 'as-retained' | ReplayVia;
  /**
   * Session ownership across replicas sharing the log (for example `PostgresSessionOwnership`):
   * each session's prompts run on its owner only; a replica that does not own a session has the
   * owner insert a prompt it receives and answers with the owner's receipt. Default: none, every
   * prompt runs where it arrives.
   */
  ownership?: SessionOwnership;
  /**
   * Called for every valid `session/prompt`. Settle the prompt with `prompt.insert()` (the
   * client gets its `messageId` only then) or `prompt.reject(error)`; or keep it pending and
   * insert it later, for example after the current work. If the handler throws before the
   * prompt is settled, the client gets -32603 and nothing is inserted; the error itself goes to
   * {@link AgentOptions.onHandlerError}.
   */
  onPrompt(prompt: PendingPrompt, context: PromptContext): void | Promise<void>;
  /** Called on `session/cancel`, after the session's signal was aborted. */
  onCancel?(session: AgentSession): void | Promise<void>;
  /**
   * Called with a notification a connection sent before it may (before `initialize`, or before a
   * required login — also after `auth/logout`): the agent gives notifications the same checks as
   * requests, but a notification cannot be answered with the error, so it is dropped and reported
   * here (`client` is the connection's label). Log it, for example to stderr. Default: dropped
   * without a report. An exception thrown by this hook is ignored.
   */
  onRefusedNotification?(refusal: { method: string; client: string; error: RpcError }): void;
  /**
   * The diagnostic hook for application errors: called with whatever `onPrompt` or `onCancel`
   * threw or rejected with (the client only ever sees a generic -32603, never the error itself).
   * Log it here, for example to stderr. Default: the error is dropped. An exception thrown by this
   * hook is ignored.
   */
  onHandlerError?(error: unknown, context: HandlerErrorContext): void;
}

/**
 * An ACP v2 agent: sessions, their retained history and the prompt lifecycle, served to any
 * number of client connections at once (each {@link Agent.serve} call adds one).
 */
export class Agent {
  readonly #options: AgentOptions;
  readonly #log: SessionLog;
  readonly #sessions = new Map<SessionId, AgentSession>();
  readonly #loading = new Map<SessionId, Promise<AgentSession | undefined>>();
  #peerCount = 0;

  constructor(options: AgentOptions) {
    if (options.writeBehind !== undefined && options.writeBehind !== false)
      checkWriteBehind(options.writeBehind);
    this.#options = options;
    this.#log = options.history ?? new MemorySessionLog();
    options.ownership?.bind({
      sessions: this.#sessions,
      runForwardedPrompt: (prompt) => this.#runForwarded(prompt),
      cancelForwarded: (sessionId) => this.#cancelSession(sessionId),
      runForwardedRequest: (sessionId, request) =>
        runWorkRequest(
          {
            agent: this,
            options: this.#options,
            handlerFailed: (error, context) => this.#handlerFailed(error, context),
          },
          sessionId,
          request,
          { client: forwardedPromptPeer(sessionId), signal: new AbortController().signal },
        ),
    });
  }

  /** The log the agent was given (or its default {@link MemorySessionLog}); the same as {@link Agent.log}. */
  get history(): SessionLog {
    return this.#log;
  }

  /** The session log every session lives in. */
  get log(): SessionLog {
    return this.#log;
  }

  /**
   * The capabilities the agent was configured with (the `initialize` response advertises those
   * that gate methods exactly when it serves them).
   */
  get capabilities(): AgentCapabilities {
    const given = this.#options.capabilities ?? {};
    if (this.#options.auth && given.auth === undefined) return { ...given, auth: {} };
    return given;
  }

  /** A fresh session ID (`sess_…`). */
  newSessionId(): SessionId {
    return `sess_${randomUUID()}`;
  }

  /**
   * Closes a live session: its work is cancelled (the turn's signal aborts, prompts not yet
   * inserted are answered -32800), every client is detached, and the agent stops holding it. Its
   * history stays: `session/resume` loads it again. False if it was not loaded.
   */
  async closeSession(sessionId: SessionId): Promise<boolean> {
    const live =
      this.#sessions.get(sessionId) ?? (await this.#loading.get(sessionId)?.catch(() => undefined));
    if (!live) return false;
    live.close();
    if (this.#sessions.get(sessionId) === live) this.#sessions.delete(sessionId);
    return true;
  }

  /** Closes the session (if loaded) and deletes it with its retained history. False if unknown. */
  async deleteSession(sessionId: SessionId): Promise<boolean> {
    await this.closeSession(sessionId);
    return this.#log.deleteSession(sessionId);
  }

  #newSession(sessionId: SessionId, cwd: string): AgentSession {
    const options = {
      ...(this.#options.maxHeldUpdates === undefined ? {} : { maxHeldUpdates: this.#options.maxHeldUpdates }),
      ...(this.#options.writeBehind === undefined ? {} : { writeBehind: this.#options.writeBehind }),
    };
    return new AgentSession(sessionId, cwd, this.#log, options);
  }

  /**
   * Resolves once every session loaded in memory is idle as its log reports it (see
   * {@link AgentSession.whenIdle}). Call it when the last client has gone and before closing the
   * history: work that was still ending — a permission request or elicitation withdrawn because
   * the client asked left, answered `cancelled` — writes its turn's stop reason first.
   */
  async whenIdle(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((session) => session.whenIdle()));
  }

  /** The sessions currently loaded in memory. */
  get sessions(): ReadonlyMap<SessionId, AgentSession> {
    return this.#sessions;
  }

  /** Finds a session in memory or, after a restart, in retained history. */
  async session(sessionId: SessionId): Promise<AgentSession | undefined> {
    const live = this.#sessions.get(sessionId);
    if (live) return live;
    const pending = this.#loading.get(sessionId);
    if (pending) return pending;
    const loading = this.#log.getSession(sessionId).then(async (record) => {
      if (!record) return undefined;
      const session = this.#sessions.get(sessionId) ?? this.#newSession(record.sessionId, record.cwd);
      this.#sessions.set(sessionId, session);
      await session.following();
      return session;
    });
    this.#loading.set(sessionId, loading);
    loading.finally(() => this.#loading.delete(sessionId)).catch(() => undefined);
    return loading;
  }

  /** Creates a session without a client (for example to import history into it). */
  async createSession(
    cwd: string,
    options: { sessionId?: SessionId; title?: string | null; settings?: SessionSettings } = {},
  ): Promise<AgentSession> {
    const record = await this.#log.createSession({
      sessionId: options.sessionId ?? this.newSessionId(),
      cwd,
      ...(options.title === undefined ? {} : { title: options.title }),
      ...(options.settings === undefined || Object.keys(options.settings).length === 0
        ? {}
        : { config: withSettings(null, options.settings) }),
    });
    const session = this.#newSession(record.sessionId, record.cwd);
    this.#sessions.set(session.id, session);
    await session.following();
    return session;
  }

  /**
   * Serves one client connection: registers the agent's handlers on it and starts listening.
   * Returns the {@link ClientPeer} that stands for this client inside sessions.
   */
  serve(connection: AgentConnection, label?: string): ClientPeer;
  /** Serves an untyped connection (`const c = new Connection(t); agent.serve(c)`): the agent types it. */
  serve(connection: Connection, label?: string): ClientPeer;
  serve(connection: AgentConnection | Connection, label = `client#${++this.#peerCount}`): ClientPeer {
    return this.#serve(connection as unknown as AgentConnection, label);
  }

  #serve(connection: AgentConnection, label: string): ClientPeer {
    connection.useDefaultValidator(schemaValidator);
    const state = new ConnectionState(this.#options.auth?.required ?? false);
    const peer: ClientPeer = {
      label,
      get open() {
        return !connection.isClosed;
      },
      maxMessageBytes: connection.maxMessageBytes,
      get capabilities() {
        return state.clientCapabilities;
      },
      notify: (params, paramsJson, seq) => {
        const note = seq === undefined ? undefined : { seq };
        return paramsJson === undefined
          ? connection.sendNotification('session/update', params, note)
          : connection.sendSerializedNotification('session/update', params, paramsJson, note);
      },
      notifyBatch: (items) => connection.sendSerializedNotifications('session/update', items),
      notification: (method, params) => connection.sendNotification(method, params as never),
      request: (method, params, signal) => {
        try {
          gate.checkOutgoing(method);
        } catch (error) {
          return Promise.reject(error);
        }
        return connection.sendRequest(method, params, signal ? { signal } : undefined) as never;
      },
      get pendingBytes() {
        return connection.pendingOutgoingBytes;
      },
      // The reason is kept: a client cut off for not reading is closed with -32098, not -32099.
      close: (reason) =>
        connection.close(
          reason instanceof RpcError
            ? reason
            : new RpcError(ErrorCodes.ConnectionClosed, `connection closed: ${reason.message}`, undefined, {
                cause: reason,
              }),
        ),
    };
    /**
     * Which methods this connection serves, what initialize advertises, and what is refused: every
     * request and notification but the way in and out is served only after `initialize` (-32600)
     * and any required login (-32000); a notification that fails this is dropped and reported.
     */
    const gate = new MethodGate(
      connection,
      {
        capabilities: this.capabilities,
        authMethods: this.#options.auth ? [...this.#options.auth.methods] : undefined,
      },
      {
        check: (method) => state.gate(method),
        exempt: UNGATED_METHODS,
        dropped: (method, error) => {
          try {
            this.#options.onRefusedNotification?.({ method, client: label, error });
          } catch {
            // The hook is for logging; its own failure must not disturb the connection.
          }
        },
      },
    );
    const attached = new Set<AgentSession>();
    const attach = (session: AgentSession, hold = false): void => {
      session.attach(peer, hold);
      attached.add(session);
    };
    /** Detaches this connection from every session it follows (it closed, or logged out). */
    const detachAll = (): void => {
      for (const session of attached) session.detach(peer);
      attached.clear();
    };

    gate.onRequest('initialize', (params): InitializeResponse => {
      state.initialized = true;
      state.clientInfo = params.info;
      state.clientCapabilities = params.capabilities ?? undefined;
      return { protocolVersion: PROTOCOL_VERSION, info: this.#options.info, ...gate.advertisement() };
    });
    const host = {
      agent: this,
      options: this.#options,
      state,
      peer,
      handlerFailed: (error: unknown, context: HandlerErrorContext) => this.#handlerFailed(error, context),
      detachAll,
    };

    gate.onRequest(
      'session/new',
      wire(async (params, context): Promise<NewSessionResponse> => {
        requireAbsolute(params.cwd);
        const { session, response } = await newSession(host, params, context);
        await this.#options.ownership?.created(session.id);
        attach(session);
        return response;
      }),
    );

    gate.onRequest(
      'session/resume',
      wire(async (params, context): Promise<ResumeSessionResponse> => {
        requireAbsolute(params.cwd);
        const session = await this.#require(params.sessionId);
        const settings = await prepareResume(host, session, params, context);
        session.cwd = params.cwd;
        const response = await this.#resume(
          session,
          peer,
          params.replayFrom ?? undefined,
          context.signal,
          attach,
        );
        return { ...response, ...settings };
      }),
    );

    gate.onRequest(
      'session/prompt',
      wire(async (params, context): Promise<PromptResponse> => {
        // Counted before any await, so a session/cancel right behind it applies to it.
        const loaded = this.#sessions.get(params.sessionId);
        const arrived = loaded?.promptArrived();
        try {
          const session = await this.#require(params.sessionId);
          attach(session);
          const route = await this.#options.ownership?.route(session.id, params.prompt, context.signal);
          if (route !== undefined && 'error' in route) throw RpcError.fromObject(route.error);
          if (route?.to === 'owner') {
            // Inserted by the owner: answered once this client was handed the message's report.
            await session.reportedTo(peer, route.receipt.position);
            return { messageId: route.receipt.messageId };
          }
          return await this.#prompt(
            session,
            peer,
            params.prompt,
            context,
            arrived ?? session.promptArrived(),
          );
        } finally {
          arrived?.settled();
        }
      }),
    );

    registerSessionMethods(gate, host);

    gate.onNotification('session/cancel', async (params) => {
      const ownership = this.#options.ownership;
      if (ownership === undefined) return this.#cancelSession(params.sessionId);
      // Applied here at once (to prompts still waiting here), and run by the owner.
      this.#sessions.get(params.sessionId)?.cancel();
      if (await ownership.cancel(params.sessionId)) return;
      return this.#cancelSession(params.sessionId);
    });

    connection.onClose(detachAll);
    connection.listen();
    return peer;
  }

  /**
   * `session/resume`: attaches the client at the session's position N (entries after N wait for
   * it), replays the retained log up to N if asked, reports the activity as of N, then lets the
   * entries after N flow. `$/cancel_request` stops the replay (-32800) and detaches the client —
   * unless it was attached before this resume, which then goes on receiving the live entries.
   */
  async #resume(
    session: AgentSession,
    peer: ClientPeer,
    cursor: { type: string } | undefined,
    signal: AbortSignal,
    attach: (session: AgentSession, hold?: boolean) => void,
  ): Promise<ResumeSessionResponse> {
    if (cursor !== undefined && cursor.type !== 'start') {
      throw new RpcError(
        ErrorCodes.InvalidParams,
        `Unsupported replay cursor type ${JSON.stringify(cursor.type)}`,
        {
          pointer: '/params/replayFrom/type',
          expected: 'start',
        },
      );
    }
    await session.following();
    // A client already following the session (through session/new, a prompt or an earlier resume)
    // keeps following it if this replay fails: its prompts' receipts wait on their reports.
    const wasAttached = session.isAttached(peer);
    attach(session, true);
    const upto = session.position;
    // The state as of `upto`: the entries after it reach this client after the replay.
    const activity = session.reportedActivity;
    try {
      if (cursor !== undefined) {
        const style = this.#options.replay ?? 'full';
        const limit = peer.maxMessageBytes ?? Number.POSITIVE_INFINITY;
        await sendReplay(session, peer, replayFromLog(this.#log, session.id, upto, style, limit, signal));
        signal.throwIfAborted();
      }
      // Current-state synchronisation: the resume response alone does not mean idle.
      await session.sendStateTo(peer, activity);
    } catch (error) {
      if (wasAttached) await session.release(peer);
      else session.detach(peer);
      if (signal.aborted) throw new RpcError(ErrorCodes.RequestCancelled, 'The replay was cancelled.');
      throw error;
    }
    await session.release(peer);
    return {};
  }

  /** `session/cancel` for a session run here: aborts its work, then calls `onCancel`. */
  async #cancelSession(sessionId: SessionId): Promise<void> {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    session.cancel();
    try {
      await this.#options.onCancel?.(session);
    } catch (error) {
      this.#handlerFailed(error, { handler: 'onCancel', sessionId: session.id });
      throw error;
    }
  }

  /** Runs a prompt another replica forwarded to this one, the session's owner. */
  async #runForwarded(forwarded: ForwardedPrompt): Promise<ForwardedReceipt> {
    const session = await this.#require(forwarded.sessionId);
    const arrived = session.promptArrived();
    if (forwarded.cancelled) session.cancel();
    try {
      const peer = forwardedPromptPeer(session.id);
      const { messageId } = await this.#prompt(
        session,
        peer,
        forwarded.content,
        { signal: forwarded.signal },
        arrived,
        (id) => forwarded.inserting(id),
      );
      return { messageId, position: session.position };
    } finally {
      arrived.settled();
    }
  }

  async #require(sessionId: SessionId): Promise<AgentSession> {
    const session = await this.session(sessionId);
    if (!session) throw new RpcError(ErrorCodes.ResourceNotFound, 'Session not found', { sessionId });
    return session;
  }

  #prompt(
    session: AgentSession,
    peer: ClientPeer,
    content: PendingPrompt['content'],
    context: Pick<RequestContext, 'signal'>,
    arrived: { arrival: number; settled: () => void },
    inserting?: (messageId: MessageId) => Promise<void>,
  ): Promise<PromptResponse> {
    const prompt = new PendingPrompt(session.id, content, context.signal, {
      insertUserMessage: async (inserted, options) => {
        const insertContext = { peer, arrival: arrived.arrival };
        if (inserting === undefined) return session.insertUserMessage(inserted, options, insertContext);
        // A forwarded prompt: its ID is recorded before the append, so a takeover can tell the outcome.
        const messageId = options.messageId ?? (await session.reserveMessageId());
        await inserting(messageId);
        return session.insertUserMessage(inserted, { ...options, messageId }, insertContext);
      },
    });
    prompt.response.then(arrived.settled, arrived.settled);
    const rejectIfPending = (error: RpcError): void => {
      if (prompt.state === 'pending') prompt.reject(error);
    };
    // Closing the session answers its prompts that were not inserted yet.
    const onClosed = (): void =>
      rejectIfPending(
        new RpcError(ErrorCodes.RequestCancelled, 'The session was closed before the prompt was inserted.'),
      );
    if (session.closed.aborted) onClosed();
    else {
      session.closed.addEventListener('abort', onClosed, { once: true });
      const forget = (): void => session.closed.removeEventListener('abort', onClosed);
      prompt.response.then(forget, forget);
    }
    context.signal.addEventListener(
      'abort',
      () =>
        rejectIfPending(
          new RpcError(ErrorCodes.RequestCancelled, 'The prompt was cancelled before insertion.'),
        ),
      { once: true },
    );
    const failed = (error: unknown): void => {
      rejectIfPending(new RpcError(ErrorCodes.InternalError, 'Internal error'));
      this.#handlerFailed(error, { handler: 'onPrompt', sessionId: session.id });
    };
    try {
      const handled = this.#options.onPrompt(prompt, { session, client: peer });
      if (handled instanceof Promise) handled.catch(failed);
    } catch (error) {
      failed(error);
    }
    return prompt.response;
  }

  /** Hands an application handler's error to {@link AgentOptions.onHandlerError}. */
  #handlerFailed(error: unknown, context: HandlerErrorContext): void {
    try {
      this.#options.onHandlerError?.(error, context);
    } catch {
      // The hook is for logging; its own failure must not disturb the connection.
    }
  }
}
