/** Wire name of the request a conductor sends instead of `initialize` to a component that has a successor. */
export const PROXY_INITIALIZE_METHOD = 'proxy/initialize';

/** Wire name of the envelope that carries a message between a proxy and its successor. */
export const PROXY_SUCCESSOR_METHOD = 'proxy/successor';

/**
 * How a conductor speaks to its proxies.
 *
 * - `acp`: the official unstable schema of ACP v2 (the proxy-chains draft): `proxy/initialize`, and
 *   `proxy/successor` as both a request and a notification. acp-kit's conductor speaks it.
 * - `sacp`: the earlier dialect of the `sacp` crates, which `@thinkwell/conductor` 0.5 speaks:
 *   `initialize` whose `_meta.proxy` is `true` (answered with `_meta.proxy: true`; a proxy forwards
 *   it with the marker, which the final agent ignores as unknown metadata), and the envelopes `_proxy/successor/request` and `_proxy/successor/notification` with the same
 *   `{method, params}` params.
 */
export type ProxyDialect = 'acp' | 'sacp';

/** The envelope methods of each dialect. */
export const SUCCESSOR_METHODS: Readonly<
  Record<ProxyDialect, { readonly request: string; readonly notification: string }>
> = {
  acp: { request: PROXY_SUCCESSOR_METHOD, notification: PROXY_SUCCESSOR_METHOD },
  sacp: { request: '_proxy/successor/request', notification: '_proxy/successor/notification' },
};

/**
 * The methods of the chain itself, in either dialect: the conductor and its proxies speak them to
 * each other, and no other party may (a client sending `proxy/successor` would speak as the agent
 * to the proxies).
 */
const CHAIN_METHODS: ReadonlySet<string> = new Set([
  PROXY_INITIALIZE_METHOD,
  PROXY_SUCCESSOR_METHOD,
  SUCCESSOR_METHODS.sacp.request,
  SUCCESSOR_METHODS.sacp.notification,
]);

/** Whether `method` is one of the chain's own methods (`proxy/initialize`, `proxy/successor`, the sacp envelopes). */
export function isChainMethod(method: string): boolean {
  return CHAIN_METHODS.has(method);
}

/** True for an `initialize` whose `_meta.proxy` is `true`: the sacp dialect's proxy initialization. */
export function isSacpProxyInitialize(method: string, params: unknown): boolean {
  if (method !== 'initialize' || typeof params !== 'object' || params === null) return false;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === 'object' && meta !== null && (meta as { proxy?: unknown }).proxy === true;
}

/** A `{method, params}` envelope, as `proxy/successor` (and the sacp envelopes) carry one message. */
export interface SuccessorEnvelope {
  readonly method: string;
  readonly params?: unknown;
  readonly _meta?: Record<string, unknown> | null;
}

/** Builds the envelope of one message; params omitted (or null) stay omitted. */
export function wrap(method: string, params: unknown): SuccessorEnvelope {
  return params === undefined || params === null ? { method } : { method, params };
}

/** The params an unwrapped message is sent with: a null or missing `params` means none. */
export function unwrappedParams(envelope: SuccessorEnvelope): unknown {
  return envelope.params === null ? undefined : envelope.params;
}
