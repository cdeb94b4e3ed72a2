import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  type AgentConnection,
  Connection,
  type HistoryStore,
  type AcpServerOptions,
  isLoopbackHost,
  listenAcp,
  negotiateAgentVersion,
  schemaValidator,
  type SessionLog,
  type SessionOwnership,
  stdioTransport,
  type Transport,
} from '@acp-kit/sdk';
import { createV1WireCodec, describeLoss } from '@acp-kit/v1-compat';
import { createReferenceAgent } from '../agent/reference-agent.js';
import { historyExposureWarnings } from '../listen/private-history.js';
import { refusalLogger } from '../listen/refusal-log.js';
import { resolveToken, TOKEN_ENV } from '../listen/token-source.js';
import { UsageError } from '../usage-error.js';
import { isPostgresUrl, openPostgresHistory } from './postgres-history.js';
import { openSqliteHistory } from './sqlite-history.js';

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        history: { type: 'string' },
        listen: { type: 'string' },
        'chunk-delay': { type: 'string' },
        'require-login': { type: 'boolean' },
        'lease-ms': { type: 'string' },
        'token-file': { type: 'string' },
        'no-auth': { type: 'boolean' },
        'allow-origin': { type: 'string', multiple: true },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'max-connections': { type: 'string' },
        'max-per-address': { type: 'string' },
        'max-sessions': { type: 'string' },
      },
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:(.*):)?(\d+)$/.exec(value);
  if (!match) throw new UsageError(`--listen expects <host:port> or <port>, got "${value}"`);
  const port = Number(match[2]);
  if (port > 65535) throw new UsageError(`--listen port out of range: ${port}`);
  const host = match[1] || '127.0.0.1';
  return { host: host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host, port };
}

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(Number.isInteger(n) && n > 0))
    throw new UsageError(`${flag} expects a positive whole number, got "${value}"`);
  return n;
}

async function openHistory(
  path: string | undefined,
  leaseMs: number | undefined,
): Promise<
  { history: HistoryStore | SessionLog; ownership?: SessionOwnership; close(): Promise<void> } | undefined
> {
  if (leaseMs !== undefined && !(path !== undefined && isPostgresUrl(path))) {
    throw new UsageError('--lease-ms only applies with --history postgres://…');
  }
  if (!path) return undefined;
  if (isPostgresUrl(path)) return openPostgresHistory(path, leaseMs);
  for (const warning of historyExposureWarnings(path)) process.stderr.write(`acp-kit agent: ${warning}\n`);
  const history = await openSqliteHistory(path);
  return { history, close: () => history.close() };
}

type Values = ReturnType<typeof parse>;

/** Checks the --listen flags against each other before anything is opened or bound. */
function listenSettings(values: Values) {
  const listen = values.listen === undefined ? undefined : parseListen(values.listen);
  const listenOnly = [
    'token-file',
    'no-auth',
    'allow-origin',
    'tls-cert',
    'tls-key',
    'max-connections',
    'max-per-address',
    'max-sessions',
  ];
  if (!listen) {
    const stray = listenOnly.find((flag) => values[flag as keyof Values] !== undefined);
    if (stray) throw new UsageError(`--${stray} only applies with --listen`);
    return undefined;
  }
  const noAuth = values['no-auth'] === true;
  if (noAuth && !isLoopbackHost(listen.host)) {
    throw new UsageError(
      `refusing --no-auth on ${listen.host}: that address is reachable from the network, and anyone who reaches it ` +
        'could drive the agent. Drop --no-auth (a token is required off loopback) or listen on 127.0.0.1',
    );
  }
  if (noAuth && (values['token-file'] !== undefined || process.env[TOKEN_ENV])) {
    throw new UsageError(`--no-auth cannot be combined with --token-file or ${TOKEN_ENV}`);
  }
  if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together');
  }
  const read = (flag: string, path: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new UsageError(`${flag} ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const tls =
    values['tls-cert'] !== undefined && values['tls-key'] !== undefined
      ? { cert: read('--tls-cert', values['tls-cert']), key: read('--tls-key', values['tls-key']) }
      : undefined;
  const maxConnections = positiveInteger('--max-connections', values['max-connections']);
  const maxPerAddress = positiveInteger('--max-per-address', values['max-per-address']);
  const maxSessions = positiveInteger('--max-sessions', values['max-sessions']);
  return {
    ...listen,
    noAuth,
    allowedOrigins: values['allow-origin'] ?? [],
    tls,
    limits: {
      ...(maxConnections === undefined ? {} : { maxConnections }),
      ...(maxPerAddress === undefined ? {} : { maxConnectionsPerAddress: maxPerAddress }),
      ...(maxSessions === undefined ? {} : { maxSessionsPerConnection: maxSessions }),
    },
  };
}

const say = (line: string): void => void process.stderr.write(`acp-kit agent: ${line}\n`);

/** `acp-kit agent`: the reference agent over stdio, or on an `/acp` endpoint (Streamable HTTP and WebSocket) with `--listen`. */
export async function runAgent(args: string[]): Promise<number> {
  const values = parse(args);
  const delay = values['chunk-delay'] === undefined ? undefined : Number(values['chunk-delay']);
  if (delay !== undefined && !(Number.isFinite(delay) && delay >= 0)) {
    throw new UsageError(`--chunk-delay expects a number of milliseconds, got "${values['chunk-delay']}"`);
  }
  const listen = listenSettings(values);
  const tokenSource = listen && !listen.noAuth ? resolveToken(values['token-file']) : undefined;
  const leaseMs = positiveInteger('--lease-ms', values['lease-ms']);
  const opened = await openHistory(values.history, leaseMs);
  const agent = createReferenceAgent({
    ...(opened ? { history: opened.history } : {}),
    ...(opened?.ownership ? { ownership: opened.ownership } : {}),
    ...(delay === undefined ? {} : { chunkDelayMs: delay }),
    ...(values['require-login'] ? { requireLogin: true } : {}),
  });

  if (listen) {
    const options: AcpServerOptions = {
      host: listen.host,
      port: listen.port,
      allowedOrigins: listen.allowedOrigins,
      limits: listen.limits,
      ...(listen.tls ? { tls: listen.tls } : {}),
      ...(tokenSource ? { token: tokenSource.token } : { noAuth: true }),
      onConnection: (transport) => {
        agent.serve(versionedConnection(transport));
      },
      onRefused: refusalLogger((line) => void process.stderr.write(line)),
      // A GET may open the stream of a session this connection has not named yet (a client about
      // to resume it) only if the agent has that session: the RFD's 404 otherwise.
      http: { sessionExists: async (sessionId) => (await agent.log.getSession(sessionId)) !== undefined },
    };
    let server: Awaited<ReturnType<typeof listenAcp>>;
    try {
      server = await listenAcp(options);
    } catch (error) {
      tokenSource?.cleanup();
      await opened?.close();
      throw error;
    }
    // Handlers first: a SIGTERM sent as soon as the lines below are read must still clean up (the
    // token file); before a handler exists the signal's default action kills the process.
    const stopped = new Promise<void>((resolve) => {
      const stop = (): void => {
        void server.close().then(resolve);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    // WebSocket clients may connect on any path; the line keeps the form scripts already read.
    process.stderr.write(`acp-kit agent listening on ${server.webSocketUrl.replace(/\/acp$/, '')}\n`);
    say(`ACP endpoint (Streamable HTTP and WebSocket): ${server.url}`);
    if (tokenSource?.file) {
      say(`token file: ${tokenSource.file} (readable by you only)`);
      say(
        'clients send the token as "Authorization: Bearer <token>"; browsers offer the subprotocols ["acp-kit", "acp-kit.token.<token>"] (both: the agent selects "acp-kit")',
      );
    } else if (tokenSource) {
      say(`connection token taken from ${TOKEN_ENV}`);
    } else {
      say('WARNING: --no-auth: ANY program or user on this machine can connect and drive this agent.');
      say('WARNING: use --no-auth only for tests and setups where every local user is trusted.');
    }
    if (!isLoopbackHost(listen.host)) {
      say(`WARNING: listening on ${listen.host}, reachable from the network, not just this machine.`);
      if (!listen.tls) {
        say(
          'WARNING: without --tls-cert/--tls-key the token and every conversation cross the network unencrypted;',
        );
        say(
          'WARNING: pass a certificate and key, or put a TLS reverse proxy in front (see "Exposing an agent over WebSocket").',
        );
      }
    }
    if (listen.allowedOrigins.length > 0) say(`web pages allowed from: ${listen.allowedOrigins.join(', ')}`);
    await stopped;
    tokenSource?.cleanup();
    await opened?.close();
    return 0;
  }

  const connection = versionedConnection(stdioTransport());
  const closed = new Promise<void>((resolve) => connection.onClose(() => resolve()));
  agent.serve(connection, 'stdio');
  await closed;
  // The client has gone: a turn still ending (a permission request or elicitation it was asked
  // ends `cancelled`) writes its stop reason before the history closes.
  await agent.whenIdle();
  await opened?.close();
  return 0;
}

/** The in-process v1 codec; what it cannot carry to a v1 client is logged, not dropped silently. */
const V1_CODEC = createV1WireCodec({
  onLoss: (loss) => void process.stderr.write(`acp-kit agent: ${describeLoss(loss)}\n`),
});

/**
 * A connection that speaks the version its client's `initialize` asks for: v2, or v1 through the
 * in-process v1 codec (the agent behind it only ever sees v2).
 */
function versionedConnection(transport: Transport): AgentConnection {
  return new Connection(negotiateAgentVersion(transport, { codecs: [V1_CODEC] }), {
    validator: schemaValidator,
  });
}
