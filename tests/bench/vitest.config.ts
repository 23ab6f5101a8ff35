// The benchmarks that need the tests' TypeScript helpers (the geth harness): run by
// scripts/bench with this config, never by `vitest run` of the tests.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['bench/**/*.bench.ts'],
    environment: 'node',
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
