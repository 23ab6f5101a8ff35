import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Vector } from '../lib/vectors.js';

export const VECTORS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'vectors');

export function loadVectors(family: string, kind: 'valid' | 'invalid'): [string, Vector][] {
  const dir = path.join(VECTORS, family, kind);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f, JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Vector]);
}

export function vectorCount(family: string, kind: 'valid' | 'invalid'): number {
  const counts = JSON.parse(fs.readFileSync(path.join(VECTORS, 'counts.json'), 'utf8')) as Record<string, Record<string, number>>;
  return counts[family]?.[kind] ?? -1;
}
