import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BIN, requireBuild } from '../harness.js';

/** Runs the built `acp-kit` with `args` (a real child process) and returns what it printed. */
function acpKit(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The commands `acp-kit --help` lists: one `  <name>  <summary>` line each under "Commands:". */
function listedCommands(overview: string): string[] {
  const lines = overview.split('\n');
  const start = lines.indexOf('Commands:');
  const end = lines.indexOf('', start);
  return lines.slice(start + 1, end).map((line) => /^ {2}([a-z][\w-]*) {2,}\S/.exec(line)?.[1] ?? line);
}

describe('acp-kit explains itself', () => {
  requireBuild();
  const overview = acpKit(['--help']);
  const commands = listedCommands(overview.stdout);

  it('prints a short overview, one line per command, for --help, -h and help (exit 0)', () => {
    expect(overview.status).toBe(0);
    expect(overview.stdout).toMatch(/^Usage: acp-kit <command>/);
    expect(commands).toEqual([
      'agent',
      'demo',
      'bridge',
      'serve',
      'chain',
      'proxy',
      'conformance',
      'lint',
      'inspect',
    ]);
    expect(overview.stdout.split('\n').length).toBeLessThan(25);
    for (const line of overview.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(acpKit(['-h'])).toEqual(overview);
    expect(acpKit(['help'])).toEqual(overview);
  });

  it('answers --version and -V with the version of @acp-kit/cli', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(acpKit(['--version'])).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
    expect(acpKit(['-V'])).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('gives every command its own usage for --help, -h and help <command>, exit 0, starting no agent', () => {
    for (const name of commands) {
      const help = acpKit([name, '--help']);
      expect(help.status, name).toBe(0);
      expect(help.stderr, name).toBe('');
      expect(help.stdout, name).toMatch(new RegExp(`^Usage: acp-kit ${name}\\b`));
      expect(acpKit([name, '-h']), name).toEqual(help);
      expect(acpKit(['help', name]), name).toEqual(help);
      // Among other options too: --help wins, nothing starts.
      expect(acpKit([name, '--json', 'x', '--help', '--', 'no-such-agent']).stdout, name).toBe(help.stdout);
    }
  });

  it('reports an unknown option the same way for every command: named, with the help command, exit 2', () => {
    for (const name of commands) {
      const wrong = acpKit([name, '--frobnicate', '--', process.execPath, '-e', '']);
      expect(wrong, name).toEqual({
        status: 2,
        stdout: '',
        stderr: `acp-kit ${name}: unknown option '--frobnicate'\nRun 'acp-kit ${name} --help' for its usage.\n`,
      });
    }
    expect(acpKit(['--frobnicate'])).toEqual({
      status: 2,
      stdout: '',
      stderr: "acp-kit: unknown option '--frobnicate'\nRun 'acp-kit --help' for the commands.\n",
    });
    expect(acpKit(['frobnicate'])).toEqual({
      status: 2,
      stdout: '',
      stderr: "acp-kit: unknown command 'frobnicate'\nRun 'acp-kit --help' for the commands.\n",
    });
  });

  it('names an option given without its value, and a stray argument, in the same form', () => {
    expect(acpKit(['bridge', '--serve']).stderr).toBe(
      "acp-kit bridge: option '--serve' needs a value\nRun 'acp-kit bridge --help' for its usage.\n",
    );
    expect(acpKit(['agent', 'extra']).stderr).toBe(
      "acp-kit agent: unexpected argument 'extra'\nRun 'acp-kit agent --help' for its usage.\n",
    );
    expect(acpKit(['demo', '--websocket=yes']).stderr).toBe(
      "acp-kit demo: option '--websocket' takes no value\nRun 'acp-kit demo --help' for its usage.\n",
    );
  });
});
