// The wasm loader: which modules a page downloads for the families it asks for. Its own file:
// vitest isolates files, so nothing is loaded when it starts.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

import { IN_ALL, WASM_FAMILIES, type WasmFamily, type WasmModuleName, init, modulesFor, verifyAccountProof } from '@lightprov/sdk';
import { describe, expect, it } from 'vitest';

import { recordingLocate } from '../lib/util.js';
import { VECTORS } from './load.js';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// Each module's gzip -9 size, compressed once: the subsets below ask for the same ten sizes over
// and over (compressing them each time took most of a minute).
const gzipped = new Map<WasmModuleName, number>();
const gzip = (m: WasmModuleName) => {
  let n = gzipped.get(m);
  if (n === undefined) {
    n = zlib.gzipSync(fs.readFileSync(path.join(repo, 'sdk', 'wasm', m, 'lightprov_verifier_wasm_bg.wasm')), { level: 9 }).length;
    gzipped.set(m, n);
  }
  return n;
};
const bytes = (ms: readonly WasmModuleName[]) => ms.reduce((n, m) => n + gzip(m), 0);

function subsets<T>(xs: readonly T[]): T[][] {
  return xs.reduce<T[][]>((acc, x) => acc.concat(acc.map((s) => [...s, x])), [[]]).filter((s) => s.length > 0);
}

describe('modulesFor', () => {
  it('an MPT-only app downloads the MPT module alone', () => {
    expect(modulesFor(['mpt'])).toEqual(['mpt']);
  });

  // A family outside `all` (beacon) always comes in its own module, beside the choice for the
  // others.
  it.each(subsets(WASM_FAMILIES).map((s) => [s.join('+'), s] as const))('%s: the smaller of the per-family modules and the one with all', (_name, families) => {
    const chosen = modulesFor(families);
    const shared = families.filter((f) => IN_ALL.includes(f));
    const own = families.filter((f) => !IN_ALL.includes(f));
    expect([families, ['all', ...own]]).toContainEqual(chosen);
    expect(bytes(chosen)).toBe(Math.min(bytes(shared), shared.length > 1 ? bytes(['all']) : Infinity) + bytes(own));
  });

  it('the module with every family carries all but the beacon light client and the EVM, which only apps that ask for them load', () => {
    expect([...IN_ALL].sort()).toEqual(WASM_FAMILIES.filter((f) => f !== 'beacon' && f !== 'evm').sort());
    expect(WASM_FAMILIES).toContain('beacon');
    expect(WASM_FAMILIES).toContain('evm');
    expect(modulesFor(['beacon'])).toEqual(['beacon']);
    expect(modulesFor(['evm'])).toEqual(['evm']);
    expect(modulesFor([...IN_ALL, 'evm'])).toEqual(['all', 'evm']);
    expect(modulesFor(IN_ALL)).toEqual(['all']);
    expect(modulesFor([...IN_ALL, 'beacon'])).toEqual(['all', 'beacon']);
  });

  it('what is loaded already is not downloaded again', () => {
    expect(modulesFor(['mpt', 'cole'], new Set<WasmFamily>(['mpt']))).toEqual(['cole']);
    expect(modulesFor(['mpt'], new Set<WasmFamily>(['mpt']))).toEqual([]);
  });
});

describe('the EVM module', () => {
  // Its budget (issue 30): helios ships one 1.13 MB gzip module, colibri 344 kB.
  it('is within its 350 kB gzip budget', () => {
    expect(gzip('evm')).toBeLessThanOrEqual(350_000);
  });
});

describe('init', () => {
  const source = JSON.parse(fs.readFileSync(path.join(VECTORS, 'mpt', 'sources', 'mainnet-eoa-500000.json'), 'utf8')) as Record<string, unknown> & { stateRoot: string };

  it('loads only the modules the families need, each once, and names a family it does not know', async () => {
    const { asked, locate } = recordingLocate();
    await init({ families: ['mpt'], locate });
    expect(asked).toEqual(['mpt']);
    expect(verifyAccountProof(source, source.stateRoot).exists).toBe(true);
    await init({ families: ['mpt'], locate });
    expect(asked).toEqual(['mpt']);
    const rest = WASM_FAMILIES.filter((f) => f !== 'mpt');
    await init({ families: rest, locate });
    // The modules load concurrently: which one asks first is not fixed.
    expect([...asked.slice(1)].sort()).toEqual([...modulesFor(rest)].sort());
    await expect(init({ families: ['nope' as WasmFamily] })).rejects.toThrow(/family: no wasm module is named "nope"/);
  });
});
