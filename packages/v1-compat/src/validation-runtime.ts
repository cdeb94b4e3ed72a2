/**
 * The hand-written half of the v1 validators: the generated `generated/v1/validate.ts` calls
 * {@link runValidator} with the standalone validators of `generated/v1/validators.ts`. Issues have
 * the same shape as `@acp-kit/schema`'s, so both validators plug into one `Connection`.
 */
import type { ValidationIssue, ValidationResult } from '@acp-kit/schema';

export type { ValidationIssue, ValidationResult };

/** The subset of an Ajv error object the mapping reads. */
export interface AjvErrorLike {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params: Record<string, unknown>;
  readonly message?: string;
}

/** A standalone Ajv validate function. */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: readonly AjvErrorLike[] | null;
}

function escapeToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function toIssue(error: AjvErrorLike): ValidationIssue {
  const p = error.params;
  if (error.keyword === 'required') {
    const missing = String(p.missingProperty);
    const pointer = `${error.instancePath}/${escapeToken(missing)}`;
    return {
      pointer,
      keyword: 'required',
      message: `${pointer}: missing required property ${missing}`,
      expected: `required property ${missing}`,
    };
  }
  if (error.keyword === 'discriminator') {
    const pointer = `${error.instancePath}/${escapeToken(String(p.tag))}`;
    return {
      pointer,
      keyword: 'discriminator',
      message: `${pointer}: unknown tag`,
      expected: `a known ${String(p.tag)} or a string starting with _`,
    };
  }
  const where = error.instancePath === '' ? 'value' : error.instancePath;
  const expected =
    error.keyword === 'type'
      ? String(p.type)
      : error.keyword === 'const'
        ? JSON.stringify(p.allowedValue)
        : undefined;
  const message = `${where}: ${expected === undefined ? (error.message ?? 'is invalid') : `must be ${expected}`}`;
  return expected === undefined
    ? { pointer: error.instancePath, keyword: error.keyword, message }
    : { pointer: error.instancePath, keyword: error.keyword, message, expected };
}

/** Runs a compiled validator and wraps the outcome; `if` errors only restate a branch and are dropped. */
export function runValidator<T>(validator: CompiledValidator, value: unknown): ValidationResult<T> {
  if (validator(value)) return { ok: true, value: value as T };
  const issues = (validator.errors ?? []).filter((e) => e.keyword !== 'if').map(toIssue);
  return { ok: false, issues };
}
