import type { NesAgentOptions } from '../nes/agent/nes-agent-options.js';
import type { McpClientIdentity } from '../mcp-over-acp/binding.js';
import type { ProviderDefinition } from './providers.js';
import type {
  AuthMethod,
  AuthStatusResponse,
  AvailableCommand,
  ListSessionsRequest,
  ListSessionsResponse,
  LoginAuthRequest,
  LogoutAuthRequest,
  NewSessionRequest,
  ResumeSessionRequest,
  SessionConfigOption,
  SessionId,
  SetSessionConfigOptionRequest,
} from '@acp-kit/schema';
import type { AgentSession } from './agent-session.js';
import type { ClientPeer } from './connection/client-peer.js';

/** What every method handler is given: the client asking, and the request's cancellation. */
export interface MethodContext {
  /** The client connection the request came from. */
  client: ClientPeer;
  /** Aborted when the client cancels the request (`$/cancel_request`) or disconnects. */
  signal: AbortSignal;
}

/**
 * How a session starts (returned by {@link AgentMethodOptions.onNewSession}) or changes on
 * resume ({@link AgentMethodOptions.onResumeSession}). Each field is kept in the session
 * directory — surviving a restart with the log — and sent in the `session/new` /
 * `session/resume` response.
 */
export interface SessionSetup {
  /** The session's configuration options (modes, models…) with their current values. */
  configOptions?: readonly SessionConfigOption[];
  /** The commands available in the session right away. */
  availableCommands?: readonly AvailableCommand[];
  /** The title `session/list` shows (default none). */
  title?: string | null;
}

/** Authentication (`auth/login`, `auth/logout`); see {@link AgentMethodOptions.auth}. */
export interface AgentAuthOptions {
  /** The methods advertised as `authMethods` in the `initialize` response. */
  methods: readonly AuthMethod[];
  /**
   * Require a successful `auth/login` on a connection before its session methods (`session/new`,
   * `session/list`, `session/resume`, `session/prompt`, …): until then they fail with -32000
   * (authentication required). Default false.
   */
  required?: boolean;
  /**
   * Checks a login (`auth/login` with a `methodId` among {@link methods}). Throw an `RpcError`
   * (for example -32000) to refuse it. Default: any advertised method succeeds — right for
   * `agent` methods whose credentials the agent process already holds.
   */
  login?(request: LoginAuthRequest, context: MethodContext): void | Promise<void>;
  /** Called on `auth/logout`, after which the connection needs a new login. Default: nothing else. */
  logout?(request: LogoutAuthRequest, context: MethodContext): void | Promise<void>;
  /**
   * What `auth/status` (unstable; served with `capabilities.auth.status`) reports, given whether
   * this connection has logged in — for example the accounts the agent has configured. Default:
   * `authenticated` after a login; before one `unauthenticated` when {@link required}, else
   * `not_required`; no accounts.
   */
  status?(loggedIn: boolean, context: MethodContext): AuthStatusResponse | Promise<AuthStatusResponse>;
}

/**
 * The handlers of the v2 session methods beyond the prompt lifecycle. Every one has a built-in
 * default, so an agent that sets none still answers `session/list`, `session/close`,
 * `session/set_config_option` and the cancel requests correctly. Throwing an `RpcError` from a
 * handler answers the request with that error (a refusal); any other exception answers -32603
 * and goes to `onHandlerError`.
 */
export interface AgentMethodOptions {
  /** Sessions per `session/list` page for the built-in handler (default 50). */
  listPageSize?: number;
  /**
   * Replaces the built-in `session/list` (pages of the session log's directory, with titles and
   * `updatedAt`, filtered by `cwd`). `builtIn` is that default, to wrap or filter.
   */
  listSessions?(
    request: ListSessionsRequest,
    context: MethodContext & { builtIn(request: ListSessionsRequest): Promise<ListSessionsResponse> },
  ): ListSessionsResponse | Promise<ListSessionsResponse>;
  /**
   * Called for every valid `session/new` with the whole request (`cwd`, `additionalDirectories`,
   * `mcpServers`, `_meta`) before the session exists, with the ID it will get. Throw an `RpcError`
   * to refuse (nothing is created); return a {@link SessionSetup} to give the session its
   * configuration options, commands and title.
   */
  onNewSession?(
    request: NewSessionRequest,
    context: MethodContext & { sessionId: SessionId },
  ): SessionSetup | undefined | Promise<SessionSetup | undefined>;
  /**
   * Called once per `session/new` after the session was created, the requesting client attached
   * and the response handed to its connection: the place for agent-initiated updates before any
   * prompt (a greeting with {@link AgentSession.agentMessage}, a notice). They open no turn. What
   * it throws goes to {@link AgentOptions.onHandlerError}; the session is unaffected.
   */
  onSessionStarted?(session: AgentSession): void | Promise<void>;
  /**
   * Called for every valid `session/resume` of a known session with the whole request, before the
   * client is attached and anything is replayed. Throw an `RpcError` to refuse; return a
   * {@link SessionSetup} to change the session's settings.
   */
  onResumeSession?(
    request: ResumeSessionRequest,
    context: MethodContext & { session: AgentSession },
  ): SessionSetup | undefined | Promise<SessionSetup | undefined>;
  /**
   * Called when a live session is closed (`session/close`, or before `session/delete`), after its
   * work was cancelled as `session/cancel` cancels it (`onCancel` first) and the turn it was
   * running ended, and before it is released: free what the application holds for it.
   */
  onCloseSession?(session: AgentSession, context: MethodContext): void | Promise<void>;
  /**
   * Called on `session/delete` of a session the history knows, before anything is removed (the
   * agent must advertise `capabilities.session.delete`; otherwise the method answers -32601). Throw
   * an `RpcError` to refuse. Deleting an unknown or already-deleted session answers `{}` without
   * calling it.
   */
  onDeleteSession?(sessionId: SessionId, context: MethodContext): void | Promise<void>;
  /**
   * Replaces the built-in `session/set_config_option`, which accepts a value listed by a select
   * option or a boolean for a boolean option (anything else -32602 with the pointer) and sets
   * `currentValue`. Return every option after the change; the agent keeps them, reports
   * `config_option_update` and answers with them. `builtIn` is the default, to wrap.
   */
  setConfigOption?(
    request: SetSessionConfigOptionRequest,
    context: MethodContext & {
      session: AgentSession;
      current: readonly SessionConfigOption[];
      builtIn(
        request: SetSessionConfigOptionRequest,
        current: readonly SessionConfigOption[],
      ): SessionConfigOption[];
    },
  ): readonly SessionConfigOption[] | Promise<readonly SessionConfigOption[]>;
  /** Authentication: advertised methods, login and logout handlers, and whether login is required. */
  auth?: AgentAuthOptions;
  /**
   * Unstable: the LLM providers clients may configure (`providers/list`, `providers/set`,
   * `providers/disable`, advertised as `capabilities.providers`). Read where a provider routes now
   * with `agent.providers.route(id)`. Omitted: the methods are not served.
   */
  providers?: readonly ProviderDefinition[];
  /**
   * Unstable (the mcp-over-acp draft): connect MCP servers of type `acp`, which the client
   * provides over the ACP connection itself. Advertises `capabilities.session.mcp.acp`, records
   * the acp servers each client declares in `session/new`, `session/resume` and `session/fork`,
   * and serves the `mcp/message` notifications of active requests; reach a server with
   * `agent.mcp` (an `McpOverAcpCaller`). `true`, or the MCP client identity each request
   * carries. Omitted: an `acp` server in `mcpServers` is refused -32602.
   */
  mcpOverAcp?: true | McpClientIdentity;
  /**
   * Unstable (next edit suggestions; needs `unstable: true`): serves `nes/*` and `document/*`,
   * advertises `capabilities.nes` and negotiates `positionEncoding` per connection. See
   * {@link NesAgentOptions}.
   */
  nes?: NesAgentOptions;
}
