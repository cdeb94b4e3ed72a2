import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: [
      // Run against the SDK's history sources, so tests need no prior SDK build and share one
      // HistoryStoreError class with the contract suites.
      {
        find: '@acp-kit/sdk/testing',
        replacement: fileURLToPath(new URL('../sdk/src/testing/index.ts', import.meta.url)),
      },
      {
        find: /^@acp-kit\/sdk\/adapter$/,
        replacement: fileURLToPath(new URL('../sdk/src/adapter.ts', import.meta.url)),
      },
      {
        find: /^@acp-kit\/sdk$/,
        replacement: fileURLToPath(new URL('../sdk/src/history/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    // The limit only guards against hangs (SQLite files on a shared disk); no test asserts on time.
    // The slowest ordinary test took 3 s on a loaded 2-core machine (the 100k-message durability
    // test has its own limit and says why), so 60 s ends a hang within a minute.
    testTimeout: 60_000,
  },
});
