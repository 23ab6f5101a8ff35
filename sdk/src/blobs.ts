/**
 * Blob gas (EIP-4844): what a blob transaction's receipt says it used and paid follows from
 * verified data — the number of its blob hashes, and the header's `excessBlobGas` with the
 * chain's blob base fee update fraction at the block's time (a chain parameter that no header
 * holds, which the app gives as `blobSchedule`).
 */
import { uint64Arg } from './args.js';

/** Blob gas per blob. */
export const GAS_PER_BLOB = 131_072n;
/** The blob base fee's floor (wei per blob gas). */
const MIN_BLOB_BASE_FEE = 1n;

/** From `timestamp` on (until the next entry), the chain's blob base fee update fraction. */
export interface BlobScheduleEntry {
  timestamp: bigint | number;
  baseFeeUpdateFraction: bigint | number;
}

/** A checked schedule, sorted by time. */
export type BlobSchedule = readonly { timestamp: bigint; fraction: bigint }[];

/** Checks a caller's `blobSchedule`. */
export function blobScheduleArg(v: unknown, field = 'blobSchedule'): BlobSchedule | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length === 0) throw new TypeError(`${field}: expected a non-empty array of { timestamp, baseFeeUpdateFraction }`);
  const out = v.map((e: Partial<BlobScheduleEntry> | null, i) => {
    const fraction = uint64Arg(e?.baseFeeUpdateFraction, `${field}[${i}].baseFeeUpdateFraction`, 'a fraction');
    if (fraction === 0n) throw new RangeError(`${field}[${i}].baseFeeUpdateFraction: must not be 0`);
    return { timestamp: uint64Arg(e?.timestamp, `${field}[${i}].timestamp`, 'a Unix time'), fraction };
  });
  return out.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
}

/** EIP-4844's `fake_exponential(factor, numerator, denominator)`. */
function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let output = 0n;
  let accum = factor * denominator;
  for (let i = 1n; accum > 0n; i++) {
    output += accum;
    accum = (accum * numerator) / (denominator * i);
  }
  return output / denominator;
}

/**
 * The blob base fee of a block of time `timestamp` and `excessBlobGas` under `schedule`;
 * `undefined` without a schedule, or before its first entry.
 */
export function blobBaseFee(schedule: BlobSchedule | undefined, timestamp: bigint, excessBlobGas: bigint): bigint | undefined {
  const entry = schedule?.filter((e) => e.timestamp <= timestamp).at(-1);
  return entry === undefined ? undefined : fakeExponential(MIN_BLOB_BASE_FEE, excessBlobGas, entry.fraction);
}
