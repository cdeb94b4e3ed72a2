import pg from 'pg';
import type { ConnectionTargets, HostTarget } from './connection-targets.js';

/** What a probe of one host found. */
interface HostAnswer {
  readonly target: HostTarget;
  /** The host accepts writes (not in recovery, not read-only by default). */
  readonly writable: boolean;
  /** The WAL timeline the host writes on (0 when it cannot write). */
  readonly timeline: number;
  /** Why it was not picked: the connection error, or "read-only". */
  readonly error?: string;
}

/** What a replica can tell an operator about its database connection. */
export interface DatabaseConnectionStatus {
  /** The host connections go to (`host:port`), or undefined while none is known to accept writes. */
  readonly host: string | undefined;
  /** Whether the last connection made or probe run found a host that accepts writes. */
  readonly writable: boolean;
  /** The WAL timeline of that host (a promoted standby writes on a higher one); 0 when unknown. */
  readonly timeline: number;
  /** How many times connections moved to another host (a failover, as seen from here). */
  readonly hostChanges: number;
  /** The last reason a host was given up, if any. */
  readonly lastError: string | undefined;
}

const PROBE = `SELECT pg_is_in_recovery() AS standby,
  current_setting('transaction_read_only') AS read_only,
  CASE WHEN pg_is_in_recovery() THEN '00000000'
       ELSE substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) END AS timeline`;

/** Longest wait between two rounds of probes that found no writable host. */
const MAX_BACKOFF_MS = 1000;

/**
 * Picks, among the hosts of a multi-host connection string, the one to write to, as libpq's
 * `target_session_attrs=read-write` does, and keeps it until a connection to it is lost or it
 * answers read-only; then every host is tried again (after a bounded backoff while none accepts
 * writes). When several hosts accept writes — an old primary that came back as a primary after a
 * standby was promoted — the one on the highest WAL timeline wins: the promoted standby, never
 * the stale server.
 */
export class WritableHost {
  readonly #targets: ConnectionTargets;
  readonly #connectTimeoutMs: number;
  #current: HostAnswer | undefined;
  #probing: Promise<HostAnswer> | undefined;
  #lastAnswer: HostAnswer | undefined;
  #failedRounds = 0;
  #hostChanges = 0;
  #lastHost: string | undefined;
  #lastError: string | undefined;

  /** How long a connection attempt (and a probe's question) may take. */
  get connectTimeoutMs(): number {
    return this.#connectTimeoutMs;
  }

  constructor(targets: ConnectionTargets, connectTimeoutMs: number) {
    this.#targets = targets;
    this.#connectTimeoutMs = connectTimeoutMs;
  }

  /** The host new connections go to, probing every host when none is known. */
  current(): Promise<HostTarget> {
    if (this.#current !== undefined) return Promise.resolve(this.#current.target);
    this.#probing ??= this.#probe().finally(() => {
      this.#probing = undefined;
    });
    return this.#probing.then((answer) => answer.target);
  }

  /** A connection to `target` was lost or found read-only: the next connection probes again. */
  lost(target: HostTarget, reason: string): void {
    this.#lastError = `${target.host}:${target.port}: ${reason}`;
    if (this.#current?.target === target) this.#current = undefined;
  }

  /** A connection to `target` was made and accepts writes. */
  confirmed(target: HostTarget): void {
    if (this.#current !== undefined) return;
    const known = this.#lastAnswer?.target === target ? this.#lastAnswer.timeline : 0;
    this.#current = { target, writable: true, timeline: known };
  }

  /**
   * The host in use and whether it accepts writes. While none is known (a connection was lost and
   * nothing has connected since), this starts a probe, so a replica polled for its health finds
   * the new primary even when it had nothing to write.
   */
  status(): DatabaseConnectionStatus {
    const current = this.#current;
    if (current === undefined) void this.current().catch(() => undefined);
    return {
      host: current === undefined ? undefined : `${current.target.host}:${current.target.port}`,
      writable: current?.writable ?? false,
      timeline: current?.timeline ?? 0,
      hostChanges: this.#hostChanges,
      lastError: this.#lastError,
    };
  }

  async #probe(): Promise<HostAnswer> {
    if (this.#failedRounds > 0) {
      const wait = Math.min(MAX_BACKOFF_MS, 50 * 2 ** Math.min(this.#failedRounds, 10));
      await new Promise((resolve) => setTimeout(resolve, wait).unref());
    }
    const answers = await Promise.all(this.#targets.hosts.map((target) => this.#ask(target)));
    let best: HostAnswer | undefined;
    for (const answer of answers) {
      if (answer.writable && (best === undefined || answer.timeline > best.timeline)) best = answer;
    }
    if (best === undefined) {
      this.#failedRounds++;
      const reasons = answers.map((answer) => `${answer.target.host}:${answer.target.port}: ${answer.error}`);
      this.#lastError = reasons.join('; ');
      const error = new Error(`no host accepts writes (${reasons.join('; ')})`) as Error & { code: string };
      // A connection failure (SQLSTATE 08001), also when every host answered read-only: in a set of
      // hosts that is a failover under way (a standby not promoted yet), which passes — a turn-ending
      // idle that could not be written is then owed and written once a host accepts writes, where a
      // read_only error would be final and leave the interrupted turn open for good.
      error.code = '08001';
      throw error;
    }
    this.#failedRounds = 0;
    const name = `${best.target.host}:${best.target.port}`;
    if (this.#lastHost !== undefined && this.#lastHost !== name) this.#hostChanges++;
    this.#lastHost = name;
    this.#current = best;
    this.#lastAnswer = best;
    return best;
  }

  async #ask(target: HostTarget): Promise<HostAnswer> {
    const client = new pg.Client({
      ...this.#targets.base,
      connectionTimeoutMillis: this.#connectTimeoutMs,
      // A pooler (PgBouncer) accepts the connection and then holds the query while its server is
      // down: the probe gives up as a connection attempt would.
      query_timeout: this.#connectTimeoutMs,
      application_name: 'acp-kit history probe',
    });
    client.host = target.host;
    client.port = target.port;
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ standby: boolean; read_only: string; timeline: string }>(PROBE);
      const row = rows[0];
      const writable = row !== undefined && !row.standby && row.read_only !== 'on';
      return writable
        ? { target, writable, timeline: Number.parseInt(row.timeline, 16) || 0 }
        : { target, writable: false, timeline: 0, error: 'read-only' };
    } catch (error) {
      return {
        target,
        writable: false,
        timeline: 0,
        error: error instanceof Error ? error.message : String(error),
      };
    } finally {
      client.end().catch(() => undefined);
    }
  }
}

/**
 * A `pg.Client` class whose connections go to the host {@link WritableHost} picks, and are
 * checked to accept writes once connected; a connection that fails, turns out read-only or is
 * lost later makes the next one try every host again. Pools and the LISTEN connections use it.
 */
export function writableClientClass(hosts: WritableHost): typeof pg.Client {
  return class WritableClient extends pg.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
    override connect(
      callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void),
    ): Promise<pg.Client> | undefined {
      const done = this.#connectWritable().then(() => this as pg.Client);
      if (callback === undefined) return done;
      done.then(
        (client) => (callback as (err: null, c: pg.Client) => void)(null, client),
        (error: Error) => (callback as (err: Error) => void)(error),
      );
      return undefined;
    }

    async #connectWritable(): Promise<void> {
      const target = await hosts.current();
      this.host = target.host;
      this.port = target.port;
      // Listening before the connection exists: the server's first packet can hold its
      // ReadyForQuery and, right behind it, a FATAL error (a server dying as the connection is made),
      // and pg emits that error while parsing the same packet, before `connect()`'s caller resumes.
      // Without a listener that 'error' event would end the process. While connecting, pg hands
      // errors to the connect callback instead, so `lost` is not told twice.
      this.on('error', (error: Error) => hosts.lost(target, error.message));
      try {
        await super.connect();
      } catch (error) {
        hosts.lost(target, error instanceof Error ? error.message : String(error));
        throw error;
      }
      this.on('end', () => {
        // Ended by us (a pool closing it) is no sign of trouble; ended by the server or the network is.
        if (!(this as unknown as { _ending?: boolean })._ending) hosts.lost(target, 'connection ended');
      });
      let rows: { standby: boolean; read_only: string }[];
      try {
        ({ rows } = await super.query<{ standby: boolean; read_only: string }>({
          text: `SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') AS read_only`,
          query_timeout: hosts.connectTimeoutMs,
        } as pg.QueryConfig));
      } catch (error) {
        hosts.lost(target, error instanceof Error ? error.message : String(error));
        void this.end().catch(() => undefined);
        throw error;
      }
      if (rows[0]?.standby !== false || rows[0]?.read_only === 'on') {
        hosts.lost(target, 'read-only');
        await this.end().catch(() => undefined);
        const error = new Error(
          `${target.host}:${target.port} does not accept writes (a standby, or read-only)`,
        );
        // Transient like the above (08006, connection failure): the host was demoted or is a
        // standby; the next connection asks every host again.
        throw Object.assign(error, { code: '08006' });
      }
      hosts.confirmed(target);
    }
  };
}
