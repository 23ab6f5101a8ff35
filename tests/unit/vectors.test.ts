import fs from 'node:fs';
import path from 'node:path';

import { ERROR_CODES, VerificationError, WASM_FAMILIES, commitmentOf, families, headerCommitments, init } from '@lightprov/sdk';
import { loadBeacon } from '@lightprov/sdk/beacon';
import { beforeAll, describe, expect, it } from 'vitest';

import { checkVector, run } from '../lib/vectors.js';
import { VECTORS, loadVectors, vectorCount } from './load.js';

// Every family's module: init() loads those of the module with every family, the beacon light
// client loads by name.
beforeAll(() => Promise.all([init(), loadBeacon()]));
// The registry comes from the wasm module: load it before the suites are declared.
await Promise.all([init(), loadBeacon()]);
const FAMILIES = families();

for (const family of FAMILIES.map((f) => f.name)) {
  for (const kind of ['valid', 'invalid'] as const) {
    describe(`${family} ${kind} vectors`, () => {
      const vectors = loadVectors(family, kind);
      it('has the generated count', () => {
        expect(vectors.length).toBe(vectorCount(family, kind));
      });
      it.each(vectors)('%s', (_name, v) => {
        expect(checkVector(v)).toBeNull();
      });
    });
  }
}

describe('error codes', () => {
  it("equal each family's tests/vectors/<family>/error-codes.json, and the core's list", async () => {
    const meaning = new Map<string, string>();
    for (const f of families()) {
      const shared = JSON.parse(fs.readFileSync(path.join(VECTORS, f.name, 'error-codes.json'), 'utf8')) as { codes: { code: string; meaning: string }[] };
      expect([...f.codes], f.name).toEqual(shared.codes.map((c) => c.code));
      for (const c of shared.codes) {
        expect(meaning.get(c.code) ?? c.meaning, `${c.code} in ${f.name}`).toBe(c.meaning);
        meaning.set(c.code, c.meaning);
      }
    }
    expect([...ERROR_CODES].filter((c) => !meaning.has(c))).toEqual([]);
    // The core's list (exported by the header module, with the registry) is the SDK's.
    const dir = path.join(VECTORS, '..', '..', 'sdk', 'wasm', 'header');
    const header = (await import(path.join(dir, 'lightprov_verifier_wasm.js'))) as { errorCodes(): string; initSync(o: { module: Uint8Array }): unknown };
    header.initSync({ module: fs.readFileSync(path.join(dir, 'lightprov_verifier_wasm_bg.wasm')) });
    expect(header.errorCodes().split(',')).toEqual([...ERROR_CODES]);
  });
});

/** The tamper class of an invalid vector: the longest class of its family its name ends with. */
function tamperOf(tampers: readonly { name: string }[], file: string): string | undefined {
  const stem = file.replace(/\.json$/, '');
  return tampers
    .map((t) => t.name)
    .filter((t) => stem === t || stem.endsWith(`-${t}`))
    .sort((a, b) => b.length - a.length)[0];
}

describe('the family registry', () => {
  it('lists exactly the families with vectors, mpt, header, cole and lvmt among them', () => {
    const counts = JSON.parse(fs.readFileSync(path.join(VECTORS, 'counts.json'), 'utf8')) as Record<string, unknown>;
    expect(FAMILIES.map((f) => f.name).sort()).toEqual(Object.keys(counts).sort());
    expect(FAMILIES.map((f) => f.name)).toEqual(expect.arrayContaining(['mpt', 'header', 'cole', 'lvmt']));
  });

  for (const f of FAMILIES) {
    it(`${f.name}: every invalid vector is of a registered tamper class, answered by its code, and every class has vectors`, () => {
      const seen = new Set<string>();
      for (const [file, v] of loadVectors(f.name, 'invalid')) {
        const cls = tamperOf(f.tampers, file);
        expect(cls, `${f.name}/${file}`).toBeDefined();
        const t = f.tampers.find((x) => x.name === cls)!;
        const code = (v.expected as { error?: string }).error;
        expect([t.code, t.alt], `${f.name}/${file}`).toContain(code);
        expect(f.codes).toContain(code);
        seen.add(t.name);
      }
      expect(f.tampers.map((t) => t.name).filter((n) => !seen.has(n))).toEqual([]);
      for (const c of f.commitments) expect(headerCommitments().map((x) => x.name)).toContain(c);
    });
  }
});

describe('header commitments', () => {
  const extraData = '0x' + '11'.repeat(32) + '22'.repeat(32) + '33'.repeat(32) + '44'.repeat(65);
  it('are read where the core says they are', () => {
    expect(commitmentOf({ extraData }, 'coleRoot')).toBe('0x' + '11'.repeat(32));
    expect(commitmentOf({ extraData }, 'lvmtRoot')).toBe('0x' + '22'.repeat(32));
    expect(commitmentOf({ extraData }, 'lvmtHistoryRoot')).toBe('0x' + '33'.repeat(32));
    expect(commitmentOf({ stateRoot: '0x' + '55'.repeat(32) }, 'stateRoot')).toBe('0x' + '55'.repeat(32));
  });
  it('refuse a header too short to hold them, naming the field', () => {
    const e = (() => {
      try {
        commitmentOf({ extraData: '0x' + '11'.repeat(40) }, 'lvmtRoot');
      } catch (x) {
        return x;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(VerificationError);
    expect((e as VerificationError).code).toBe('BAD_HEADER_LAYOUT');
    expect((e as VerificationError).field).toBe('extraData');
    expect(() => commitmentOf({ extraData }, 'nope')).toThrow(RangeError);
  });
});

describe('rejections name the field at fault', () => {
  for (const family of ['cole', 'lvmt']) {
    it(`${family}: every invalid vector's error names a path in the proof or the query, with evidence for root and key checks`, () => {
      const fields = new Set<string>();
      for (const [file, v] of loadVectors(family, 'invalid')) {
        let e: unknown;
        try {
          run(v);
        } catch (x) {
          e = x;
        }
        expect(e, file).toBeInstanceOf(VerificationError);
        const err = e as VerificationError;
        expect(err.field, file).toBeDefined();
        expect(err.field, file).not.toBe('proof');
        fields.add(err.field!.replace(/\d+/g, 'N'));
        if (err.code === 'ROOT_MISMATCH' || err.code === 'KEY_MISMATCH' || err.code === 'RANGE_MISMATCH') {
          expect(err.expected, file).toBeDefined();
          expect(err.found, file).toBeDefined();
          expect(err.found, file).not.toBe(err.expected);
        }
      }
      // The paths differ by what broke, not one catch-all.
      expect(fields.size).toBeGreaterThan(3);
    });
  }
});
