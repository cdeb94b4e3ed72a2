import {
  type AgentCapabilities,
  type AgentNotificationMap,
  type AgentRequestMap,
  type AuthMethod,
  type ClientCapabilities,
  type ClientRequestMap,
  type InitializeRequest,
  METHOD_CAPABILITIES,
  type MethodCapability,
  type MethodGate as MethodGateRow,
  type MethodName,
} from '@acp-kit/schema';
import { HistoryStoreError } from '../history/errors.js';
import { findUnstorableText, STORABLE_TEXT } from '../history/storable-text.js';
import type { Connection, NotificationHandler, RequestHandler } from '../rpc/connection.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { ClientPeer } from './client-peer.js';
import { type AgentConnection, connectionPeer } from './connection-peer.js';
import { toWireError } from './wire-errors.js';

/** The part of the `initialize` response that says what an agent serves. */
export interface Advertisement {
  /** The agent's capabilities. */
  capabilities: AgentCapabilities;
  /** Ways to authenticate; non-empty advertises `auth/login` and `auth/logout`. */
  authMethods?: AuthMethod[];
}

/** `data` of the -32601 a gated method gets when its capability is not advertised. */
export interface MethodRefusalData {
  /** The method refused. */
  method: string;
  /** Where its capability would have been advertised. */
  capability: { in: string; pointer: string };
}

/** The slice of a connection the gate registers handlers on (the agent's typed connection). */
type GatedConnection = Pick<
  Connection<AgentRequestMap, AgentNotificationMap, ClientRequestMap, Record<string, never>>,
  'onRequest' | 'onNotification'
>;

type Json = Record<string, unknown>;

/** The handler of each agent request a feature serves, by method name. */
type RequestHandlers = {
  [M in keyof AgentRequestMap & string]?: RequestHandler<
    AgentRequestMap[M]['params'],
    AgentRequestMap[M]['result']
  >;
};
/** The handler of each agent notification a feature serves, by method name. */
type NotificationHandlers = {
  [M in keyof AgentNotificationMap & string]?: NotificationHandler<AgentNotificationMap[M]>;
};

/**
 * Handlers of agent methods keyed by method name, as a feature module returns them
 * ({@link MethodGate.serve}): whether each is a request or a notification is the generated
 * method table's to say, so the name is written once.
 */
export type AgentMethodHandlers = RequestHandlers & NotificationHandlers;

/**
 * Params holding a string no history store keeps unchanged (U+0000 or an unpaired surrogate, see
 * {@link findUnstorableText}) are refused, -32602 at that string's pointer: such a string would
 * otherwise be stored changed by one store and refused by another in the middle of a turn.
 */
function refuseUnstorable(params: unknown): void {
  const unstorable = findUnstorableText(params, '/params');
  if (unstorable === undefined) return;
  throw new RpcError(ErrorCodes.InvalidParams, `${unstorable}: expected ${STORABLE_TEXT}`, {
    pointer: unstorable,
    expected: STORABLE_TEXT,
  });
}

/** A {@link HistoryStoreError} reaches the client through {@link toWireError}; anything else passes. */
function toAnswer(error: unknown): unknown {
  if (!(error instanceof HistoryStoreError)) return error;
  return toWireError(error, () => new RpcError(ErrorCodes.InternalError, 'Internal error'));
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a capability's path within `source` (undefined where the path stops). */
function valueAt(source: unknown, path: readonly string[]): unknown {
  let node = source;
  for (const token of path) {
    if (!isObject(node)) return undefined;
    node = node[token];
  }
  return node;
}

/**
 * Whether `source` (an instance of `capability.in`: an initialize message, a tool call, a
 * terminal) advertises the capability: the value at its path is present and is not `null`,
 * `false` or an empty array.
 */
export function isAdvertised(source: unknown, capability: MethodCapability): boolean {
  const value = valueAt(source, capability.path);
  if (value === undefined || value === null || value === false) return false;
  return !(Array.isArray(value) && value.length === 0);
}

/** The gating row of a schema method, or undefined for a method the schema does not define. */
function rowOf(method: string): MethodGateRow | undefined {
  return Object.hasOwn(METHOD_CAPABILITIES, method)
    ? (METHOD_CAPABILITIES[method as MethodName] as MethodGateRow)
    : undefined;
}

/** The definition the agent's own initialize-time capabilities live in (`initialize`'s result). */
const AGENT_ADVERTISES_IN = 'InitializeResponse';
/** The definition a client's capabilities live in (`initialize`'s params). */
const CLIENT_ADVERTISES_IN = 'InitializeRequest';

/** Sets the value at `path`, replacing absent or null parents with objects. */
function setAt(root: Json, path: readonly string[], value: unknown): void {
  let node = root;
  for (const token of path.slice(0, -1)) {
    if (!isObject(node[token])) node[token] = {};
    node = node[token] as Json;
  }
  node[path[path.length - 1]!] = value;
}

/** Removes the value at `path`, if there is one. */
function deleteAt(root: Json, path: readonly string[]): void {
  const parent = valueAt(root, path.slice(0, -1));
  if (isObject(parent)) delete parent[path[path.length - 1]!];
}

/** The methods a connection may call before it completed `initialize` and any required login. */
export const WAY_IN_AND_OUT: ReadonlySet<string> = new Set(['initialize', 'auth/login', 'auth/logout']);

/**
 * What a connection must have done before a method runs on it (for the agent: completed
 * `initialize`, and logged in when a login is required), checked by the gate for every request
 * and every notification alike.
 */
export interface Admission {
  /** Throws the `RpcError` a request for `method` is answered with, unless it may run now. */
  check(method: string): void;
  /** Methods not checked (default {@link WAY_IN_AND_OUT}). */
  exempt?: ReadonlySet<string>;
  /** Called with a notification the check refused; it is dropped (a notification has no answer). */
  dropped?(method: string, error: RpcError): void;
}

/**
 * The one place an agent decides which methods it offers, from the generated method →
 * capability table (`METHOD_CAPABILITIES`): handlers are registered through it, so it knows what
 * the agent serves; the `initialize` response advertises exactly that; a served method whose
 * capability could not be advertised (for example `auth/login` with no `authMethods`) is refused
 * with -32601 and data naming the method and the capability; a method the agent serves no
 * handler for gets the connection's -32601 with data naming the method. Towards the client, it
 * refuses to send a request the client did not advertise the capability for (for example
 * `elicitation/create` to a client without `capabilities.elicitation`).
 *
 * A capability that gates several methods (`session`: the baseline session methods; `authMethods`:
 * login and logout) is advertised when the agent serves at least one of them.
 *
 * With an {@link Admission}, every request and every notification but the exempt ones must pass
 * its check first (the agent's: `initialize` completed, and a login when one is required): a
 * request is answered with the check's error, a notification is dropped and reported.
 *
 * Feature modules give it their handlers by method name ({@link MethodGate.serve}); one gate per
 * connection, created by `Agent.serve`, or by an adapter for each client connection it serves
 * (see {@link MethodGate.adapt}).
 */
export class MethodGate {
  readonly #connection: GatedConnection;
  #configured: Advertisement;
  /**
   * An adapter's gate advertises exactly what the agent behind it does ({@link MethodGate.adapt}):
   * `pending` until that agent's answer is known (no capability refusals meanwhile), then `known`.
   */
  #adapted: 'no' | 'pending' | 'known' = 'no';
  readonly #served = new Set<string>();
  readonly #admission: Admission | undefined;
  #advertisement: Advertisement | undefined;
  #client: ClientCapabilities | undefined;

  constructor(
    connection: GatedConnection,
    configured: { capabilities?: AgentCapabilities | undefined; authMethods?: AuthMethod[] | undefined },
    admission?: Admission,
  ) {
    this.#connection = connection;
    this.#admission = admission;
    this.#configured = {
      capabilities: configured.capabilities ?? {},
      ...(configured.authMethods === undefined ? {} : { authMethods: configured.authMethods }),
    };
  }

  /**
   * Makes this the gate of an adapter (the v1 agent bridge): what it advertises is `advertised`,
   * the agent behind it's answer translated, with the capabilities of methods it does not serve
   * removed and none added, and a method whose capability is not there is refused (-32601) as by
   * an agent. Call it with undefined while that answer is not known yet: until it is, nothing is
   * refused for its capability.
   */
  adapt(advertised: Advertisement | undefined): void {
    this.#adapted = advertised === undefined ? 'pending' : 'known';
    if (advertised !== undefined) this.#configured = structuredClone(advertised);
    this.#advertisement = undefined;
  }

  /** The methods handlers were registered for. */
  get served(): ReadonlySet<string> {
    return this.#served;
  }

  /**
   * Registers the handler of a request the agent serves (an `initialize` handler also records the
   * client's capabilities). Every request gets the same checks before its handler: the method is
   * served and its capability advertised (-32601), the {@link Admission} (-32600, -32000), params
   * without text no store keeps (-32602 at its pointer); a {@link HistoryStoreError} the handler
   * throws is answered by its wire code (unknown session -32002, bad argument -32602, storage
   * -32603 without details).
   */
  onRequest<M extends keyof AgentRequestMap & string>(
    method: M,
    handler: RequestHandler<AgentRequestMap[M]['params'], AgentRequestMap[M]['result']>,
  ): void {
    this.#served.add(method);
    this.#advertisement = undefined;
    const gated: RequestHandler<AgentRequestMap[M]['params'], AgentRequestMap[M]['result']> = async (
      params,
      context,
    ) => {
      if (method === 'initialize') {
        this.#client = (params as InitializeRequest).capabilities ?? undefined;
      }
      const refusal = this.refusal(method);
      if (refusal !== undefined) throw refusal;
      this.#admit(method);
      refuseUnstorable(params);
      try {
        return await handler(params, context);
      } catch (error) {
        throw toAnswer(error);
      }
    };
    this.#connection.onRequest(method, gated as never);
  }

  /**
   * Registers the handler of a notification the agent serves. It goes through the same checks as
   * a request: one whose capability is not advertised is ignored, and one the connection may not
   * send yet (the {@link Admission}: before `initialize`, before a required login) is dropped and
   * reported to {@link Admission.dropped} — a notification cannot be answered with the error.
   */
  onNotification<M extends keyof AgentNotificationMap & string>(
    method: M,
    handler: NotificationHandler<AgentNotificationMap[M]>,
  ): void {
    this.#served.add(method);
    this.#advertisement = undefined;
    const gated: NotificationHandler<AgentNotificationMap[M]> = (params, context) => {
      if (this.refusal(method) !== undefined) return undefined;
      try {
        this.#admit(method);
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        this.#admission?.dropped?.(method, error);
        return undefined;
      }
      return handler(params, context);
    };
    this.#connection.onNotification(method, gated as never);
  }

  /**
   * Registers the handlers of a feature module. Each method's kind (request or notification) is
   * read from the generated method table; a name the table does not have is a programming error.
   */
  serve(handlers: AgentMethodHandlers): void {
    for (const [method, handler] of Object.entries(handlers)) {
      if (handler === undefined) continue;
      const row = rowOf(method);
      if (row === undefined || row.servedBy === 'client') {
        throw new TypeError(`${method} is not a method the agent serves in the schema's method table`);
      }
      if (row.kind === 'request') this.onRequest(method as keyof AgentRequestMap & string, handler as never);
      else this.onNotification(method as keyof AgentNotificationMap & string, handler as never);
    }
  }

  /** Throws the admission's error unless `method` may run on this connection now. */
  #admit(method: string): void {
    const admission = this.#admission;
    if (admission === undefined || (admission.exempt ?? WAY_IN_AND_OUT).has(method)) return;
    admission.check(method);
  }

  /**
   * What the `initialize` response advertises: the configured capabilities with every
   * initialize-time capability of the table set exactly when the agent serves a method it gates
   * (an object capability is added as `{}`, a boolean one as `true`; `authMethods` must come from
   * the configuration) and removed when it serves none.
   */
  advertisement(): Advertisement {
    if (this.#advertisement !== undefined) return this.#advertisement;
    const root: Json = structuredClone(this.#configured) as unknown as Json;
    const servedByPointer = new Map<string, { capability: MethodCapability; served: boolean }>();
    for (const row of Object.values(METHOD_CAPABILITIES) as MethodGateRow[]) {
      const capability = row.capability;
      if (capability === null || row.servedBy !== 'agent' || capability.in !== AGENT_ADVERTISES_IN) continue;
      const entry = servedByPointer.get(capability.pointer) ?? { capability, served: false };
      entry.served ||= this.#served.has(row.method);
      servedByPointer.set(capability.pointer, entry);
    }
    const entries = [...servedByPointer.values()].sort(
      (a, b) => a.capability.path.length - b.capability.path.length,
    );
    for (const { capability, served } of entries) {
      if (!served) deleteAt(root, capability.path);
    }
    for (const { capability, served } of entries) {
      if (this.#adapted !== 'no' || !served || isAdvertised(root, capability)) continue;
      if (capability.valueType === 'object') setAt(root, capability.path, {});
      else if (capability.valueType === 'boolean') setAt(root, capability.path, true);
    }
    this.#advertisement = root as unknown as Advertisement;
    return this.#advertisement;
  }

  /**
   * The error a request for `method` gets, or undefined when the agent serves it: -32601 when it
   * has no handler, or when its capability is not advertised (data names method and capability).
   * Entity-scoped capabilities (a tool call's or a terminal's `capabilities.cancel`) are checked by
   * the handler, against the entity.
   */
  refusal(method: string): RpcError<MethodRefusalData | { method: string }> | undefined {
    if (!this.#served.has(method)) {
      return new RpcError(ErrorCodes.MethodNotFound, `Method not found: ${method}`, { method });
    }
    const capability = rowOf(method)?.capability;
    if (capability == null || capability.in !== AGENT_ADVERTISES_IN) return undefined;
    if (this.#adapted === 'pending' || isAdvertised(this.advertisement(), capability)) return undefined;
    return new RpcError(
      ErrorCodes.MethodNotFound,
      `Method not found: ${method} (this agent does not advertise ${capability.pointer.slice(1).replaceAll('/', '.')})`,
      { method, capability: { in: capability.in, pointer: capability.pointer } },
    );
  }

  /**
   * The {@link ClientPeer} that stands for this gate's client on `connection` inside sessions: it
   * reads the capabilities the client's `initialize` gave the gate, and refuses locally a request
   * they do not advertise ({@link MethodGate.checkOutgoing}). The one place the two are wired.
   */
  clientPeer(connection: AgentConnection, label: string): ClientPeer {
    return connectionPeer(connection, {
      label,
      capabilities: () => this.#client,
      checkOutgoing: (method) => this.checkOutgoing(method),
    });
  }

  /** The client's capabilities from its `initialize` request (undefined before it). */
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.#client;
  }

  /**
   * Whether the client may be sent `method`: a baseline method always, a gated one when the
   * client's `initialize` advertised its capability.
   */
  clientServes(method: keyof ClientRequestMap | string): boolean {
    const capability = rowOf(method)?.capability;
    if (capability == null || capability.in !== CLIENT_ADVERTISES_IN) return true;
    return isAdvertised({ capabilities: this.#client ?? {} }, capability);
  }

  /**
   * Refuses locally, before anything is sent, a request the client did not advertise the
   * capability for: the rejection is a -32601 `RpcError` naming the method and the capability.
   */
  checkOutgoing(method: string): void {
    if (this.clientServes(method)) return;
    const capability = rowOf(method)?.capability;
    throw new RpcError(
      ErrorCodes.MethodNotFound,
      `${method} not sent: the client did not advertise ${capability?.pointer.slice(1).replaceAll('/', '.')}`,
      { method, capability: { in: capability?.in, pointer: capability?.pointer } },
    );
  }
}
