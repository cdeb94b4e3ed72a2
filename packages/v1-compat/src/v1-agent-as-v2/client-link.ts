import type { McpServer, McpServerAcp } from '@acp-kit/schema';
import {
  type AgentConnection,
  type ClientPeer,
  Connection,
  ErrorCodes,
  RpcError,
  schemaValidator,
  type Transport,
} from '@acp-kit/sdk';
import type * as V1 from '../generated/v1/types.js';
import type { BridgeCore } from './bridge-core.js';
import type { BridgedSession } from './bridged-session.js';
import { PROXY_METHODS } from './features/proxy-chains.js';
import {
  AgentConnectionState,
  checkMcpServers,
  checkSystemPrompt,
  MethodGate,
  mcpTransportsOf,
} from '@acp-kit/sdk/adapter';

/** The serverIds of the MCP servers of type acp a session request declares. */
function acpServerIds(servers: readonly { type?: string }[] | null | undefined): string[] {
  return (servers ?? []).flatMap((server) =>
    server.type === 'acp' ? [(server as { serverId: string }).serverId] : [],
  );
}

/**
 * One v2 client connection the bridge serves, as its feature modules see it (the host their
 * handlers are given): the connection and its gate, the client's peer inside sessions, and the
 * sessions it follows. The connection's methods go through the SDK's {@link MethodGate}, as an
 * agent's do: served after `initialize` (-32600 before it), refused -32601 when the v1 agent does
 * not advertise their capability, params with text no store keeps refused -32602.
 */
export class ClientLink {
  readonly connection: AgentConnection;
  /** Whether the client completed `initialize` (the gate admits nothing else before). */
  readonly state = new AgentConnectionState(false);
  readonly gate: MethodGate<ClientLink>;
  /** The client inside the sessions it follows. */
  readonly peer: ClientPeer;
  readonly #bridge: BridgeCore;
  readonly #attached = new Set<BridgedSession>();

  constructor(bridge: BridgeCore, transport: Transport, label: string) {
    this.#bridge = bridge;
    this.connection = new Connection(transport, { validator: schemaValidator });
    this.gate = new MethodGate<ClientLink>(
      this.connection,
      {},
      {
        // A proxy-chain method gets its own -32601 (features/proxy-chains.ts), before initialize too.
        check: (method) => (PROXY_METHODS.has(method) ? undefined : this.state.gate(method)),
      },
      this,
    );
    // What this bridge advertises is the v1 agent's answer, known at the client's initialize.
    this.gate.adapt(undefined);
    this.peer = this.gate.clientPeer(this.connection, label);
  }

  /** The client follows `session` (its updates reach the client) until it closes or detaches. */
  attach(session: BridgedSession): void {
    session.follow(this.peer);
    this.#attached.add(session);
  }

  /** The client stops following `session`. */
  detach(session: BridgedSession): void {
    session.unfollow(this.peer);
    this.#attached.delete(session);
  }

  /** The connection closed: the client follows nothing, and the MCP servers it declared are gone. */
  release(): void {
    for (const session of this.#attached) session.unfollow(this.peer);
    this.#attached.clear();
    this.#bridge.clients.delete(this.connection);
    for (const [serverId, client] of this.#bridge.mcpRoutes)
      if (client === this.connection) this.#bridge.mcpRoutes.delete(serverId);
  }

  /**
   * MCP servers of type acp this client declares are reached through this connection. Refused
   * -32602 at their pointer, as by an agent, when a name repeats, when the v1 agent does not
   * advertise the transport (`http`, `acp`, and v1's `sse`, carried in v2 as `_sse`), when a
   * serverId is given twice, or when another client's server already has it: the one v1
   * connection addresses them all by serverId.
   */
  declare(servers: readonly McpServer[] | null | undefined, v1: V1.InitializeResponse): void {
    checkMcpServers(servers, {
      ...mcpTransportsOf(this.gate.advertisement().capabilities?.session?.mcp),
      _sse: v1.agentCapabilities?.mcpCapabilities?.sse === true,
    });
    for (const [index, server] of (servers ?? []).entries()) {
      const serverId = server.type === 'acp' ? (server as McpServerAcp).serverId : undefined;
      const owner = serverId === undefined ? undefined : this.#bridge.mcpRoutes.get(serverId);
      if (owner !== undefined && owner !== this.connection) {
        throw new RpcError(
          ErrorCodes.InvalidParams,
          `/params/mcpServers/${index}/serverId: ${serverId} is already declared by another client of this bridge`,
          {
            pointer: `/params/mcpServers/${index}/serverId`,
            expected: 'a serverId no other client of the bridge uses',
          },
        );
      }
    }
    for (const serverId of acpServerIds(servers)) this.#bridge.mcpRoutes.set(serverId, this.connection);
  }

  /**
   * A system prompt the v1 agent cannot take is refused -32602 before anything is sent to it, as
   * an agent refuses one it did not advertise (the capability is the v1 agent's, carried over).
   */
  checkPrompt(systemPrompt: Parameters<typeof checkSystemPrompt>[1]): void {
    checkSystemPrompt(this.gate.advertisement().capabilities ?? {}, systemPrompt);
  }
}
