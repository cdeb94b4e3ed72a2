import { randomUUID } from 'node:crypto';
import { HistoryStoreError } from '@acp-kit/sdk';
import type pg from 'pg';

/**
 * Refuses a database reached through a connection pooler (PgBouncer) in transaction or statement
 * pooling mode, where one client's statements run on whichever server connection is free: the
 * store keeps session state on its connections — `LISTEN` for live delivery and prepared
 * statements on every pooled connection — so it would lose notifications and fail statements at
 * random. Session pooling (one server connection per client connection) works.
 *
 * The check: client A sets a setting of its own for the session, then client B opens a
 * transaction and A asks for its setting again. With a connection per client, A still has it and
 * B never sees it; a transaction pooler hands A's server connection to B (or another one to A).
 */
export async function refuseTransactionPooling(
  Client: typeof pg.Client,
  config: pg.ClientConfig,
  location: string,
): Promise<void> {
  const a = new Client(config);
  const b = new Client(config);
  a.on('error', () => undefined);
  b.on('error', () => undefined);
  const mark = randomUUID();
  let shared: string | undefined;
  try {
    await a.connect();
    await b.connect();
    const first = await a.query<{ pid: number }>(
      `SELECT pg_backend_pid() AS pid, set_config('acp_kit.pooling_probe', $1, false)`,
      [mark],
    );
    await b.query('BEGIN');
    const seenByB = await b.query<{ value: string | null }>(
      `SELECT current_setting('acp_kit.pooling_probe', true) AS value`,
    );
    const again = await a.query<{ pid: number; value: string | null }>(
      `SELECT pg_backend_pid() AS pid, current_setting('acp_kit.pooling_probe', true) AS value`,
    );
    await b.query('ROLLBACK');
    if (seenByB.rows[0]?.value === mark) shared = 'another client saw this connection’s session setting';
    else if (again.rows[0]?.value !== mark || again.rows[0]?.pid !== first.rows[0]?.pid) {
      shared = 'this connection’s session setting was gone in its next transaction';
    }
  } catch (error) {
    // Statement pooling refuses BEGIN; anything else is for the caller's connection handling.
    const text = error instanceof Error ? error.message : String(error);
    if (/transaction blocks not allowed|statement mode/i.test(text)) shared = text;
    else throw error;
  } finally {
    void a.end().catch(() => undefined);
    void b.end().catch(() => undefined);
  }
  if (shared !== undefined) {
    throw new HistoryStoreError(
      'invalid_argument',
      `cannot use ${location}: it is reached through a connection pooler in transaction (or statement) pooling mode (${shared}). ` +
        'The history store keeps session state on its connections (LISTEN for live delivery, prepared statements), ' +
        'so give it session pooling (PgBouncer: pool_mode = session for this database) or connect to PostgreSQL directly.',
      { path: location, pointer: '' },
    );
  }
}
