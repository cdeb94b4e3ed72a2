import type { McpServerAcp, MessageMcpNotification, MessageMcpRequest } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { unstableNotEnabled } from '../unstable-surface.js';
import { isMcpError, McpBindingErrors, type McpOutcome, serverUnavailable } from './binding.js';

/** One MCP request as a server registered on the {@link McpServerHost} is given it. */
export interface McpServerRequest {
  /** The server's ID. */
  serverId: string;
  /** The caller's ID for the request (also its inner JSON-RPC id). */
  requestId: string;
  /** The inner MCP method, for example `tools/call`. */
  method: string;
  /** The inner MCP params (`null` and omitted both become undefined); `_meta` holds the MCP request meta. */
  params: Record<string, unknown> | undefined;
  /**
   * Aborted when the agent cancels the request, the server is withdrawn, or the connection closes.
   */
  signal: AbortSignal;
  /** Sends the agent an MCP notification belonging to this request; dropped once it has settled. */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
}

/**
 * Answers the MCP requests of one server: return `{ result }` or `{ error }` (an MCP error, an
 * integer code and a message). A throw, or anything else returned, answers the agent -33002.
 */
export type McpServerHandler = (request: McpServerRequest) => McpOutcome | Promise<McpOutcome>;

/** Options of {@link McpServerHost.register}. */
export interface McpServerRegistrationOptions {
  /** The name the declaration gives the agent. */
  name: string;
  /** Answers its MCP requests. */
  handler: McpServerHandler;
  /** The server's ID (default a fresh one); an ID is registered at most once per host. */
  serverId?: string;
  /** Active requests it takes at once (default 64); more are answered -33000. */
  maxActiveRequests?: number;
}

interface Registered {
  readonly handler: McpServerHandler;
  readonly maxActive: number;
  readonly active: Map<string, { readonly controller: AbortController; readonly settled: Promise<unknown> }>;
  readonly withdrawn: AbortController;
}

/** How the host sends an `mcp/message` notification to the agent (the client's connection). */
export type McpNotificationSender = (params: MessageMcpNotification) => Promise<void>;

/** Options of an {@link McpServerHost}. */
export interface McpServerHostOptions {
  /**
   * Whether the owner opted in to the unstable surface (default true: a host made on its own is
   * the opt-in). A `Client` gives its `unstable` option: when false, `register()` throws a
   * `TypeError` naming the opt-in, registering nothing.
   */
  unstable?: boolean;
}

/** One server registered on a {@link McpServerHost}. */
export class McpServerRegistration {
  /** The server's name. */
  readonly name: string;
  /** The server's ID on this connection. */
  readonly serverId: string;
  readonly #withdraw: () => Promise<void>;

  constructor(name: string, serverId: string, withdraw: () => Promise<void>) {
    this.name = name;
    this.serverId = serverId;
    this.#withdraw = withdraw;
  }

  /** The declaration to give in a session's `mcpServers` (`session/new`, `session/resume`, `session/fork`). */
  get declaration(): McpServerAcp {
    return { type: 'acp', name: this.name, serverId: this.serverId };
  }

  /**
   * Withdraws the server: later requests for it are answered -33001, active ones are cancelled
   * (-32800); resolves once their handlers have settled.
   */
  dispose(): Promise<void> {
    return this.#withdraw();
  }
}

let nextServer = 0;

/**
 * The client's side of MCP over ACP (unstable): the MCP servers the client application provides to
 * agents over the ACP connection itself. Each registered server gets a `serverId`; give its
 * {@link McpServerRegistration.declaration} in a session's `mcpServers` (to an agent advertising
 * `capabilities.session.mcp.acp`) and the agent's `mcp/message` requests for it reach its handler.
 * A request for a server that is not registered (never was, or was withdrawn) is answered -33001,
 * one whose `requestId` is already active -32602, one over the server's limit -33000, and a
 * handler that fails without an MCP outcome -33002: always an answer, never a hang.
 */
export class McpServerHost {
  readonly #servers = new Map<string, Registered>();
  readonly #used = new Set<string>();
  readonly #send: McpNotificationSender;
  readonly #unstable: boolean;

  constructor(send: McpNotificationSender, options: McpServerHostOptions = {}) {
    this.#send = send;
    this.#unstable = options.unstable ?? true;
  }

  /**
   * Registers a server; it answers requests as soon as this returns. Throws a `TypeError` when the
   * host's `Client` was created without `unstable: true` ({@link McpServerHostOptions.unstable}).
   */
  register(options: McpServerRegistrationOptions): McpServerRegistration {
    if (!this.#unstable) throw unstableNotEnabled('client.mcp.register() (MCP over ACP)', 'Client');
    const serverId = options.serverId ?? `${options.name}-${++nextServer}-${globalThis.crypto.randomUUID()}`;
    if (serverId === '') throw new RangeError('serverId must not be empty');
    if (this.#used.has(serverId)) throw new Error(`MCP server ID ${serverId} was already registered here`);
    const maxActive = options.maxActiveRequests ?? 64;
    if (!Number.isInteger(maxActive) || maxActive < 1)
      throw new RangeError('maxActiveRequests must be a positive integer');
    this.#used.add(serverId);
    const entry: Registered = {
      handler: options.handler,
      maxActive,
      active: new Map(),
      withdrawn: new AbortController(),
    };
    this.#servers.set(serverId, entry);
    return new McpServerRegistration(options.name, serverId, async () => {
      if (this.#servers.get(serverId) !== entry) return;
      this.#servers.delete(serverId);
      entry.withdrawn.abort(serverUnavailable(serverId, 'it was withdrawn'));
      await Promise.allSettled([...entry.active.values()].map((a) => a.settled));
    });
  }

  /** The IDs of the servers registered now. */
  get serverIds(): readonly string[] {
    return [...this.#servers.keys()];
  }

  /** Withdraws every server (the connection closed). */
  async closeAll(): Promise<void> {
    const entries = [...this.#servers.entries()];
    this.#servers.clear();
    for (const [serverId, entry] of entries)
      entry.withdrawn.abort(serverUnavailable(serverId, 'the connection closed'));
    await Promise.allSettled(entries.flatMap(([, e]) => [...e.active.values()].map((a) => a.settled)));
  }

  /**
   * Answers one `mcp/message` request (the client's handler): its MCP outcome, or throws the
   * binding's `RpcError`.
   */
  async handle(params: MessageMcpRequest, signal: AbortSignal): Promise<McpOutcome> {
    const { serverId, requestId } = params;
    const server = this.#servers.get(serverId);
    if (server === undefined) {
      throw serverUnavailable(
        serverId,
        this.#used.has(serverId)
          ? 'it was withdrawn'
          : 'no server with this ID is provided on this connection',
      );
    }
    if (server.active.has(requestId)) {
      throw new RpcError(
        ErrorCodes.InvalidParams,
        `/params/requestId: ${requestId} is already active for ${serverId}`,
        {
          pointer: '/params/requestId',
          expected: 'a requestId not active for this server',
        },
      );
    }
    if (server.active.size >= server.maxActive) {
      throw new RpcError(
        McpBindingErrors.ResourceLimitExceeded,
        `MCP server ${serverId} already has ${server.maxActive} active requests`,
        { serverId },
      );
    }
    const controller = new AbortController();
    const cancel = () => controller.abort(signal.reason);
    const withdraw = () => controller.abort(server.withdrawn.signal.reason);
    if (signal.aborted) cancel();
    signal.addEventListener('abort', cancel, { once: true });
    server.withdrawn.signal.addEventListener('abort', withdraw, { once: true });
    let done = false;
    const run = this.#run(server, params, controller.signal, () => done);
    server.active.set(requestId, { controller, settled: run });
    try {
      return await run;
    } catch (error) {
      if (controller.signal.aborted)
        throw new RpcError(ErrorCodes.RequestCancelled, `MCP request ${requestId} was cancelled`, {
          serverId,
          requestId,
        });
      if (error instanceof RpcError && error.code === McpBindingErrors.BackendFailed) throw error;
      throw new RpcError(
        McpBindingErrors.BackendFailed,
        `MCP server ${serverId} failed: ${messageOf(error)}`,
        {
          serverId,
          requestId,
        },
      );
    } finally {
      done = true;
      signal.removeEventListener('abort', cancel);
      server.withdrawn.signal.removeEventListener('abort', withdraw);
      server.active.delete(requestId);
    }
  }

  async #run(
    server: Registered,
    params: MessageMcpRequest,
    signal: AbortSignal,
    settled: () => boolean,
  ): Promise<McpOutcome> {
    const { serverId, requestId, method } = params;
    const send = this.#send;
    const outcome = await server.handler({
      serverId,
      requestId,
      method,
      params: params.params ?? undefined,
      signal,
      async notify(notice, noticeParams) {
        if (settled()) return;
        await send({
          serverId,
          requestId,
          method: notice,
          ...(noticeParams === undefined ? {} : { params: noticeParams }),
        });
      },
    });
    return validOutcome(outcome, serverId);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The handler's outcome if it is exactly one of a result and a valid MCP error; -33002 otherwise. */
function validOutcome(outcome: unknown, serverId: string): McpOutcome {
  const isObject = typeof outcome === 'object' && outcome !== null && !Array.isArray(outcome);
  const hasResult = isObject && Object.hasOwn(outcome, 'result');
  const hasError = isObject && Object.hasOwn(outcome, 'error');
  if (hasResult !== hasError) {
    if (hasResult && (outcome as { result: unknown }).result !== undefined) return outcome as McpOutcome;
    if (hasError && isMcpError((outcome as { error: unknown }).error)) return outcome as McpOutcome;
  }
  throw new RpcError(
    McpBindingErrors.BackendFailed,
    `MCP server ${serverId} gave no MCP outcome: expected exactly one of a defined result or an error with an integer code and a string message`,
    { serverId },
  );
}
