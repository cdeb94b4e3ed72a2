import { readFileSync } from 'node:fs';
import {
  type AcpServerOptions,
  type AcpTransportServer,
  isLoopbackHost,
  onTerminationSignal,
} from '@acp-kit/sdk';
import { UsageError } from '../usage-error.js';
import { refusalLogger } from './refusal-log.js';
import { resolveToken, TOKEN_ENV } from './token-source.js';

/** The `parseArgs` options every listening command shares (`agent --listen`, `serve`). */
export const LISTEN_OPTIONS = {
  listen: { type: 'string' },
  'token-file': { type: 'string' },
  'no-auth': { type: 'boolean' },
  'allow-origin': { type: 'string', multiple: true },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-per-address': { type: 'string' },
  'max-sessions': { type: 'string' },
  affinity: { type: 'string' },
} as const;

/** The parsed values of {@link LISTEN_OPTIONS}. */
export interface ListenFlagValues {
  listen?: string | undefined;
  'token-file'?: string | undefined;
  'no-auth'?: boolean | undefined;
  'allow-origin'?: string[] | undefined;
  'tls-cert'?: string | undefined;
  'tls-key'?: string | undefined;
  'max-connections'?: string | undefined;
  'max-per-address'?: string | undefined;
  'max-sessions'?: string | undefined;
  affinity?: string | undefined;
}

function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:(.*):)?(\d+)$/.exec(value);
  if (!match) throw new UsageError(`--listen expects <host:port> or <port>, got "${value}"`);
  const port = Number(match[2]);
  if (port > 65535) throw new UsageError(`--listen port out of range: ${port}`);
  const host = match[1] || '127.0.0.1';
  return { host: host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host, port };
}

/** Parses a flag's positive whole number, or throws a usage error naming the flag. */
export function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(Number.isInteger(n) && n > 0))
    throw new UsageError(`${flag} expects a positive whole number, got "${value}"`);
  return n;
}

/** What the listen flags settle: where to bind and how strictly to admit clients. */
export type ListenSettings = NonNullable<ReturnType<typeof listenSettings>>;

/** Checks the --listen flags against each other before anything is opened or bound. */
export function listenSettings(values: ListenFlagValues) {
  const listen = values.listen === undefined ? undefined : parseListen(values.listen);
  const listenOnly = Object.keys(LISTEN_OPTIONS).filter((flag) => flag !== 'listen');
  if (!listen) {
    const stray = listenOnly.find((flag) => values[flag as keyof ListenFlagValues] !== undefined);
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
  const affinity = values.affinity;
  if (affinity !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(affinity)) {
    throw new UsageError(
      `--affinity expects 1 to 64 letters, digits, ".", "_" or "-" (a cookie value), got "${affinity}"`,
    );
  }
  return {
    affinity,
    ...listen,
    noAuth,
    tokenFile: values['token-file'],
    allowedOrigins: values['allow-origin'] ?? [],
    tls,
    limits: {
      ...(maxConnections === undefined ? {} : { maxConnections }),
      ...(maxPerAddress === undefined ? {} : { maxConnectionsPerAddress: maxPerAddress }),
      ...(maxSessions === undefined ? {} : { maxSessionsPerConnection: maxSessions }),
    },
  };
}

/**
 * The token a listening command requires (absent with --no-auth), resolved from its flags.
 * `ACP_KIT_TOKEN` is taken out of this process's environment, so no process it starts (an agent
 * behind `serve`, a terminal of the reference agent) inherits the endpoint's secret.
 */
export function listenToken(listen: ListenSettings) {
  const token = listen.noAuth ? undefined : resolveToken(listen.tokenFile);
  delete process.env[TOKEN_ENV];
  return token;
}

/** The security half of `listenAcp`'s options: bind address, token, origins, TLS, caps, refusal log. */
export function securityOptions(
  listen: ListenSettings,
  token: ReturnType<typeof listenToken>,
  command: string,
): Omit<AcpServerOptions, 'onConnection'> {
  return {
    host: listen.host,
    port: listen.port,
    allowedOrigins: listen.allowedOrigins,
    limits: listen.limits,
    ...(listen.tls ? { tls: listen.tls } : {}),
    ...(token ? { token: token.token } : { noAuth: true }),
    // A fixed affinity cookie value lets a load balancer map it to this process.
    ...(listen.affinity === undefined ? {} : { http: { affinityCookie: { value: listen.affinity } } }),
    onRefused: refusalLogger((line) => void process.stderr.write(line), 10, 10_000, command),
  };
}

/**
 * Prints where the endpoint listens, where its token is, and every warning its flags call for
 * (`--no-auth`, a network address, no TLS), each line prefixed `acp-kit <command>: `.
 */
export function announceListening(
  command: string,
  server: AcpTransportServer,
  listen: ListenSettings,
  token: ReturnType<typeof listenToken>,
): void {
  const say = (line: string): void => void process.stderr.write(`acp-kit ${command}: ${line}\n`);
  // WebSocket clients may connect on any path; the line keeps the form scripts already read.
  process.stderr.write(`acp-kit ${command} listening on ${server.webSocketUrl.replace(/\/acp$/, '')}\n`);
  say(`ACP endpoint (Streamable HTTP and WebSocket): ${server.url}`);
  if (token?.file) {
    say(`token file: ${token.file} (readable by you only)`);
    say(
      'clients send the token as "Authorization: Bearer <token>"; browsers offer the subprotocols ["acp-kit", "acp-kit.token.<token>"] (both: the agent selects "acp-kit")',
    );
  } else if (token) {
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
}

/**
 * Resolves once `stop` has run after the first SIGINT, SIGTERM or SIGHUP (handlers are installed
 * at once). A second signal while `stop` runs does not wait for it: every agent process group this
 * process started gets SIGKILL and the process exits with 128 + the signal's number (the SDK's
 * `onTerminationSignal`), so repeated signals leave nothing behind either.
 */
export function stopOnSignal(stop: () => Promise<void>): Promise<void> {
  return onTerminationSignal().signalled.then(() => stop());
}
