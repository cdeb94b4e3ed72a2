import type {
  AgentCapabilities,
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
  Implementation,
  InitializeResponse,
  NewSessionResponse,
  PromptResponse,
  ResumeSessionResponse,
  SessionId,
} from '@acp-kit/schema';
import { randomUUID } from 'node:crypto';
import type { HistoryStore, ReplayVia } from '../history/history-store.js';
import { MemoryHistoryStore } from '../history/memory-history-store.js';
import { replayUpdates, retainedMessages } from '../history/replay.js';
import type { Connection, RequestContext } from '../rpc/connection.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { AgentSession } from './agent-session.js';
import type { ClientPeer } from './client-peer.js';
import { PendingPrompt } from './pending-prompt.js';

/** Messages read from history per page during replay: few round trips, bounded memory. */
const REPLAY_PAGE_SIZE = 1024;

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
  handler: 'onPrompt' | 'onCancel';
  /** The session it was called for. */
  sessionId: SessionId;
}

/** Options for {@link Agent}. */
export interface AgentOptions {
  /** The agent's name and version, sent in the `initialize` response. */
  info: Implementation;
  /** Capabilities sent in the `initialize` response. Default: baseline sessions (`{ session: {} }`). */
  capabilities?: AgentCapabilities;
  /** Where retained history lives. Default: a fresh {@link MemoryHistoryStore}. */
  history?: HistoryStore;
  /**
   * How replay sends each retained message: `'full'` (the default: one whole update per message,
   * the fewest updates), `'chunks'` (`content: []` followed by one chunk per block), or
   * `'as-retained'` (whole messages whole, streamed ones as reset + chunks). Every style leaves a
   * client with exactly the retained content, never a duplicate.
   */
  replay?: 'as-retained' | ReplayVia;
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
  readonly #history: HistoryStore;
  readonly #sessions = new Map<SessionId, AgentSession>();
  readonly #loading = new Map<SessionId, Promise<AgentSession | undefined>>();
  #peerCount = 0;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.#history = options.history ?? new MemoryHistoryStore();
  }

  /** The history store the agent retains messages in. */
  get history(): HistoryStore {
    return this.#history;
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
    const loading = this.#history.getSession(sessionId).then((record) => {
      if (!record) return undefined;
      const session =
        this.#sessions.get(sessionId) ?? new AgentSession(record.sessionId, record.cwd, this.#history);
      this.#sessions.set(sessionId, session);
      return session;
    });
    this.#loading.set(sessionId, loading);
    loading.finally(() => this.#loading.delete(sessionId)).catch(() => undefined);
    return loading;
  }

  /** Creates a session without a client (for example to import history into it). */
  async createSession(cwd: string): Promise<AgentSession> {
    const record = await this.#history.createSession({ sessionId: `sess_${randomUUID()}`, cwd });
    const session = new AgentSession(record.sessionId, record.cwd, this.#history);
    this.#sessions.set(session.id, session);
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
    const peer: ClientPeer = {
      label,
      get open() {
        return !connection.isClosed;
      },
      maxMessageBytes: connection.maxMessageBytes,
      notify: (params) => connection.sendNotification('session/update', params),
      request: (method, params, signal) =>
        connection.sendRequest(method, params, signal ? { signal } : undefined) as never,
    };
    const attached = new Set<AgentSession>();
    const attach = (session: AgentSession, hold = false): void => {
      session.attach(peer, hold);
      attached.add(session);
    };

    connection.onRequest(
      'initialize',
      (): InitializeResponse => ({
        protocolVersion: PROTOCOL_VERSION,
        info: this.#options.info,
        capabilities: this.#options.capabilities ?? { session: {} },
      }),
    );

    connection.onRequest('session/new', async (params): Promise<NewSessionResponse> => {
      const session = await this.createSession(params.cwd);
      attach(session);
      return { sessionId: session.id };
    });

    connection.onRequest('session/resume', async (params): Promise<ResumeSessionResponse> => {
      const session = await this.#require(params.sessionId);
      session.cwd = params.cwd;
      const cursor = params.replayFrom ?? undefined;
      if (cursor === undefined) {
        attach(session, true);
        // Current-state synchronisation: the resume response alone does not mean idle.
        await session.sendStateTo(peer);
        await session.release(peer);
        return {};
      }
      if (cursor.type !== 'start') {
        throw new RpcError(
          ErrorCodes.InvalidParams,
          `Unsupported replay cursor type ${JSON.stringify(cursor.type)}`,
          {
            pointer: '/params/replayFrom/type',
            expected: 'start',
          },
        );
      }
      try {
        // Inside the session's exclusive section no retained change can land between the history
        // read and its live report, so the replay and the live stream never overlap.
        await session.exclusive(async () => {
          attach(session, true);
          await this.#replay(session, peer);
        });
        await session.sendStateTo(peer);
      } finally {
        await session.release(peer);
      }
      return {};
    });

    connection.onRequest('session/prompt', async (params, context): Promise<PromptResponse> => {
      const session = await this.#require(params.sessionId);
      attach(session);
      return this.#prompt(session, peer, params.prompt, context);
    });

    connection.onNotification('session/cancel', async (params) => {
      const session = this.#sessions.get(params.sessionId);
      if (!session) return;
      session.cancel();
      try {
        await this.#options.onCancel?.(session);
      } catch (error) {
        this.#handlerFailed(error, { handler: 'onCancel', sessionId: session.id });
        throw error;
      }
    });

    connection.onClose(() => {
      for (const session of attached) session.detach(peer);
      attached.clear();
    });
    connection.listen();
    return peer;
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
    context: RequestContext,
  ): Promise<PromptResponse> {
    const prompt = new PendingPrompt(session.id, content, context.signal, session);
    const rejectIfPending = (error: RpcError): void => {
      if (prompt.state === 'pending') prompt.reject(error);
    };
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

  /** Sends the retained history to one client. */
  async #replay(session: AgentSession, peer: ClientPeer): Promise<void> {
    const style = this.#options.replay ?? 'full';
    for await (const message of retainedMessages(this.#history, session.id, { pageSize: REPLAY_PAGE_SIZE })) {
      const updates = replayUpdates(style === 'as-retained' ? message : { ...message, via: style });
      for (const update of updates) await session.sendTo(peer, update);
    }
  }
}
