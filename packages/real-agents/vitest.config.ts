import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Real agents on a loaded 2-core machine: a turn can take many seconds.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // One agent at a time per file; the files (one per agent) run side by side. The suite mostly
    // waits (for agents, model streams and shutdown grace periods: about 60 s of CPU in 160 s run
    // one file at a time), so every file gets a worker of its own rather than vitest's default of
    // one per core but one (a single worker on a 2-core machine ran the files one after another).
    maxWorkers: 6,
    sequence: { concurrent: false },
    globalSetup: ['./test/merge-results.ts'],
  },
});
