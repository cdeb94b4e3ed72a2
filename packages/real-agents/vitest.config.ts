import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Real agents on a loaded 2-core machine: a turn can take many seconds.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // One agent at a time per file; files (one per agent) run side by side. The suite mostly waits
    // (for agents, model streams and shutdown grace periods), so alone it gains from many workers;
    // but inside `npm run check` it shares two cores with every other package's tests, and with six
    // workers a Claude adapter's conformance run took over 170 s there (35 s alone). Three workers
    // keep most of the gain alone and less of the contention in CI.
    maxWorkers: 3,
    sequence: { concurrent: false },
    globalSetup: ['./test/merge-results.ts'],
  },
});
