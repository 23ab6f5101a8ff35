// The wasm loader: which modules a page downloads for the families it asks for. Its own file:
// vitest isolates files, so nothing is loaded when it starts.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

import { WASM_FAMILIES, type WasmFamily, type WasmModuleName, init, modulesFor, verifyAccountProof } from '@lightprov/sdk';
import { describe, expect, it } from 'vitest';

import { VECTORS } from './load.js';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const gzip = (m: WasmModuleName) => zlib.gzipSync(fs.readFileSync(path.join(repo, 'sdk', 'wasm', m, 'lightprov_verifier_wasm_bg.wasm')), { level: 9 }).length;
const bytes = (ms: readonly WasmModuleName[]) => ms.reduce((n, m) => n + gzip(m), 0);

function subsets<T>(xs: readonly T[]): T[][] {
  return xs.reduce<T[][]>((acc, x) => acc.concat(acc.map((s) => [...s, x])), [[]]).filter((s) => s.length > 0);
}

describe('modulesFor', () => {
  it('an MPT-only app downloads the MPT module alone', () => {
    expect(modulesFor(['mpt'])).toEqual(['mpt']);
  });

  it.each(subsets(WASM_FAMILIES).map((s) => [s.join('+'), s] as const))('%s: the smaller of the per-family modules and the one with all', (_name, families) => {
    const chosen = modulesFor(families);
    expect([families, ['all']]).toContainEqual(chosen);
    expect(bytes(chosen)).toBe(Math.min(bytes(families), bytes(['all'])));
  });

  it('what is loaded already is not downloaded again', () => {
    expect(modulesFor(['mpt', 'cole'], new Set<WasmFamily>(['mpt']))).toEqual(['cole']);
    expect(modulesFor(['mpt'], new Set<WasmFamily>(['mpt']))).toEqual([]);
  });
});

describe('init', () => {
  const source = JSON.parse(fs.readFileSync(path.join(VECTORS, 'mpt', 'sources', 'mainnet-eoa-500000.json'), 'utf8')) as Record<string, unknown> & { stateRoot: string };

  it('loads only the modules the families need, each once, and names a family it does not know', async () => {
    const asked: WasmModuleName[] = [];
    const locate = (m: WasmModuleName) => {
      asked.push(m);
      return undefined;
    };
    await init({ families: ['mpt'], locate });
    expect(asked).toEqual(['mpt']);
    expect(verifyAccountProof(source, source.stateRoot).exists).toBe(true);
    await init({ families: ['mpt'], locate });
    expect(asked).toEqual(['mpt']);
    const rest = WASM_FAMILIES.filter((f) => f !== 'mpt');
    await init({ families: rest, locate });
    expect(asked.slice(1)).toEqual(modulesFor(rest));
    await expect(init({ families: ['nope' as WasmFamily] })).rejects.toThrow(/family: no wasm module is named "nope"/);
  });
});
