import type { ForwardedError } from '@acp-kit/sdk/adapter';

/** The error a forwarded prompt or request gets when nothing more precise can be said. */
export const INTERNAL: ForwardedError = { code: -32603, message: 'Internal error' };

/** An error as it travels between replicas: a JSON-RPC error's code, message and data, else -32603. */
export function asForwardedError(error: unknown): ForwardedError {
  const e = error as { code?: unknown; message?: unknown; data?: unknown };
  return typeof e?.code === 'number' && typeof e.message === 'string'
    ? { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) }
    : INTERNAL;
}
