import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Real agents on a loaded 2-core machine: a turn can take many seconds.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // One agent at a time per file; the files (one per agent) run side by side.
    sequence: { concurrent: false },
    globalSetup: ['./test/merge-results.ts'],
  },
});
