import type {
  AgentNotificationMap,
  AgentRequestMap,
  AuthStatusResponse,
  AuthStatusUpdateNotification,
  CancelTerminalResponse,
  CancelToolCallResponse,
  ClientCapabilities,
  ClientNotificationMap,
  ClientRequestMap,
  CloseSessionResponse,
  CompleteElicitationNotification,
  DeleteSessionResponse,
  ForkSessionRequest,
  ForkSessionResponse,
  Implementation,
  InitializeResponse,
  ListSessionsRequest,
  ListSessionsResponse,
  LoginAuthResponse,
  LogoutAuthResponse,
  McpServer,
  MethodName,
  MessageId,
  Meta,
  NewSessionRequest,
  NewSessionResponse,
  PromptRequest,
  ProviderInfo,
  ResumeSessionRequest,
  ResumeSessionResponse,
  SessionConfigOption,
  SessionId,
  SessionInfo,
  SessionStatusResponse,
  SetProviderRequest,
  SetSessionConfigOptionRequest,
  SetSessionConfigOptionResponse,
  SystemPrompt,
} from '@acp-kit/schema';
import type { Connection } from '../rpc/connection.js';
import { schemaValidator } from '../codec/v2-validator.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import {
  answerUnlessWithdrawn,
  ELICITATION_CANCELLED,
  type ElicitationCallback,
  PERMISSION_CANCELLED,
  type PermissionCallback,
} from './answers.js';
import { McpServerHost } from '../mcp-over-acp/host.js';
import { AcpMcpServerTransport } from '../mcp-over-acp/mcp-transport.js';
import { ConversationStore, type TurnEnd } from './conversation/index.js';
import { UNSTABLE_METHODS, unstableNotEnabled } from '../unstable-surface.js';

/** The protocol version this client speaks. */
export const CLIENT_PROTOCOL_VERSION = 2;

/** A connection as a client holds it: it handles client methods and calls agent methods. */
export type ClientConnection = Connection<
  ClientRequestMap,
  ClientNotificationMap,
  AgentRequestMap,
  AgentNotificationMap
>;

/**
 * Type-level only: the surface a {@link Client} is typed with, its type parameter. `true` (an
 * {@link UnstableClient}) is assignable to `boolean` (the default, a stable client), so an
 * opted-in client fits wherever a client is expected, and not the other way round. No such
 * property exists at run time.
 */
declare const UNSTABLE_SURFACE: unique symbol;

/**
 * A {@link Client} typed with the unstable surface: created with the literal `unstable: true`
 * (or cast to this type). Only such a client has the unstable methods (`forkSession`, `setTitle`,
 * `sessionStatus`, `archiveSession`, `unarchiveSession`, `authStatus`, `listProviders`,
 * `setProvider`, `disableProvider`, `hostMcpServer`) in its type.
 */
export type UnstableClient = Client<true>;

/** Options for {@link Client}. `U` is the literal type of {@link ClientOptions.unstable}. */
export interface ClientOptions<U extends boolean = boolean> {
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
  onPermission?: PermissionCallback;
  /**
   * Answers `elicitation/create` (a form to fill in, or a URL to open). Default: every request is
   * answered `{ action: 'cancel' }`. Like {@link ClientOptions.onPermission}, a withdrawn request
   * is answered `cancel` at once and `signal` aborts; a throw answers -32603. Advertise the modes
   * you handle in `capabilities.elicitation`: agents send only those.
   */
  onElicitation?: ElicitationCallback;
  /** Called when the agent reports a URL elicitation finished (`elicitation/complete`). */
  onElicitationComplete?(notification: CompleteElicitationNotification): void;
  /**
   * Called when the agent reports its authentication state changed (`auth/status_update`,
   * unstable; agents that advertise `capabilities.auth.status`): a login, a logout, an expired
   * credential. The same fields as {@link Client.authStatus}'s answer.
   */
  onAuthStatus?(update: AuthStatusUpdateNotification): void;
  /**
   * Enables upstream's unstable surface (drafts that may change, see `UNSTABLE_METHODS`): the
   * methods `forkSession`, `setTitle`, `sessionStatus`, `archiveSession`, `unarchiveSession`,
   * `authStatus`, `listProviders`, `setProvider`, `disableProvider`, MCP over ACP
   * (`hostMcpServer`, `mcp.register` and an `McpServer` of type `acp`), a `systemPrompt` on
   * `session/new`, `resume` and `fork`, and `onAuthStatus`; the default store then holds the
   * unstable update kinds too. Without it those methods reject with a `TypeError` and send
   * nothing, `hostMcpServer`, `mcp.register` and `onAuthStatus` throw one, the agent's
   * `mcp/message` is answered -32601, and the store tolerates the unstable update kinds as unknown
   * ones (`otherUpdates`). Default `false`.
   *
   * It decides the client's type too: `new Client(connection, { …, unstable: true })` is a
   * {@link UnstableClient}; without the literal `true` the unstable methods are not callable at
   * all — a call fails to compile, as with the official SDK's stable entry point. An app that
   * decides at run time casts the client it opted in (`as UnstableClient`); the run-time check
   * above still applies.
   */
  unstable?: U;
}

/** Per-call options of the {@link Client} methods that send a request. */
export interface CallOptions {
  /** Aborting sends `$/cancel_request` for the request and rejects it with -32800 (request cancelled). */
  signal?: AbortSignal;
  /** Extension metadata sent as the request's `_meta`. */
  meta?: Meta;
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
  /**
   * Resolves when the work that took this prompt in ends: the first `idle` with a stop reason
   * after its insertion, never the previous turn's (see `ConversationStore.turnEnd`). Rejects like
   * `messageId` when the prompt was rejected, and when the end cannot be observed (outcome unknown,
   * connection lost). An unobserved rejection is never reported as unhandled.
   */
  readonly turnEnd: Promise<TurnEnd>;
}

/** Options of {@link Client.resume}. */
export interface ResumeOptions extends CallOptions {
  /** The working directory (absolute). */
  cwd: string;
  /** Replay the retained history from the start before the response. */
  replay?: boolean;
  /** Further directories the session may use. */
  additionalDirectories?: string[];
  /** MCP servers for the session. */
  mcpServers?: McpServer[];
  /**
   * Unstable: the session's system prompt (send the one it was created with), only to an agent
   * advertising `capabilities.session.systemPrompt`.
   */
  systemPrompt?: SystemPrompt;
}

/**
 * An ACP v2 client over one connection. Every `session/update` goes into its
 * {@link ConversationStore}; prompts are shown optimistically and reconciled by the `messageId`
 * the agent returns, never by content or arrival order.
 */
export class Client<U extends boolean = boolean> {
  /** Type-level only (see {@link UnstableClient}): absent at run time. */
  declare readonly [UNSTABLE_SURFACE]: U;
  /** The conversation(s) this client has seen. */
  readonly store: ConversationStore;
  /**
   * Unstable (the mcp-over-acp draft): the MCP servers this client provides to the agent over the
   * connection. Register one ({@link McpServerHost.register}, or {@link Client.hostMcpServer} for
   * an MCP SDK server) and give its declaration in a session's `mcpServers`; the agent's
   * `mcp/message` requests reach it. With none registered, every `mcp/message` is answered -33001.
   * Registering needs a client created with `unstable: true`; otherwise `register()` throws a
   * `TypeError` naming the opt-in, and the agent's `mcp/message` is answered -32601 (Method not
   * found), as by a client that predates MCP over ACP.
   */
  readonly mcp: McpServerHost;
  readonly #connection: ClientConnection;
  readonly #options: ClientOptions<boolean>;
  readonly #sessions = new Set<SessionId>();

  constructor(connection: ClientConnection, options: ClientOptions<U>);
  /** Drives an untyped connection (`const c = new Connection(t); new Client(c, …)`): the client types it. */
  constructor(connection: Connection, options: ClientOptions<U>);
  constructor(connection: ClientConnection | Connection, options: ClientOptions<U>) {
    this.#connection = connection as unknown as ClientConnection;
    this.#connection.useDefaultValidator(schemaValidator);
    this.#options = options;
    if (!options.unstable && options.onAuthStatus !== undefined)
      throw unstableNotEnabled('onAuthStatus (auth/status_update)', 'Client');
    this.store = options.store ?? new ConversationStore({ unstable: options.unstable ?? false });
    const typed = this.#connection;
    typed.onNotification('session/update', (params) => this.store.apply(params));
    typed.onRequest('session/request_permission', (params, context) =>
      options.onPermission
        ? answerUnlessWithdrawn(options.onPermission, params, context.signal, PERMISSION_CANCELLED)
        : PERMISSION_CANCELLED,
    );
    typed.onRequest('elicitation/create', (params, context) =>
      options.onElicitation
        ? answerUnlessWithdrawn(options.onElicitation, params, context.signal, ELICITATION_CANCELLED)
        : ELICITATION_CANCELLED,
    );
    typed.onNotification('elicitation/complete', (params) => options.onElicitationComplete?.(params));
    typed.onNotification('auth/status_update', (params) => options.onAuthStatus?.(params));
    this.mcp = new McpServerHost((params) => typed.sendNotification('mcp/message', params), {
      unstable: options.unstable ?? false,
    });
    // Without the opt-in, mcp/message is answered -32601, as by a client that predates MCP over ACP.
    if (options.unstable)
      typed.onRequest('mcp/message', (params, context) => this.mcp.handle(params, context.signal));
    typed.onClose(() => {
      void this.mcp.closeAll();
      for (const sessionId of this.#sessions) this.store.setConnection(sessionId, 'disconnected');
    });
    typed.listen();
  }

  /**
   * Sends a request, refused here (a rejected `TypeError`, nothing sent) when its method is of the
   * unstable surface and this client did not opt in ({@link ClientOptions.unstable}).
   */
  #request<M extends keyof AgentRequestMap & string>(
    method: M,
    params: AgentRequestMap[M]['params'],
    options?: { signal?: AbortSignal },
  ): Promise<AgentRequestMap[M]['result']> {
    if (!this.#options.unstable && UNSTABLE_METHODS.has(method as MethodName))
      return Promise.reject(unstableNotEnabled(`${method}`, 'Client'));
    if (!this.#options.unstable && (params as { systemPrompt?: unknown }).systemPrompt !== undefined)
      return Promise.reject(unstableNotEnabled(`systemPrompt on ${method}`, 'Client'));
    const servers = (params as { mcpServers?: { type?: unknown }[] }).mcpServers;
    if (!this.#options.unstable && servers?.some((server) => server.type === 'acp'))
      return Promise.reject(unstableNotEnabled(`an MCP server of type acp on ${method}`, 'Client'));
    return this.#connection.sendRequest(method, params, options);
  }

  /** Whether this client uses the unstable surface ({@link ClientOptions.unstable}). */
  get unstable(): boolean {
    return this.#options.unstable ?? false;
  }

  /** The underlying connection. */
  get connection(): ClientConnection {
    return this.#connection;
  }

  /**
   * Unstable (the mcp-over-acp draft): provides an MCP server over this connection through a
   * transport an MCP SDK server connects to (`await server.connect(transport)`, with
   * `@modelcontextprotocol/sdk`'s `McpServer` or `Server`). Give
   * `transport.registration.declaration` in a session's `mcpServers` to an agent advertising
   * `capabilities.session.mcp.acp`; `transport.close()` withdraws it.
   */
  hostMcpServer(
    this: UnstableClient,
    options: {
      name: string;
      serverId?: string;
      maxActiveRequests?: number;
    },
  ): AcpMcpServerTransport {
    if (!this.#options.unstable) throw unstableNotEnabled('hostMcpServer() (MCP over ACP)', 'Client');
    return new AcpMcpServerTransport(this.mcp, options);
  }

  /** Sends `initialize` with protocol version 2 and this client's info. */
  initialize(): Promise<InitializeResponse> {
    return this.#connection.sendRequest('initialize', {
      protocolVersion: CLIENT_PROTOCOL_VERSION,
      info: this.#options.info,
      capabilities: this.#options.capabilities ?? {},
    });
  }

  /** Creates a session and returns its ID (see {@link Client.createSession} for the whole response). */
  async newSession(cwd: string, mcpServers: McpServer[] = []): Promise<SessionId> {
    const { sessionId } = await this.createSession({ cwd, mcpServers });
    return sessionId;
  }

  /**
   * Sends `session/new` with the whole request (`cwd`, `mcpServers`, `additionalDirectories`,
   * `_meta`) and returns the whole response. The `configOptions` and `availableCommands` it
   * carries go into the store's snapshot of the new session.
   */
  async createSession(request: NewSessionRequest, options: CallOptions = {}): Promise<NewSessionResponse> {
    const response = await this.#request('session/new', withMeta(request, options), signalOf(options));
    this.#track(response.sessionId);
    this.#recordSessionResponse(response.sessionId, response);
    return response;
  }

  /**
   * Resumes a session. With `replay: true` the agent first replays its retained history, which
   * the store applies by the upsert rules (replaying twice changes nothing). The response's
   * `configOptions` and `availableCommands` go into the store.
   */
  async resume(sessionId: SessionId, options: ResumeOptions): Promise<ResumeSessionResponse> {
    this.#track(sessionId);
    const request: ResumeSessionRequest = {
      sessionId,
      cwd: options.cwd,
      ...(options.additionalDirectories ? { additionalDirectories: options.additionalDirectories } : {}),
      ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
      ...(options.replay ? { replayFrom: { type: 'start' as const } } : {}),
      ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
    };
    const response = await this.#request('session/resume', withMeta(request, options), signalOf(options));
    this.#recordSessionResponse(sessionId, response);
    return response;
  }

  /**
   * Lists one page of the agent's sessions (`session/list`), optionally only those rooted at
   * `cwd`. Pass the previous page's `nextCursor` as `cursor` for the next page; the cursor is the
   * agent's and opaque. See {@link Client.sessions} to walk every page.
   */
  listSessions(request: ListSessionsRequest = {}, options: CallOptions = {}): Promise<ListSessionsResponse> {
    return this.#request('session/list', withMeta(request, options), signalOf(options));
  }

  /**
   * Every session the agent lists, page after page (following `nextCursor` until the agent gives
   * none). Stops with an error if the agent hands back a cursor it already gave, rather than loop.
   */
  async *sessions(
    request: Omit<ListSessionsRequest, 'cursor'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<SessionInfo, void, undefined> {
    const seen = new Set<string>();
    let cursor: string | null | undefined;
    do {
      const page = await this.listSessions({ ...request, ...(cursor ? { cursor } : {}) }, options);
      yield* page.sessions;
      cursor = page.nextCursor;
      if (cursor) {
        if (seen.has(cursor)) throw new Error(`session/list returned the cursor "${cursor}" twice`);
        seen.add(cursor);
      }
    } while (cursor);
  }

  /**
   * Closes a session (`session/close`): the agent stops its work and releases it; it stays listed
   * and can be resumed. The store keeps what it showed.
   */
  closeSession(sessionId: SessionId, options: CallOptions = {}): Promise<CloseSessionResponse> {
    return this.#request('session/close', withMeta({ sessionId }, options), signalOf(options));
  }

  /**
   * Deletes a session and its history (`session/delete`; agents that advertise
   * `capabilities.session.delete`). Once the agent confirms, the store forgets the session too.
   */
  async deleteSession(sessionId: SessionId, options: CallOptions = {}): Promise<DeleteSessionResponse> {
    const response = await this.#request(
      'session/delete',
      withMeta({ sessionId }, options),
      signalOf(options),
    );
    this.#sessions.delete(sessionId);
    this.store.forget(sessionId);
    return response;
  }

  /** Authenticates with one of the `authMethods` the agent advertised in `initialize` (`auth/login`). */
  login(methodId: string, options: CallOptions = {}): Promise<LoginAuthResponse> {
    return this.#request('auth/login', withMeta({ methodId }, options), signalOf(options));
  }

  /**
   * Asks the agent for its authentication state on this connection (`auth/status`, unstable;
   * agents that advertise `capabilities.auth.status`): `authenticated`, `unauthenticated` (log in
   * before session methods), `not_required` or `unknown`, with the accounts it has configured for
   * display. Never refused for want of a login.
   */
  authStatus(this: UnstableClient, options: CallOptions = {}): Promise<AuthStatusResponse> {
    return this.#request('auth/status', withMeta({}, options), signalOf(options));
  }

  /**
   * Unstable: the LLM providers the agent can route to, with where each sends requests now
   * (`providers/list`; only to an agent advertising `capabilities.providers`). Never carries headers.
   */
  async listProviders(this: UnstableClient, options: CallOptions = {}): Promise<ProviderInfo[]> {
    const response = await this.#request('providers/list', withMeta({}, options), signalOf(options));
    return response.providers;
  }

  /**
   * Unstable: replaces one provider's whole configuration (`providers/set`): its API, base URL and
   * headers (secrets the agent never reports back).
   */
  async setProvider(
    this: UnstableClient,
    request: SetProviderRequest,
    options: CallOptions = {},
  ): Promise<void> {
    await this.#request('providers/set', withMeta(request, options), signalOf(options));
  }

  /** Unstable: disables one provider that is not required (`providers/disable`). */
  async disableProvider(this: UnstableClient, providerId: string, options: CallOptions = {}): Promise<void> {
    await this.#request('providers/disable', withMeta({ providerId }, options), signalOf(options));
  }

  /** Ends the authenticated state (`auth/logout`). */
  logout(options: CallOptions = {}): Promise<LogoutAuthResponse> {
    return this.#request('auth/logout', withMeta({}, options), signalOf(options));
  }

  /**
   * Changes one configuration option (`session/set_config_option`): a string value chooses a
   * select option by its value ID (`type: 'id'`), a boolean sets a boolean option. Returns every
   * option's current value, which also goes into the store's snapshot.
   */
  setConfigOption(
    sessionId: SessionId,
    configId: string,
    value: string | boolean,
    options?: CallOptions,
  ): Promise<readonly SessionConfigOption[]>;
  /** Sends a whole `session/set_config_option` request (an extension option type, say). */
  setConfigOption(
    request: SetSessionConfigOptionRequest,
    options?: CallOptions,
  ): Promise<readonly SessionConfigOption[]>;
  async setConfigOption(
    first: SessionId | SetSessionConfigOptionRequest,
    second?: string | CallOptions,
    value?: string | boolean,
    last?: CallOptions,
  ): Promise<readonly SessionConfigOption[]> {
    let request: SetSessionConfigOptionRequest;
    let options: CallOptions;
    if (typeof first === 'string') {
      const configId = second as string;
      request =
        typeof value === 'boolean'
          ? { type: 'boolean', sessionId: first, configId, value }
          : { type: 'id', sessionId: first, configId, value: value as string };
      options = last ?? {};
    } else {
      request = first;
      options = (second as CallOptions | undefined) ?? {};
    }
    const response: SetSessionConfigOptionResponse = await this.#request(
      'session/set_config_option',
      withMeta(request, options),
      signalOf(options),
    );
    this.store.setConfigOptions(request.sessionId, response.configOptions);
    return this.store.snapshot(request.sessionId).configOptions ?? [];
  }

  /**
   * Forks a session (`session/fork`, upstream's unstable surface; the agent must advertise
   * `capabilities.session.fork`): the agent makes a new session that starts with the source's
   * retained history, attaches this connection to it and answers with its ID. The source is not
   * changed. The store tracks the fork from its response on; its copied history reaches the store
   * only by replay, so pass `replay: true` to resume the fork with replay right away (the store
   * then shows the fork as the agent holds it).
   */
  async forkSession(
    this: UnstableClient,
    request: ForkSessionRequest,
    options: CallOptions & { replay?: boolean } = {},
  ): Promise<ForkSessionResponse> {
    const { replay, ...call } = options;
    const response = await this.#request('session/fork', withMeta(request, call), signalOf(call));
    this.#track(response.sessionId);
    this.#recordSessionResponse(response.sessionId, response);
    if (replay) await this.resume(response.sessionId, { ...call, cwd: request.cwd, replay: true });
    return response;
  }

  /**
   * Sets a session's title (`session/set_title`, unstable; agents that advertise
   * `capabilities.session.title`). Resolves with the title the agent stored, which may be
   * normalized (trimmed, shortened): show that one. Attached clients also get it as a
   * `session_info_update`.
   */
  async setTitle(
    this: UnstableClient,
    sessionId: SessionId,
    title: string,
    options: CallOptions = {},
  ): Promise<string> {
    const response = await this.#request(
      'session/set_title',
      withMeta({ sessionId, title }, options),
      signalOf(options),
    );
    return response.title;
  }

  /**
   * Asks whether the agent holds a session in memory (`session/status`, unstable; agents that
   * advertise `capabilities.session.status`): `open`, with its current activity in `state`, or
   * `saved` (resume it to start it). It changes nothing and does not attach this connection: an
   * `open` session still needs `resume` before prompting it. A snapshot, which may be stale by the
   * next request; an unknown session rejects with -32002.
   */
  sessionStatus(
    this: UnstableClient,
    sessionId: SessionId,
    options: CallOptions = {},
  ): Promise<SessionStatusResponse> {
    return this.#request('session/status', withMeta({ sessionId }, options), signalOf(options));
  }

  /**
   * Archives a session (`session/archive`, unstable; agents that advertise
   * `capabilities.session.archive`): it leaves the default `session/list` results, keeps its ID
   * and history, and is closed first if work runs (its turn ends `cancelled`). List archived
   * sessions with `listSessions({ archived: 'only' })` (or `'include'`).
   */
  async archiveSession(this: UnstableClient, sessionId: SessionId, options: CallOptions = {}): Promise<void> {
    await this.#request('session/archive', withMeta({ sessionId }, options), signalOf(options));
  }

  /**
   * Unarchives a session (`session/unarchive`, unstable): it is listed by default again. Nothing is
   * resumed; call `resume` to go on with it.
   */
  async unarchiveSession(
    this: UnstableClient,
    sessionId: SessionId,
    options: CallOptions = {},
  ): Promise<void> {
    await this.#request('session/unarchive', withMeta({ sessionId }, options), signalOf(options));
  }

  /** Cancels one tool call that advertises the cancel capability (`tool_call/cancel`); the rest of the work goes on. */
  cancelToolCall(
    sessionId: SessionId,
    toolCallId: string,
    options: CallOptions = {},
  ): Promise<CancelToolCallResponse> {
    return this.#request('tool_call/cancel', withMeta({ sessionId, toolCallId }, options), signalOf(options));
  }

  /** Stops the command of one terminal that advertises the cancel capability (`terminal/cancel`). */
  cancelTerminal(
    sessionId: SessionId,
    terminalId: string,
    options: CallOptions = {},
  ): Promise<CancelTerminalResponse> {
    return this.#request('terminal/cancel', withMeta({ sessionId, terminalId }, options), signalOf(options));
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
    options: { localId?: string } & CallOptions = {},
  ): Submission {
    this.#track(sessionId);
    const localId = this.store.addPending(
      sessionId,
      prompt,
      options.localId ? { localId: options.localId } : {},
    );
    const request = withMeta({ sessionId, prompt }, options);
    const messageId = this.#request('session/prompt', request, signalOf(options)).then(
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
    const turnEnd = this.store.turnEnd(localId);
    turnEnd.catch(() => undefined);
    return { localId, messageId, turnEnd };
  }

  /** Submits a prompt and resolves with the inserted message's ID (see {@link Client.submit}). */
  prompt(
    sessionId: SessionId,
    prompt: PromptRequest['prompt'],
    options: CallOptions = {},
  ): Promise<MessageId> {
    return this.submit(sessionId, prompt, options).messageId;
  }

  /**
   * Submits a prompt and resolves when the work that took it in ends (see {@link Submission.turnEnd}):
   * `{ messageId, stopReason, usage, error }`. A stop reason `error` resolves too; it does not reject.
   */
  promptToEnd(
    sessionId: SessionId,
    prompt: PromptRequest['prompt'],
    options: CallOptions = {},
  ): Promise<TurnEnd> {
    return this.submit(sessionId, prompt, options).turnEnd;
  }

  /** Asks the agent to stop the session's foreground work. */
  cancel(sessionId: SessionId): Promise<void> {
    return this.#connection.sendNotification('session/cancel', { sessionId });
  }

  /** Closes the connection. */
  close(): void {
    this.#connection.close();
  }

  #recordSessionResponse(sessionId: SessionId, response: NewSessionResponse | ResumeSessionResponse): void {
    if (Array.isArray(response.configOptions)) this.store.setConfigOptions(sessionId, response.configOptions);
    if (Array.isArray(response.availableCommands)) {
      this.store.setAvailableCommands(sessionId, response.availableCommands);
    }
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

/** `params` with the caller's `_meta`, when given. */
function withMeta<P extends object>(params: P, options: CallOptions): P {
  return options.meta === undefined ? params : { ...params, _meta: options.meta };
}

/** The connection's per-request options from the caller's. */
function signalOf(options: CallOptions): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}
