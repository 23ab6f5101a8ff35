/**
 * `orderedTrieRoot` (the root of a block's transactions, receipts or withdrawals) against an
 * independent implementation (@ethereumjs/mpt) for list lengths around every change of shape:
 * one item, a full branch (16), two-byte RLP keys from index 128 on.
 */
import { createMPT } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, init, orderedTrieRoot } from '@lightprov/sdk';
import { beforeAll, describe, expect, it } from 'vitest';

beforeAll(() => init());

/** Deterministic bytes: item `i` of a list, of a length that varies (short and long leaves). */
function item(i: number, seed: number): Uint8Array {
  const len = 1 + ((i * 7 + seed) % 90);
  return Uint8Array.from({ length: len }, (_, k) => (i * 31 + k * 17 + seed) & 0xff);
}

describe('orderedTrieRoot', () => {
  for (const n of [0, 1, 2, 15, 16, 17, 127, 128, 129, 300]) {
    it(`matches @ethereumjs/mpt for ${n} items`, async () => {
      for (const seed of [1, 2]) {
        const values = Array.from({ length: n }, (_, i) => item(i, seed));
        const reference = await createMPT();
        for (const [i, v] of values.entries()) await reference.put(RLP.encode(i), v);
        expect(bytesToHex(orderedTrieRoot(values))).toBe(bytesToHex(reference.root()));
      }
    });
  }
});
