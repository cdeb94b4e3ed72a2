import { runAgent } from './commands/agent.js';
import { runBridgeCommand } from './commands/bridge.js';
import { runChainCommand } from './commands/chain.js';
import { runConformanceCommand } from './commands/conformance.js';
import { runDemo } from './commands/demo.js';
import { runInspect } from './commands/inspect.js';
import { runLintCommand } from './commands/lint.js';
import { runProxyCommand } from './commands/proxy.js';
import { runServe } from './commands/serve.js';
import { UsageError } from './usage-error.js';

/** Exit code for a usage error, as the conformance and lint commands promise. */
export const USAGE_EXIT_CODE = 2;

const USAGE = `Usage: acp-kit <command> [options]

Commands:
  agent [--history <file.db> | postgres://…] [--chunk-delay <ms>] [--require-login] [--greet] [--unstable] [--listen <host:port> [listen options]]
        Run the reference ACP v2 agent over stdio, or with --listen on one /acp endpoint that speaks
        both remote profiles of ACP: Streamable HTTP (http://host:port/acp) and WebSocket.
        Prompts: /run <cmd> (simulated tool call and terminal, nothing executes), /ask <question>
        (elicitation), /title <text>, /note <text>, /status, /write <file>, /compact (a compaction
        summarizing the session's retained messages), /background <seconds> (a terminal that keeps
        writing after the turn ended), /subtask <text> (a background tool call), /subagent <task>
        (a child session), /mcp [@serverId] [tool [json]] (lists or calls the tools of MCP servers the
        client provides over ACP, unstable); config options mode and model; session/list,
        session/close and session/delete.
        --require-login   session methods answer -32000 until the client calls auth/login
        --greet           send an agent message on session/new, before any prompt
        --unstable        also serve upstream's unstable surface (drafts that may change): session/fork,
                          set_title, status, archive/unarchive, auth/status, providers/*, system prompts,
                          and the prompts /plan <markdown>, /unplan and /subagent <task>; without it the
                          agent is stable-only (none advertised, those methods -32601)
        --listen clients must present a connection token (Authorization: Bearer <token>):
          a random one written to a 0600 file whose path is printed, or the token in
          --token-file <file> (written there if the file is new), or in $ACP_KIT_TOKEN.
        --allow-origin <origin>   a web page origin allowed to connect (repeatable; default none)
        --tls-cert <pem> --tls-key <pem>   serve https:// and wss:// (needed off this machine, or a TLS proxy)
        --max-connections <n>  --max-per-address <n>  --max-sessions <n per connection>
                    open connections in total, from one address, sessions each (64, 16, 32)
        --no-auth   accept clients without a token: loopback only, for tests and trusted setups
        --affinity <value>   the value of the acp_affinity cookie this process sets (default: random),
                    for a load balancer to route each connection's requests back to it
        New --history files are created readable by you only (0600). With a postgres:// URL, several
        agent processes share the sessions: a client may attach to any of them; each session's turns
        run on one of them, and a killed one's sessions move on after --lease-ms <ms> (default 5000).
  demo [--websocket]
        Show the v2 prompt lifecycle against the reference agent, with a replay after a restart
        (over stdio, or --websocket: over a loopback WebSocket with the agent's connection token).
  bridge --serve v2|v1 [--history <ids.ndjson>] [--no-client-services] -- <agent command…>
        Serve a v1 agent to v2 clients (--serve v2) or a v2 agent to v1 clients (--serve v1) on stdio.
        With --serve v2, --history keeps the message IDs the bridge issues across restarts, and the
        bridge serves the agent's fs/* and terminal/* requests itself (files inside each session's cwd
        and additionalDirectories, writes shown as diffs, commands as terminals) unless
        --no-client-services.
  serve --listen <host:port> [listen options] [--v1] [--pass-token] -- <agent command…>
        Expose any stdio ACP agent on the same /acp endpoint as agent --listen (Streamable HTTP and
        WebSocket, the same listen options and token), one agent process per client connection,
        messages relayed unchanged. --v1: the agent speaks ACP v1; each process runs behind
        bridge --serve v2 so v2 clients reach it. Logs each connection (address, Acp-Connection-Id)
        and each refused handshake; stops a connection's agent when it ends, and all of them on SIGTERM.
        Agents never see the endpoint's token unless --pass-token puts it in their $ACP_KIT_TOKEN.
        While 1 MiB waits for an agent that is not reading its stdin, its client is paused (POSTs 503).
  chain [--proxy "<command line>"]… -- <agent command…>
        Run a proxy chain (unstable: upstream's proxy-chains draft) on stdio: a conductor that looks
        like an ordinary agent to the client and routes every message through the proxies, in order,
        to the agent, each started as a child process. A component that exits or writes something
        that is not JSON-RPC ends the chain: waiting requests get -32603 naming it, all are stopped.
  proxy [--name <label>] [--context <text>] [--log <file.ndjson>]
        An ACP proxy on stdio (unstable), for a conductor to start (chain --proxy "acp-kit proxy …"):
        adds its name to the initialize result's _meta["acp-kit.dev/proxies"], adds --context as a last
        text block to every non-empty prompt, appends every message it sees to --log (ndjson); the
        rest passes unchanged.
  conformance [--json <report.json>] [--timeout <s>] [--record <file.ndjson>] -- <agent command…>
        Check an ACP v2 agent against the prompt-lifecycle rules (PASS / FAIL / SKIP per rule).
  lint <transcript.ndjson>
        Check a recorded transcript against the same rules, with line numbers.
  inspect [--v1] [--port <n>] -- <agent command…>  |  inspect --url <http(s)://…/acp | ws(s)://…> [--token-file <file>]
        Drive an agent from a web page on 127.0.0.1 and see every JSON-RPC message validated against
        the negotiated version's schema and the prompt-lifecycle rules checked live. Prints the URL to
        open (it carries a fresh session token in its #fragment) and never opens a browser itself.
        --v1: the stdio agent speaks ACP v1 and runs behind bridge --serve v2. The inspector stays up
        when the agent crashes or writes garbage; the page restarts it.
`;

type Command = (args: string[]) => Promise<number>;

const commands: Record<string, Command> = {
  agent: runAgent,
  demo: runDemo,
  bridge: runBridgeCommand,
  conformance: runConformanceCommand,
  lint: runLintCommand,
  inspect: runInspect,
  serve: runServe,
  chain: runChainCommand,
  proxy: runProxyCommand,
};

/** Runs the `acp-kit` command line and resolves with the process exit code. */
export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name === undefined ? USAGE_EXIT_CODE : 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`acp-kit: unknown command "${name}"\n\n${USAGE}`);
    return USAGE_EXIT_CODE;
  }
  try {
    return await command(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`acp-kit ${name}: ${error.message}\n\n${USAGE}`);
      return USAGE_EXIT_CODE;
    }
    throw error;
  }
}
