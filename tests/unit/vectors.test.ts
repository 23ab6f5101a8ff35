import fs from 'node:fs';
import path from 'node:path';

import { ERROR_CODES, init } from '@lightprov/sdk';
import { beforeAll, describe, expect, it } from 'vitest';

import { checkVector } from '../lib/vectors.js';
import { VECTORS, loadVectors, vectorCount } from './load.js';

beforeAll(() => init());

for (const family of ['mpt', 'header', 'cole', 'lvmt']) {
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
  it('equal tests/vectors/error-codes.json, in order', async () => {
    const shared = JSON.parse(fs.readFileSync(path.join(VECTORS, 'error-codes.json'), 'utf8')) as { codes: { code: string }[] };
    expect([...ERROR_CODES]).toEqual(shared.codes.map((c) => c.code));
    const { errorCodes } = (await import('../../sdk/wasm/lightprov_verifier_wasm.js')) as { errorCodes(): string };
    expect(errorCodes().split(',')).toEqual([...ERROR_CODES]);
  });
});
