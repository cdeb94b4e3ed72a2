import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Installs Debian's Chromium with apt when it is missing (scripts/ensure-chromium.sh).
    globalSetup: ['test/support/provision-chromium.ts'],
    // One browser at a time: the machine is shared, and the browser suite is a single file anyway.
    fileParallelism: false,
    testTimeout: 180_000,
    // The browser sweep visits a couple of hundred pages; on a shared, overloaded two-core machine
    // that has taken minutes, so the hook gets a generous bound.
    hookTimeout: 600_000,
  },
});
