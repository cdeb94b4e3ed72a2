/** Limits a WebSocket server applies to handshakes and connections; every field has a default. */
export interface ConnectionLimits {
  /** Open connections in total. Default 64. Over it, a handshake gets HTTP 503. */
  maxConnections?: number;
  /** Open connections from one remote address. Default 16. Over it, a handshake gets HTTP 429. */
  maxConnectionsPerAddress?: number;
  /**
   * Handshakes one remote address may attempt in a burst (accepted or not). Default 30. The
   * allowance refills at {@link handshakesPerSecond}; an address out of allowance gets HTTP 429
   * with `Retry-After`.
   */
  handshakeBurst?: number;
  /** Refill rate of the per-address handshake allowance. Default 10 per second. */
  handshakesPerSecond?: number;
  /**
   * TCP sockets that have not yet sent a request that passed the token check (still in TLS or in
   * their headers, or refused so far), from all addresses together. Default 64. Further sockets
   * are answered `503` with `Retry-After: 1` and closed (over TLS, closed) until some finish, so a flood cannot pile up half-open sockets; an authenticated socket no
   * longer counts, so connections already open are never stopped by it.
   */
  maxPendingHandshakes?: number;
  /**
   * The same count for one remote address. Default 16. Further sockets from that address are
   * answered `503` with `Retry-After: 1` and closed (over TLS, closed), so one address cannot use up {@link maxPendingHandshakes} for everyone.
   */
  maxPendingPerAddress?: number;
  /**
   * Wrong or missing tokens one remote address may present in a burst. Default 20. The allowance
   * refills at {@link authFailuresPerSecond}; an address out of allowance gets HTTP 429 with
   * `Retry-After` for every request, right token or not, until it refills.
   */
  authFailureBurst?: number;
  /** Refill rate of the per-address allowance of failed token checks. Default 2 per second. */
  authFailuresPerSecond?: number;
  /** How long a socket may take to send its handshake request. Default 10 000 ms. */
  handshakeTimeoutMs?: number;
  /**
   * Sessions one connection may create or attach (`session/new`, or any other `session/*` request
   * naming a session it has not used yet). Default 32. Over it, the request is answered with
   * JSON-RPC error {@link SESSION_LIMIT_ERROR_CODE} and the connection stays open. The requests of a
   * JSON-RPC batch count together: a batch that would pass the limit is refused whole.
   */
  maxSessionsPerConnection?: number;
}

/** {@link ConnectionLimits} with every default filled in. */
export type ResolvedConnectionLimits = Required<ConnectionLimits>;

/**
 * JSON-RPC error code for a request refused because its connection holds the maximum number of
 * sessions. Implementation-defined (JSON-RPC's -32000..-32099 range), away from ACP's own codes.
 */
export const SESSION_LIMIT_ERROR_CODE = -32010;

const positive = (name: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value > 0))
    throw new Error(`${name} must be a positive number, got ${value}`);
  return value;
};

/** Fills in the defaults and rejects nonsense (zero, negative, NaN). */
export function resolveLimits(limits: ConnectionLimits = {}): ResolvedConnectionLimits {
  return {
    maxConnections: positive('maxConnections', limits.maxConnections, 64),
    maxConnectionsPerAddress: positive('maxConnectionsPerAddress', limits.maxConnectionsPerAddress, 16),
    handshakeBurst: positive('handshakeBurst', limits.handshakeBurst, 30),
    handshakesPerSecond: positive('handshakesPerSecond', limits.handshakesPerSecond, 10),
    maxPendingHandshakes: positive('maxPendingHandshakes', limits.maxPendingHandshakes, 64),
    maxPendingPerAddress: positive('maxPendingPerAddress', limits.maxPendingPerAddress, 16),
    authFailureBurst: positive('authFailureBurst', limits.authFailureBurst, 20),
    authFailuresPerSecond: positive('authFailuresPerSecond', limits.authFailuresPerSecond, 2),
    handshakeTimeoutMs: positive('handshakeTimeoutMs', limits.handshakeTimeoutMs, 10_000),
    maxSessionsPerConnection: positive('maxSessionsPerConnection', limits.maxSessionsPerConnection, 32),
  };
}

/** Why a handshake was refused by a limit: the HTTP status and a reason phrase for the peer. */
export interface LimitRefusal {
  status: 429 | 503;
  reason: string;
  /** Seconds the peer should wait, sent as `Retry-After`. */
  retryAfter?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Per-address handshake allowance (a token bucket) and open-connection counts. Addresses whose
 * bucket is full and who hold no connection are forgotten, so the tables stay bounded by the
 * number of addresses active in the last refill period.
 */
export class ConnectionLimiter {
  readonly #buckets = new Map<string, Bucket>();
  /** Per-address allowance of failed token checks (only addresses that failed one). */
  readonly #failures = new Map<string, Bucket>();
  readonly #open = new Map<string, number>();
  #total = 0;

  readonly #limits: ResolvedConnectionLimits;
  readonly #now: () => number;

  constructor(limits: ResolvedConnectionLimits, now: () => number = () => performance.now()) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Open connections right now. */
  get openConnections(): number {
    return this.#total;
  }

  /** The address's bucket in `table`, refilled to now. */
  #refill(table: Map<string, Bucket>, address: string, burst: number, rate: number, now: number): Bucket {
    const bucket = table.get(address) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * rate);
    bucket.at = now;
    table.set(address, bucket);
    return bucket;
  }

  /**
   * A refusal while the address has used up its allowance of failed token checks (every request
   * is refused then, so guessing cannot go faster than the refill rate).
   */
  checkAuthFailures(address: string): LimitRefusal | undefined {
    if (!this.#failures.has(address)) return undefined;
    const { authFailureBurst: burst, authFailuresPerSecond: rate } = this.#limits;
    const bucket = this.#refill(this.#failures, address, burst, rate, this.#now());
    if (bucket.tokens >= 1) return undefined;
    return {
      status: 429,
      reason: `too many wrong tokens from this address (at most ${burst} at once, ${rate} per second after that)`,
      retryAfter: Math.max(1, Math.ceil((1 - bucket.tokens) / rate)),
    };
  }

  /** Counts one failed token check against the address's allowance. */
  recordAuthFailure(address: string): void {
    const { authFailureBurst: burst, authFailuresPerSecond: rate } = this.#limits;
    const now = this.#now();
    const bucket = this.#refill(this.#failures, address, burst, rate, now);
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    this.#sweep(now);
  }

  /** Spends one handshake from the address's allowance; a refusal when none is left. */
  takeHandshake(address: string): LimitRefusal | undefined {
    const { handshakeBurst: burst, handshakesPerSecond: rate } = this.#limits;
    const now = this.#now();
    const bucket = this.#refill(this.#buckets, address, burst, rate, now);
    this.#sweep(now);
    if (bucket.tokens < 1) {
      return {
        status: 429,
        reason: `too many handshakes from this address (at most ${burst} at once, ${rate} per second after that)`,
        retryAfter: Math.max(1, Math.ceil((1 - bucket.tokens) / rate)),
      };
    }
    bucket.tokens -= 1;
    return undefined;
  }

  /** Whether one more connection from the address fits; a refusal otherwise. */
  checkCapacity(address: string): LimitRefusal | undefined {
    if (this.#total >= this.#limits.maxConnections) {
      return {
        status: 503,
        reason: `server is at its connection limit (${this.#limits.maxConnections} open connections)`,
        retryAfter: 1,
      };
    }
    if ((this.#open.get(address) ?? 0) >= this.#limits.maxConnectionsPerAddress) {
      return {
        status: 429,
        reason: `too many open connections from this address (at most ${this.#limits.maxConnectionsPerAddress})`,
        retryAfter: 1,
      };
    }
    return undefined;
  }

  /** Counts a connection as open; call the returned function once when it closes. */
  acquire(address: string): () => void {
    this.#total += 1;
    this.#open.set(address, (this.#open.get(address) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total -= 1;
      const left = (this.#open.get(address) ?? 1) - 1;
      if (left > 0) this.#open.set(address, left);
      else this.#open.delete(address);
    };
  }

  #sweep(now: number): void {
    if (this.#buckets.size >= 1024) {
      const full = this.#limits.handshakeBurst / this.#limits.handshakesPerSecond;
      for (const [address, bucket] of this.#buckets) {
        if ((now - bucket.at) / 1000 >= full && !this.#open.has(address)) this.#buckets.delete(address);
      }
    }
    if (this.#failures.size >= 1024) {
      const full = this.#limits.authFailureBurst / this.#limits.authFailuresPerSecond;
      for (const [address, bucket] of this.#failures) {
        if ((now - bucket.at) / 1000 >= full) this.#failures.delete(address);
      }
    }
  }
}
