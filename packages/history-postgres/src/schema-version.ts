/** The schema version this package writes; recorded in the `schema_migrations` table of its schema. */
export const SCHEMA_VERSION = 7;
