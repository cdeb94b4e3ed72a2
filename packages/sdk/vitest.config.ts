import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Transport and interop tests start real child processes (some through tsx); a loaded 2-core
    // machine can take seconds to start one, so the default 5 s is too tight for them.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
