/**
 * State keys and verified histories.
 *
 * A state key names one piece of state the same way in every engine: `balance(addr) =
 * keccak256(0x01 ‖ addr)`, `nonce(addr) = keccak256(0x02 ‖ addr)`, `storage(addr, slot) =
 * keccak256(0x03 ‖ addr ‖ slot32)`. A history is the list of values a key took over a block range,
 * checked against a verified header: with COLE/COLE* by one provenance proof against the
 * header's `coleRoot`, with MPT by one `eth_getProof` per block (the baseline).
 */
import { VerificationError, wasmCall } from './errors.js';
import { bigIntToBytes, bytesArg, bytesToHex, hexToBytes, slotToHex } from './hex.js';
import { verifier } from './init.js';

/** A state key and, so that every scheme can answer for it, the state it names. */
export interface StateKey {
  kind: 'balance' | 'nonce' | 'storage';
  /** The account (lowercase hex). */
  address: string;
  /** The storage slot as 32-byte hex (storage keys only). */
  slot?: string;
  /** The 32-byte state key (lowercase hex). */
  stateKey: string;
}

function keccakHex(b: Uint8Array): string {
  const wasm = verifier();
  return bytesToHex(wasmCall(() => wasm.keccak256(b)));
}

/** Builds state keys (needs `await init()` first). */
export const stateKeys = {
  /** The balance of `address`. */
  balance(address: string): StateKey {
    const a = bytesArg(address, 'address', 20);
    return { kind: 'balance', address: bytesToHex(a), stateKey: keccakHex(Uint8Array.of(1, ...a)) };
  },
  /** The nonce of `address`. */
  nonce(address: string): StateKey {
    const a = bytesArg(address, 'address', 20);
    return { kind: 'nonce', address: bytesToHex(a), stateKey: keccakHex(Uint8Array.of(2, ...a)) };
  },
  /** Storage slot `slot` of `address`. */
  storage(address: string, slot: string | bigint | number): StateKey {
    const a = bytesArg(address, 'address', 20);
    const s = slotToHex(slot, 'slot');
    const pre = new Uint8Array(53);
    pre[0] = 3;
    pre.set(a, 1);
    pre.set(hexToBytes(s, 'slot', 'argument', 32), 21);
    return { kind: 'storage', address: bytesToHex(a), slot: s, stateKey: keccakHex(pre) };
  },
};

/** One version: the block that wrote it and the value (a 256-bit word). */
export interface Version {
  block: bigint;
  value: bigint;
}

/** A verified COLE history. */
export interface ColeHistory {
  /** Every version written in the range, oldest first. */
  versions: Version[];
  /** The version in force at the range's first block (`null`: never written by then). */
  atFrom: Version | null;
}

/** The COLE engines a history can be proven by. */
export type ColeScheme = 'cole' | 'cole-star';

function wordToBigInt(b: Uint8Array, at: number): bigint {
  let v = 0n;
  for (let i = 0; i < 32; i++) v = (v << 8n) | BigInt(b[at + i] ?? 0);
  return v;
}

function readU64(b: Uint8Array, at: number): bigint {
  return new DataView(b.buffer, b.byteOffset + at, 8).getBigUint64(0, false);
}

function u64Arg(v: unknown, field: string): bigint {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new RangeError(`${field}: not a safe integer`);
    v = BigInt(v);
  }
  if (typeof v !== 'bigint') throw new TypeError(`${field}: expected a bigint or number`);
  if (v < 0n || v >> 64n !== 0n) throw new RangeError(`${field}: out of range`);
  return v;
}

/**
 * Verifies a COLE provenance proof (as `lightprov_getHistory` returns it) for `stateKey` over
 * `fromBlock..=toBlock` against a verified header's `coleRoot`; `siblingRoot` is the other COLE
 * engine's `H_state` (the header commits to both). Synchronous after `await init()`.
 */
export function verifyColeHistory(args: {
  proof: string | Uint8Array;
  stateKey: string | Uint8Array;
  fromBlock: bigint | number;
  toBlock: bigint | number;
  coleRoot: string | Uint8Array;
  siblingRoot: string | Uint8Array;
  scheme: ColeScheme;
}): ColeHistory {
  const proof = args.proof instanceof Uint8Array ? args.proof : hexToBytes(args.proof, 'proof');
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const root = bytesArg(args.coleRoot, 'coleRoot', 32);
  const sibling = bytesArg(args.siblingRoot, 'siblingRoot', 32);
  const lo = u64Arg(args.fromBlock, 'fromBlock');
  const hi = u64Arg(args.toBlock, 'toBlock');
  if (args.scheme !== 'cole' && args.scheme !== 'cole-star') throw new TypeError(`scheme: expected cole or cole-star`);
  const wasm = verifier();
  const out = wasmCall(() => wasm.verifyColeHistory(root, args.scheme, sibling, key, lo, hi, proof));
  const atFrom = out[0] === 1 ? { block: readU64(out, 1), value: wordToBigInt(out, 9) } : null;
  const count = new DataView(out.buffer, out.byteOffset + 41, 4).getUint32(0, false);
  const versions: Version[] = [];
  for (let i = 0; i < count; i++) {
    const at = 45 + i * 40;
    versions.push({ block: readU64(out, at), value: wordToBigInt(out, at + 8) });
  }
  return { versions, atFrom };
}

/** The `coleRoot` of a header's extraData (its first 32 bytes). */
export function coleRootOf(extraData: string): string {
  const b = hexToBytes(extraData, 'extraData');
  if (b.length < 32) throw new VerificationError('BAD_HEADER_LAYOUT', 'extraData is too short to hold a coleRoot', { field: 'extraData' });
  return bytesToHex(b.subarray(0, 32));
}

/**
 * The value changes of a key over `from..=to`: the value in force at `from` first, then one
 * point per block where the value differs from the one before (a rewrite of the same value is
 * not a change). Every scheme's answer reduces to this form, so they can be compared.
 */
export function changesFromVersions(h: ColeHistory, from: bigint): Version[] {
  const points: Version[] = [{ block: from, value: h.atFrom?.value ?? 0n }];
  for (const v of h.versions) {
    const last = points[points.length - 1];
    if (v.block === from) {
      if (last) last.value = v.value;
      continue;
    }
    if (last && last.value !== v.value) points.push({ block: v.block, value: v.value });
  }
  return points;
}

/** The value changes from one value per block, `values[i]` at block `from + i`. */
export function changesFromValues(values: readonly bigint[], from: bigint): Version[] {
  const points: Version[] = [];
  values.forEach((value, i) => {
    const last = points[points.length - 1];
    if (!last || last.value !== value) points.push({ block: from + BigInt(i), value });
  });
  return points;
}

/** A 32-byte word as hex, from a bigint. */
export function wordHex(v: bigint): string {
  return bytesToHex(bigIntToBytes(v, 32));
}
