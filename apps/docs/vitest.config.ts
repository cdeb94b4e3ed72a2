import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Installs Debian's Chromium with apt when it is missing (scripts/ensure-chromium.sh).
    globalSetup: ['test/support/provision-chromium.ts'],
    // One browser at a time: the machine is shared, and the browser suite is a single file anyway.
    fileParallelism: false,
    // The slowest test took 19 s on a loaded 2-core machine (the link check over the built site),
    // so 60 s ends a hang within a minute.
    testTimeout: 60_000,
    // The browser sweep visits a couple of hundred pages; on a shared, overloaded two-core machine
    // that has taken minutes, so the hook gets a generous bound.
    hookTimeout: 600_000,
  },
});
