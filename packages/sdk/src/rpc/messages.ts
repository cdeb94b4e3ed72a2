import type { RpcErrorObject } from './errors.js';

/** A JSON-RPC request id: ACP allows strings and numbers (never `null` on a request). */
export type RpcId = string | number;

/** A request envelope: expects exactly one response with the same id. */
export interface RpcRequest {
  jsonrpc: '2.0';
  id: RpcId;
  method: string;
  params?: unknown;
}

/** A notification envelope: no id, no response. */
export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}

/** A success response envelope. */
export interface RpcSuccessResponse {
  jsonrpc: '2.0';
  id: RpcId;
  result: unknown;
}

/** An error response envelope; `id` is `null` when the request's id could not be read. */
export interface RpcErrorResponse {
  jsonrpc: '2.0';
  id: RpcId | null;
  error: RpcErrorObject;
}

/** Any valid JSON-RPC 2.0 message (a batch is an array of these; see `Connection`). */
export type RpcMessage = RpcRequest | RpcNotification | RpcSuccessResponse | RpcErrorResponse;

/** The outcome of {@link classifyMessage}: a typed envelope, or why the value is not one. */
export type ClassifiedMessage =
  | { kind: 'request'; message: RpcRequest }
  | { kind: 'notification'; message: RpcNotification }
  | { kind: 'success'; message: RpcSuccessResponse }
  | { kind: 'error'; message: RpcErrorResponse }
  | {
      kind: 'invalid';
      /** Why the value is not a valid envelope, in words. */
      reason: string;
      /** RFC 6901 pointer to the offending member ('' for the whole value). */
      pointer: string;
      /** The value's `id` if it was a valid request id, else `null` (what an error reply must echo). */
      id: RpcId | null;
      /** Whether the value looked like a response (an `id` and no `method`). */
      looksLikeResponse: boolean;
      /**
       * Whether the value is a response by its members (`result` or `error`, no `method`): a
       * broken response is never answered, since JSON-RPC answers requests only.
       */
      isResponse: boolean;
    };

/** True for the id shapes JSON-RPC allows on requests: strings and finite numbers. */
export function isRpcId(value: unknown): value is RpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function has(obj: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(obj, key);
}

/** An invalid envelope, with what can still be read from it (its id, whether it looks like a response). */
function invalidEnvelope(value: Record<string, unknown>, reason: string, pointer: string): ClassifiedMessage {
  const hasMethod = has(value, 'method');
  return {
    kind: 'invalid',
    reason,
    pointer,
    id: isRpcId(value.id) ? value.id : null,
    looksLikeResponse: !hasMethod && has(value, 'id'),
    isResponse: !hasMethod && (has(value, 'result') || has(value, 'error')),
  };
}

/**
 * Sorts an already-parsed JSON value into one of the four envelope kinds, or says why it is
 * invalid. Only the envelope is checked here; params and results are the validator's business.
 */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (!isPlainObject(value)) {
    // A connection handles a top-level array as a batch before classifying its entries, so an
    // array here is a batch nested in a batch, which JSON-RPC does not allow.
    const reason = Array.isArray(value)
      ? 'a batch entry must be a JSON-RPC object: batches do not nest'
      : 'a JSON-RPC message must be a JSON object';
    return { kind: 'invalid', reason, pointer: '', id: null, looksLikeResponse: false, isResponse: false };
  }
  // Invalid envelopes are built by a module function, not a closure: this runs once per message.
  if (value.jsonrpc !== '2.0') return invalidEnvelope(value, 'expected "jsonrpc": "2.0"', '/jsonrpc');

  if (has(value, 'method')) {
    if (typeof value.method !== 'string')
      return invalidEnvelope(value, '"method" must be a string', '/method');
    if (has(value, 'params') && typeof value.params !== 'object') {
      return invalidEnvelope(value, '"params" must be an object or an array', '/params');
    }
    if (value.params === null)
      return invalidEnvelope(value, '"params" must be an object or an array', '/params');
    if (!has(value, 'id')) return { kind: 'notification', message: value as unknown as RpcNotification };
    if (!isRpcId(value.id)) return invalidEnvelope(value, '"id" must be a string or a number', '/id');
    return { kind: 'request', message: value as unknown as RpcRequest };
  }

  if (!has(value, 'id'))
    return invalidEnvelope(value, 'expected "method" (request or notification) or "id" (response)', '');
  const hasResult = has(value, 'result');
  const hasError = has(value, 'error');
  if (hasResult && hasError)
    return invalidEnvelope(value, 'a response carries "result" or "error", not both', '');
  if (hasResult) {
    if (!isRpcId(value.id))
      return invalidEnvelope(value, '"id" of a success response must be a string or a number', '/id');
    return { kind: 'success', message: value as unknown as RpcSuccessResponse };
  }
  if (hasError) {
    if (value.id !== null && !isRpcId(value.id)) {
      return invalidEnvelope(value, '"id" of an error response must be a string, a number or null', '/id');
    }
    const error = value.error;
    if (!isPlainObject(error)) return invalidEnvelope(value, '"error" must be an object', '/error');
    if (typeof error.code !== 'number' || !Number.isInteger(error.code)) {
      return invalidEnvelope(value, '"error.code" must be an integer', '/error/code');
    }
    if (typeof error.message !== 'string')
      return invalidEnvelope(value, '"error.message" must be a string', '/error/message');
    return { kind: 'error', message: value as unknown as RpcErrorResponse };
  }
  return invalidEnvelope(value, 'a response must carry "result" or "error"', '');
}
