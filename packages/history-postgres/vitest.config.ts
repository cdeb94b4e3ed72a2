import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const sdk = (path: string) => fileURLToPath(new URL(`../sdk/src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Run against the SDK's sources, so tests need no prior SDK build and share one
    // HistoryStoreError class with the contract suites.
    alias: [
      { find: /^@acp-kit\/sdk\/testing$/, replacement: sdk('testing/index.ts') },
      { find: /^@acp-kit\/sdk\/adapter$/, replacement: sdk('adapter.ts') },
      { find: /^@acp-kit\/sdk$/, replacement: sdk('history/index.ts') },
    ],
  },
  test: {
    // One throwaway PostgreSQL server for the whole run (installed when missing, removed after).
    globalSetup: ['./test/global-setup.ts'],
    // The limits only guard against hangs (a loaded machine, a server starting); no test asserts on time.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
