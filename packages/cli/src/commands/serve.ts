import {
  type ChildProcessTransport,
  listenAcp,
  type MessageReader,
  type MessageWriter,
  spawnTransport,
} from '@acp-kit/sdk';
import {
  announceListening,
  LISTEN_OPTIONS,
  listenSettings,
  listenToken,
  securityOptions,
  stopOnSignal,
} from '../listen/listen-flags.js';
import { agentCommand } from '../listen/agent-command.js';
import { parseOptions, splitAtSeparator } from '../command-line.js';
import { UsageError } from '../usage-error.js';

const say = (line: string): void => void process.stderr.write(`acp-kit serve: ${line}\n`);

/** Copies every frame `from` reads to `to`, unchanged (`look` sees each); calls `onClose` once `from` ends. */
function pipe(
  from: MessageReader,
  to: MessageWriter,
  onClose: () => void,
  look: (text: string) => void = () => {},
): void {
  from.listen({
    onMessage: (text) => {
      look(text);
      void to.write(text).catch(() => {});
    },
    // A frame that is not JSON still goes through: the agent (or client) answers it as it would on stdio.
    onFrameError: () => {},
    onClose,
  });
}

/**
 * `acp-kit serve --listen <host:port> [listen options] [--v1] -- <agent command…>`: exposes a stdio
 * ACP agent on an `/acp` endpoint (Streamable HTTP and WebSocket), one agent process per client
 * connection, messages relayed unchanged both ways. With `--v1` each child is the agent behind
 * `acp-kit bridge --serve v2`, so v2 clients reach a v1 agent.
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

  const children = new Set<ChildProcessTransport>();
  let server: Awaited<ReturnType<typeof listenAcp>>;
  try {
    server = await listenAcp({
      ...securityOptions(listen, token, 'serve'),
      onConnection: (transport, request, info) => {
        const address = request.socket?.remoteAddress ?? 'unknown';
        const child = spawnTransport(file, argv, {
          name: 'agent',
          onStderr: (text) => void process.stderr.write(text),
        });
        children.add(child);
        say(
          `connection ${info.connectionId} (${info.profile}) from ${address}: agent pid ${child.child.pid ?? '(not started)'}`,
        );
        let ended = false;
        const end = (why: string): void => {
          if (ended) return;
          ended = true;
          say(`connection ${info.connectionId} ${why}; stopping agent pid ${child.child.pid}`);
          void transport.writer.close().catch(() => {});
          void child.shutdown().finally(() => children.delete(child));
        };
        const version = initializeWatch();
        pipe(transport.reader, child.writer, () => end('closed'), version.fromClient);
        pipe(
          child.reader,
          transport.writer,
          () => end('lost its agent'),
          (text) => {
            if (!values.v1 && version.fromAgent(text) === 'v1-agent')
              say(
                `connection ${info.connectionId}: the agent answered a v2 client with protocolVersion 1: it is an ACP v1 agent; serve it with acp-kit serve --v1 -- ${[command, ...commandArgs].join(' ')}`,
              );
          },
        );
      },
    });
  } catch (error) {
    token?.cleanup();
    throw error;
  }
  const stopped = stopOnSignal(async () => {
    await server.close();
    await Promise.all([...children].map((child) => child.shutdown()));
  });
  announceListening('serve', server, listen, token);
  say(`each connection runs: ${[file, ...argv].join(' ')}`);
  await stopped;
  token?.cleanup();
  return 0;
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
    options: { ...LISTEN_OPTIONS, v1: { type: 'boolean' } },
    allowPositionals: false,
  }).values;
}
