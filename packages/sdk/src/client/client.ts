/**
 * The {@link Client} class: one method per agent method, each sending its request and keeping
 * the {@link ConversationStore} up to date with what the answer says.
 */
import type {
  AgentRequestMap,
  AuthStatusResponse,
  CancelTerminalResponse,
  CancelToolCallResponse,
  CloseSessionResponse,
  DeleteSessionResponse,
  ForkSessionRequest,
  ForkSessionResponse,
  InitializeResponse,
  ListSessionsRequest,
  ListSessionsResponse,
  LoginAuthResponse,
  LogoutAuthResponse,
  McpServer,
  MessageId,
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
} from '@acp-kit/schema';
import type { Connection } from '../rpc/connection.js';
import { schemaValidator } from '../codec/v2-validator.js';
import { McpServerHost } from '../mcp-over-acp/host.js';
import { AcpMcpServerTransport } from '../mcp-over-acp/mcp-transport.js';
import { unstableNotEnabled } from '../unstable-surface.js';
import { signalOf, withMeta } from './call-params.js';
import { installClientHandlers } from './client-handlers.js';
import type { CallOptions, ClientConnection, ClientOptions, ResumeOptions } from './client-options.js';
import { configOptionCall } from './config-option-request.js';
import { ConversationStore, type TurnEnd } from './conversation/index.js';
import { allSessionPages } from './session-pages.js';
import { reconcileSubmission, type Submission } from './submission.js';
import { unstableRequestRefusal } from './unstable-requests.js';

export type { CallOptions, ClientConnection, ClientOptions, ResumeOptions } from './client-options.js';
export type { Submission } from './submission.js';

/** The protocol version this client speaks. */
export const CLIENT_PROTOCOL_VERSION = 2;

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
    this.mcp = new McpServerHost((params) => typed.sendNotification('mcp/message', params), {
      unstable: options.unstable ?? false,
    });
    installClientHandlers(typed, options, { store: this.store, mcp: this.mcp, sessions: this.#sessions });
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
    if (!this.#options.unstable) {
      const refusal = unstableRequestRefusal(method, params);
      if (refusal !== undefined) return Promise.reject(refusal);
    }
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
  sessions(
    request: Omit<ListSessionsRequest, 'cursor'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<SessionInfo, void, undefined> {
    return allSessionPages((page) => this.listSessions(page, options), request);
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
    const { request, options } = configOptionCall(first, second, value, last);
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
    return reconcileSubmission(
      this.store,
      localId,
      this.#request('session/prompt', request, signalOf(options)),
    );
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
