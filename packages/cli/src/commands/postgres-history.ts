import type { SessionLog } from '@acp-kit/sdk';
import type { SessionOwnership } from '@acp-kit/sdk/adapter';

/** The package behind `--history postgres://…`. */
const PACKAGE = '@acp-kit/history-postgres';

/** Whether `--history` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** The session log and session ownership of one replica on a PostgreSQL database. */
export interface PostgresReplica {
  /** The log to give the agent (appends to owned sessions fenced by their lease). */
  readonly history: SessionLog;
  /** Which replica runs each session's turns; prompts to other sessions are forwarded. */
  readonly ownership: SessionOwnership;
  /** What an operator polls (`GET /health` with `--listen`): database host, writability, owned sessions … */
  health(): { readonly ok: boolean } & Record<string, unknown>;
  /** Releases the leases held, then closes the log. */
  close(): Promise<void>;
}

/**
 * Opens the session log in the PostgreSQL database at `url`, with session ownership. Several agent
 * processes given the same URL share its sessions: a client may attach to any of them, each sees the
 * others' updates live, and each session's turns run on one of them (its lease holder) at a time.
 */
export async function openPostgresHistory(url: string, leaseMs?: number): Promise<PostgresReplica> {
  const postgres = (await import(PACKAGE)) as typeof import('@acp-kit/history-postgres');
  const log = await postgres.PostgresSessionLog.open(url);
  try {
    const ownership = await postgres.PostgresSessionOwnership.open(
      log,
      url,
      leaseMs === undefined ? {} : { leaseMs },
    );
    return {
      history: ownership.log,
      ownership,
      health: () => {
        const report = ownership.health(log);
        return { ok: report.writable, ...report };
      },
      close: async () => {
        await ownership.close();
        await log.close();
      },
    };
  } catch (error) {
    await log.close();
    throw error;
  }
}
