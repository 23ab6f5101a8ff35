/**
 * Strict `0x`-hex parsing. Two flavours, as Ethereum JSON-RPC has them: `DATA` (bytes, even
 * number of digits, fixed width where the type has one) and `QUANTITY` (a number; leading
 * zeros tolerated because some clients pad them).
 */
import { VerificationError } from './errors.js';

/** Nibble value of each char code; 0xff for anything that is not a hex digit. */
const NIBBLE = new Uint8Array(256).fill(0xff);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) NIBBLE[97 + i] = NIBBLE[65 + i] = 10 + i;

/** Where a malformed value came from: the network (VerificationError) or the caller (TypeError). */
export type Origin = 'network' | 'argument';

function fail(origin: Origin, field: string, msg: string, range = false): never {
  if (origin === 'network') throw new VerificationError('BAD_ENCODING', `${field}: ${msg}`, { field });
  if (range) throw new RangeError(`${field}: ${msg}`);
  throw new TypeError(`${field}: ${msg}`);
}

function prefixed(s: unknown, field: string, origin: Origin): string {
  if (typeof s !== 'string' || s.length < 2 || s[0] !== '0' || (s[1] !== 'x' && s[1] !== 'X')) {
    fail(origin, field, 'expected a 0x-prefixed hex string');
  }
  return s;
}

/** Decodes `DATA`; with `length`, exactly that many bytes. */
export function hexToBytes(s: unknown, field: string, origin: Origin = 'network', length?: number): Uint8Array {
  const h = prefixed(s, field, origin);
  const n = h.length - 2;
  if (n % 2 !== 0) fail(origin, field, 'odd number of hex digits');
  if (length !== undefined && n !== 2 * length) fail(origin, field, `expected ${length} bytes`, true);
  const out = new Uint8Array(n / 2);
  for (let i = 0, j = 2; i < out.length; i++, j += 2) {
    const hi = NIBBLE[h.charCodeAt(j) & 0xff] as number;
    const lo = NIBBLE[h.charCodeAt(j + 1) & 0xff] as number;
    if ((hi | lo) > 15 || h.charCodeAt(j) > 0xff || h.charCodeAt(j + 1) > 0xff) fail(origin, field, 'invalid hex digit');
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/** Decodes a `QUANTITY` of at most `bits` bits. */
export function hexToBigInt(s: unknown, field: string, origin: Origin = 'network', bits = 256): bigint {
  const h = prefixed(s, field, origin);
  if (h.length === 2) fail(origin, field, 'empty quantity');
  for (let j = 2; j < h.length; j++) {
    if (h.charCodeAt(j) > 0xff || (NIBBLE[h.charCodeAt(j)] as number) > 15) fail(origin, field, 'invalid hex digit');
  }
  const v = BigInt('0x' + h.slice(2));
  if (v >> BigInt(bits) !== 0n) fail(origin, field, `quantity exceeds ${bits} bits`, true);
  return v;
}

/** Lowercase `0x`-hex of `b`. */
const BYTE_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function bytesToHex(b: Uint8Array): string {
  // An array joined once gives a flat string (repeated `+=` leaves a rope that costs memory).
  const parts = new Array<string>(b.length + 1);
  parts[0] = '0x';
  for (let i = 0; i < b.length; i++) parts[i + 1] = BYTE_HEX[b[i] as number] as string;
  return parts.join('');
}

/** The 32-byte big-endian word at byte `at` of `b` (bytes past its end read as zero): a value in a verifier's result bytes. */
export function readWord(b: Uint8Array, at: number): bigint {
  let v = 0n;
  for (let i = 0; i < 32; i++) v = (v << 8n) | BigInt(b[at + i] ?? 0);
  return v;
}

/** The big-endian u64 at byte `at` of `b` (a block number or version in a verifier's result bytes). */
export function readU64(b: Uint8Array, at: number): bigint {
  return new DataView(b.buffer, b.byteOffset + at, 8).getBigUint64(0, false);
}

/** The big-endian u32 at byte `at` of `b` (a count in a verifier's result bytes). */
export function readU32(b: Uint8Array, at: number): number {
  return new DataView(b.buffer, b.byteOffset + at, 4).getUint32(0, false);
}

/** `v` as `n` big-endian bytes (`v` must fit). */
export function bigIntToBytes(v: bigint, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = n - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** `v` as minimal big-endian bytes (empty for zero), as RLP integers are encoded. */
export function bigIntToMinimalBytes(v: bigint): Uint8Array {
  if (v === 0n) return new Uint8Array(0);
  let h = v.toString(16);
  if (h.length % 2) h = '0' + h;
  return hexToBytes('0x' + h, 'value');
}

/** Accepts `0x`-hex or bytes of an exact length from a caller (TypeError/RangeError on misuse). */
export function bytesArg(v: unknown, field: string, length: number): Uint8Array {
  if (v instanceof Uint8Array) {
    if (v.length !== length) throw new RangeError(`${field}: expected ${length} bytes, got ${v.length}`);
    return v;
  }
  return hexToBytes(v, field, 'argument', length);
}

/** A storage slot from a caller (bigint, number or hex) as 32-byte hex. */
export function slotToHex(s: unknown, field: string): string {
  if (typeof s === 'bigint' || typeof s === 'number') {
    if (typeof s === 'number' && !Number.isSafeInteger(s)) throw new RangeError(`${field}: not a safe integer`);
    const v = BigInt(s);
    if (v < 0n || v >> 256n !== 0n) throw new RangeError(`${field}: out of range`);
    return bytesToHex(bigIntToBytes(v, 32));
  }
  return bytesToHex(bigIntToBytes(hexToBigInt(s, field, 'argument'), 32));
}
