import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { validateToken } from '@acp-kit/sdk';
import type { AgentTarget } from '../inspect/agent-target.js';
import { startInspector } from '../inspect/inspect-server.js';
import { stopOnSignal } from '../listen/listen-flags.js';
import { UsageError } from '../usage-error.js';

const USAGE = `Usage: acp-kit inspect [--v1] [--port <n>] -- <agent command…>
       acp-kit inspect --url <http(s)://…/acp | ws(s)://…> [--token-file <file>] [--port <n>]

Serves a web app on http://127.0.0.1:<port> (a free port unless --port) that drives one ACP agent:
initialize as a v1 or v2 client, log in, create, list, resume (with or without replay), close and
delete sessions, prompt with a slash-command palette, change config options, answer permission
requests and elicitation forms. The conversation shows what the ConversationStore holds. Every
JSON-RPC message both ways is listed with its timing, validated against the negotiated version's
schema (the failing value marked), and the conformance kit's transcript lint runs over the traffic
so far, its findings pinned to the messages and drawn in a sequence diagram. A replay check
compares a resume with replay against the live view. Export saves the traffic as an ndjson
transcript that acp-kit lint reads; import shows one offline. With --url, a second client can open
its own connection on the same session, side by side.

  -- <agent command…>   a stdio agent, spawned by the inspector; restarted from the page after it exits
  --v1                  the stdio agent speaks ACP v1: it runs behind acp-kit bridge --serve v2
                        (without --v1 the page may still initialize as a v1 client, unbridged)
  --url <endpoint>      a remote agent over Streamable HTTP (http(s)://…/acp) or WebSocket (ws(s)://…)
  --token-file <file>   the remote agent's connection token (kept in this process, never sent to the page)
  --port <n>            the port on 127.0.0.1 to serve on (default: a free one)
  --no-open             accepted for scripts; the inspector never opens a browser itself

stdout gets one line, the URL to open. It carries this run's session token in its #fragment (which
browsers never send to a server); the page keeps it in the tab's sessionStorage and sends it as
Authorization: Bearer on every API request, which also must come from the inspector's own origin.
Stops on SIGINT or SIGTERM, and stops the agent with it.
`;

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
  let values: { url?: string; 'token-file'?: string; v1?: boolean; port?: string; 'no-open'?: boolean };
  try {
    values = parseArgs({
      args: options,
      options: {
        url: { type: 'string' },
        'token-file': { type: 'string' },
        v1: { type: 'boolean' },
        port: { type: 'string' },
        'no-open': { type: 'boolean' },
      },
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
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
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
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
