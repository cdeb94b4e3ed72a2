import type { McpOverAcpCaller } from '../../mcp-over-acp/caller.js';
import type { ProviderRegistry } from '../providers.js';
import type { AgentCapabilities, ClientNotificationMap, SessionId } from '@acp-kit/schema';
import type { SessionLog } from '../../history/session-log.js';
import type { RequestContext } from '../../rpc/handlers.js';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import type { AgentOptions, HandlerErrorContext } from '../agent-options.js';
import type { AgentSession } from '../agent-session.js';
import type { ClientPeer } from './client-peer.js';
import type { ConnectionState } from './connection-state.js';
import type { MethodGate } from './method-gate.js';
import type { AgentMethodHandlers } from './method-table.js';
import type { MethodContext } from '../method-options.js';
import type { SessionSettings } from '../sessions/session-settings.js';

/**
 * What a feature module may use of the agent serving it: its options, its sessions and its log.
 * The `Agent` gives every connection the same one; feature modules never see the class itself.
 */
export interface AgentHost {
  readonly options: AgentOptions;
  readonly log: SessionLog;
  /** The configured capabilities (see `Agent.capabilities`). */
  readonly capabilities: AgentCapabilities;
  /** The configurable LLM providers (unstable), when the agent was given any. */
  readonly providers: ProviderRegistry | undefined;
  /** MCP over ACP (unstable), when the agent connects acp servers (the `mcpOverAcp` option). */
  readonly mcp: McpOverAcpCaller | undefined;
  readonly sessions: ReadonlyMap<SessionId, AgentSession>;
  newSessionId(): SessionId;
  /** The session, loaded from the log if needed; undefined when the log does not know it. */
  session(sessionId: SessionId): Promise<AgentSession | undefined>;
  /** The session, or -32002 when the log does not know it. */
  require(sessionId: SessionId): Promise<AgentSession>;
  createSession(
    cwd: string,
    options: { sessionId?: SessionId; title?: string | null; settings?: SessionSettings },
  ): Promise<AgentSession>;
  closeSession(sessionId: SessionId): Promise<boolean>;
  deleteSession(sessionId: SessionId): Promise<boolean>;
  /** Hands an application handler's error to `onHandlerError`. */
  handlerFailed(error: unknown, context: HandlerErrorContext): void;
}

/** One client connection as the feature modules serve it. */
export interface ConnectionHost {
  readonly state: ConnectionState;
  readonly peer: ClientPeer;
  readonly gate: MethodGate<ConnectionHost>;
  /** The label the connection was served with (`stdio`, `client#3`). */
  readonly label: string;
  /** Attaches the connection to a session (with `hold`, live entries wait until `release`). */
  attach(session: AgentSession, hold?: boolean): void;
  /** Detaches the connection from every session it follows (at `auth/logout`). */
  detachAll(): void;
  /** Sends the client a notification outside any session (for example `auth/status_update`). */
  notify<M extends keyof ClientNotificationMap & string>(
    method: M,
    params: ClientNotificationMap[M],
  ): Promise<void>;
}

/**
 * A feature module: the handlers of one family of methods (sessions, prompts, configuration…),
 * keyed by method name, built once per agent; each call is given the {@link ConnectionHost} of
 * the connection it arrived on. The table looks each method up in the generated method table and
 * applies the checks every method gets (admission, capability, storable text, error mapping)
 * before it runs.
 */
export type MethodFeature = (agent: AgentHost) => AgentMethodHandlers<ConnectionHost>;

/** What every handler an application gives is passed: the client asking and the cancellation. */
export function methodContext(
  connection: Pick<ConnectionHost, 'peer'>,
  request: Pick<RequestContext, 'signal'>,
): MethodContext {
  return { client: connection.peer, signal: request.signal };
}

/**
 * Runs an application handler: an `RpcError` it throws is the answer (a refusal); anything else
 * is reported to `onHandlerError` and answered -32603 without details.
 */
export async function runHandler<T>(
  agent: Pick<AgentHost, 'handlerFailed'>,
  handler: HandlerErrorContext['handler'],
  sessionId: SessionId | undefined,
  run: () => T | Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RpcError) throw error;
    agent.handlerFailed(error, { handler, sessionId: sessionId ?? '' });
    throw new RpcError(ErrorCodes.InternalError, 'Internal error');
  }
}
