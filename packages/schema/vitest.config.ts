import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Tests here compile whole schemas (ts-morph, Ajv); on a shared, loaded machine that can take
    // seconds. The limit only guards against hangs — no test asserts on time.
    testTimeout: 180_000,
  },
});
