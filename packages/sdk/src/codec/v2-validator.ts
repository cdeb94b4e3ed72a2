import { validateParams, validateResult } from '@acp-kit/schema';
import type { ValidationResult, Validator } from '../rpc/validation.js';

/** Where an update kind lives in `session/update` params. */
const UPDATE_KIND_POINTER = '/update/sessionUpdate';

/**
 * `session/update` discriminates on an open set: a receiver tolerates update kinds it does not
 * know (a newer agent's, or another SDK's), so params whose only fault is an unknown kind are
 * handed on for the receiver to ignore. Anything else wrong with them is still an error.
 */
function tolerateUnknownUpdateKind(method: string, value: unknown, result: ValidationResult | undefined) {
  if (method !== 'session/update' || !result || result.ok) return result;
  const onlyTheKind = result.issues.every((issue) => issue.pointer === UPDATE_KIND_POINTER);
  const kind = (value as { update?: { sessionUpdate?: unknown } } | null)?.update?.sessionUpdate;
  return onlyTheKind && typeof kind === 'string' ? { ok: true as const, value } : result;
}

/**
 * Validates ACP v2 params and results with the generated validators of `@acp-kit/schema`.
 * Methods the schema does not define (extensions, non-ACP methods) pass unchecked, and so does a
 * `session/update` whose only fault is an update kind this schema does not know. `Agent.serve` and
 * `Client` install it on their connection unless it was built with a `validator` of its own; the
 * JSON-RPC core itself imports no protocol schema.
 */
export const schemaValidator: Validator = {
  params: (method, value) => tolerateUnknownUpdateKind(method, value, validateParams(method, value)),
  result: (method, value) => validateResult(method, value),
};
