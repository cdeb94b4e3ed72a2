import {
  type AgentCapabilities,
  type AgentNotificationMap,
  type AgentRequestMap,
  type AuthMethod,
  type InitializeRequest,
  METHOD_CAPABILITIES,
  METHODS,
  type MethodCapability,
  type MethodGate as MethodGateRow,
} from '@acp-kit/schema';
import { HistoryStoreError } from '../../history/errors.js';
import { findUnstorableText, STORABLE_TEXT } from '../../history/storable-text.js';
import type { HandlerTable, NotificationContext, RequestContext } from '../../rpc/handlers.js';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import { AGENT_ADVERTISES_IN, deleteAt, isAdvertised, type Json, rowOf, setAt } from './capability-paths.js';
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

/** The handler of each agent request a feature serves, by method name; `connection` is its connection's host. */
type RequestHandlers<O> = {
  [M in keyof AgentRequestMap & string]?: (
    params: AgentRequestMap[M]['params'],
    context: RequestContext,
    connection: O,
  ) => AgentRequestMap[M]['result'] | Promise<AgentRequestMap[M]['result']>;
};
/** The handler of each agent notification a feature serves, by method name. */
type NotificationHandlers<O> = {
  [M in keyof AgentNotificationMap & string]?: (
    params: AgentNotificationMap[M],
    context: NotificationContext,
    connection: O,
  ) => void | Promise<void>;
};

/**
 * Handlers of agent methods keyed by method name, as a feature module returns them
 * ({@link MethodTable.serve}): whether each is a request or a notification is the generated
 * method table's to say, so the name is written once. Each handler is also given the host of the
 * connection it runs for (`O`: the agent's `ConnectionHost`), so one set of handlers serves every
 * connection.
 */
export type AgentMethodHandlers<O = unknown> = RequestHandlers<O> & NotificationHandlers<O>;

/**
 * What a table's gating needs of the connection a call arrived on: its admission check, a place
 * for the client's capabilities, and the host its handlers are given. `MethodGate` is one.
 */
export interface GateOf<O> {
  /** The host handlers are given for this connection. */
  readonly host: O;
  /** Records the client's capabilities from its `initialize` request. */
  noteClient(capabilities: InitializeRequest['capabilities'] | undefined): void;
  /** Throws the admission's error unless `method` may run on this connection now. */
  admit(method: string): void;
  /** Reports a notification its admission refused (it is dropped). */
  droppedNotification(method: string, error: RpcError): void;
}

type TableRequest<O> = (params: unknown, context: RequestContext, gate: GateOf<O>) => Promise<unknown>;
type TableNotification<O> = (params: unknown, context: NotificationContext, gate: GateOf<O>) => unknown;

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

/** Methods the agent sends as requests and receives as notifications (their notification form). */
const NOTIFICATION_FORMS: ReadonlySet<string> = new Set(
  METHODS.flatMap((m) =>
    m.notification !== undefined && m.notification.direction !== 'agent_to_client' ? [m.name] : [],
  ),
);

function receivesNotificationForm(method: string): boolean {
  return NOTIFICATION_FORMS.has(method);
}

/** A {@link HistoryStoreError} reaches the client through {@link toWireError}; anything else passes. */
function toAnswer(error: unknown): unknown {
  if (!(error instanceof HistoryStoreError)) return error;
  return toWireError(error, () => new RpcError(ErrorCodes.InternalError, 'Internal error'));
}

/**
 * The methods an agent serves and what it advertises, built once and shared by every connection
 * it serves (a `Connection` serves it as its {@link HandlerTable}, with that connection's gate as
 * the owner): handlers are registered here by method name, each wrapped once in the checks every
 * method gets; the `initialize` response advertises exactly what is registered; a registered
 * method whose capability could not be advertised (for example `auth/login` with no
 * `authMethods`) is refused with -32601 and data naming the method and the capability.
 *
 * A capability that gates several methods (`session`: the baseline session methods; `authMethods`:
 * login and logout) is advertised when at least one of them is served.
 */
export class MethodTable<O = unknown> implements HandlerTable<GateOf<O>> {
  #configured: Advertisement;
  /**
   * An adapter's table advertises exactly what the agent behind it does ({@link MethodTable.adapt}):
   * `pending` until that agent's answer is known (no capability refusals meanwhile), then `known`.
   */
  #adapted: 'no' | 'pending' | 'known' = 'no';
  readonly #served = new Set<string>();
  readonly #requests = new Map<string, TableRequest<O>>();
  readonly #notifications = new Map<string, TableNotification<O>>();
  #advertisement: Advertisement | undefined;

  constructor(configured: {
    capabilities?: AgentCapabilities | undefined;
    authMethods?: AuthMethod[] | undefined;
  }) {
    this.#configured = {
      capabilities: configured.capabilities ?? {},
      ...(configured.authMethods === undefined ? {} : { authMethods: configured.authMethods }),
    };
  }

  /**
   * Makes this the table of an adapter (the v1 agent bridge, one table per client connection):
   * what it advertises is `advertised`, the agent behind it's answer translated, with the
   * capabilities of methods it does not serve removed and none added, and a method whose
   * capability is not there is refused (-32601) as by an agent. Call it with undefined while that
   * answer is not known yet: until it is, nothing is refused for its capability.
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

  /** The gated handler of a request method (the `Connection`'s lookup). */
  request(method: string): TableRequest<O> | undefined {
    return this.#requests.get(method);
  }

  /** The gated handler of a notification method (the `Connection`'s lookup). */
  notification(method: string): TableNotification<O> | undefined {
    return this.#notifications.get(method);
  }

  /**
   * Registers the handler of a request the agent serves (an `initialize` request also records the
   * client's capabilities on its gate). Every request gets the same checks before its handler: the
   * method is served and its capability advertised (-32601), the connection's admission (-32600,
   * -32000), params without text no store keeps (-32602 at its pointer); a
   * {@link HistoryStoreError} the handler throws is answered by its wire code (unknown session
   * -32002, bad argument -32602, storage -32603 without details).
   */
  onRequest<M extends keyof AgentRequestMap & string>(
    method: M,
    handler: NonNullable<RequestHandlers<O>[M]>,
  ): void {
    this.#served.add(method);
    this.#advertisement = undefined;
    const run = handler as (params: unknown, context: RequestContext, connection: O) => unknown;
    this.#requests.set(method, async (params, context, gate) => {
      if (method === 'initialize') gate.noteClient((params as InitializeRequest).capabilities ?? undefined);
      const refusal = this.refusal(method);
      if (refusal !== undefined) throw refusal;
      gate.admit(method);
      refuseUnstorable(params);
      try {
        return await run(params, context, gate.host);
      } catch (error) {
        throw toAnswer(error);
      }
    });
  }

  /**
   * Registers the handler of a notification the agent serves. It goes through the same checks as
   * a request: one whose capability is not advertised is ignored, and one the connection may not
   * send yet (its admission: before `initialize`, before a required login) is dropped and reported
   * — a notification cannot be answered with the error.
   */
  onNotification<M extends keyof AgentNotificationMap & string>(
    method: M,
    handler: NonNullable<NotificationHandlers<O>[M]>,
  ): void {
    this.#served.add(method);
    this.#advertisement = undefined;
    const run = handler as (params: unknown, context: NotificationContext, connection: O) => unknown;
    this.#notifications.set(method, (params, context, gate) => {
      if (this.refusal(method) !== undefined) return undefined;
      try {
        gate.admit(method);
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        gate.droppedNotification(method, error);
        return undefined;
      }
      return run(params, context, gate.host);
    });
  }

  /**
   * Registers the handlers of a feature module. Each method's kind (request or notification) is
   * read from the generated method table; a name the table does not have is a programming error.
   */
  serve(handlers: AgentMethodHandlers<O>): void {
    for (const [method, handler] of Object.entries(handlers)) {
      if (handler === undefined) continue;
      const row = rowOf(method);
      if (row?.servedBy === 'client' && receivesNotificationForm(method)) {
        // A request only the client serves, whose notification form the agent receives (`mcp/message`).
        this.onNotification(method as keyof AgentNotificationMap & string, handler as never);
        continue;
      }
      if (row === undefined || row.servedBy === 'client') {
        throw new TypeError(`${method} is not a method the agent serves in the schema's method table`);
      }
      if (row.kind === 'request') this.onRequest(method as keyof AgentRequestMap & string, handler as never);
      else this.onNotification(method as keyof AgentNotificationMap & string, handler as never);
    }
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
}
