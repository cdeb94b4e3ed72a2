/**
 * One step of the history schema: the SQL taking schema `s` (a checked, quoted identifier) from
 * the version before to this one, and the tables it adds and drops (so `migrate` can tell a
 * damaged schema from a current one).
 */
export interface Migration {
  readonly sql: (s: string) => string;
  readonly adds: readonly string[];
  readonly drops?: readonly string[];
}
