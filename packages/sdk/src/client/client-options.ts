/**
 * The types a {@link Client} is built and called with: its options, the per-call options,
 * `resume`'s options, and the typed connection it holds.
 */
import type {
  AgentNotificationMap,
  AgentRequestMap,
  AuthStatusUpdateNotification,
  ClientCapabilities,
  ClientNotificationMap,
  ClientRequestMap,
  CompleteElicitationNotification,
  Implementation,
  McpServer,
  Meta,
  SystemPrompt,
} from '@acp-kit/schema';
import type { Connection } from '../rpc/connection.js';
import type { ElicitationCallback, PermissionCallback } from './answers.js';
import type { ConversationStore } from './conversation/index.js';

/** A connection as a client holds it: it handles client methods and calls agent methods. */
export type ClientConnection = Connection<
  ClientRequestMap,
  ClientNotificationMap,
  AgentRequestMap,
  AgentNotificationMap
>;

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
