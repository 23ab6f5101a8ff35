/**
 * Shared by the hardening tests: the run mode and where each test leaves its figures.
 *
 * `LIGHTPROV_HARDENING=full` (set by `scripts/hardening-report`) runs the long versions; the
 * default, `quick`, is what `npm test` runs. Each test writes `target/hardening/<name>.json`:
 * `{ name, mode, lines, figures }`, where `lines` is the human-readable summary that
 * `tests/hardening/summary.mjs` prints and `figures` holds the numbers behind it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export type HardeningMode = 'quick' | 'full';

export const MODE: HardeningMode = process.env.LIGHTPROV_HARDENING === 'full' ? 'full' : 'quick';

/** `quick` in `npm test`, `full` in the hardening report. */
export function sized<T>(quick: T, full: T): T {
  return MODE === 'full' ? full : quick;
}

export const FIGURES_DIR = path.join(repo, 'target', 'hardening');

/** Writes one test's summary lines and figures for the report. */
export function writeFigures(name: string, lines: string[], figures: Record<string, unknown>): void {
  fs.mkdirSync(FIGURES_DIR, { recursive: true });
  const file = path.join(FIGURES_DIR, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify({ name, mode: MODE, at: new Date().toISOString(), lines, figures }, null, 2) + '\n');
}
