/**
 * One validation problem. Shape-compatible with `ValidationIssue` from `@acp-kit/schema`, so its
 * validators plug in without adapters; pointers are relative to the validated value.
 */
export interface ValidationIssue {
  /** RFC 6901 pointer relative to the validated value, e.g. `/prompt/0/type`. */
  pointer: string;
  /** The JSON Schema keyword that failed. */
  keyword: string;
  /** Human-readable description. */
  message: string;
  /** What was expected, in words, when the validator can say. */
  expected?: string;
}

/** The outcome of validating one value. Shape-compatible with `@acp-kit/schema`'s `ValidationResult`. */
export type ValidationResult = { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] };

/**
 * Pluggable validation for a connection. Returning `undefined` means "this method is not described;
 * accept the value as is" (extension methods, for instance).
 */
export interface Validator {
  /** Validates the params of a request or notification by method name. */
  params(method: string, value: unknown): ValidationResult | undefined;
  /** Validates the result of a request by method name. */
  result(method: string, value: unknown): ValidationResult | undefined;
}

/** A validator that accepts everything: for generic JSON-RPC use and tests that want raw behaviour. */
export const noValidation: Validator = {
  params: () => undefined,
  result: () => undefined,
};
