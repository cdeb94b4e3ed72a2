/** The schema version this package writes; stored in `PRAGMA user_version`. */
export const SCHEMA_VERSION = 3;
