/**
 * What `acp-kit --help` and `acp-kit <command> --help` print: one line per command for the
 * overview, and each command's own usage. The docs site's CLI reference is this text, read from
 * the built CLI.
 */

/** The listen options `agent --listen` and `serve` share. */
const LISTEN_HELP = `Listen options (agent --listen, serve):
  --listen <host:port>  the /acp endpoint: Streamable HTTP at http://host:port/acp, and WebSocket;
                        a bare port means 127.0.0.1
  --token-file <file>   the connection token clients present (Authorization: Bearer <token>),
                        written there if the file is new. Default: $ACP_KIT_TOKEN, or a random
                        token written to a 0600 file whose path is printed
  --no-auth             accept clients without a token: loopback only, for tests
  --allow-origin <origin>
                        a web page origin allowed to connect (repeatable; default none)
  --tls-cert <pem> --tls-key <pem>
                        serve https:// and wss:// (needed off this machine, or a TLS proxy)
  --max-connections <n> open connections in total (default 64)
  --max-per-address <n> open connections from one address (default 16)
  --max-sessions <n>    sessions per connection (default 32)
  --affinity <value>    the acp_affinity cookie value this process sets (default: random), for a
                        load balancer to route each connection's requests back to it`;

/** One command: its line in the overview and its own usage. */
export interface CommandHelp {
  /** One line for `acp-kit --help`. */
  readonly summary: string;
  /** `acp-kit <command> --help`; starts with `Usage:`. */
  readonly usage: string;
}

/** Every command, in the order `acp-kit --help` lists them. */
export const COMMAND_HELP = {
  agent: {
    summary: 'Run the reference ACP v2 agent (stdio, or an /acp endpoint)',
    usage: `Usage: acp-kit agent [--history <file.db> | postgres://…] [--chunk-delay <ms>] [--require-login]
                     [--greet] [--unstable] [--listen <host:port> [listen options]]

Runs the reference ACP v2 agent: deterministic and offline, for trying a client against. Over
stdio, or with --listen on one /acp endpoint that speaks both remote profiles of ACP: Streamable
HTTP (http://host:port/acp) and WebSocket. A v1 client is answered in v1.

  --history <file.db>   keep retained history in SQLite across restarts (needs the optional package
                        @acp-kit/history-sqlite); new files are created readable by you only (0600)
  --history postgres://…
                        keep history in PostgreSQL: several agent processes share the sessions, and
                        each session's turns run on one of them at a time
  --lease-ms <ms>       with postgres://: after how long a killed process's sessions move on to
                        another one (default 5000)
  --chunk-delay <ms>    wait between streamed chunks
  --require-login       session methods answer -32000 until the client calls auth/login
  --greet               send an agent message on session/new, before any prompt
  --unstable            also serve upstream's unstable surface (drafts that may change):
                        session/fork, set_title, status, archive/unarchive, auth/status,
                        providers/*, system prompts, next edit suggestions (nes/*, document/*:
                        renames, completions and jumps), and the prompts /plan <markdown>, /unplan
                        and /subagent <task>; without it the agent is stable-only (none
                        advertised, those methods -32601)

${LISTEN_HELP}

With --listen it stops on SIGINT or SIGTERM, releasing its sessions' leases; a database that does
not answer gets 10 s, then the agent exits 1 and the leases expire by themselves.

Prompts it understands: /run <cmd> (a simulated tool call and terminal, nothing executes),
/ask <question> (elicitation), /title <text>, /note <text>, /status, /write <file>, /compact,
/background <seconds> (a terminal that keeps writing after the turn ended), /subtask <text> (a
background tool call), /subagent <task> (a child session), /mcp [@serverId] [tool [json]] (the tools
of MCP servers the client provides over ACP, unstable). Config options: mode and model. Also
session/list, session/close and session/delete.
`,
  },
  demo: {
    summary: 'Watch the v2 prompt lifecycle, with a replay after a restart',
    usage: `Usage: acp-kit demo [--websocket]

Starts the reference agent with retained history in a temporary SQLite file, prompts it, restarts it
and resumes the session with a replay, printing every update as it arrives. Needs the optional
package @acp-kit/history-sqlite.

  --websocket   talk to the agent over a loopback WebSocket, with its token (default: stdio)
`,
  },
  bridge: {
    summary: 'Serve a v1 agent to v2 clients, or a v2 agent to v1 clients',
    usage: `Usage: acp-kit bridge --serve v2|v1 [--history <ids.ndjson>] [--no-client-services]
                      -- <agent command…>

Starts the agent command as a child process and translates between it and the client on stdio.
Exits 0 when the client closes the connection, 1 when the agent fails (after answering every
pending request with a JSON-RPC error that says why).

  --serve v2            the agent speaks ACP v1; v2 clients reach it
  --serve v1            the agent speaks ACP v2; v1 clients reach it
  --history <file>      with --serve v2: keep the message IDs the bridge issues across restarts
  --no-client-services  with --serve v2: do not serve the agent's fs/* and terminal/* requests
                        (by default the bridge serves them itself: files inside each session's
                        cwd and additionalDirectories, writes shown as diffs, commands as
                        terminals)
`,
  },
  serve: {
    summary: 'Expose a stdio agent on an /acp endpoint (HTTP and WebSocket)',
    usage: `Usage: acp-kit serve --listen <host:port> [listen options] [--v1 [--history <ids.ndjson>]]
                     [--pass-token] -- <agent command…>

Exposes a stdio ACP agent on the same /acp endpoint as agent --listen, one agent process per client
connection, messages relayed unchanged. Logs each connection (address, Acp-Connection-Id) and each
refused handshake; stops a connection's agent when it ends, and all of them on SIGTERM.

  --v1                  the agent speaks ACP v1: each process runs behind bridge --serve v2, so v2
                        clients reach it; each bridge knows the message IDs the others issued,
                        so they survive reconnects, but not a restart of the gateway unless:
  --history <file>      with --v1: keep the message IDs of all connections in this file (the
                        format of bridge --history, created owner-only) across gateway restarts;
                        at most 64 MiB of records are kept
  --pass-token          put the endpoint's token in each agent's $ACP_KIT_TOKEN (agents never see
                        it otherwise)

While 1 MiB waits for an agent that is not reading its stdin, its client is paused (POSTs get 503).

${LISTEN_HELP}
`,
  },
  chain: {
    summary: 'Run proxies in front of an agent on stdio (unstable)',
    usage: `Usage: acp-kit chain [--proxy "<command line>"]… -- <agent command…>

Runs a proxy chain (unstable: upstream's proxy-chains draft) on stdio: a conductor that looks like
an ordinary agent to the client and routes every message through the proxies, in order, to the
agent, each started as a child process. A component that exits or writes something that is not
JSON-RPC ends the chain: waiting requests get -32603 naming it, and all are stopped.

  --proxy "<command line>"   one proxy, split on spaces with quotes and backslashes as a shell
                             would (repeatable, in order from the client's side)
`,
  },
  proxy: {
    summary: 'An ACP proxy on stdio, for a conductor to start (unstable)',
    usage: `Usage: acp-kit proxy [--name <label>] [--context <text>] [--log <file.ndjson>]

An ACP proxy on stdio (unstable), for a conductor to start (chain --proxy "acp-kit proxy …"). The
rest passes unchanged.

  --name <label>       added to the initialize result's _meta["acp-kit.dev/proxies"]
  --context <text>     added as a last text block to every non-empty prompt
  --log <file.ndjson>  every message it sees, appended one per line, in a file readable by you
                       only (0600)
`,
  },
  conformance: {
    summary: 'Check an ACP v2 agent against the prompt-lifecycle rules',
    usage: `Usage: acp-kit conformance [--json <report.json>] [--timeout <s>] [--record <file.ndjson>]
                          [--background-prompt <text>] [--subagent-prompt <text>] -- <agent command…>

Launches the agent once per scenario (a fresh process each time, ACP v2 over stdio), drives it,
and checks every rule of the prompt-lifecycle catalog. Prints PASS / FAIL / SKIP per rule.

  --json <file>      write the full report, with the transcript of every failing scenario
  --timeout <s>      longest wait for any one answer (default 10; the first answer of each
                     agent process, which includes its start, may take 30 or this, the longer)
  --background-prompt <text>
                     a prompt that makes the agent start background work (work listed in
                     state_update.background that outlives its turn), e.g. "/background 2"
                     for acp-kit agent; runs the background scenario, whose rules are
                     skipped without it
  --subagent-prompt <text>
                     a prompt that makes the agent start a subagent (upstream's unstable
                     surface), e.g. "/subagent count the files" for acp-kit agent --unstable;
                     runs the subagent scenario, whose rules are skipped without it
  --record <file>    write each scenario's transcript, as <file> with the scenario name before
                     the extension (run.ndjson → run.lifecycle.ndjson, …): every message both
                     ways, one {"dir","t","msg"} line each, then {"note":…} lines with what the
                     messages cannot show (the scenario, why it stopped, the agent's own exit
                     with the end of its stderr, requests it never answered), so that
                     \`acp-kit lint\` of a recording reports the same MUST failures as the run

The report and the recordings hold the agent's conversation: they are written readable by you
only (mode 0600), also over files that existed with a wider mode.

An agent that answers initialize with protocolVersion 1 is reported as a v1 agent, with the
command that checks it through the v1 → v2 bridge (acp-kit bridge --serve v2 -- …).

Exit status: 0 when no mandatory rule fails, 1 otherwise, 2 for a usage error.
`,
  },
  lint: {
    summary: 'Check a recorded transcript against the same rules',
    usage: `Usage: acp-kit lint <transcript.ndjson>

Checks a recorded transcript (one {"dir","t"?,"msg"} line per JSON-RPC message) against the
prompt-lifecycle rules and the v2 schema, printing each finding with its line number.

Transcripts come from the SDK's recorder (recordTranscript on a Connection), from
\`acp-kit conformance --record <file>\` (one file per scenario; their {"note":…} lines say how
the scenario ended, so the lint reaches the live run's verdicts), or from any tool that writes
the format.

Exit status: 1 when a mandatory rule fails, 0 otherwise, 2 for a usage error or unreadable file.
`,
  },
  inspect: {
    summary: 'Drive an agent from a web page, every message checked live',
    usage: `Usage: acp-kit inspect [--v1] [--port <n>] -- <agent command…>
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
`,
  },
} as const satisfies Record<string, CommandHelp>;

/** A command's name. */
export type CommandName = keyof typeof COMMAND_HELP;

/** `acp-kit --help`: the commands, one line each. */
export function overview(): string {
  const names = Object.keys(COMMAND_HELP) as CommandName[];
  const width = Math.max(...names.map((name) => name.length)) + 2;
  const lines = names.map((name) => `  ${name.padEnd(width)}${COMMAND_HELP[name].summary}`);
  return `Usage: acp-kit <command> [options]

Commands:
${lines.join('\n')}

Options:
  -h, --help     this help; acp-kit <command> --help for a command's own
  -V, --version  the version of @acp-kit/cli

Run 'acp-kit <command> --help' for a command's options.
`;
}
