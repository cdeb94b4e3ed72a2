import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../paths.ts';

/** The `acp-kit` executable of this checkout (packages/cli, built before the docs). */
export function cliBin(): string {
  return join(repoRoot(), 'packages', 'cli', 'bin', 'acp-kit.js');
}

/** One command of the CLI: its line in the top-level usage, and its own `--help`. */
export interface CliCommand {
  readonly name: string;
  /** The command's line in `acp-kit --help`. */
  readonly summary: string;
  /** `acp-kit <name> --help` (exit status 0). */
  readonly help: string;
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
 * The CLI reference, read from the CLI itself: `acp-kit --help` and, for every command it lists,
 * `acp-kit <command> --help`. The page is this text, so it cannot drift from the program.
 */
export function readCliUsage(): CliUsage {
  const top = runCli(['--help']);
  if (top.status !== 0 || !top.stdout.startsWith('Usage:')) {
    throw new Error(`acp-kit --help failed (status ${top.status}); build @acp-kit/cli before the docs`);
  }
  const lines = top.stdout.split('\n');
  const start = lines.findIndex((l) => /^Commands:/.test(l));
  const end = lines.indexOf('', start);
  const commands = lines.slice(start + 1, end).map((line) => {
    const head = /^ {2}([a-z][\w-]*) +(.*)$/.exec(line);
    if (!head) throw new Error(`acp-kit --help: "${line}" is not a "  <command>  <summary>" line`);
    return { name: head[1] as string, summary: head[2] as string };
  });
  return {
    usage: top.stdout,
    commands: commands.map(({ name, summary }) => {
      const help = runCli([name, '--help']);
      if (help.status !== 0 || !help.stdout.startsWith(`Usage: acp-kit ${name}`))
        throw new Error(`acp-kit ${name} --help failed (status ${help.status})`);
      return { name, summary, help: help.stdout };
    }),
  };
}
