/** One thing wrong with a schema or an example, located by file and JSON pointer. */
export interface SchemaProblem {
  /** Path of the offending file as shown to people (relative to the repository root when possible). */
  readonly file: string;
  /** RFC 6901 pointer inside that file; `''` means the whole document. */
  readonly pointer: string;
  /** What is wrong, in one sentence. */
  readonly message: string;
}

/** Renders a problem as `file#/pointer: message`, the form every command prints. */
export function formatProblem(problem: SchemaProblem): string {
  return `${problem.file}#${problem.pointer}: ${problem.message}`;
}

/** Thrown when a schema cannot be compiled; carries every problem found, not just the first. */
export class SchemaError extends Error {
  /** The problems, in the order they were found. */
  readonly problems: readonly SchemaProblem[];

  constructor(problems: readonly SchemaProblem[]) {
    super(`schema has ${problems.length} problem(s):\n${problems.map(formatProblem).join('\n')}`);
    this.name = 'SchemaError';
    this.problems = problems;
  }
}
