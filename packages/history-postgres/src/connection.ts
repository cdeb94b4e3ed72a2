import { HistoryStoreError } from '@acp-kit/sdk';
import pg from 'pg';
import { parseConnectionTargets } from './connection-targets.js';
import { refuseTransactionPooling } from './pooling-check.js';
import { describeConnection, translatePgError } from './pg-errors.js';
import { migrate, quoteSchema } from './schema.js';
import { WritableHost, writableClientClass } from './writable-host.js';

/** Connection options shared by the PostgreSQL history store and session log. */
export interface PostgresConnectionOptions {
  /**
   * The PostgreSQL schema holding the tables (default `acp_history`); created when missing.
   * Several stores (or tenants) can share one database under different schemas.
   */
  readonly schema?: string;
  /** Most connections opened at once (default 10). */
  readonly maxConnections?: number;
  /** How long to wait for a connection before failing with `io` (default 10 000 ms). */
  readonly connectTimeoutMs?: number;
  /**
   * Close a pooled connection after it was idle this long (ms); `0`, the default, keeps pooled
   * connections open. Every pooled connection prepares the statements it runs, so closing idle
   * ones makes the next burst of appends reconnect and prepare again: with `pg`'s own default of
   * 10 s, a quiet session log saw its cross-replica delivery tail grow from under 10 ms to over
   * 100 ms each time connections were dropped and reopened.
   */
  readonly idleTimeoutMs?: number;
}

/** An open, migrated database: a pool, the schema and how errors name it. */
export interface OpenedDatabase {
  readonly pool: pg.Pool;
  readonly schema: string;
  /** The schema, quoted for SQL. */
  readonly s: string;
  /** The database as error messages name it (no password). */
  readonly location: string;
  /** Options for a dedicated client (a LISTEN connection) to the same database. */
  readonly clientConfig: pg.ClientConfig;
  /**
   * The client class to open a dedicated connection with: `pg.Client`, or for a multi-host
   * connection string one that goes to the host accepting writes (see {@link WritableHost}).
   */
  readonly Client: typeof pg.Client;
  /** The host picker of a multi-host (or `target_session_attrs=read-write`) connection string. */
  readonly hosts: WritableHost | undefined;
}

/** Connects, checks the schema and runs pending migrations; errors are HistoryStoreErrors. */
export async function openDatabase(
  connectionString: string,
  options: PostgresConnectionOptions,
): Promise<OpenedDatabase> {
  const schema = options.schema ?? 'acp_history';
  for (const name of ['maxConnections', 'connectTimeoutMs', 'idleTimeoutMs'] as const) {
    const value = options[name];
    if (
      value !== undefined &&
      !(Number.isSafeInteger(value) && value >= (name === 'maxConnections' ? 1 : 0))
    ) {
      throw new HistoryStoreError(
        'invalid_argument',
        `/${name}: expected ${name === 'maxConnections' ? 'a positive' : 'a non-negative'} integer, got ${String(value)}`,
        { pointer: `/${name}` },
      );
    }
  }
  const targets = parseConnectionTargets(connectionString);
  const location = targets.checkWritable
    ? `${targets.description} (schema ${schema})`
    : describeConnection(connectionString, schema);
  const s = quoteSchema(schema);
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const hosts = targets.checkWritable ? new WritableHost(targets, connectTimeoutMs) : undefined;
  const Client = hosts === undefined ? pg.Client : writableClientClass(hosts);
  const clientConfig: pg.ClientConfig = {
    ...(hosts === undefined ? { connectionString } : targets.base),
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: 'acp-kit history',
  };
  const pool = new pg.Pool({
    ...clientConfig,
    Client,
    max: options.maxConnections ?? 10,
    idleTimeoutMillis: options.idleTimeoutMs ?? 0,
  });
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  try {
    await refuseTransactionPooling(Client, clientConfig, location);
    const client = await pool.connect();
    // A checked-out client has no pool listener: a connection lost during the migration must fail
    // it (the query rejects), not end the process through an unheard 'error' event.
    const ignore = (): void => undefined;
    client.on('error', ignore);
    try {
      await migrate(client, schema, location);
    } finally {
      client.removeListener('error', ignore);
      client.release();
    }
    return { pool, schema, s, location, clientConfig, Client, hosts };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw translatePgError(error, location, 'cannot open history database');
  }
}
