import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startThrowawayPostgres } from '../src/testing/index.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('startThrowawayPostgres', () => {
  it('runs a private server on a Unix socket in its own directory and removes everything on stop', async () => {
    const server = await startThrowawayPostgres();
    try {
      expect(statSync(server.dir).mode & 0o777).toBe(0o700);
      if (process.getuid?.() === 0) {
        // As root the server runs as `postgres`, which owns the directory (the checkout may be unreadable to it).
        expect(statSync(server.dir).uid).not.toBe(0);
      }
      expect(existsSync(`${server.socketDir}/.s.PGSQL.5432`)).toBe(true);
      const url = await server.createDatabase('scratch');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ db: string; tcp: string }>(
        "SELECT current_database() AS db, current_setting('listen_addresses') AS tcp",
      );
      await client.end();
      expect(rows[0]).toEqual({ db: 'scratch', tcp: '' });
    } finally {
      await server.stop();
    }
    expect(alive(server.pid)).toBe(false);
    expect(existsSync(server.dir)).toBe(false);
    await server.stop(); // idempotent
  });

  it('restarts on the same data: a connection open before is cut, none is accepted while it is down, the data is kept', async () => {
    const server = await startThrowawayPostgres();
    try {
      const before = new pg.Client({ connectionString: server.url });
      await before.connect();
      const cut = new Promise<unknown>((resolve) => before.on('error', resolve));
      await before.query('CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)');
      const firstPid = server.pid;
      let refused: unknown;
      await server.restart({
        whileDown: async () => {
          const probe = new pg.Client({ connectionString: server.url });
          refused = await probe.connect().then(
            () => undefined,
            (error: unknown) => error,
          );
          await probe.end().catch(() => undefined);
        },
      });
      expect(await cut).toBeInstanceOf(Error);
      await before.end().catch(() => undefined);
      expect(refused).toBeInstanceOf(Error);
      expect(server.pid).not.toBe(firstPid);
      expect(alive(firstPid)).toBe(false);
      const after = new pg.Client({ connectionString: server.url });
      await after.connect();
      const { rows } = await after.query<{ n: number }>('SELECT n FROM kept');
      await after.end();
      expect(rows).toEqual([{ n: 7 }]);
    } finally {
      await server.stop();
    }
    expect(alive(server.pid)).toBe(false);
    expect(existsSync(server.dir)).toBe(false);
  });

  it('is stopped and removed by its watchdog when the process that started it is killed', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./fixtures/orphan-server.ts', import.meta.url))],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    const { dir, pid } = JSON.parse(line) as { dir: string; pid: number };
    await once(child, 'exit');
    const deadline = Date.now() + 45_000;
    while ((existsSync(dir) || alive(pid)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(alive(pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });
});
