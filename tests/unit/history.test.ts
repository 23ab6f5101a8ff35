/**
 * Histories longer than one proof covers, without a node: how a range is cut into proofs that
 * share their seam block; that the join of their verified histories refuses a gap, an overlap,
 * a value that differs at a seam and a chain that reorganised between the proofs, each with its
 * own error; and the registry's format bounds.
 */
import { ReorgError, type VerifiedHeader, type VerifiedHistory, VerificationError, families, init } from '@lightprov/sdk';
import { historyChunks, joinHistories } from '@lightprov/sdk/family';
import { beforeAll, describe, expect, it } from 'vitest';

beforeAll(() => init());

describe('historyChunks', () => {
  it('cuts a range into proofs of at most the bound, each starting where the one before ends', () => {
    expect(historyChunks(0n, 9n, 10n)).toEqual([[0n, 9n]]);
    expect(historyChunks(0n, 10n, 10n)).toEqual([
      [0n, 9n],
      [9n, 10n],
    ]);
    expect(historyChunks(5n, 5n, 1n)).toEqual([[5n, 5n]]);
    expect(historyChunks(0n, 2047n, 1024n)).toEqual([
      [0n, 1023n],
      [1023n, 2046n],
      [2046n, 2047n],
    ]);
    for (const [from, to, cap] of [
      [0n, 100n, 2n],
      [7n, 5000n, 1024n],
      [3n, 4n, 4096n],
    ] as const) {
      const plan = historyChunks(from, to, cap);
      expect(plan[0]?.[0]).toBe(from);
      expect(plan.at(-1)?.[1]).toBe(to);
      for (const [k, [lo, hi]] of plan.entries()) {
        expect(hi - lo + 1n).toBeLessThanOrEqual(cap);
        if (k > 0) expect(lo).toBe(plan[k - 1]?.[1]);
      }
    }
    expect(() => historyChunks(0n, 1n, 1n)).toThrow(RangeError);
  });
});

/** A verified header as the join sees it: its number and hash. */
const header = (n: bigint, fork = 0): VerifiedHeader => ({ number: n, hash: `0x${fork.toString(16).padStart(2, '0')}${n.toString(16).padStart(62, '0')}` }) as unknown as VerifiedHeader;

/** The history one proof of `from..=to` gave, from one value per block. */
function part(from: bigint, values: bigint[], anchor = header(from + BigInt(values.length) - 1n)): VerifiedHistory {
  const points: { block: bigint; value: bigint }[] = [];
  values.forEach((value, i) => {
    if (points.at(-1)?.value !== value) points.push({ block: from + BigInt(i), value });
  });
  const to = from + BigInt(values.length) - 1n;
  return { points, scheme: 'mbt', fromBlock: from, toBlock: to, anchor, proofBytes: 10, verifyMs: 1, raw: { from }, stateKey: '0x' + '11'.repeat(32), blockRoots: values.map((_, i) => `root${from + BigInt(i)}`) };
}

const chain = async (n: bigint) => header(n);

async function refused(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('joined');
}

describe('joinHistories', () => {
  // Blocks 0..6, the value changing at 2 and at 4 (the seam of the second and third proofs).
  const values = [1n, 1n, 2n, 2n, 3n, 3n, 3n];
  const honest = () => [part(0n, values.slice(0, 3)), part(2n, values.slice(2, 5)), part(4n, values.slice(4))];

  it('joins proofs that share their seam block into the history of the whole range', async () => {
    const h = await joinHistories(honest(), 0n, 6n, chain);
    expect(h.points).toEqual([
      { block: 0n, value: 1n },
      { block: 2n, value: 2n },
      { block: 4n, value: 3n },
    ]);
    expect([h.fromBlock, h.toBlock, h.anchor.number, h.proofBytes, h.verifyMs]).toEqual([0n, 6n, 6n, 30, 3]);
    expect(h.blockRoots).toEqual(values.map((_, i) => `root${i}`));
    expect(h.chunks?.length).toBe(3);
    expect(h.raw).toEqual([{ from: 0n }, { from: 2n }, { from: 4n }]);
  });

  it('refuses a gap between two proofs, or proofs that share no block: RANGE_MISMATCH naming the proof', async () => {
    const gap = honest();
    gap[1] = part(4n, values.slice(4, 5));
    const e = await refused(joinHistories(gap, 0n, 6n, chain));
    expect(e).toBeInstanceOf(VerificationError);
    expect([(e as VerificationError).code, (e as VerificationError).field]).toEqual(['RANGE_MISMATCH', 'chunks[1].fromBlock']);
    expect(e.message).toContain('leaves blocks 3…3 unproven');
    const apart = honest();
    apart[1] = part(3n, values.slice(3, 5));
    const f = (await refused(joinHistories(apart, 0n, 6n, chain))) as VerificationError;
    expect([f.code, f.field]).toEqual(['RANGE_MISMATCH', 'chunks[1].fromBlock']);
    expect(f.message).toContain('shares no block');
  });

  it('refuses a proof that overlaps the one before beyond the seam block', async () => {
    const parts = honest();
    parts[2] = part(3n, values.slice(3));
    const e = (await refused(joinHistories(parts, 0n, 6n, chain))) as VerificationError;
    expect([e.code, e.field, e.expected, e.found]).toEqual(['RANGE_MISMATCH', 'chunks[2].fromBlock', '4', '3']);
    expect(e.message).toContain('covers blocks 3…4 again');
  });

  it('refuses proofs that do not start or end where the range does', async () => {
    const short = (await refused(joinHistories(honest().slice(0, 2), 0n, 6n, chain))) as VerificationError;
    expect([short.code, short.field]).toEqual(['RANGE_MISMATCH', 'chunks[1].toBlock']);
    const late = (await refused(joinHistories(honest().slice(1), 0n, 6n, chain))) as VerificationError;
    expect([late.code, late.field]).toEqual(['RANGE_MISMATCH', 'chunks[0].fromBlock']);
  });

  it('refuses proofs that disagree on the value at their seam block: a change hidden there', async () => {
    // The second proof says the value at its first block (4) is 2, the third that it is 3:
    // the change at block 4 falls between them.
    const parts = honest();
    parts[1] = part(2n, [2n, 2n, 2n]);
    const e = (await refused(joinHistories(parts, 0n, 6n, chain))) as VerificationError;
    expect([e.code, e.field, e.expected, e.found]).toEqual(['VALUE_MISMATCH', 'chunks[2].points[0]', '2', '3']);
    expect(e.message).toContain('at block 4');
  });

  it('refuses proofs against a chain that reorganised between them: a ReorgError to retry', async () => {
    const parts = honest();
    parts[0] = part(0n, values.slice(0, 3), header(2n, 1));
    const e = await refused(joinHistories(parts, 0n, 6n, chain));
    expect(e).toBeInstanceOf(ReorgError);
    expect(e.message).toContain('proof 0 is against block 2');
  });
});

describe('the registry', () => {
  it("names the proof formats' history bounds: MBT 1,024 blocks, POS-Tree 4,096, none for the others", () => {
    const bounds = Object.fromEntries(families().map((f) => [f.name, f.maxHistoryBlocks]));
    expect(bounds).toEqual({ header: undefined, mpt: undefined, cole: undefined, lvmt: undefined, forkless: undefined, mbt: 1024, pos: 4096, beacon: undefined });
  });
});
