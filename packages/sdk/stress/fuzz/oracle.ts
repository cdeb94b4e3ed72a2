/**
 * What a receiver must do with one line, decided from the JSON-RPC 2.0 rules and the schema alone,
 * independently of the connection under test: answer with a given error code (echoing the id or
 * null), answer with any non-envelope outcome (the request reached its handler), or stay silent.
 */
import { schemaValidator } from '../../src/rpc/index.js';

// The params policy is the connection's default validator (the schema, plus its documented
// tolerance of unknown update kinds); the envelope rules below are the oracle's own.
const validateParams = (method: string, params: unknown) => schemaValidator.params(method, params);

/** The expected reaction to one line. */
export type Expectation =
  | { kind: 'error'; code: number; id: string | number | null }
  /** A valid request for a handled method: any result, or an error the handler chose. */
  | { kind: 'handled'; id: string | number }
  /** A notification or a response: no reply. `diagnostic` says whether a diagnostic is due. */
  | { kind: 'silent'; diagnostic: boolean };

/** The methods the receiver registers handlers for. */
export interface Handled {
  requests: ReadonlySet<string>;
  notifications: ReadonlySet<string>;
}

const strict = new TextDecoder('utf-8', { fatal: true });

function isId(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Decides the reaction to `bytes` (one line without its newline) for a receiver with `handled`. */
export function expect(bytes: Buffer, limit: number, handled: Handled): Expectation | undefined {
  let line = bytes;
  if (line.at(-1) === 0x0d) line = line.subarray(0, -1);
  if (line.length > limit) return { kind: 'error', code: -32600, id: null };
  let text: string;
  try {
    text = strict.decode(line);
  } catch {
    return { kind: 'error', code: -32700, id: null };
  }
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'error', code: -32700, id: null };
  }
  if (!isObject(value)) return { kind: 'error', code: -32600, id: null };
  const id = isId(value.id) ? value.id : null;
  const invalid: Expectation = { kind: 'error', code: -32600, id };
  if (value.jsonrpc !== '2.0') return invalid;
  if (Object.hasOwn(value, 'method')) {
    const { method, params } = value;
    if (typeof method !== 'string') return invalid;
    if (Object.hasOwn(value, 'params') && (typeof params !== 'object' || params === null)) return invalid;
    if (!Object.hasOwn(value, 'id')) {
      if (method === '$/cancel_request') {
        return {
          kind: 'silent',
          diagnostic: !isId((params as { requestId?: unknown } | undefined)?.requestId),
        };
      }
      if (!handled.notifications.has(method)) return { kind: 'silent', diagnostic: !method.startsWith('_') };
      const checked = validateParams(method, params);
      return { kind: 'silent', diagnostic: checked !== undefined && !checked.ok };
    }
    if (id === null) return invalid;
    if (!handled.requests.has(method)) return { kind: 'error', code: -32601, id };
    const checked = validateParams(method, params);
    if (checked && !checked.ok) return { kind: 'error', code: -32602, id };
    return { kind: 'handled', id };
  }
  if (!Object.hasOwn(value, 'id')) return invalid;
  const hasResult = Object.hasOwn(value, 'result');
  const hasError = Object.hasOwn(value, 'error');
  if (hasResult && hasError) return invalid;
  if (hasResult) return id === null ? invalid : { kind: 'silent', diagnostic: true };
  if (!hasError) return invalid;
  if (value.id !== null && id === null) return invalid;
  const error = value.error;
  if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') return invalid;
  // An error for an unknown id or with a null id is reported, never answered.
  return { kind: 'silent', diagnostic: true };
}
