import type { McpServer, McpServerAcp, MessageMcpNotification, SessionId } from '@acp-kit/schema';
import { isMcpServerAcp } from './declarations.js';
import { McpServerHandle } from './server-handle.js';
import type { ClientPeer } from '../agent/connection/client-peer.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import {
  type McpClientIdentity,
  McpBindingErrors,
  type McpOutcome,
  parseMcpOutcome,
  serverUnavailable,
  withMcpRequestMeta,
} from './binding.js';

/** An MCP notification that arrived for one active request (progress, a subscription event). */
export interface McpNotice {
  /** The inner MCP method, for example `notifications/progress`. */
  method: string;
  /** Its inner params, if any. */
  params?: Record<string, unknown>;
}

/** Per-request options of {@link McpOverAcpCaller.request}. */
export interface McpCallOptions {
  /**
   * Aborting sends `$/cancel_request` for the `mcp/message` request and rejects with -32800 at
   * once: the caller never waits on the client to acknowledge it (a hung client cannot hold a
   * cancelled turn). A late answer is dropped.
   */
  signal?: AbortSignal;
  /** Receives the MCP notifications of this request while it is active; later ones are dropped. */
  onNotification?(notice: McpNotice): void;
  /** The inner request ID (default a fresh one); never one still active for that server. */
  requestId?: string;
}

/** What the caller keeps per client connection. */
interface PeerState {
  /** The acp servers the client declared, per session (its latest session/new, resume or fork). */
  readonly sessions: Map<SessionId, readonly McpServerAcp[]>;
  /** Listeners of the active requests, by serverId and requestId. */
  readonly active: Map<string, (notice: McpNotice) => void>;
}

/**
 * Settles like `request`, except that once `signal` aborts it rejects with `cancelled()` at once,
 * without waiting for the peer's answer to the withdrawn request.
 */
function withdrawnOnAbort<T>(
  request: Promise<T>,
  signal: AbortSignal | undefined,
  cancelled: () => Error,
): Promise<T> {
  if (signal === undefined) return request;
  if (signal.aborted) {
    request.catch(() => undefined);
    return Promise.reject(cancelled());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    request.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const routeKey = (serverId: string, requestId: string) => JSON.stringify([serverId, requestId]);

/**
 * The agent's side of MCP over ACP (unstable; the `mcpOverAcp` agent option): the servers each
 * client declared for a session, and `mcp/message` requests to them over that client's
 * connection. The agent records declarations from `session/new`, `session/resume` and
 * `session/fork`, and routes `mcp/message` notifications to the request they belong to.
 *
 * Each request carries the per-request `_meta` of the stateless MCP revision the binding uses
 * (protocol version, client capabilities, client info). An MCP server's error resolves as
 * `{ error }`; failures of the binding reject with an `RpcError` (-33001 no such server, -33002
 * the server failed, -32800 cancelled).
 */
export class McpOverAcpCaller {
  readonly #identity: McpClientIdentity;
  readonly #peers = new WeakMap<ClientPeer, PeerState>();
  #next = 0;

  constructor(identity: McpClientIdentity = {}) {
    this.#identity = identity;
  }

  #state(peer: ClientPeer): PeerState {
    let state = this.#peers.get(peer);
    if (state === undefined) {
      state = { sessions: new Map(), active: new Map() };
      this.#peers.set(peer, state);
    }
    return state;
  }

  /** Records the acp servers `client` declared for a session (replacing its earlier declaration). */
  declare(sessionId: SessionId, client: ClientPeer, servers: readonly McpServer[] | null | undefined): void {
    const acp = (servers ?? []).filter(isMcpServerAcp);
    const state = this.#state(client);
    if (acp.length === 0) state.sessions.delete(sessionId);
    else state.sessions.set(sessionId, acp);
  }

  /** The acp servers `client` declared for the session, in the order it gave them. */
  servers(sessionId: SessionId, client: ClientPeer): readonly McpServerAcp[] {
    return this.#peers.get(client)?.sessions.get(sessionId) ?? [];
  }

  /** Whether `client` declared a server with this ID for any session. */
  #declared(client: ClientPeer, serverId: string): boolean {
    const sessions = this.#peers.get(client)?.sessions.values() ?? [];
    for (const servers of sessions) if (servers.some((s) => s.serverId === serverId)) return true;
    return false;
  }

  /**
   * Sends one MCP request to a server `client` declared, and resolves with its MCP outcome. A
   * server it never declared is refused here, before anything is sent (-33001).
   */
  async request(
    client: ClientPeer,
    serverId: string,
    method: string,
    params?: Record<string, unknown> | null,
    options: McpCallOptions = {},
  ): Promise<McpOutcome> {
    if (!this.#declared(client, serverId))
      throw serverUnavailable(serverId, `${client.label} declared no such server for any session`);
    const state = this.#state(client);
    const requestId = options.requestId ?? `mcp-${++this.#next}`;
    const key = routeKey(serverId, requestId);
    if (state.active.has(key)) {
      throw new RpcError(
        ErrorCodes.InvalidParams,
        `MCP request ${requestId} is already active for ${serverId}`,
        {
          serverId,
          requestId,
        },
      );
    }
    state.active.set(key, options.onNotification ?? (() => undefined));
    try {
      const answer = await withdrawnOnAbort(
        client.request(
          'mcp/message',
          { serverId, requestId, method, params: withMcpRequestMeta(params, this.#identity) },
          options.signal,
        ),
        options.signal,
        () =>
          new RpcError(ErrorCodes.RequestCancelled, `MCP request ${requestId} was cancelled`, {
            serverId,
            requestId,
          }),
      );
      const outcome = parseMcpOutcome(answer);
      if (outcome === undefined) {
        throw new RpcError(McpBindingErrors.BackendFailed, 'mcp/message answered without an MCP outcome', {
          answer,
        });
      }
      return outcome;
    } finally {
      state.active.delete(key);
    }
  }

  /** Hands an `mcp/message` notification from `client` to its active request; drops it otherwise. */
  deliver(notification: MessageMcpNotification, client: ClientPeer): boolean {
    const listener = this.#peers
      .get(client)
      ?.active.get(routeKey(notification.serverId, notification.requestId));
    if (listener === undefined) return false;
    try {
      listener({
        method: notification.method,
        ...(notification.params == null ? {} : { params: notification.params }),
      });
    } catch {
      // A listener's failure belongs to the application; the connection goes on.
    }
    return true;
  }

  /**
   * A handle on one declared server with the MCP requests a tool user needs: `tools/list` and
   * `tools/call`. Each resolves with the MCP result or rejects with an {@link McpCallError} for an
   * MCP error (binding failures reject with their `RpcError`).
   */
  server(client: ClientPeer, serverId: string): McpServerHandle {
    return new McpServerHandle(this, client, serverId);
  }
}
