import { type ChildProcessTransport, listenAcp, spawnTransport } from '@acp-kit/sdk';
import {
  announceListening,
  LISTEN_OPTIONS,
  listenSettings,
  listenToken,
  securityOptions,
  stopOnSignal,
} from '../listen/listen-flags.js';
import { agentCommand } from '../listen/agent-command.js';
import { checkLedgerFile, ConnectionIdLedgers } from '../listen/connection-id-ledgers.js';
import { historyExposureWarnings } from '../listen/private-history.js';
import { type RelayBounds, relay } from '../listen/bounded-relay.js';
import { TOKEN_ENV } from '../listen/token-source.js';
import { parseOptions, splitAtSeparator } from '../command-line.js';
import { UsageError } from '../usage-error.js';

const say = (line: string): void => void process.stderr.write(`acp-kit serve: ${line}\n`);

const MiB = 1024 * 1024;
/**
 * Client → agent: what waits for an agent that is not reading its stdin. Past 1 MiB the client is
 * paused (a WebSocket stops being read; POSTs are answered 503 with Retry-After) until 256 KiB are
 * left; past 16 MiB (frames the client had in flight) the connection is cut off.
 */
const TO_AGENT: RelayBounds = { pauseAtBytes: MiB, resumeAtBytes: MiB / 4, maxBytes: 16 * MiB };
/**
 * Agent → client: the client's transport bounds what it has not read, as for `agent --listen` —
 * 4 MiB on a WebSocket (then it is closed with code 1008) or on an SSE stream (then the connection
 * is cut off) — and the connection then ends with its agent. The relay's own bound is a backstop.
 */
const TO_CLIENT: RelayBounds = { pauseAtBytes: 16 * MiB, resumeAtBytes: 0, maxBytes: 16 * MiB };

/**
 * `acp-kit serve --listen <host:port> [listen options] [--v1] -- <agent command…>`: exposes a stdio
 * ACP agent on an `/acp` endpoint (Streamable HTTP and WebSocket), one agent process per client
 * connection, messages relayed unchanged both ways. With `--v1` each child is the agent behind
 * `acp-kit bridge --serve v2`, so v2 clients reach a v1 agent; `--history <file>` then keeps the
 * message IDs the bridges issue across gateway restarts.
 */
export async function runServe(args: string[]): Promise<number> {
  const split = splitAtSeparator(args);
  const values = parseServeArgs(split.options);
  const command = split.command?.file;
  const commandArgs = split.command?.args ?? [];
  if (command === undefined) throw new UsageError('give the agent command after --');
  if (values.listen === undefined) throw new UsageError('acp-kit serve needs --listen <host:port>');
  const listen = listenSettings(values)!;
  const token = listenToken(listen);
  const [file, argv] = agentCommand(command, commandArgs, values.v1 === true, process.argv[1]!);
  // The endpoint's token reaches an agent only when asked for (listenToken took it out of this
  // process's environment).
  const agentEnv = values['pass-token'] && token ? { ...process.env, [TOKEN_ENV]: token.token } : process.env;
  if (values['pass-token'] && !token)
    throw new UsageError('--pass-token needs a token: it cannot go with --no-auth');
  const history = values.history;
  if (history === '') throw new UsageError('--history expects a file path');
  if (history !== undefined && values.v1 !== true)
    throw new UsageError('--history applies to --v1 (a v2 agent keeps its own history)');
  if (history !== undefined) {
    try {
      await checkLedgerFile(history);
    } catch (error) {
      token?.cleanup();
      throw new UsageError((error as Error).message);
    }
    for (const warning of historyExposureWarnings(history)) say(warning);
  }

  const children = new Set<ChildProcessTransport>();
  // With --v1, every connection's bridge knows the message IDs the others issued (see
  // ConnectionIdLedgers); with --history also those issued before the gateway was restarted.
  const ledgers =
    values.v1 === true
      ? new ConnectionIdLedgers({ ...(history === undefined ? {} : { history }), warn: say })
      : undefined;
  // Also when a second signal ends the process at once (the directory is owner-only either way).
  if (ledgers !== undefined) process.once('exit', () => ledgers.close());
  let server: Awaited<ReturnType<typeof listenAcp>>;
  try {
    server = await listenAcp({
      ...securityOptions(listen, token, 'serve'),
      onConnection: (transport, request, info) => {
        const address = request.socket?.remoteAddress ?? 'unknown';
        const ledger = ledgers?.open(info.connectionId);
        const childArgv = ledger === undefined ? argv : withHistory(argv, ledger);
        const child = spawnTransport(file, childArgv, {
          name: 'agent',
          env: agentEnv,
          onStderr: (text) => void process.stderr.write(text),
        });
        children.add(child);
        say(
          `connection ${info.connectionId} (${info.profile}) from ${address}: agent pid ${child.child.pid ?? '(not started)'}`,
        );
        let ended = false;
        const end = (why: string, abort?: string): void => {
          if (ended) return;
          ended = true;
          say(`connection ${info.connectionId} ${why}; stopping agent pid ${child.child.pid}`);
          if (abort !== undefined && transport.writer.abort) transport.writer.abort(abort);
          else void transport.writer.close().catch(() => {});
          // Nothing more is relayed: what the agent still writes has no one to go to.
          child.reader.dispose();
          void child.shutdown().finally(() => {
            children.delete(child);
            if (ledger !== undefined) ledgers?.release(ledger);
          });
        };
        const version = initializeWatch();
        relay(transport.reader, child.writer, TO_AGENT, {
          look: version.fromClient,
          onClose: () => end('closed'),
          onWriteError: (error) => end(`lost its agent's input (${error.message})`),
          onOverflow: (waiting) =>
            end(
              `cut off: the agent is not reading its input (${waiting} bytes waiting, limit ${TO_AGENT.maxBytes})`,
              `agent not reading: ${waiting} bytes waiting (limit ${TO_AGENT.maxBytes})`,
            ),
        });
        relay(child.reader, transport.writer, TO_CLIENT, {
          look: (text) => {
            if (!values.v1 && version.fromAgent(text) === 'v1-agent')
              say(
                `connection ${info.connectionId}: the agent answered a v2 client with protocolVersion 1: it is an ACP v1 agent; serve it with acp-kit serve --v1 -- ${[command, ...commandArgs].join(' ')}`,
              );
          },
          onClose: () => end('lost its agent'),
          onWriteError: (error) => end(`cut off: ${error.message}`),
          onOverflow: (waiting) =>
            end(
              `cut off: the client is not reading (${waiting} bytes waiting, limit ${TO_CLIENT.maxBytes})`,
              `client not reading: ${waiting} bytes waiting (limit ${TO_CLIENT.maxBytes})`,
            ),
        });
      },
    });
  } catch (error) {
    token?.cleanup();
    ledgers?.close();
    throw error;
  }
  const stopped = stopOnSignal(async () => {
    await server.close();
    await Promise.all([...children].map((child) => child.shutdown()));
  });
  announceListening('serve', server, listen, token);
  if (ledgers !== undefined) {
    say(`message-ID ledgers of the connections' bridges: ${ledgers.dir}`);
    say(
      history === undefined
        ? 'message IDs survive reconnects, not a restart of this gateway (keep them with --history <file>)'
        : `message IDs kept across restarts in ${ledgers.shared}`,
    );
  }
  say(`each connection runs: ${[file, ...argv].join(' ')}`);
  await stopped;
  token?.cleanup();
  ledgers?.close();
  return 0;
}

/** `acp-kit bridge --serve v2 …` with `--history <file>` before the agent command. */
function withHistory(argv: readonly string[], file: string): string[] {
  const at = argv.indexOf('--');
  return [...argv.slice(0, at), '--history', file, ...argv.slice(at)];
}

/**
 * Watches one connection's `initialize`: the protocol version the client asked for and the one the
 * agent answered. `v1-agent` once a v2 (or later) client was answered with version 1 — a v1 agent
 * run without `--v1` (the gateway relays unchanged; it does not pick the bridge by itself).
 */
function initializeWatch() {
  let id: string | undefined;
  let asked: unknown;
  const parse = (text: string): { id?: unknown; method?: unknown; params?: unknown; result?: unknown } => {
    try {
      const value: unknown = JSON.parse(text);
      return value !== null && typeof value === 'object' ? value : {};
    } catch {
      return {};
    }
  };
  return {
    fromClient: (text: string): void => {
      if (id !== undefined) return;
      const message = parse(text);
      if (message.method !== 'initialize') return;
      id = JSON.stringify(message.id);
      asked = (message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    },
    fromAgent: (text: string): 'v1-agent' | undefined => {
      if (id === undefined) return undefined;
      const message = parse(text);
      if (message.method !== undefined || JSON.stringify(message.id) !== id) return undefined;
      id = '';
      const answered = (message.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      return typeof asked === 'number' && asked >= 2 && answered === 1 ? 'v1-agent' : undefined;
    },
  };
}

function parseServeArgs(args: string[]) {
  return parseOptions({
    args,
    options: {
      ...LISTEN_OPTIONS,
      v1: { type: 'boolean' },
      'pass-token': { type: 'boolean' },
      history: { type: 'string' },
    },
    allowPositionals: false,
  }).values;
}
