/**
 * A latency histogram for the capacity benchmark: buckets 1 % wide on a log scale from 1 µs to
 * about 100 s, so a client process can record every chunk's latency in fixed memory and send the
 * counts to the benchmark, which merges the clients' histograms before reading percentiles. A
 * percentile is the upper bound of its bucket: at most 1 % above the true value.
 */

const FLOOR_MS = 0.001;
const GROWTH = 1.01;
const BUCKETS = Math.ceil(Math.log(100_000 / FLOOR_MS) / Math.log(GROWTH)) + 1;

/** Bucket index → count, only the buckets that were hit (what crosses the IPC channel). */
export type HistogramCounts = [number, number][];

export class LatencyHistogram {
  readonly #counts = new Uint32Array(BUCKETS);
  #total = 0;

  /** Samples recorded. */
  get count(): number {
    return this.#total;
  }

  /** Records one latency in ms (a negative one, from clock rounding, counts as 0). */
  add(ms: number): void {
    const bucket =
      ms <= FLOOR_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / FLOOR_MS) / Math.log(GROWTH)));
    this.#counts[bucket] = (this.#counts[bucket] ?? 0) + 1;
    this.#total += 1;
  }

  /** Adds another histogram's counts. */
  merge(counts: HistogramCounts): void {
    for (const [bucket, count] of counts) {
      this.#counts[bucket] = (this.#counts[bucket] ?? 0) + count;
      this.#total += count;
    }
  }

  /** The `p`th percentile (0–100) in ms; NaN when empty. */
  percentile(p: number): number {
    if (this.#total === 0) return Number.NaN;
    const rank = Math.min(this.#total, Math.max(1, Math.ceil((p / 100) * this.#total)));
    let seen = 0;
    for (let bucket = 0; bucket < BUCKETS; bucket += 1) {
      seen += this.#counts[bucket]!;
      if (seen >= rank) return FLOOR_MS * GROWTH ** bucket;
    }
    return Number.NaN;
  }

  /** The counts, sparse, and empties this histogram. */
  take(): HistogramCounts {
    const out: HistogramCounts = [];
    for (let bucket = 0; bucket < BUCKETS; bucket += 1) {
      const count = this.#counts[bucket]!;
      if (count > 0) out.push([bucket, count]);
    }
    this.#counts.fill(0);
    this.#total = 0;
    return out;
  }
}
