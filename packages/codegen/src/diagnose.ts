import type { ErrorObject } from 'ajv';

/** One located diagnostic for a failing instance. */
export interface Diagnostic {
  readonly pointer: string;
  readonly message: string;
}

function describe(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'enum':
      return `one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return JSON.stringify(p.allowedValue);
    case 'type':
      return String(p.type);
    case 'pattern':
      return `a string matching ${String(p.pattern)}`;
    default:
      return error.message ?? error.keyword;
  }
}

/**
 * Condenses Ajv errors for people: `if` errors (which only restate a branch) go, the branch
 * errors of a failed `anyOf`/`oneOf` at one location become a single "must be A, or B" line,
 * and a required property is located at the property itself.
 */
export function diagnose(errors: readonly ErrorObject[]): Diagnostic[] {
  let out: (Diagnostic & { alternative?: string })[] = [];
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    const at = error.instancePath;
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      const same = out.filter((d) => d.pointer === at && d.alternative !== undefined);
      const deeper = out.some((d) => d.pointer.startsWith(`${at}/`));
      out = out.filter((d) => !same.includes(d));
      if (!deeper) {
        const options = [...new Set(same.map((d) => d.alternative))].join(', or ');
        out.push({
          pointer: at,
          message: options === '' ? `must match a schema in ${error.keyword}` : `must be ${options}`,
          alternative: options,
        });
      }
      continue;
    }
    if (error.keyword === 'required') {
      const missing = String((error.params as { missingProperty: unknown }).missingProperty);
      out.push({
        pointer: `${at}/${missing.replaceAll('~', '~0').replaceAll('/', '~1')}`,
        message: 'is required but missing',
      });
      continue;
    }
    out.push({ pointer: at, message: error.message ?? error.keyword, alternative: describe(error) });
  }
  return out.map(({ pointer, message }) => ({ pointer, message }));
}
