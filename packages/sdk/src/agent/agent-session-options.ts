import type { WriteBehindLimits } from '../history/session-log.js';
import type { AgentSession } from './agent-session.js';
import type { ClientPeer } from './connection/client-peer.js';

/** Options of an {@link AgentSession} (set by the agent). */
export interface AgentSessionOptions {
  /**
   * Live updates a client may have waiting while it receives a replay; past this the client is
   * too slow to follow the session and is disconnected. Default 65 536.
   */
  readonly maxHeldUpdates?: number;
  /**
   * How far streamed chunks may run ahead of the log (see {@link AgentOptions.writeBehind});
   * `false` waits for the log on every update. Default: what the log suggests
   * ({@link SessionLog.writeBehind}), none for the in-process logs.
   */
  readonly writeBehind?: WriteBehindLimits | false;
  /** Creates a session in the same agent (a subagent's session, see {@link AgentSession.subagent}). */
  readonly spawn?: (cwd: string) => Promise<AgentSession>;
  /**
   * Whether the session may send the update kinds of upstream's unstable surface (the agent's
   * `unstable` option); without it they throw a `TypeError`. Default `false`.
   */
  readonly unstable?: boolean;
}

/** What the agent passes along with an insertion (see {@link AgentSession.insertUserMessage}). */
export interface InsertContext {
  /** The submitting client: the insertion resolves once its report was handed to that client. */
  readonly peer?: ClientPeer;
  /** The session's cancel generation when the prompt arrived (from {@link AgentSession.promptArrived}). */
  readonly arrival?: number;
}

/** Live updates a client may have waiting while it receives a replay, by default. */
export const DEFAULT_MAX_HELD = 65_536;
