import { Connection } from '../rpc/connection.js';
import type { ConnectionOptions } from '../rpc/connection-options.js';
import type { Diagnostic } from '../rpc/diagnostics.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { ExtensionMethod } from '../rpc/method-maps.js';
import { noValidation } from '../rpc/validation.js';
import type { Transport } from '../rpc/transport.js';
import {
  isChainMethod,
  PROXY_INITIALIZE_METHOD,
  PROXY_SUCCESSOR_METHOD,
  type SuccessorEnvelope,
  unwrappedParams,
  wrap,
} from './dialect.js';
import { envelopeValidator } from './envelope-validator.js';

/** One component of a chain: its connection and how messages name it. */
export interface ChainComponent {
  /** The transport to it (stdio of a spawned process, usually). */
  readonly transport: Transport;
  /** How errors name it, e.g. `proxy "acp-kit proxy --context …"`. */
  readonly name: string;
}

/** A chain method the conductor would not forward, as reported to {@link ConductorOptions.onRefused}. */
export interface ChainRefusal {
  /** Who sent it: `client`, or the component's name. */
  readonly from: string;
  /** The method refused: a chain method sent by the client or the agent, or carried in an envelope. */
  readonly method: string;
  /** A request (answered with the error) or a notification (dropped). */
  readonly kind: 'request' | 'notification';
  /** Why, in words. */
  readonly reason: string;
}

/** Options of {@link serveConductor}. */
export interface ConductorOptions {
  /** The client's side: the conductor is an ordinary agent to it. */
  readonly client: Transport;
  /** The proxies, in order from the client's side; may be empty. */
  readonly proxies: readonly ChainComponent[];
  /** The final agent, initialized with plain `initialize`. */
  readonly agent: ChainComponent;
  /** Limits of every connection (message size, outgoing buffer); nothing is validated but the envelopes. */
  readonly connection?: Omit<ConnectionOptions, 'validator'>;
  /**
   * Called for every chain method the conductor refused to forward (see {@link serveConductor}),
   * e.g. to log it. Default: nothing.
   */
  readonly onRefused?: (refusal: ChainRefusal) => void;
}

/** How a conductor's run ended. */
export type ConductorEnd =
  | { readonly reason: 'client-closed' }
  | {
      readonly reason: 'component-failed';
      /** The component that failed. */
      readonly component: string;
      /** What went wrong, in words: the exit, or the start of what it wrote. */
      readonly message: string;
    };

/** A running conductor. */
export interface ServedConductor {
  /** The connection to the client. */
  readonly client: Connection;
  /** Settles when the client closed its connection or a component failed. */
  readonly ended: Promise<ConductorEnd>;
  /** Closes every connection (the caller stops the component processes). */
  close(): void;
}

/** How long the chain keeps answering the requests of a client that ended its stream (as the connection drains). */
const CLIENT_DRAIN_MS = 5000;

/** Diagnostics that mean a component wrote something that is not JSON-RPC. */
const GARBAGE: ReadonlySet<Diagnostic['kind']> = new Set([
  'parse-error',
  'frame-error',
  'invalid-message',
  'invalid-response',
]);

function untyped(method: string): ExtensionMethod {
  return method as ExtensionMethod;
}

/**
 * Serves a proxy chain: client ⇄ conductor ⇄ proxies… ⇄ agent. To the client the conductor is
 * an agent. Its `initialize` goes to the first proxy as `proxy/initialize` (to the agent as
 * `initialize` when there is no proxy); a proxy forwards messages with `proxy/successor`, which the
 * conductor unwraps and sends to the next component (an `initialize` becomes `proxy/initialize`
 * when that component is a proxy); what a component sends towards the client goes to the
 * previous proxy wrapped in `proxy/successor`, or to the client unwrapped from the first one.
 * Results and errors travel back unchanged; a cancelled request cancels the one the conductor
 * sent for it (hop-local). Only the envelopes are validated (-32602 at their pointer).
 *
 * Only the conductor and its proxies speak the chain's own methods (`proxy/initialize`,
 * `proxy/successor`, the sacp envelopes), to each other: sent by the client, carried inside a
 * `proxy/successor` envelope or sent plainly towards the client by a component, one is never forwarded — a request is answered -32601 and a
 * notification dropped, each reported to `onRefused`. So a client cannot speak as the agent to the
 * proxies (a `proxy/successor` notification from it would reach the first proxy as if from its
 * successor).
 *
 * A component that exits or writes something that is not JSON-RPC breaks the chain: every request
 * waiting on the chain is answered -32603 with a message naming the component and what happened
 * (its exit code, or the start of what it wrote), and `ended` settles with `component-failed`; the
 * caller then stops the other components. The chain is not restarted.
 */
export function serveConductor(options: ConductorOptions): ServedConductor {
  const limits = options.connection ?? {};
  const client = new Connection(options.client, { ...limits, validator: noValidation });
  const components = [...options.proxies, options.agent];
  const last = components.length - 1;
  const connections = components.map(
    (component, index) =>
      new Connection(component.transport, {
        ...limits,
        validator: index === last ? noValidation : envelopeValidator,
      }),
  );
  let failure: Extract<ConductorEnd, { reason: 'component-failed' }> | undefined;
  let settle: (end: ConductorEnd) => void = () => {};
  const ended = new Promise<ConductorEnd>((resolve) => {
    settle = resolve;
  });

  /** Why a request to component `index` failed, in words the client can act on. */
  const chainError = (index: number, method: string, error: unknown): RpcError => {
    if (error instanceof RpcError && error.code !== ErrorCodes.ConnectionClosed) return error;
    const what = failure?.message ?? (error instanceof Error ? error.message : String(error));
    const component = failure?.component ?? components[index]!.name;
    return new RpcError(
      ErrorCodes.InternalError,
      `the proxy chain is broken: ${what} (before it answered ${method})`,
      { component },
    );
  };

  /** Sends a request to component `index`, unwrapped (towards the agent). */
  const down = async (
    index: number,
    method: string,
    params: unknown,
    signal: AbortSignal,
  ): Promise<unknown> => {
    const wire = method === 'initialize' && index < last ? PROXY_INITIALIZE_METHOD : method;
    try {
      return await connections[index]!.sendRequest(untyped(wire), params, { signal });
    } catch (error) {
      throw chainError(index, method, error);
    }
  };
  const downNotify = (index: number, method: string, params: unknown): Promise<void> =>
    connections[index]!.sendNotification(untyped(method), params).catch(() => {});

  /** Sends a request from component `index` towards the client: to the previous proxy, wrapped. */
  const up = async (index: number, method: string, params: unknown, signal: AbortSignal) => {
    if (index === 0) {
      try {
        return await client.sendRequest(untyped(method), params, { signal });
      } catch (error) {
        if (error instanceof RpcError && error.code !== ErrorCodes.ConnectionClosed) throw error;
        throw new RpcError(ErrorCodes.InternalError, `the client is gone (before it answered ${method})`);
      }
    }
    try {
      return await connections[index - 1]!.sendRequest(
        untyped(PROXY_SUCCESSOR_METHOD),
        wrap(method, params),
        {
          signal,
        },
      );
    } catch (error) {
      throw chainError(index - 1, method, error);
    }
  };
  const upNotify = (index: number, method: string, params: unknown): Promise<void> =>
    (index === 0
      ? client.sendNotification(untyped(method), params)
      : connections[index - 1]!.sendNotification(untyped(PROXY_SUCCESSOR_METHOD), wrap(method, params))
    ).catch(() => {});

  /** Reports a chain method that is not forwarded; for a request, the error it is answered with. */
  const refuse = (
    from: string,
    method: string,
    kind: 'request' | 'notification',
    reason: string,
  ): RpcError => {
    try {
      options.onRefused?.({ from, method, kind, reason });
    } catch {
      // A failing log hook must not break the chain.
    }
    return new RpcError(ErrorCodes.MethodNotFound, `${method} ${reason}`);
  };
  const FROM_CLIENT =
    "is not served to a client: this conductor is the client's agent, not a proxy in another chain";
  const FORWARDED =
    'is not forwarded between components: only the conductor speaks the chain methods to its proxies';

  /** The client's requests still being answered: a client that ends its stream still gets them. */
  const inflight = new Set<Promise<unknown>>();
  client.onUnhandledRequest((method, params, context) => {
    // This conductor runs in terminal mode: to its client it is an agent, not a proxy.
    if (isChainMethod(method)) throw refuse('client', method, 'request', FROM_CLIENT);
    const answer = down(0, method, params, context.signal);
    const settled = answer.then(
      () => {},
      () => {},
    );
    inflight.add(settled);
    settled.then(() => inflight.delete(settled));
    return answer;
  });
  client.onUnhandledNotification((method, params) => {
    if (isChainMethod(method)) {
      refuse('client', method, 'notification', FROM_CLIENT);
      return;
    }
    return downNotify(0, method, params);
  });

  connections.forEach((connection, index) => {
    const isProxy = index < last;
    const name = components[index]!.name;
    connection.onUnhandledRequest((method, params, context) => {
      if (isProxy && method === PROXY_SUCCESSOR_METHOD) {
        const envelope = params as SuccessorEnvelope;
        if (isChainMethod(envelope.method)) throw refuse(name, envelope.method, 'request', FORWARDED);
        return down(index + 1, envelope.method, unwrappedParams(envelope), context.signal);
      }
      if (isChainMethod(method)) throw refuse(name, method, 'request', FORWARDED);
      return up(index, method, params, context.signal);
    });
    connection.onUnhandledNotification((method, params) => {
      const inner = isProxy && method === PROXY_SUCCESSOR_METHOD ? (params as SuccessorEnvelope) : undefined;
      const carried = inner === undefined ? method : inner.method;
      if (isChainMethod(carried)) {
        refuse(name, carried, 'notification', FORWARDED);
        return;
      }
      return inner === undefined
        ? upNotify(index, method, params)
        : downNotify(index + 1, inner.method, unwrappedParams(inner));
    });
    const fail = (message: string): void => {
      if (failure !== undefined) return;
      failure = { reason: 'component-failed', component: components[index]!.name, message };
      // Every request still waiting on the chain fails now, with the reason, instead of hanging.
      for (const other of connections) other.close(new RpcError(ErrorCodes.ConnectionClosed, message));
      settle(failure);
    };
    connection.onDiagnostic((diagnostic) => {
      if (!GARBAGE.has(diagnostic.kind)) return;
      const excerpt = diagnostic.excerpt === undefined ? '' : `: ${JSON.stringify(diagnostic.excerpt)}`;
      fail(`${name} wrote something that is not JSON-RPC (${diagnostic.message})${excerpt}`);
    });
    connection.onClose((reason) => {
      if (client.isClosed) return;
      const why = reason.message.replace(/^connection closed: /, '');
      fail(why.includes(name) ? why : `${name}: ${why}`);
    });
  });
  client.onClose(async () => {
    // The answers to requests the client sent before it ended its stream are still written (the
    // connection drains them); wait for them, a bounded time, before closing the chain.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled([...inflight]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, CLIENT_DRAIN_MS);
      }),
    ]);
    clearTimeout(timer);
    if (failure === undefined) settle({ reason: 'client-closed' });
    for (const connection of connections) connection.close();
  });

  for (const connection of connections) connection.listen();
  client.listen();
  return {
    client,
    ended,
    close: () => {
      client.close();
      for (const connection of connections) connection.close();
    },
  };
}
