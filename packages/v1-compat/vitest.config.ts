import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Lifecycle tests spawn child processes (tsx fixtures); on a shared, loaded machine that can
    // take seconds. The slowest test of a full run there took 19 s (the published-API compile,
    // 63 s, has its own limit and says why), so 60 s ends a hang within a minute. The limit only
    // guards against hangs — no test asserts on time.
    testTimeout: 60_000,
    // Setup starts agents; no hook's duration is printed, so it keeps the wide bound.
    hookTimeout: 180_000,
  },
});
