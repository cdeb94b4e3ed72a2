import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Scenarios start real agent processes; give them room on a loaded 2-core machine.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
