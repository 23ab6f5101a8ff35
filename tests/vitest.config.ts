import os from 'node:os';

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['unit/**/*.test.ts', 'e2e/**/*.test.ts', 'hardening/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    // At least two files at a time, and one per core on larger machines. Vitest's default is one
    // less than the cores, a single worker on a 2-core machine; but most of these files wait on
    // the nodes they start (lightprov-node, geth), so a second worker fills the idle core: on
    // the 2-core machine, 262 s against 421 s for the files `npm test` runs without geth.
    maxWorkers: Math.max(2, os.availableParallelism()),
  },
});
