import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      // Run against the SDK's history sources, so tests need no prior SDK build and share one
      // HistoryStoreError class with the contract suite (which lives in packages/sdk/test/history).
      '@acp-kit/sdk': fileURLToPath(new URL('../sdk/src/history/index.ts', import.meta.url)),
    },
  },
  test: {
    // One throwaway PostgreSQL server for the whole run (installed when missing, removed after).
    globalSetup: ['./test/global-setup.ts'],
    // The limits only guard against hangs (a loaded machine, a server starting); no test asserts on time.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
