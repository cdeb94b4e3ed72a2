import pg from 'pg';
import { describeConnection, translatePgError } from './pg-errors.js';
import { migrate, quoteSchema } from './schema.js';

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
}

/** Connects, checks the schema and runs pending migrations; errors are HistoryStoreErrors. */
export async function openDatabase(
  connectionString: string,
  options: PostgresConnectionOptions,
): Promise<OpenedDatabase> {
  const schema = options.schema ?? 'acp_history';
  const location = describeConnection(connectionString, schema);
  const s = quoteSchema(schema);
  const clientConfig: pg.ClientConfig = {
    connectionString,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    application_name: 'acp-kit history',
  };
  const pool = new pg.Pool({ ...clientConfig, max: options.maxConnections ?? 10 });
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    try {
      await migrate(client, schema, location);
    } finally {
      client.release();
    }
    return { pool, schema, s, location, clientConfig };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw translatePgError(error, location, 'cannot open history database');
  }
}
