import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientCapabilities,
  ClientNotificationMap,
  ClientRequestMap,
  Implementation,
  InitializeResponse,
  McpServer,
  MessageId,
  PromptRequest,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionId,
} from '@acp-kit/schema';
import type { Connection } from '../rpc/connection.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { ConversationStore } from './conversation/index.js';

/** The protocol version this client speaks. */
export const CLIENT_PROTOCOL_VERSION = 2;

/** A connection as a client holds it: it handles client methods and calls agent methods. */
export type ClientConnection = Connection<
  ClientRequestMap,
  ClientNotificationMap,
  AgentRequestMap,
  AgentNotificationMap
>;

/** Options for {@link Client}. */
export interface ClientOptions {
  /** The client's name and version, sent in `initialize`. */
  info: Implementation;
  /** Capabilities sent in `initialize`. Default `{}`. */
  capabilities?: ClientCapabilities;
  /** Where the conversation is kept. Default: a new {@link ConversationStore}. */
  store?: ConversationStore;
  /**
   * Answers `session/request_permission`. Default: every request is answered `cancelled`, so an
   * agent never waits on a client that cannot ask its user. `signal` aborts when the agent
   * withdraws the request (`$/cancel_request`) or the connection closes: close the prompt then.
   * If it throws, the agent gets -32603 and the error reaches the connection's `onDiagnostic`
   * listeners as a `request-handler-error` diagnostic.
   */
  onPermission?(
    request: RequestPermissionRequest,
    context: { signal: AbortSignal },
  ): RequestPermissionResponse | Promise<RequestPermissionResponse>;
}

/** A prompt on its way: its optimistic entry and the insertion receipt to come. */
export interface Submission {
  /** The optimistic entry's ID in the {@link ConversationStore}. */
  readonly localId: string;
  /**
   * Resolves with the inserted message's ID; rejects with the agent's JSON-RPC error. The store
   * records either outcome, so this promise may be ignored: an unobserved rejection is never
   * reported as unhandled.
   */
  readonly messageId: Promise<MessageId>;
}

/**
 * An ACP v2 client over one connection. Every `session/update` goes into its
 * {@link ConversationStore}; prompts are shown optimistically and reconciled by the `messageId`
 * the agent returns, never by content or arrival order.
 */
export class Client {
  /** The conversation(s) this client has seen. */
  readonly store: ConversationStore;
  readonly #connection: ClientConnection;
  readonly #options: ClientOptions;
  readonly #sessions = new Set<SessionId>();

  constructor(connection: ClientConnection, options: ClientOptions);
  /** Drives an untyped connection (`const c = new Connection(t); new Client(c, …)`): the client types it. */
  constructor(connection: Connection, options: ClientOptions);
  constructor(connection: ClientConnection | Connection, options: ClientOptions) {
    this.#connection = connection as unknown as ClientConnection;
    this.#options = options;
    this.store = options.store ?? new ConversationStore();
    const typed = this.#connection;
    typed.onNotification('session/update', (params) => this.store.apply(params));
    typed.onRequest('session/request_permission', (params, context) =>
      options.onPermission ? answerPermission(options.onPermission, params, context.signal) : CANCELLED,
    );
    typed.onClose(() => {
      for (const sessionId of this.#sessions) this.store.setConnection(sessionId, 'disconnected');
    });
    typed.listen();
  }

  /** The underlying connection. */
  get connection(): ClientConnection {
    return this.#connection;
  }

  /** Sends `initialize` with protocol version 2 and this client's info. */
  initialize(): Promise<InitializeResponse> {
    return this.#connection.sendRequest('initialize', {
      protocolVersion: CLIENT_PROTOCOL_VERSION,
      info: this.#options.info,
      capabilities: this.#options.capabilities ?? {},
    });
  }

  /** Creates a session and returns its ID. */
  async newSession(cwd: string, mcpServers: McpServer[] = []): Promise<SessionId> {
    const { sessionId } = await this.#connection.sendRequest('session/new', { cwd, mcpServers });
    this.#track(sessionId);
    return sessionId;
  }

  /**
   * Resumes a session. With `replay: true` the agent first replays its retained history, which
   * the store applies by the upsert rules (replaying twice changes nothing).
   */
  async resume(sessionId: SessionId, options: { cwd: string; replay?: boolean }): Promise<void> {
    this.#track(sessionId);
    await this.#connection.sendRequest('session/resume', {
      sessionId,
      cwd: options.cwd,
      ...(options.replay ? { replayFrom: { type: 'start' as const } } : {}),
    });
  }

  /**
   * Submits a prompt: shows it optimistically at once, then associates it with the `messageId`
   * from the response. If the connection is lost before a response, the entry stays in the
   * explicit "outcome unknown" state: it may or may not have been inserted, and it is never
   * matched to a later message by guesswork.
   */
  submit(
    sessionId: SessionId,
    prompt: PromptRequest['prompt'],
    options: { localId?: string } = {},
  ): Submission {
    this.#track(sessionId);
    const localId = this.store.addPending(sessionId, prompt, options);
    const messageId = this.#connection.sendRequest('session/prompt', { sessionId, prompt }).then(
      ({ messageId: id }) => {
        this.store.resolvePending(localId, id);
        return id;
      },
      (error: unknown) => {
        if (error instanceof RpcError && isOutcomeUnknown(error)) this.store.markOutcomeUnknown(localId);
        else this.store.rejectPending(localId, error);
        throw error;
      },
    );
    // The store has recorded the outcome; a caller that ignores the promise must not crash the process.
    messageId.catch(() => undefined);
    return { localId, messageId };
  }

  /** Submits a prompt and resolves with the inserted message's ID (see {@link Client.submit}). */
  prompt(sessionId: SessionId, prompt: PromptRequest['prompt']): Promise<MessageId> {
    return this.submit(sessionId, prompt).messageId;
  }

  /** Asks the agent to stop the session's foreground work. */
  cancel(sessionId: SessionId): Promise<void> {
    return this.#connection.sendNotification('session/cancel', { sessionId });
  }

  /** Closes the connection. */
  close(): void {
    this.#connection.close();
  }

  #track(sessionId: SessionId): void {
    if (this.#sessions.has(sessionId)) return;
    this.#sessions.add(sessionId);
    this.store.setConnection(sessionId, this.#connection.isClosed ? 'disconnected' : 'connected');
  }
}

/** Errors after which the prompt may or may not have been inserted: no answer ever came. */
function isOutcomeUnknown(error: RpcError): boolean {
  return error.code === ErrorCodes.ConnectionClosed || error.code === ErrorCodes.OutgoingBufferFull;
}

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

/**
 * Asks the application, but answers `cancelled` as soon as the agent withdraws the request, so
 * the agent is never left waiting on a prompt the user can no longer answer.
 */
function answerPermission(
  ask: NonNullable<ClientOptions['onPermission']>,
  request: RequestPermissionRequest,
  signal: AbortSignal,
): Promise<RequestPermissionResponse> {
  if (signal.aborted) return Promise.resolve(CANCELLED);
  return new Promise((resolve, reject) => {
    const withdraw = (): void => resolve(CANCELLED);
    signal.addEventListener('abort', withdraw, { once: true });
    Promise.resolve()
      .then(() => ask(request, { signal }))
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', withdraw));
  });
}
