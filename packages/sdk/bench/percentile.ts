/** Order statistics of the benchmark's samples. */

/** The `p`th percentile (0–100) of ascending `sorted` (nearest rank, below). */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/** The median of `xs` (any order). */
export const median = (xs: readonly number[]): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
