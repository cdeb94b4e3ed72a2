/**
 * The conductor of a proxy chain: its options and result, and the handler tables it installs on
 * the client's connection and on each component's; the hops themselves are `chain-hops.ts`'s.
 */
import { Connection } from '../rpc/connection.js';
import type { ConnectionOptions } from '../rpc/connection-options.js';
import type { Diagnostic } from '../rpc/diagnostics.js';
import { noValidation } from '../rpc/validation.js';
import type { Transport } from '../rpc/transport.js';
import { ChainHops } from './chain-hops.js';
import { isChainMethod, PROXY_SUCCESSOR_METHOD, type SuccessorEnvelope, unwrappedParams } from './dialect.js';
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

const FROM_CLIENT =
  "is not served to a client: this conductor is the client's agent, not a proxy in another chain";
const FORWARDED =
  'is not forwarded between components: only the conductor speaks the chain methods to its proxies';

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
  const hops = new ChainHops(client, components, connections, options.onRefused);
  serveClientSide(hops);
  for (let index = 0; index < connections.length; index += 1) serveComponent(hops, index);
  for (const connection of connections) connection.listen();
  client.listen();
  return {
    client,
    ended: hops.ended,
    close: () => {
      client.close();
      for (const connection of connections) connection.close();
    },
  };
}

/**
 * The client's side: its requests and notifications go down to the first component (chain
 * methods refused), and when it ends its stream the chain closes once the answers it still waits
 * for were written (at most {@link CLIENT_DRAIN_MS}).
 */
function serveClientSide(hops: ChainHops): void {
  const { client, connections } = hops;
  /** The client's requests still being answered: a client that ends its stream still gets them. */
  const inflight = new Set<Promise<unknown>>();
  client.onUnhandledRequest((method, params, context) => {
    const ticket = hops.agentward[0]!.claim();
    // This conductor runs in terminal mode: to its client it is an agent, not a proxy.
    if (isChainMethod(method)) {
      ticket.skip();
      throw hops.refuse('client', method, 'request', FROM_CLIENT);
    }
    const answer = hops.down(0, method, params, context.signal, ticket, context.id);
    const settled = answer.then(
      () => hops.clientward[0]!.settled(context.id),
      () => hops.clientward[0]!.settled(context.id),
    );
    inflight.add(settled);
    settled.then(() => inflight.delete(settled));
    return answer;
  });
  client.onUnhandledNotification((method, params) => {
    const ticket = hops.agentward[0]!.claim();
    if (isChainMethod(method)) {
      ticket.skip();
      hops.refuse('client', method, 'notification', FROM_CLIENT);
      return;
    }
    return hops.downNotify(0, method, params, ticket);
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
    if (hops.failure === undefined) hops.settle({ reason: 'client-closed' });
    for (const connection of connections) connection.close();
  });
}

/**
 * Component `index`'s side: what a proxy wraps in `proxy/successor` goes down to the next
 * component, anything else up towards the client (chain methods refused either way); garbage on
 * its stream or its exit breaks the chain.
 */
function serveComponent(hops: ChainHops, index: number): void {
  const connection = hops.connections[index]!;
  const isProxy = index < hops.last;
  const name = hops.components[index]!.name;
  connection.onUnhandledRequest((method, params, context) => {
    const down = isProxy && method === PROXY_SUCCESSOR_METHOD;
    const ticket = (down ? hops.agentward[index + 1]! : hops.clientward[index]!).claim();
    const carried = down ? (params as SuccessorEnvelope).method : method;
    if (isChainMethod(carried)) {
      ticket.skip();
      throw hops.refuse(name, carried, 'request', FORWARDED);
    }
    const answer = down
      ? hops.down(
          index + 1,
          carried,
          unwrappedParams(params as SuccessorEnvelope),
          context.signal,
          ticket,
          context.id,
        )
      : hops.up(index, method, params, context.signal, ticket, context.id);
    const done = (): void => {
      ticket.skip();
      (down ? hops.clientward[index + 1]! : hops.agentward[index]!).settled(context.id);
    };
    answer.then(done, done);
    return answer;
  });
  connection.onUnhandledNotification((method, params) => {
    const inner = isProxy && method === PROXY_SUCCESSOR_METHOD ? (params as SuccessorEnvelope) : undefined;
    const ticket = (inner === undefined ? hops.clientward[index]! : hops.agentward[index + 1]!).claim();
    const carried = inner === undefined ? method : inner.method;
    if (isChainMethod(carried)) {
      ticket.skip();
      hops.refuse(name, carried, 'notification', FORWARDED);
      return;
    }
    return inner === undefined
      ? hops.upNotify(index, method, params, ticket)
      : hops.downNotify(index + 1, inner.method, unwrappedParams(inner), ticket);
  });
  connection.onDiagnostic((diagnostic) => {
    if (!GARBAGE.has(diagnostic.kind)) return;
    const excerpt = diagnostic.excerpt === undefined ? '' : `: ${JSON.stringify(diagnostic.excerpt)}`;
    hops.fail(index, `${name} wrote something that is not JSON-RPC (${diagnostic.message})${excerpt}`);
  });
  connection.onClose((reason) => {
    if (hops.client.isClosed) return;
    const why = reason.message.replace(/^connection closed: /, '');
    hops.fail(index, why.includes(name) ? why : `${name}: ${why}`);
  });
}
