import type { AgentCapabilities, Implementation, SessionId } from '@acp-kit/schema';
import type { ReplayVia } from '../history/history-store.js';
import type { SessionLog, WriteBehindLimits } from '../history/session-log.js';
import type { RpcError } from '../rpc/errors.js';
import type { AgentSession } from './agent-session.js';
import type { ClientPeer } from './connection/client-peer.js';
import type { AgentMethodOptions } from './method-options.js';
import type { PendingPrompt } from './turns/pending-prompt.js';
import type { SessionOwnership } from './sessions/session-ownership.js';

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
    | 'onSessionStarted'
    | 'onResumeSession'
    | 'onCloseSession'
    | 'onDeleteSession'
    | 'listSessions'
    | 'setConfigOption'
    | 'login'
    | 'logout'
    | 'authStatus';
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
   * Enables upstream's unstable surface (drafts that may change, see `UNSTABLE_METHODS`): only
   * with it may `capabilities` name an unstable capability (`session.fork`, `session.title`,
   * `session.status`, `session.archive`, `session.systemPrompt`, `auth.status`,
   * `session.mcp.acp`), `providers` and `mcpOverAcp` be given — each then served and advertised like any other method, exactly when configured —
   * and may sessions send the unstable update kinds (`subagent()`, `plan_removed`, session
   * messages, file and Markdown plans). Without it the constructor throws a `TypeError` naming
   * what needs it, and the agent is stable-only: no unstable capability advertised, every
   * unstable method -32601. Default `false`.
   */
  unstable?: boolean;
  /**
   * The {@link SessionLog} sessions live in (`SqliteSessionLog`, `PostgresSessionLog`…). Agents
   * given the same log share its sessions: their clients see the same updates in the same order.
   * Default: a fresh `MemorySessionLog`.
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
   * it are not written either and the session's next update throws the error — unless that update
   * (or one already queued behind the lost chunks) ends the turn: that `idle` is written all the
   * same, with stop reason `error` (the clients saw the reply only up to the loss), and resolves
   * once the log has it, so a turn is never left open by chunks lost before its end. `false`
   * waits for the log on every update. Default: what the log suggests ({@link SessionLog.writeBehind}:
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
   * insert it later, for example after the current work. If the handler throws (or its promise
   * rejects) before the prompt is settled, the client gets -32603 and nothing is inserted. If it
   * throws after the prompt was inserted while the session's turn is still open (`running` or
   * `requires_action`, also a turn shared with other prompts), the SDK ends that turn with
   * `idle('error')` and a -32603 error; a turn the handler already ended gets nothing more. Either
   * way clients see only a generic message; the error itself goes to
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
