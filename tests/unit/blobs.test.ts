/**
 * Blob gas (EIP-4844): the blob base fee from a header's excessBlobGas under the chain's
 * schedule — fake_exponential as the EIP and geth compute it, the fraction of the fork in force
 * at the block's time.
 */
import { blobBaseFee, blobScheduleArg } from '@lightprov/sdk';
import { describe, expect, it } from 'vitest';

import { thrown } from '../lib/util.js';

/** Cancun's fraction, then Prague's from t = 1000, then a BPO fork's from t = 2000. */
const schedule = blobScheduleArg([
  { timestamp: 2000n, baseFeeUpdateFraction: 8_346_193n },
  { timestamp: 0, baseFeeUpdateFraction: 3_338_477 },
  { timestamp: 1000, baseFeeUpdateFraction: 5_007_716 },
]);

describe('blob base fee', () => {
  it("is fake_exponential(1, excessBlobGas, the fraction in force at the block's time)", () => {
    expect(blobBaseFee(schedule, 5n, 0n)).toBe(1n);
    expect(blobBaseFee(schedule, 5n, 10n * 3_338_477n)).toBe(22_026n); // ⌊e^10⌋ by the integer series
    expect(blobBaseFee(schedule, 5n, 12_345_678n)).toBe(40n);
    expect(blobBaseFee(schedule, 1000n, 5_007_716n)).toBe(2n);
    expect(blobBaseFee(schedule, 1999n, 12_345_678n)).toBe(11n);
    expect(blobBaseFee(schedule, 2000n, 12_345_678n)).toBe(4n);
  });

  it('is unknown without a schedule, or before its first entry; a bad schedule is refused', () => {
    expect(blobBaseFee(undefined, 5n, 1n)).toBeUndefined();
    expect(blobBaseFee(blobScheduleArg([{ timestamp: 100, baseFeeUpdateFraction: 5 }]), 99n, 1n)).toBeUndefined();
    expect(String(thrown(() => blobScheduleArg([])))).toMatch(/blobSchedule: expected a non-empty array/);
    expect(String(thrown(() => blobScheduleArg([{ timestamp: 0, baseFeeUpdateFraction: 0 }])))).toMatch(/baseFeeUpdateFraction: must not be 0/);
    expect(String(thrown(() => blobScheduleArg([{ timestamp: -1, baseFeeUpdateFraction: 1 }])))).toMatch(/blobSchedule\[0\]\.timestamp: must not be negative/);
  });
});
