import type { Migration } from './migration.js';
import { V1_HISTORY_STORE } from './v1-history-store.js';
import { V2_SESSION_LOG } from './v2-session-log.js';
import { V3_LEASES } from './v3-leases.js';
import { V4_FENCED_APPENDS } from './v4-fenced-appends.js';
import { V5_FORWARDED_PROMPTS } from './v5-forwarded-prompts.js';
import { V6_MESSAGE_INDEX } from './v6-message-index.js';
import { V7_GROUP_COMMIT } from './v7-group-commit.js';

export type { Migration } from './migration.js';

/**
 * The migrations by target version: `MIGRATIONS[n - 1]` takes a schema from version n-1 to n.
 * `migrate` runs the ones a schema lacks in one transaction under an advisory lock, so replicas
 * starting together migrate once and a failed migration leaves the schema as it was. A new
 * version is a new file here, appended to this list, and `SCHEMA_VERSION` raised.
 */
export const MIGRATIONS: readonly Migration[] = [
  V1_HISTORY_STORE,
  V2_SESSION_LOG,
  V3_LEASES,
  V4_FENCED_APPENDS,
  V5_FORWARDED_PROMPTS,
  V6_MESSAGE_INDEX,
  V7_GROUP_COMMIT,
];
