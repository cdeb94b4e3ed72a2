import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, closeSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { findPostgresBindir } from './throwaway-server.js';

/** One server of a {@link ReplicationPair}: a postgres process group on 127.0.0.1. */
export interface PairServer {
  readonly port: number;
  readonly data: string;
  /** Superuser URL of its `postgres` database over TCP. */
  readonly url: string;
  /** SIGKILLs the postmaster and every backend (the machine died). */
  kill(): Promise<void>;
  /** Starts the server again on its data directory and port (as it was: a primary stays one). */
  start(): Promise<void>;
  log(): string;
}

/** A throwaway primary and a streaming-replication standby made with `pg_basebackup -R`. */
export interface ReplicationPair {
  readonly primary: PairServer;
  readonly standby: PairServer;
  /** `postgres://acp@127.0.0.1:<primary>,127.0.0.1:<standby>/postgres?target_session_attrs=read-write` */
  readonly multiHostUrl: string;
  /** Promotes the standby (`pg_ctl promote -w`). */
  promote(): void;
  /** Kills both servers and removes their directories. */
  stop(): Promise<void>;
}

const isRoot = process.getuid?.() === 0;

function account(): { uid: number; gid: number } | undefined {
  if (!isRoot) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  const fields = line?.split(':') ?? [];
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

/** A free TCP port on 127.0.0.1 (bound to port 0, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Thrown by a start whose port another process holds: the caller may try again on another port. */
class PortTakenError extends Error {}

async function waitAccepting(
  url: string,
  data: string,
  child: ChildProcess,
  log: () => string,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const text = log();
      if (/could not bind|address already in use/i.test(text))
        throw new PortTakenError(`port taken\n${text}`);
      throw new Error(`postgres exited during start-up\n${text}`);
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      // freePort() released the port before postgres bound it: another test's server may hold it now.
      const reached = (await client.query<{ data_directory: string }>('SHOW data_directory')).rows[0]
        ?.data_directory;
      await client.end();
      if (reached !== undefined && realpathSync(reached) !== realpathSync(data)) {
        throw new PortTakenError(`${url} reached another server (data directory ${reached})`);
      }
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (error instanceof PortTakenError) throw error;
      if (Date.now() > deadline) throw new Error(`postgres did not start: ${String(error)}\n${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function makeServer(
  bindir: string,
  dir: string,
  port: number,
  settings: Record<string, string>,
  owner: { uid: number; gid: number } | undefined,
): PairServer {
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const url = `postgres://acp@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | undefined;
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const server: PairServer = {
    port,
    data,
    url,
    log,
    async start() {
      const before = log().length; // the log is appended to: judge this start by its own lines
      const fd = openSync(logFile, 'a', 0o600);
      if (owner) chownSync(logFile, owner.uid, owner.gid);
      const args = ['-D', data, '-c', `port=${port}`, '-c', 'listen_addresses=127.0.0.1'];
      args.push('-c', `unix_socket_directories=${dir}`);
      for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);
      child = spawn(join(bindir, 'postgres'), args, {
        ...(owner ?? {}),
        cwd: dir,
        detached: true, // a process group of its own: kill() takes every backend with it
        stdio: ['ignore', fd, fd],
        env: { ...process.env, LC_ALL: 'C' },
      });
      closeSync(fd);
      child.unref();
      await waitAccepting(url, data, child, () => log().slice(before));
    },
    async kill() {
      const current = child;
      if (current?.pid === undefined || current.exitCode !== null || current.signalCode !== null) return;
      const exited = new Promise((resolve) => current.once('exit', resolve));
      current.ref(); // keep this process alive until the server is gone
      try {
        process.kill(-current.pid, 'SIGKILL');
      } catch {
        return;
      }
      await exited;
      // Backends die with the group; wait until none holds the data directory's shared memory.
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        try {
          process.kill(-current.pid, 0);
          await new Promise((resolve) => setTimeout(resolve, 50));
        } catch {
          return;
        }
      }
    },
  };
  return server;
}

/** Waits until the primary's standby is attached as synchronous, or the first commits would not wait. */
async function waitUntilSynchronous(primaryUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  try {
    const deadline = Date.now() + 60_000;
    while (
      (await client.query(`SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'`)).rowCount === 0
    ) {
      if (Date.now() > deadline) throw new Error('the standby never became synchronous');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
}

/**
 * `pg_ctl promote -w` on the standby, waiting up to 180 s (a loaded CI machine may need more than
 * pg_ctl's default 60 s). A failure throws with pg_ctl's own words and the end of the standby's log.
 */
function promoteStandby(bindir: string, standby: PairServer, asOwner: { uid?: number; gid?: number }): void {
  const started = Date.now();
  try {
    execFileSync(join(bindir, 'pg_ctl'), ['promote', '-w', '-t', '180', '-D', standby.data], {
      ...asOwner,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(
      `pg_ctl promote failed after ${Date.now() - started} ms: ${String(stdout ?? '')}${String(stderr ?? '')}\n` +
        `standby log (end):\n${standby.log().slice(-4000)}`,
    );
  }
}

/**
 * Starts a primary on 127.0.0.1 and a standby streaming from it (`pg_basebackup -R`), each in a
 * temporary directory of its own. `synchronous` makes every commit wait for the standby to apply
 * it (`synchronous_standby_names = '*'`, `synchronous_commit = remote_apply`).
 */
export async function startReplicationPair(options: {
  synchronous: boolean;
  /** Ports to try first (tests of the port race); a port found taken is replaced by a free one. */
  ports?: { primary?: number; standby?: number };
}): Promise<ReplicationPair> {
  const bindir = findPostgresBindir();
  if (bindir === undefined) throw new Error('no PostgreSQL binaries (apt-get install -y postgresql)');
  const owner = account();
  const asOwner = owner ?? {};
  const dirs: string[] = [];
  const makeDir = () => {
    const dir = mkdtempSync(join(isRoot ? '/tmp' : (process.env.TMPDIR ?? '/tmp'), 'acp-pg-pair-'));
    if (owner) chownSync(dir, owner.uid, owner.gid);
    dirs.push(dir);
    return dir;
  };
  const primaryDir = makeDir();
  const standbyDir = makeDir();
  const servers: PairServer[] = [];
  // If this process dies without stop(), a detached shell kills both servers' process groups (each
  // postmaster leads its group; its PID is the first line of postmaster.pid) and removes the dirs.
  const watchdog = spawn(
    'sh',
    [
      '-c',
      'while kill -0 "$1" 2>/dev/null; do sleep 1; done; shift; for d in "$@"; do ' +
        'pid=$(head -n 1 "$d/data/postmaster.pid" 2>/dev/null); ' +
        'if [ -n "$pid" ]; then kill -KILL "-$pid" 2>/dev/null; fi; rm -rf "$d"; done',
      'acp-pg-pair-watchdog',
      String(process.pid),
      ...dirs,
    ],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();
  const stop = async () => {
    for (const server of servers) await server.kill();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    try {
      if (watchdog.pid !== undefined) process.kill(watchdog.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  try {
    execFileSync(
      join(bindir, 'initdb'),
      [
        '-D',
        join(primaryDir, 'data'),
        '-U',
        'acp',
        '--auth=trust',
        '--encoding=UTF8',
        '--locale=C',
        '--no-sync',
      ],
      { ...asOwner, cwd: primaryDir, stdio: 'ignore', env: { ...process.env, LC_ALL: 'C' } },
    );
    const settings: Record<string, string> = {
      fsync: 'off',
      full_page_writes: 'on',
      wal_level: 'replica',
      max_wal_senders: '5',
      max_connections: '200',
      hot_standby: 'on',
      wal_keep_size: '256MB',
      // Asynchronous: each commit waits for its own WAL flush only (the default), not for the standby.
      synchronous_commit: options.synchronous ? 'remote_apply' : 'on',
    };
    // Only the primary waits for a standby: once promoted, the standby has none to wait for.
    const primarySettings = options.synchronous ? { ...settings, synchronous_standby_names: '*' } : settings;
    // Each server starts on a fresh free port, again on another if the first was taken meanwhile.
    const startOnFreePort = async (
      dir: string,
      serverSettings: Record<string, string>,
      first: number | undefined,
    ): Promise<PairServer> => {
      for (let attempt = 1; ; attempt++) {
        const port = attempt === 1 && first !== undefined ? first : await freePort();
        const server = makeServer(bindir, dir, port, serverSettings, owner);
        servers.push(server);
        try {
          await server.start();
          return server;
        } catch (error) {
          if (!(error instanceof PortTakenError) || attempt === 3) throw error;
          await server.kill();
          servers.splice(servers.indexOf(server), 1);
        }
      }
    };
    const primary = await startOnFreePort(primaryDir, primarySettings, options.ports?.primary);
    execFileSync(
      join(bindir, 'pg_basebackup'),
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'acp',
        '-D',
        join(standbyDir, 'data'),
        '-R',
        '-X',
        'stream',
      ],
      { ...asOwner, cwd: standbyDir, stdio: 'ignore' },
    );
    const standby = await startOnFreePort(standbyDir, settings, options.ports?.standby);
    if (options.synchronous) await waitUntilSynchronous(primary.url);
    return {
      primary,
      standby,
      multiHostUrl: `postgres://acp@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=read-write`,
      promote: () => promoteStandby(bindir, standby, asOwner),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
