/**
 * A forkless key at a block of a verified history (`forklessValueAt`, what `getValue` at an
 * older block reports), over the shared vectors: presence there comes from the verified links,
 * not from the proof's `exists`, which is about the head's state.
 */
import { init } from '@lightprov/sdk';
import { type ForklessKeyArg, forklessValueAt, verifyForklessHistory } from '@lightprov/sdk/forkless';
import { beforeAll, describe, expect, it } from 'vitest';

import { loadVectors } from './load.js';

beforeAll(() => init());

describe('forklessValueAt', () => {
  const vectors = Object.fromEntries(loadVectors('forkless', 'valid').map(([name, v]) => [name.replace(/\.json$/, ''), v.inputs as Record<string, unknown>]));
  const history = (name: string) => {
    const i = vectors[name]!;
    const h = verifyForklessHistory({
      proof: i['proof'] as string,
      key: i['key'] as ForklessKeyArg,
      forklessRoot: i['forklessRoot'] as string,
      fromBlock: BigInt(i['fromBlock'] as string),
      toBlock: BigInt(i['toBlock'] as string),
    });
    return { h, from: BigInt(i['fromBlock'] as string), to: BigInt(i['toBlock'] as string) };
  };

  it('a key first written after the range has no record at any block of it, though it has one at the head', () => {
    const { h, from, to } = history('slot-history-before-first-change');
    expect([h.exists, h.atFrom, h.versions]).toEqual([true, null, []]);
    for (let b = from; b <= to; b++) expect(forklessValueAt(h, b), `block ${b}`).toEqual({ exists: false, value: 0n });
  });

  it('gives the change in force at each block of a range, and a write of zero as a record', () => {
    const { h, from, to } = history('slot-history-7-27');
    expect(forklessValueAt(h, from)).toEqual({ exists: true, value: h.atFrom!.value, writtenAt: 5n });
    for (let b = from; b <= to; b++) {
      const inForce = [...h.versions].reverse().find((v) => v.block <= b) ?? h.atFrom!;
      expect(forklessValueAt(h, b), `block ${b}`).toEqual({ exists: true, value: inForce.value, writtenAt: inForce.block });
    }
    const zero = history('balance-history-37-39');
    expect(forklessValueAt(zero.h, 37n)).toEqual({ exists: true, value: 0n, writtenAt: 36n });
    const absent = history('history-absent');
    expect(forklessValueAt(absent.h, 39n)).toEqual({ exists: false, value: 0n });
  });
});
