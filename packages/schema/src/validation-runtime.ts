/**
 * The hand-written half of the validation API: result and issue types, and the mapping from
 * Ajv's error objects to issues people can act on. The generated `generated/validate.ts` calls
 * {@link runValidator} with the standalone validators of `generated/validators.ts`.
 */

/** One reason a value failed validation. */
export interface ValidationIssue {
  /** RFC 6901 pointer to the offending value, relative to the validated value (e.g. `/update/messageId`). */
  readonly pointer: string;
  /** The JSON Schema keyword that failed (`required`, `type`, `enum`, `anyOf`, …). */
  readonly keyword: string;
  /** A sentence for people, naming the location. */
  readonly message: string;
  /** What would have been accepted, e.g. `string`, `one of end_turn, max_tokens`, `required property messageId`. */
  readonly expected?: string;
}

/** The outcome of validating a value: the typed value, or the issues found. */
export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/** The subset of an Ajv error object the mapping reads. */
export interface AjvErrorLike {
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly keyword: string;
  readonly params: Record<string, unknown>;
  readonly message?: string;
}

/** A standalone Ajv validate function. */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: readonly AjvErrorLike[] | null;
}

const EXTENSION_VALUES = 'a string starting with _';

function escapeToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function typeNames(type: unknown): string {
  const names = Array.isArray(type) ? type.map(String) : String(type).split(',');
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** What one Ajv error says would have been accepted. */
function expectedOf(error: AjvErrorLike): string | undefined {
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return `required property ${String(p.missingProperty)}`;
    case 'type':
      return typeNames(p.type);
    case 'const':
      return show(p.allowedValue);
    case 'enum':
      return `one of ${(Array.isArray(p.allowedValues) ? p.allowedValues.map(show) : []).join(', ')}`;
    case 'pattern':
      return p.pattern === '^_' ? EXTENSION_VALUES : `a string matching ${String(p.pattern)}`;
    case 'discriminator':
      return p.error === 'tag' ? 'string' : `a known ${String(p.tag)} or ${EXTENSION_VALUES}`;
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minimum':
    case 'maximum':
      return `${error.keyword} ${String(p.limit)}`;
    default:
      return undefined;
  }
}

function pointerOf(error: AjvErrorLike): string {
  if (error.keyword === 'required')
    return `${error.instancePath}/${escapeToken(String(error.params.missingProperty))}`;
  if (error.keyword === 'discriminator')
    return `${error.instancePath}/${escapeToken(String(error.params.tag))}`;
  return error.instancePath;
}

function issue(
  pointer: string,
  keyword: string,
  expected: string | undefined,
  fallback: string | undefined,
): ValidationIssue {
  const where = pointer === '' ? 'value' : pointer;
  const message =
    keyword === 'required'
      ? `${where}: missing ${expected}`
      : expected === undefined
        ? `${where}: ${fallback ?? 'is invalid'}`
        : `${where}: must be ${expected}`;
  return expected === undefined ? { pointer, keyword, message } : { pointer, keyword, message, expected };
}

/**
 * Turns Ajv errors into issues. Alternatives (`anyOf`/`oneOf`) collapse into one issue listing
 * what each branch accepts, unless a branch failed deeper inside the value — then the deeper
 * issues explain more and are kept instead. `if` errors only restate their branch and are dropped.
 */
export function toIssues(errors: readonly AjvErrorLike[]): ValidationIssue[] {
  let out: ValidationIssue[] = [];
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      const at = error.instancePath;
      const same = out.filter((i) => i.pointer === at);
      const deeper = out.filter((i) => i.pointer.startsWith(`${at}/`));
      const rest = out.filter((i) => i.pointer !== at && !i.pointer.startsWith(`${at}/`));
      if (deeper.length > 0) {
        out = [...rest, ...deeper];
      } else {
        const options = [...new Set(same.map((i) => i.expected).filter((e): e is string => e !== undefined))];
        const expected = options.length > 0 ? options.join(', or ') : undefined;
        out = [...rest, issue(at, error.keyword, expected, error.message)];
      }
      continue;
    }
    out.push(issue(pointerOf(error), error.keyword, expectedOf(error), error.message));
  }
  return out;
}

/** Runs a compiled validator and wraps the outcome. */
export function runValidator<T>(validator: CompiledValidator, value: unknown): ValidationResult<T> {
  if (validator(value)) return { ok: true, value: value as T };
  return { ok: false, issues: toIssues(validator.errors ?? []) };
}
