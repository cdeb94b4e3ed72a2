/**
 * How a {@link Client} call's {@link CallOptions} become its request: the caller's `_meta` goes
 * into the params, the abort signal into the connection's per-request options.
 */
import type { CallOptions } from './client-options.js';

/** `params` with the caller's `_meta`, when given. */
export function withMeta<P extends object>(params: P, options: CallOptions): P {
  return options.meta === undefined ? params : { ...params, _meta: options.meta };
}

/** The connection's per-request options from the caller's. */
export function signalOf(options: CallOptions): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}
