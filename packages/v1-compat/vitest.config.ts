import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Lifecycle tests spawn child processes (tsx fixtures); on a shared, loaded machine that can
    // take seconds. The limit only guards against hangs — no test asserts on time.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
