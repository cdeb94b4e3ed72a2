import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Installs Debian's Chromium with apt when it is missing (scripts/ensure-chromium.sh).
    globalSetup: ['test/support/provision-chromium.ts'],
    // One browser at a time: the machine is shared, and the browser suite is a single file anyway.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 90_000,
  },
});
