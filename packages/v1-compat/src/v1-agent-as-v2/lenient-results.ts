import type { Validator } from '@acp-kit/sdk';

/**
 * The v1 agent methods whose result the official SDK reads `null` as `{}` (their result has no
 * required field): a published agent that answers one with `null` works with the official SDK's
 * client, so the bridge takes it too.
 */
export const NULL_AS_EMPTY_RESULT: ReadonlySet<string> = new Set([
  'session/load',
  'session/close',
  'session/delete',
  'session/archive',
  'session/unarchive',
  'session/set_mode',
  'authenticate',
  'logout',
  'providers/set',
  'providers/disable',
]);

/** Told each deviation a {@link lenientResults} validator accepted: the method and what it did. */
export type DeviationListener = (deviation: { method: string; pointer: string; reason: string }) => void;

/**
 * Wraps the v1 validator of the bridge's connection to the v1 agent: liberal in what it accepts
 * where the official SDK is — a `null` result of a method in {@link NULL_AS_EMPTY_RESULT} is taken
 * as `{}` and told to `onDeviation` — and strict everywhere else. What the bridge sends on (v2) is
 * built from the accepted value, so it stays valid.
 */
export function lenientResults(validator: Validator, onDeviation: DeviationListener): Validator {
  return {
    params: (method, value) => validator.params(method, value),
    result: (method, value) => {
      if (value === null && NULL_AS_EMPTY_RESULT.has(method)) {
        onDeviation({
          method,
          pointer: '/result',
          reason: `answered ${method} with null instead of an object; taken as {} (as the official SDK does)`,
        });
        return { ok: true, value: {} };
      }
      return validator.result(method, value);
    },
  };
}
