import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkSizes, formatViolation, SIZE_LIMITS, type SizeException } from './size-check.js';

/** The exceptions file's shape: `{ "exceptions": [{ "path", "function"?, "why" }] }`. */
function readExceptions(path: string): SizeException[] {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { exceptions?: unknown };
  if (!Array.isArray(parsed.exceptions)) throw new Error(`${path}: expected {"exceptions": [...]}`);
  return parsed.exceptions.map((entry, index) => {
    const e = entry as Partial<SizeException>;
    if (typeof e.path !== 'string' || typeof e.why !== 'string' || e.why.trim() === '')
      throw new Error(`${path}#/exceptions/${index}: expected a "path" and a non-empty "why"`);
    if (e.function !== undefined && typeof e.function !== 'string')
      throw new Error(`${path}#/exceptions/${index}/function: expected a string`);
    return e as SizeException;
  });
}

/**
 * `acp-kit-codegen size-check [--root <repo>] [--exceptions <file>]`: fails (exit 1) when a
 * hand-written source file is over 600 lines or a function over 150, unless the exceptions file
 * names it. Prints what it let through, and exceptions that match nothing any more.
 */
export function runSizeCheck(args: string[]): number {
  const { values } = parseArgs({
    args,
    options: { root: { type: 'string', default: '.' }, exceptions: { type: 'string' } },
  });
  const root = resolve(values.root);
  const exceptions = values.exceptions === undefined ? [] : readExceptions(resolve(values.exceptions));
  const report = checkSizes(root, exceptions);
  for (const violation of report.excepted) console.log(`excepted  ${formatViolation(violation)}`);
  for (const exception of report.stale)
    console.log(
      `stale exception (nothing over the limit matches it; remove it): ${exception.path}${exception.function === undefined ? '' : ` ${exception.function}`}`,
    );
  if (report.violations.length > 0) {
    console.error(
      `${report.violations.length} over the size limits (files ${SIZE_LIMITS.fileLines} lines, functions ${SIZE_LIMITS.functionLines}):`,
    );
    for (const violation of report.violations) console.error(`  ${formatViolation(violation)}`);
    console.error('split them by concern, or name them with a reason in the exceptions file.');
    return 1;
  }
  console.log(
    `${report.files} hand-written source files within the size limits (${report.excepted.length} excepted)`,
  );
  return 0;
}
