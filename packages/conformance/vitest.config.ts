import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The CLI command tests import packages/cli/src/commands/*, which import this package by name;
    // point that name at the sources so the tests never run against a stale dist.
    alias: [
      {
        find: /^@acp-kit\/conformance$/,
        replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    // Live tests spawn agent processes; on a shared, loaded machine that can take seconds. The limit
    // only guards against hangs — no test asserts on time.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Three agents at a time keeps a 2-core machine responsive.
    maxConcurrency: 3,
  },
});
