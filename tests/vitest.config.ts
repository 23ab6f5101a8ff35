import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['unit/**/*.test.ts', 'e2e/**/*.test.ts', 'hardening/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
  },
});
