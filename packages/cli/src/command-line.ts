import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

/**
 * How every `acp-kit` command reads its arguments: `node:util`'s `parseArgs` (strict: an option it
 * was not told about is a usage error), with an agent command, where one is taken, after `--`.
 * Its errors are reworded once here, so every command names a bad option the same way.
 */

/** The arguments before `--` and the agent command after it (undefined when there is no `--`). */
export interface SplitArguments {
  readonly options: string[];
  readonly command: { readonly file: string | undefined; readonly args: string[] } | undefined;
}

/** Splits `args` at the first `--`: options before it, the agent command (program and its arguments) after. */
export function splitAtSeparator(args: readonly string[]): SplitArguments {
  const separator = args.indexOf('--');
  if (separator === -1) return { options: [...args], command: undefined };
  const [file, ...rest] = args.slice(separator + 1);
  return { options: args.slice(0, separator), command: { file, args: rest } };
}

/** Whether `--help` or `-h` is among the options (before any `--`: after it they belong to the agent). */
export function asksForHelp(args: readonly string[]): boolean {
  return splitAtSeparator(args).options.some((arg) => arg === '--help' || arg === '-h');
}

const quoted = (message: string): string | undefined => /'([^']+)'/.exec(message)?.[1];

/** Node's parseArgs error, in the one wording the CLI uses. */
function reworded(error: unknown): UsageError {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  const name = quoted(text);
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown option '${name ?? text}'`);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(`unexpected argument '${name ?? text}'`);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const option = name?.split(' ')[0] ?? text;
      return new UsageError(
        /does not take an argument/.test(text)
          ? `option '${option}' takes no value`
          : `option '${option}' needs a value`,
      );
    }
    default:
      return new UsageError(text);
  }
}

/**
 * `parseArgs(config)` in strict mode; its errors become a {@link UsageError} worded the CLI's way
 * (`unknown option '--x'`, `option '--history' needs a value`, `unexpected argument 'x'`).
 */
export function parseOptions<const T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs<T>({ strict: true, ...config });
  } catch (error) {
    throw reworded(error);
  }
}

/**
 * Writes a usage error the one way every command does — `acp-kit <command>: <problem>`, then how to
 * get that command's help — and returns the exit status for it, 2.
 */
export function reportUsageError(command: string | undefined, problem: string): number {
  const who = command === undefined ? 'acp-kit' : `acp-kit ${command}`;
  const help = command === undefined ? "'acp-kit --help' for the commands" : `'${who} --help' for its usage`;
  process.stderr.write(`${who}: ${problem}\nRun ${help}.\n`);
  return USAGE_EXIT_CODE;
}

/** Exit status of a usage error (an unknown option, a missing argument), for every command. */
export const USAGE_EXIT_CODE = 2;
