import type { Migration } from './migration.js';

/**
 * Version 3: session leases — which replica runs a session's foreground work, until when.
 */
export const V3_LEASES: Migration = {
  adds: ['log_leases'],
  sql: (s) => `
    CREATE TABLE ${s}.log_leases (
      session_id text PRIMARY KEY,
      owner      text NOT NULL,
      epoch      bigint NOT NULL,       -- fencing token: grows at every change of owner
      expires_at timestamptz NOT NULL   -- the database's clock, never a replica's
    );
    `,
};
