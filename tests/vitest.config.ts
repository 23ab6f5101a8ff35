import os from 'node:os';

import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * The crash-safety files first, then the others in vitest's own order. They are the longest
 * (their node seals a block every 20 ms under kill -9); started last, as vitest starts small
 * files on a fresh clone, they ran side by side after everything else, with no file beside them.
 */
class CrashFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const crash = (f: TestSpecification) => /hardening[\\/]crash-\d+\.test\.ts$/.test(f.moduleId);
    return [...sorted.filter(crash), ...sorted.filter((f) => !crash(f))];
  }
}

export default defineConfig({
  test: {
    include: ['unit/**/*.test.ts', 'e2e/**/*.test.ts', 'hardening/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    // One file more than the cores, and at least three. Vitest's default is one less than the
    // cores, a single worker on a 2-core machine; but most of these files wait on the nodes they
    // start (lightprov-node, geth): on the 2-core machine two workers took 262 s against 421 s
    // for the files `npm test` runs without geth. With the two crash files first, a third worker
    // runs the other files beside them: 154 s against 180 s with two workers (the CPU time of
    // the files, about 300 s of a core, is now what bounds it).
    maxWorkers: Math.max(3, os.availableParallelism() + 1),
    sequence: { sequencer: CrashFilesFirst },
  },
});
