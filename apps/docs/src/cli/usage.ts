import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../paths.ts';

/** The `acp-kit` executable of this checkout (packages/cli, built before the docs). */
export function cliBin(): string {
  return join(repoRoot(), 'packages', 'cli', 'bin', 'acp-kit.js');
}

/** One command of the CLI: its line in the top-level usage, and its own `--help` when it has one. */
export interface CliCommand {
  readonly name: string;
  /** The command's lines in `acp-kit --help`. */
  readonly summary: string;
  /** `acp-kit <name> --help`, when the command answers it (exit status 0). */
  readonly help?: string;
}

export interface CliUsage {
  /** `acp-kit --help`, verbatim. */
  readonly usage: string;
  readonly commands: readonly CliCommand[];
}

function runCli(args: readonly string[]): { status: number | null; stdout: string } {
  const result = spawnSync(process.execPath, [cliBin(), ...args], {
    encoding: 'utf8',
    timeout: 20_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { status: result.status, stdout: result.stdout };
}

/**
 * The CLI reference, read from the CLI itself: `acp-kit --help` and, for every command it lists
 * with options, `acp-kit <command> --help`. The page is this text, so it cannot drift from the
 * program. Commands listed without options (`demo`) are not run: they would start working.
 */
export function readCliUsage(): CliUsage {
  const top = runCli(['--help']);
  if (top.status !== 0 || !top.stdout.startsWith('Usage:')) {
    throw new Error(`acp-kit --help failed (status ${top.status}); build @acp-kit/cli before the docs`);
  }
  const lines = top.stdout.split('\n');
  const start = lines.findIndex((l) => /^Commands:/.test(l));
  const commands: { name: string; lines: string[] }[] = [];
  for (const line of lines.slice(start + 1)) {
    const head = /^ {2}([a-z][\w-]*)\b/.exec(line);
    if (head) commands.push({ name: head[1] as string, lines: [line.trim()] });
    else if (line.trim() !== '') commands.at(-1)?.lines.push(line.trim());
  }
  return {
    usage: top.stdout,
    commands: commands.map(({ name, lines: own }) => {
      const takesOptions = /^[[<-]/.test((own[0] ?? '').slice(name.length).trim());
      const help = takesOptions ? runCli([name, '--help']) : undefined;
      return {
        name,
        summary: own.join('\n'),
        ...(help?.status === 0 && help.stdout.startsWith('Usage:') ? { help: help.stdout } : {}),
      };
    }),
  };
}
