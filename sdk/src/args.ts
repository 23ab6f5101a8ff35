/**
 * Checks of a caller's arguments, in one place: each throws `TypeError` for a wrong type and
 * `RangeError` for a wrong value, naming the argument (as noble-hashes' `anumber`/`abytes` do).
 * Data from the network is checked by the hex decoders instead (`BAD_ENCODING`).
 */
import { bytesArg, bytesToHex, hexToBigInt } from './hex.js';
import { type StateKey, stateKeys } from './history.js';

/** A block: a number, a tag, or an EIP-1898 `{blockHash}`. */
export type BlockTag = bigint | number | 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized' | { blockHash: string };

const TAGS: readonly string[] = ['latest', 'earliest', 'pending', 'safe', 'finalized'];

/** A block number: a bigint, or a number that is a safe integer; at least 0, below 2^64. */
export function blockNumberArg(v: unknown, field: string): bigint {
  return uint64Arg(v, field, 'a block number');
}

/** A bigint, or a number that is a safe integer; at least 0, below 2^64 (`what` names it in a TypeError). */
export function uint64Arg(v: unknown, field: string, what: string): bigint {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new RangeError(`${field}: not a safe integer`);
    v = BigInt(v);
  }
  if (typeof v !== 'bigint') throw new TypeError(`${field}: expected ${what} (bigint or number)`);
  if (v < 0n) throw new RangeError(`${field}: must not be negative`);
  if (v >> 64n !== 0n) throw new RangeError(`${field}: out of range (at most 2^64 - 1)`);
  return v;
}

/** A caller's block tag: a number (checked by {@link blockNumberArg}), a named tag, or `{blockHash}`. */
export function blockTagArg(v: unknown, field: string): BlockTag {
  if (typeof v === 'number' || typeof v === 'bigint') return blockNumberArg(v, field);
  if (typeof v === 'string') {
    if (TAGS.includes(v)) return v as BlockTag;
    throw new TypeError(`${field}: unknown tag ${JSON.stringify(v)}`);
  }
  if (typeof v === 'object' && v !== null && 'blockHash' in v) {
    return { blockHash: bytesToHex(bytesArg((v as { blockHash: unknown }).blockHash, `${field}.blockHash`, 32)) };
  }
  throw new TypeError(`${field}: expected a block number, a tag or {blockHash}`);
}

/** A JSON-RPC block parameter (`"0x1a"`, `"latest"`, EIP-1898 objects) as a BlockTag. */
export function rpcBlockArg(v: unknown, field = 'block'): BlockTag {
  if (v === undefined || v === null) return 'latest';
  if (typeof v === 'object' && typeof (v as { blockHash?: unknown }).blockHash === 'string') {
    return blockTagArg(v, field);
  }
  if (typeof v === 'object' && typeof (v as { blockNumber?: unknown }).blockNumber === 'string') {
    return blockNumberArg(hexToBigInt((v as { blockNumber: string }).blockNumber, `${field}.blockNumber`, 'argument'), field);
  }
  if (typeof v === 'string' && /^0x/i.test(v)) return blockNumberArg(hexToBigInt(v, field, 'argument'), field);
  return blockTagArg(v, field);
}

/** A caller's state key: 32-byte hex, or a `StateKey` whose `stateKey` must hash from what it names. */
export function stateKeyArg(k: unknown, field = 'key'): string {
  if (typeof k === 'string' || k instanceof Uint8Array) return bytesToHex(bytesArg(k, field, 32));
  if (typeof k !== 'object' || k === null) {
    throw new TypeError(`${field}: expected a StateKey (client.keys.balance(addr), …) or a 32-byte hex state key`);
  }
  const s = k as Partial<StateKey>;
  const again =
    s.kind === 'balance'
      ? stateKeys.balance(s.address ?? '')
      : s.kind === 'nonce'
        ? stateKeys.nonce(s.address ?? '')
        : s.kind === 'storage'
          ? stateKeys.storage(s.address ?? '', s.slot ?? '')
          : undefined;
  if (!again) throw new TypeError(`${field}.kind: expected balance, nonce or storage`);
  if (again.stateKey !== bytesToHex(bytesArg(s.stateKey, `${field}.stateKey`, 32))) {
    throw new RangeError(`${field}.stateKey: does not hash from the key's kind, address and slot`);
  }
  return again.stateKey;
}

/** An object argument. */
export function objectArg<T extends object>(v: unknown, field: string, shape: string): T {
  if (typeof v !== 'object' || v === null) throw new TypeError(`${field}: expected ${shape}`);
  return v as T;
}
