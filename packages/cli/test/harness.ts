import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionNotification } from '@acp-kit/schema';
import {
  Client,
  type ClientConnection,
  type ClientOptions,
  Connection,
  type ConversationStore,
  connectWebSocket,
  schemaValidator,
  spawnTransport,
  type Transport,
} from '@acp-kit/sdk';

/** The built `acp-kit` entry point; the scenarios run the real command. */
export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

export function requireBuild(): void {
  if (!existsSync(BIN))
    throw new Error(`${BIN} is missing: run \`npx turbo run build --filter=@acp-kit/cli\` first`);
}

/** A temporary folder removed by `cleanup()`. */
export function tempDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'acp-kit-scenario-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What a test client received, in order: every message from the agent. */
export type Incoming = { method?: string; id?: unknown; params?: unknown; result?: unknown; error?: unknown };

/** A client over some transport, with its incoming log. */
export interface TestClient<U extends boolean = boolean> {
  client: Client<U>;
  connection: ClientConnection;
  incoming: Incoming[];
  /** Session updates received, in order. */
  updates(): SessionNotification['update'][];
  /** Resolves when the predicate over the incoming log holds. */
  until(predicate: (incoming: Incoming[]) => boolean): Promise<void>;
}

/** Wraps a transport in a {@link Client} that logs every incoming message. */
export async function clientOver<U extends boolean = boolean>(
  transport: Transport,
  options: Partial<ClientOptions<U>> & { store?: ConversationStore } = {},
): Promise<TestClient<U>> {
  const connection: ClientConnection = new Connection(transport, { validator: schemaValidator });
  const incoming: Incoming[] = [];
  const waiters = new Set<() => void>();
  connection.onMessage((direction, message) => {
    if (direction !== 'in') return;
    incoming.push(message as Incoming);
    for (const waiter of [...waiters]) waiter();
  });
  const client = new Client<U>(connection, {
    info: { name: 'scenario-client', version: '0.0.0' },
    ...options,
  });
  await client.initialize();
  return {
    client,
    connection,
    incoming,
    updates: () =>
      incoming
        .filter((m) => m.method === 'session/update')
        .map((m) => (m.params as SessionNotification).update),
    until: (predicate) =>
      new Promise((resolve) => {
        if (predicate(incoming)) return resolve();
        const waiter = (): void => {
          if (!predicate(incoming)) return;
          waiters.delete(waiter);
          resolve();
        };
        waiters.add(waiter);
      }),
  };
}

/** Starts `acp-kit agent` as a child process speaking over stdio. */
export function agentProcess(args: string[] = []) {
  return spawnTransport(process.execPath, [BIN, 'agent', ...args], { name: 'agent' });
}

/** The token of each agent started by {@link listeningAgent}, by URL, for {@link clientOverWebSocket}. */
const tokens = new Map<string, string>();

/** A listening agent: its URL, its connection token (read from the token file it printed), and stop. */
export interface ListeningAgent {
  url: string;
  token: string | undefined;
  /** Everything the agent wrote to stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
  /** Kills the process with SIGKILL (no cleanup of any kind); resolves once it exited. */
  kill(): Promise<void>;
  /** Sends SIGTERM and nothing else (no escalation); resolves with how the process ended. */
  terminate(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `acp-kit agent --listen 127.0.0.1:0` and resolves once it listens. The agent makes its own
 * token and prints the path of the file holding it; the token is read from there, as a user would.
 */
export async function listeningAgent(args: string[] = []): Promise<ListeningAgent> {
  const child = spawn(process.execPath, [BIN, 'agent', '--listen', '127.0.0.1:0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    text += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const check = (): void => {
      const match = /listening on (wss?:\/\/\S+)\n/.exec(text);
      // The token line follows the URL line, unless the agent runs with --no-auth.
      if (match && /token file: |--no-auth|token taken from/.test(text)) resolve(match[1]!);
    };
    child.stderr.on('data', check);
    child.once('exit', (code) =>
      reject(new Error(`agent exited with code ${code} before listening: ${text}`)),
    );
  });
  const tokenFile = /token file: (\S+)/.exec(text)?.[1];
  const token = tokenFile ? readFileSync(tokenFile, 'utf8').trim() : undefined;
  if (token) tokens.set(url, token);
  return {
    url,
    token,
    stderr: () => text,
    stop: () =>
      new Promise<void>((resolve) => {
        tokens.delete(url);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        // The agent bounds its own shutdown (about 25 s at worst); past 40 s it is stuck: say what it
        // held and what it last logged, then SIGKILL it so one stuck agent cannot stall a whole suite.
        const stuck = setTimeout(() => {
          const sockets = execFileSync('sh', ['-c', `ss -tnp | grep 'pid=${child.pid},' || true`]).toString();
          console.error(
            `agent ${child.pid} still running 40 s after SIGTERM; its sockets:\n${sockets}its stderr ends:\n${text.slice(-3000)}`,
          );
          child.kill('SIGKILL');
        }, 40_000);
        child.once('exit', () => {
          clearTimeout(stuck);
          resolve();
        });
        child.kill('SIGTERM');
      }),
    kill: () =>
      new Promise<void>((resolve) => {
        tokens.delete(url);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
    terminate: () =>
      new Promise((resolve) => {
        tokens.delete(url);
        if (child.exitCode !== null || child.signalCode !== null)
          return resolve({ code: child.exitCode, signal: child.signalCode });
        child.once('exit', (code, signal) => resolve({ code, signal }));
        child.kill('SIGTERM');
      }),
  };
}

/** Connects a test client to a listening agent, with the token that agent printed. */
export async function clientOverWebSocket<U extends boolean = boolean>(
  url: string,
  options: Partial<ClientOptions<U>> = {},
): Promise<TestClient<U>> {
  const token = tokens.get(url);
  return clientOver(await connectWebSocket(url, token ? { token } : {}), options);
}

/** Whether an update is a `state_update` with the given state. */
export const isState = (u: SessionNotification['update'], state: string): boolean =>
  u.sessionUpdate === 'state_update' && 'state' in u && u.state === state;

/**
 * Resolves once `count` turns have ended on the client's log: idle updates that carry a stop
 * reason (a resume's idle snapshot carries none and ends nothing).
 */
export function idleCount(t: TestClient, count: number): Promise<void> {
  const endsTurn = (u: SessionNotification['update']): boolean =>
    isState(u, 'idle') && typeof (u as { stopReason?: unknown }).stopReason === 'string';
  return t.until(() => t.updates().filter(endsTurn).length >= count);
}

/** The text of a message's content blocks, concatenated. */
export function textOf(content: readonly unknown[]): string {
  return content.map((b) => (b as { text?: string }).text ?? '').join('');
}

/** The `background` list of a `state_update` (undefined for other updates, or when it carries none). */
export const backgroundListOf = (u: SessionNotification['update']): unknown[] | undefined =>
  u.sessionUpdate === 'state_update'
    ? ((u as { background?: unknown[] }).background ?? undefined)
    : undefined;

/** Whether an update reports a terminal's exit status. */
export const isTerminalExit = (u: SessionNotification['update']): boolean =>
  u.sessionUpdate === 'terminal_update' && (u as { exitStatus?: unknown }).exitStatus != null;

/** Whether the client was sent a state update whose background list is empty (the work it listed ended). */
export const backgroundDropped = (t: TestClient): boolean =>
  t.updates().some((u) => backgroundListOf(u)?.length === 0);

/**
 * A throwaway PostgreSQL server for the tests that run agents on PostgreSQL, on Debian's
 * PostgreSQL (installed when missing: CI runs as root on a fresh machine). Stop it with `stop()`.
 */
export async function scenarioPostgres() {
  const { startThrowawayPostgres } = await import('@acp-kit/history-postgres/testing');
  const ensure = fileURLToPath(new URL('../../../scripts/ensure-postgres.sh', import.meta.url));
  const bindir = execFileSync('sh', [ensure], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return startThrowawayPostgres({ bindir });
}
