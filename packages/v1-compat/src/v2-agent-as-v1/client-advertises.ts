import type * as V1 from '../generated/v1/types.js';

/** Whether v1 client capabilities hold the value an RFC 6901 pointer names (present and not null). */
export function advertises(capabilities: V1.ClientCapabilities | undefined, pointer: string): boolean {
  let value: unknown = capabilities;
  for (const token of pointer.slice(1).split('/')) {
    if (typeof value !== 'object' || value === null) return false;
    value = (value as Record<string, unknown>)[token.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return value !== undefined && value !== null;
}
