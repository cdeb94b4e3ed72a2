/** What a JSON-RPC message is, judged by its shape alone. */
export type EnvelopeKind = 'request' | 'notification' | 'success' | 'error' | 'invalid';

/** The fields of a JSON-RPC message the analysis reads, without trusting their types. */
export interface Envelope {
  kind: EnvelopeKind;
  id?: unknown;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/** Classifies a message by its shape: method+id request, method notification, result/error response. */
export function envelopeOf(message: unknown): Envelope {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return { kind: 'invalid' };
  const record = message as Record<string, unknown>;
  const hasId = 'id' in record;
  if (typeof record.method === 'string') {
    return hasId
      ? { kind: 'request', id: record.id, method: record.method, params: record.params }
      : { kind: 'notification', method: record.method, params: record.params };
  }
  if ('result' in record) return { kind: 'success', id: record.id, result: record.result };
  if ('error' in record) return { kind: 'error', id: record.id, error: record.error };
  return { kind: 'invalid', id: record.id };
}

/** The object at `value`, or undefined when it is not a plain object. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A valid message ID: a non-empty string. */
export function isMessageId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}
