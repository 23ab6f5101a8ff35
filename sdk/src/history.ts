/**
 * State keys, and histories in the form every family's answer reduces to.
 *
 * A state key names one piece of state the same way in every engine: `balance(addr) =
 * keccak256(0x01 ‖ addr)`, `nonce(addr) = keccak256(0x02 ‖ addr)`, `storage(addr, slot) =
 * keccak256(0x03 ‖ addr ‖ slot32)`; a mapping's entry, `mapping(addr, index, key)`, is the
 * storage key of slot keccak256(pad32(key) ‖ pad32(index)). A history is the list of values a key
 * took over a block range, checked against a verified header by one of the families
 * (`families/`).
 */
import { wasmCall } from './errors.js';
import { bigIntToBytes, bytesArg, bytesToHex, hexToBytes, readU32, readU64, readWord, slotToHex } from './hex.js';
import { keccak256 } from './init.js';

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
  return bytesToHex(wasmCall(() => keccak256(b)));
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
  /**
   * The entry for `key` (an address, or a 32-byte word) of a Solidity `mapping` declared at
   * storage slot `index` of `contract`: slot keccak256(pad32(key) ‖ pad32(index)) (Solidity's
   * storage layout), as a storage key. An ERC-20's balance of `owner` is
   * `mapping(token, index, owner)` for the index of its balances mapping (OpenZeppelin's: 0);
   * `client.keys.erc20Balance` finds the index by a verified probe.
   */
  mapping(contract: string, index: string | bigint | number, key: string): StateKey {
    if (typeof key !== 'string') throw new TypeError('key: expected an address or a 32-byte word (0x-hex)');
    // An address is a 20-byte key, left-padded as Solidity pads it; anything else must be a word.
    const k = bytesArg(key, 'key', key.length === 42 ? 20 : 32);
    const pre = new Uint8Array(64);
    pre.set(k, 32 - k.length);
    pre.set(hexToBytes(slotToHex(index, 'index'), 'index', 'argument', 32), 32);
    return stateKeys.storage(contract, keccakHex(pre));
  },
};

/** One version: the block that wrote it and the value (a 256-bit word). */
export interface Version {
  block: bigint;
  value: bigint;
}

/**
 * A verified history as the COLE and forkless verifiers return it, read from byte `at` of their
 * result: `present(u8) ‖ block(u64) ‖ value(32)` (the version in force at the range's first
 * block), then `count(u32)` and `count` × `block(u64) ‖ value(32)`, oldest first.
 */
export function readVersions(out: Uint8Array, at: number): { versions: Version[]; atFrom: Version | null } {
  const version = (p: number): Version => ({ block: readU64(out, p), value: readWord(out, p + 8) });
  const atFrom = out[at] === 1 ? version(at + 1) : null;
  const versions: Version[] = [];
  for (let i = 0, n = readU32(out, at + 41); i < n; i++) versions.push(version(at + 45 + i * 40));
  return { versions, atFrom };
}

/**
 * The value changes of a key over `from..=to`: the value in force at `from` first, then one
 * point per block where the value differs from the one before (a rewrite of the same value is
 * not a change). Every scheme's answer reduces to this form, so they can be compared.
 */
export function changesFromVersions(h: { versions: readonly Version[]; atFrom: Version | null }, from: bigint): Version[] {
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
