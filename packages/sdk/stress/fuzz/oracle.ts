/**
 * What a receiver must do with one line, decided from the JSON-RPC 2.0 rules and the schema alone,
 * independently of the connection under test: answer with a given error code (echoing the id or
 * null), answer with any non-envelope outcome (the request reached its handler), or stay silent.
 */
import { schemaValidator } from '../../src/codec/index.js';

// The params policy is the connection's default validator (the schema, plus its documented
// tolerance of unknown update kinds); the envelope rules below are the oracle's own.
const validateParams = (method: string, params: unknown) => schemaValidator.params(method, params);

/** The expected reaction to one line. */
export type Expectation =
  | { kind: 'error'; code: number; id: string | number | null }
  /** A valid request for a handled method: any result, or an error the handler chose. */
  | { kind: 'handled'; id: string | number }
  /** A notification or a response: no reply. `diagnostic` says whether a diagnostic is due. */
  | { kind: 'silent'; diagnostic: boolean }
  /**
   * A JSON-RPC batch: each entry's reaction as if it came alone, except that the answers (the
   * entries that are `error` or `handled`) come together as one array line, and no line at all
   * when there are none.
   */
  | { kind: 'batch'; entries: EntryExpectation[] };

/** The reaction to one entry of a batch. */
export type EntryExpectation = Exclude<Expectation, { kind: 'batch' }>;

/** The most entries a receiver takes in one batch (the connection's default `maxBatchEntries`). */
const MAX_BATCH_ENTRIES = 10_000;

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
  if (line.length > limit) return expectOversized(line);
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
  if (Array.isArray(value)) {
    // JSON-RPC 2.0 §6: an empty batch (or one over the entry limit) is one invalid request.
    if (value.length === 0 || value.length > MAX_BATCH_ENTRIES)
      return { kind: 'error', code: -32600, id: null };
    return { kind: 'batch', entries: value.map((entry) => expectValue(entry, handled)) };
  }
  return expectValue(value, handled);
}

/** The reaction to one parsed message (alone, or an entry of a batch, where arrays do not nest). */
function expectValue(value: unknown, handled: Handled): EntryExpectation {
  if (!isObject(value)) return { kind: 'error', code: -32600, id: null };
  const id = isId(value.id) ? value.id : null;
  const invalid: Expectation = { kind: 'error', code: -32600, id };
  const hasResult = Object.hasOwn(value, 'result');
  const hasError = Object.hasOwn(value, 'error');
  // JSON-RPC answers requests only: anything with a result or an error and no method is a
  // response, valid or not, and gets a diagnostic, never a reply.
  if (!Object.hasOwn(value, 'method') && (hasResult || hasError)) return { kind: 'silent', diagnostic: true };
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
  return invalid;
}

/** How many bytes of an oversized line a receiver keeps (the connection reads the id from them). */
const HEAD_BYTES = 480;

/**
 * An oversized line is answered -32600 by the id when the whole top-level `id` member lies in the
 * kept first {@link HEAD_BYTES} bytes, with id null otherwise; and not answered when the kept bytes
 * show a response (a `result` or `error` member, no `method` or `params`). Decided with
 * `JSON.parse` alone: the longest prefix of the kept bytes that ends before a `,` or `}` and parses
 * once closed with `}` holds every member that was kept whole.
 */
function expectOversized(line: Buffer): EntryExpectation {
  const head = new TextDecoder('utf-8').decode(line.subarray(0, HEAD_BYTES));
  let whole: Record<string, unknown> | undefined;
  let rest = '';
  for (let i = head.length - 1; i > 0 && whole === undefined; i--) {
    if (head[i] !== ',' && head[i] !== '}') continue;
    try {
      const value: unknown = JSON.parse(`${head.slice(0, i)}}`);
      if (isObject(value)) {
        whole = value;
        rest = head.slice(i);
      }
    } catch {
      // not a member boundary
    }
  }
  const seen = whole === undefined ? [] : Object.keys(whole);
  // A member cut short still shows its name if the name itself was kept.
  const next = /^,\s*("(?:[^"\\]|\\.)*")\s*:/.exec(rest);
  if (next) seen.push(JSON.parse(next[1]!) as string);
  const response =
    !seen.includes('method') &&
    !seen.includes('params') &&
    (seen.includes('result') || seen.includes('error'));
  // Not answered; its diagnostic is the frame error, not one of a silent line's kinds.
  if (response) return { kind: 'silent', diagnostic: false };
  const id = whole !== undefined && isId(whole.id) ? whole.id : null;
  return { kind: 'error', code: -32600, id };
}
