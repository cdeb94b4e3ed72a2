import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Live tests spawn agent processes; on a shared, loaded machine that can take seconds. The limit
    // only guards against hangs — no test asserts on time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Three agents at a time keeps a 2-core machine responsive.
    maxConcurrency: 3,
  },
});
