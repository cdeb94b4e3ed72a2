import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type OpenedDatabase, openDatabase } from '../src/connection.js';
import { OwnershipDatabase } from '../src/ownership-database.js';
import { OwnershipListener } from '../src/ownership-listener.js';
import { ReplicaCounters } from '../src/replica-health.js';
import { freshSchema, postgresUrl } from './helpers.js';

/** Resolves when `check` holds, polling; throws after `ms`, saying what it waited for. */
async function until(check: () => Promise<boolean> | boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the ownership LISTEN connection', () => {
  const opened: OpenedDatabase[] = [];
  const admin = new pg.Pool({ connectionString: postgresUrl(), max: 1 });
  afterAll(async () => {
    for (const db of opened.splice(0)) await db.pool.end().catch(() => undefined);
    await admin.end();
  });

  it('closed while a lost connection is being set up again: the new connection is ended, not kept', async () => {
    const db = await openDatabase(postgresUrl(), { schema: freshSchema('listen_close'), maxConnections: 2 });
    opened.push(db);
    // The real client class, whose connect can be held at a gate, so `close()` lands while a
    // reconnect is under way.
    let gate: Promise<void> = Promise.resolve();
    let open = (): void => undefined;
    let connects = 0;
    const clients: GatedClient[] = [];
    class GatedClient extends db.Client {
      connected = false;
      ended = false;
      // Only the no-argument form is used by the listener.
      override async connect(): Promise<pg.Client> {
        connects += 1;
        clients.push(this);
        await gate;
        const connected = await super.connect();
        this.connected = true;
        return connected;
      }
      override async end(): Promise<void> {
        this.ended = true;
        return super.end();
      }
    }
    const ownership = new OwnershipDatabase(
      { ...db, Client: GatedClient as unknown as typeof pg.Client },
      'r1',
    );
    const counters = new ReplicaCounters();
    let resumed = 0;
    const listener = new OwnershipListener(ownership, counters, {
      prompt: () => undefined,
      done: () => undefined,
      withdraw: () => undefined,
      cancel: () => undefined,
      request: () => undefined,
      answer: () => undefined,
      resumed: () => {
        resumed += 1;
      },
    });
    const listening = async (): Promise<number> => {
      const { rows } = await admin.query<{ n: string }>(
        'SELECT count(*) AS n FROM pg_stat_activity WHERE query = $1',
        [`LISTEN "${ownership.channel}"`],
      );
      return Number(rows[0]!.n);
    };

    await listener.listen();
    expect(await listening()).toBe(1);

    gate = new Promise((resolve) => {
      open = resolve;
    });
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1', [
      `LISTEN "${ownership.channel}"`,
    ]);
    await until(() => connects === 2, 'the reconnect to start');
    expect(counters.listenReconnects).toBe(1);

    ownership.markClosed();
    await listener.close();
    open();

    // The reconnect's connection comes up after the close; it must be ended, not kept.
    const reconnect = clients[1]!;
    await until(() => reconnect.connected, 'the reconnect to connect');
    await until(() => reconnect.ended, 'the connection set up after close to be ended');
    await until(async () => (await listening()) === 0, 'no LISTEN connection left after close');
    expect(resumed).toBe(0);
  });
});
