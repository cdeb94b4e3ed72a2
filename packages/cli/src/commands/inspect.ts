import { readFileSync } from 'node:fs';
import { validateToken } from '@acp-kit/sdk';
import type { AgentTarget } from '../inspect/agent-target.js';
import { startInspector } from '../inspect/inspect-server.js';
import { stopOnSignal } from '../listen/listen-flags.js';
import { parseOptions } from '../command-line.js';
import { UsageError } from '../usage-error.js';

const say = (line: string): void => void process.stderr.write(`acp-kit inspect: ${line}\n`);

function readToken(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read --token-file ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    return validateToken(text.trim());
  } catch (error) {
    throw new UsageError(`token file ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Parses the options of `acp-kit inspect` into what to drive and where to serve. */
export function parseInspectArgs(args: string[]): { target: AgentTarget; port: number } {
  const separator = args.indexOf('--');
  const options = separator === -1 ? args : args.slice(0, separator);
  const [command, ...commandArgs] = separator === -1 ? [] : args.slice(separator + 1);
  const { values } = parseOptions({
    args: options,
    options: {
      url: { type: 'string' },
      'token-file': { type: 'string' },
      v1: { type: 'boolean' },
      port: { type: 'string' },
      'no-open': { type: 'boolean' },
    },
    allowPositionals: false,
  });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port expects 0…65535');
  if (values.url !== undefined) {
    if (command !== undefined)
      throw new UsageError('give either --url or an agent command after --, not both');
    if (values.v1) throw new UsageError('--v1 applies to a stdio agent (a remote endpoint speaks v2)');
    if (!/^(https?|wss?):\/\//.test(values.url)) {
      throw new UsageError(`--url expects http(s)://…/acp or ws(s)://…, got "${values.url}"`);
    }
    const token = values['token-file'] === undefined ? undefined : readToken(values['token-file']);
    return { target: { kind: 'remote', url: values.url, ...(token === undefined ? {} : { token }) }, port };
  }
  if (values['token-file'] !== undefined) throw new UsageError('--token-file applies to --url');
  if (command === undefined) throw new UsageError('give the agent command after --, or --url <endpoint>');
  return { target: { kind: 'stdio', command, args: commandArgs, v1: values.v1 === true }, port };
}

/**
 * `acp-kit inspect [--v1] [--port <n>] -- <agent command…>` or `acp-kit inspect --url <endpoint>
 * [--token-file <file>]`: serves the inspector web app on 127.0.0.1 and prints the URL to open
 * (it never opens a browser itself). Runs until SIGINT or SIGTERM.
 */
export async function runInspect(args: string[]): Promise<number> {
  const { target, port } = parseInspectArgs(args);
  const inspector = await startInspector({ target, port, cliEntry: process.argv[1]! });
  const stopped = stopOnSignal(() => inspector.close());
  say(`inspecting ${target.kind === 'remote' ? target.url : [target.command, ...target.args].join(' ')}`);
  // stdout carries the URL alone, so a script can read it; the token is in the fragment, which
  // browsers never send to a server.
  process.stdout.write(`${inspector.url}\n`);
  say(`open the URL above in a browser on this machine (it holds this run's session token)`);
  await stopped;
  return 0;
}
