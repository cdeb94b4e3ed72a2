import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Options of {@link startThrowawayPostgres}. */
export interface ThrowawayPostgresOptions {
  /**
   * Directory holding `initdb` and `postgres`. Default: `$ACP_KIT_PG_BINDIR`, else the newest
   * `/usr/lib/postgresql/<version>/bin` (Debian's layout), else the directory of `initdb` on `PATH`.
   */
  readonly bindir?: string;
  /**
   * Where the temporary directory (data directory, socket, log) is made. Default: `/tmp` when
   * running as root (the server then runs as the `postgres` user, who must be able to reach it),
   * else `os.tmpdir()`.
   */
  readonly parentDir?: string;
  /** Extra server settings (`-c name=value`), merged over the defaults. */
  readonly settings?: Readonly<Record<string, string>>;
  /** How long to wait for the server to accept connections (default 60 000 ms). */
  readonly startTimeoutMs?: number;
}

/** A running throwaway PostgreSQL server; see {@link startThrowawayPostgres}. */
export interface ThrowawayPostgres {
  /** Connection URL of the `postgres` database, over the Unix socket, as superuser `acp` (no password). */
  readonly url: string;
  /** Directory of the server's Unix socket. */
  readonly socketDir: string;
  /** The server's temporary directory (data directory, socket, log); removed by `stop`. */
  readonly dir: string;
  /** The server's process ID (a new one after {@link ThrowawayPostgres.restart}). */
  readonly pid: number;
  /** Connection URL of another database on this server (which `createDatabase` may have made). */
  urlFor(database: string): string;
  /** Creates a database (name: letters, digits, `_`) and returns its connection URL. */
  createDatabase(database: string): Promise<string>;
  /** The server's log so far. */
  log(): string;
  /**
   * Restarts the server on the same data directory, as `pg_ctl restart -m fast` does: a fast
   * shutdown (clients are disconnected, transactions in flight roll back), then a start. `whileDown`
   * runs between the two, with the server stopped (its socket refuses connections): the outage
   * lasts until it resolves. Resolves once the server accepts connections again.
   */
  restart(options?: { readonly whileDown?: () => Promise<void> }): Promise<void>;
  /** Stops the server (fast shutdown, then SIGKILL after 10 s) and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

const SUPERUSER = 'acp';

/**
 * Settings for a disposable server: no durability work (the data dies with the test run), no TCP
 * listener, enough connections for several agent replicas.
 */
const DEFAULT_SETTINGS: Readonly<Record<string, string>> = {
  listen_addresses: '',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: '200',
  shared_buffers: '64MB',
};

/** Finds the directory holding `initdb` and `postgres`, or undefined. */
export function findPostgresBindir(): string | undefined {
  const fromEnv = process.env.ACP_KIT_PG_BINDIR;
  if (fromEnv) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(root, versions[0], 'bin');
  }
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    if (initdb) return join(initdb, '..');
  } catch {
    // Not on PATH either.
  }
  return undefined;
}

/** uid and gid of the `postgres` account, from /etc/passwd. */
function postgresAccount(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  const fields = line?.split(':');
  if (fields === undefined || fields.length < 4) {
    throw new Error(
      'running as root, but there is no "postgres" user to run the server as (the postgresql package creates it)',
    );
  }
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

/**
 * If this process dies without stop() — even during initdb — a detached shell stops the server
 * (its PID is the first line of postmaster.pid) and removes the directory.
 */
function startWatchdog(dir: string): ChildProcess {
  const watchdog = spawn(
    'sh',
    [
      '-c',
      'while kill -0 "$1" 2>/dev/null; do sleep 1; done; ' +
        'pid=$(head -n 1 "$2/data/postmaster.pid" 2>/dev/null); ' +
        'if [ -n "$pid" ]; then kill -INT "$pid" 2>/dev/null; i=0; ' +
        'while kill -0 "$pid" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.5; i=$((i+1)); done; ' +
        'kill -KILL "$pid" 2>/dev/null; fi; rm -rf "$2"',
      'acp-pg-watchdog',
      String(process.pid),
      dir,
    ],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();
  return watchdog;
}

/** Stops the watchdog: the server it guards was stopped and its directory removed here. */
function killWatchdog(watchdog: ChildProcess | undefined): void {
  try {
    if (watchdog?.pid !== undefined) process.kill(watchdog.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Runs `initdb` for the data directory: trust for the superuser, UTF-8, locale C, no sync. */
function initCluster(
  bindir: string,
  dir: string,
  data: string,
  asServer: { uid?: number; gid?: number },
): void {
  try {
    execFileSync(
      join(bindir, 'initdb'),
      [
        '-D',
        data,
        '-U',
        SUPERUSER,
        '--auth=trust',
        '--encoding=UTF8',
        '--locale=C',
        '--no-sync',
        '--no-instructions',
      ],
      { ...asServer, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } },
    );
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`initdb failed in ${data}: ${stderr || String(error)}`);
  }
}

/**
 * Starts a PostgreSQL server in a fresh temporary directory, reachable only over a Unix socket in
 * that directory, for tests and benchmarks. Nothing is shared with a system cluster: its own
 * `initdb`, its own data directory, trust authentication for the `acp` superuser. As root (CI), the
 * server runs as the `postgres` account in a directory under `/tmp` that account owns, so it works
 * even when the checkout is not readable by `postgres`. A watchdog stops the server and removes the
 * directory if this process dies without calling `stop`.
 */
export async function startThrowawayPostgres(
  options: ThrowawayPostgresOptions = {},
): Promise<ThrowawayPostgres> {
  const bindir = options.bindir ?? findPostgresBindir();
  if (bindir === undefined || !existsSync(join(bindir, 'initdb'))) {
    throw new Error(
      'no PostgreSQL server binaries found (looked in $ACP_KIT_PG_BINDIR, /usr/lib/postgresql/*/bin and PATH); ' +
        'install them with: apt-get install -y postgresql',
    );
  }
  const isRoot = process.getuid?.() === 0;
  const account = isRoot ? postgresAccount() : undefined;
  const dir = mkdtempSync(join(options.parentDir ?? (isRoot ? '/tmp' : tmpdir()), 'acp-pg-'));
  chmodSync(dir, 0o700);
  if (account) chownSync(dir, account.uid, account.gid);
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const asServer = account ? { uid: account.uid, gid: account.gid } : {};
  let child: ChildProcess | undefined;
  let watchdog: ChildProcess | undefined;
  let stopped = false;

  const readLog = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const removeDir = () => rmSync(dir, { recursive: true, force: true });

  try {
    watchdog = startWatchdog(dir);
    initCluster(bindir, dir, data, asServer);

    const settings = { ...DEFAULT_SETTINGS, unix_socket_directories: dir, ...options.settings };
    const args = ['-D', data];
    for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);
    const spawnServer = (): { server: ChildProcess; pid: number } => {
      const log = openSync(logFile, 'a', 0o600);
      if (account) chownSync(logFile, account.uid, account.gid);
      const spawned = spawn(join(bindir, 'postgres'), args, {
        ...asServer,
        cwd: dir,
        stdio: ['ignore', log, log],
        env: { ...process.env, LC_ALL: 'C' },
      });
      closeSync(log);
      if (spawned.pid === undefined) throw new Error('could not start postgres');
      spawned.unref();
      return { server: spawned, pid: spawned.pid };
    };
    let { server, pid } = spawnServer();
    child = server;

    const url = urlFor(dir, 'postgres');
    const timeoutMs = options.startTimeoutMs ?? 60_000;
    await waitForServer(url, server, timeoutMs, readLog);

    const onExit = () => {
      if (stopped) return;
      try {
        process.kill(pid, 'SIGQUIT');
      } catch {
        // Already gone.
      }
    };
    process.once('exit', onExit);

    return {
      url,
      socketDir: dir,
      dir,
      get pid() {
        return pid;
      },
      urlFor: (database) => urlFor(dir, database),
      async createDatabase(database) {
        if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`bad database name "${database}"`);
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE ${database}`);
        } finally {
          await client.end();
        }
        return urlFor(dir, database);
      },
      log: readLog,
      async restart(restartOptions = {}) {
        if (stopped) throw new Error('the throwaway server was stopped');
        await stopProcess(server, pid);
        await restartOptions.whileDown?.();
        ({ server, pid } = spawnServer());
        child = server;
        await waitForServer(url, server, timeoutMs, readLog);
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        process.off('exit', onExit);
        await stopProcess(server, pid);
        killWatchdog(watchdog);
        removeDir();
      },
    };
  } catch (error) {
    if (child?.pid !== undefined) await stopProcess(child, child.pid);
    killWatchdog(watchdog);
    const log = readLog();
    removeDir();
    if (log && error instanceof Error) error.message += `\n--- server log ---\n${log}`;
    throw error;
  }
}

function urlFor(socketDir: string, database: string): string {
  return `postgresql://${SUPERUSER}@localhost/${database}?host=${encodeURIComponent(socketDir)}`;
}

async function waitForServer(
  url: string,
  server: ChildProcess,
  timeoutMs: number,
  readLog: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new Error(`postgres exited during start-up (${server.exitCode ?? server.signalCode})`);
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (error) {
      lastError = error;
      await client.end().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(
    `postgres did not accept connections within ${timeoutMs} ms (${String(lastError)})\n${readLog()}`,
  );
}

async function stopProcess(server: ChildProcess, pid: number): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  server.ref(); // keep this process alive until the server is gone
  try {
    process.kill(pid, 'SIGINT'); // fast shutdown: disconnects clients, no checkpoint wait for them
  } catch {
    return;
  }
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 10_000).unref());
  if ((await Promise.race([exited, timer])) === 'timeout') {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await exited;
  }
}
