import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConnection } from 'node:net';
import { freePort } from './replication-pair.js';

const PGBOUNCER = '/usr/sbin/pgbouncer';

/** A pgbouncer child process with its own config in a temporary directory, on 127.0.0.1. */
export interface PgBouncer {
  readonly port: number;
  /** URL of `database` through this pgbouncer. */
  urlFor(database: string): string;
  log(): string;
  stop(): Promise<void>;
}

function postgresAccount(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const fields =
    readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('postgres:'))
      ?.split(':') ?? [];
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

/** Whether Debian's pgbouncer is installed (scripts/ensure-pgbouncer.sh installs it). */
export const hasPgBouncer = (): boolean => existsSync(PGBOUNCER);

/**
 * Starts pgbouncer in front of the server at `backend` (a host or Unix socket directory, and a
 * port), every database passed through, trust authentication, in `mode` pooling. It refuses to
 * run as root, so as root it runs as the `postgres` account.
 */
export async function startPgBouncer(
  backend: { host: string; port: number },
  mode: 'session' | 'transaction',
): Promise<PgBouncer> {
  const owner = postgresAccount();
  const dir = mkdtempSync(join('/tmp', 'acp-pgbouncer-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'users.txt'), '"acp" ""\n');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${backend.host} port=${backend.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      `pool_mode = ${mode}`,
      'max_client_conn = 500',
      'default_pool_size = 100',
      'server_connect_timeout = 2',
      'server_login_retry = 1',
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  if (owner)
    for (const file of ['users.txt', 'pgbouncer.ini']) chownSync(join(dir, file), owner.uid, owner.gid);
  const child: ChildProcess = spawn(PGBOUNCER, [ini], {
    ...(owner ?? {}),
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (data: Buffer) => {
    stderr += data.toString();
  });
  const log = () => {
    try {
      return readFileSync(join(dir, 'pgbouncer.log'), 'utf8') + stderr;
    } catch {
      return stderr;
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready once it accepts TCP connections.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      const text = log();
      await stop();
      throw new Error(`pgbouncer exited (${child.exitCode}): ${text}`);
    }
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (accepted) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`pgbouncer did not listen: ${log()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, urlFor: (database) => `postgres://acp@127.0.0.1:${port}/${database}`, log, stop };
}
