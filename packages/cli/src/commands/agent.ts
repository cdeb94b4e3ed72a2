import {
  type AgentConnection,
  Connection,
  type AcpServerOptions,
  listenAcp,
  negotiateAgentVersion,
  schemaValidator,
  type SessionLog,
  stdioTransport,
  type Transport,
} from '@acp-kit/sdk';
import type { SessionOwnership } from '@acp-kit/sdk/adapter';
import { createV1WireCodec, describeLoss } from '@acp-kit/v1-compat';
import { createReferenceAgent } from '../agent/reference-agent.js';
import { historyExposureWarnings } from '../listen/private-history.js';
import {
  announceListening,
  LISTEN_OPTIONS,
  listenSettings,
  listenToken,
  positiveInteger,
  securityOptions,
  stopOnSignal,
} from '../listen/listen-flags.js';
import { parseOptions } from '../command-line.js';
import { UsageError } from '../usage-error.js';
import { exitIfHeldOpen, shutdownStep } from './bounded-shutdown.js';
import { isPostgresUrl, openPostgresHistory } from './postgres-history.js';
import { openSqliteHistory } from './sqlite-history.js';

function parse(args: string[]) {
  return parseOptions({
    args,
    options: {
      history: { type: 'string' },
      'chunk-delay': { type: 'string' },
      'require-login': { type: 'boolean' },
      greet: { type: 'boolean' },
      unstable: { type: 'boolean' },
      'lease-ms': { type: 'string' },
      ...LISTEN_OPTIONS,
    },
    allowPositionals: false,
  }).values;
}

async function openHistory(
  path: string | undefined,
  leaseMs: number | undefined,
): Promise<
  | {
      history: SessionLog;
      ownership?: SessionOwnership;
      health?: () => { readonly ok: boolean } & Record<string, unknown>;
      close(): Promise<void>;
    }
  | undefined
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

/** `acp-kit agent`: the reference agent over stdio, or on an `/acp` endpoint (Streamable HTTP and WebSocket) with `--listen`. */
export async function runAgent(args: string[]): Promise<number> {
  const values = parse(args);
  const delay = values['chunk-delay'] === undefined ? undefined : Number(values['chunk-delay']);
  if (delay !== undefined && !(Number.isFinite(delay) && delay >= 0)) {
    throw new UsageError(`--chunk-delay expects a number of milliseconds, got "${values['chunk-delay']}"`);
  }
  const listen = listenSettings(values);
  const tokenSource = listen ? listenToken(listen) : undefined;
  const leaseMs = positiveInteger('--lease-ms', values['lease-ms']);
  const opened = await openHistory(values.history, leaseMs);
  const stopReporting = opened?.health === undefined ? undefined : reportDatabase(opened.health);
  const agent = createReferenceAgent({
    ...(values.greet ? { greet: true } : {}),
    ...(opened ? { history: opened.history } : {}),
    ...(opened?.ownership ? { ownership: opened.ownership } : {}),
    ...(delay === undefined ? {} : { chunkDelayMs: delay }),
    ...(values['require-login'] ? { requireLogin: true } : {}),
    ...(values.unstable ? { unstable: true } : {}),
  });

  if (listen) {
    const security = securityOptions(listen, tokenSource, 'agent');
    const options: AcpServerOptions = {
      ...security,
      onConnection: (transport) => {
        agent.serve(versionedConnection(transport));
      },
      ...(opened?.health === undefined ? {} : { health: opened.health }),
      // A GET may open the stream of a session this connection has not named yet (a client about
      // to resume it) only if the agent has that session: the RFD's 404 otherwise.
      http: {
        ...security.http,
        sessionExists: async (sessionId) => (await agent.log.getSession(sessionId)) !== undefined,
      },
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
    const stopped = stopOnSignal(async () => {
      await shutdownStep(
        'agent',
        'closing the endpoint',
        () => server.close(),
        'connections are cut at exit',
      );
    });
    announceListening('agent', server, listen, tokenSource);
    await stopped;
    stopReporting?.();
    tokenSource?.cleanup();
    // A database that stopped answering must not keep a stopped replica alive: each step is bounded,
    // and whatever still holds the process open afterwards is named and cut.
    const closed =
      opened === undefined ||
      (await shutdownStep(
        'agent',
        'closing the session history',
        () => opened.close(),
        'leases not released expire after their lease time',
      ));
    exitIfHeldOpen('agent');
    return closed ? 0 : 1;
  }

  const connection = versionedConnection(stdioTransport());
  const closed = new Promise<void>((resolve) => connection.onClose(() => resolve()));
  agent.serve(connection, 'stdio');
  await closed;
  // The client has gone: a turn still ending (a permission request or elicitation it was asked
  // ends `cancelled`) writes its stop reason before the history closes.
  await agent.whenIdle();
  stopReporting?.();
  await opened?.close();
  return 0;
}

/**
 * Logs the database a replica writes to on stderr: once it is known, then on every change of host
 * or writability (a failover), so an operator's log shows when and where each replica moved.
 */
function reportDatabase(health: () => Record<string, unknown>): () => void {
  let last = '';
  const report = (): void => {
    const { host, writable, timeline } = health();
    const line = `history database ${String(host ?? 'unknown')}: ${writable ? 'writable' : 'cannot write'}${timeline ? ` (timeline ${String(timeline)})` : ''}`;
    if (line === last) return;
    last = line;
    const { ownedSessions, leaseRenewLagMs, listenReconnects } = health();
    process.stderr.write(
      `acp-kit agent: ${line}; ${String(ownedSessions)} sessions owned, lease renew lag ${String(leaseRenewLagMs)} ms, ${String(listenReconnects)} LISTEN reconnects\n`,
    );
  };
  report();
  const timer = setInterval(report, 1000);
  timer.unref();
  return () => clearInterval(timer);
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
