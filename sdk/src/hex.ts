/**
 * Strict `0x`-hex parsing. Two flavours, as Ethereum JSON-RPC has them: `DATA` (bytes, even
 * number of digits, fixed width where the type has one) and `QUANTITY` (a number; leading
 * zeros tolerated because some clients pad them).
 */
import { VerificationError } from './errors.js';

const HEX = /^0[xX][0-9a-fA-F]*$/;
const LUT: Record<string, number> = {};
for (let i = 0; i < 256; i++) LUT[i.toString(16).padStart(2, '0')] = i;

/** Where a malformed value came from: the network (VerificationError) or the caller (TypeError). */
export type Origin = 'network' | 'argument';

function fail(origin: Origin, field: string, msg: string, range = false): never {
  if (origin === 'network') throw new VerificationError('BAD_ENCODING', `${field}: ${msg}`, { field });
  if (range) throw new RangeError(`${field}: ${msg}`);
  throw new TypeError(`${field}: ${msg}`);
}

function digits(s: unknown, field: string, origin: Origin): string {
  if (typeof s !== 'string') fail(origin, field, 'expected a 0x-prefixed hex string');
  if (!HEX.test(s)) fail(origin, field, 'expected a 0x-prefixed hex string');
  return s.slice(2).toLowerCase();
}

/** Decodes `DATA`; with `length`, exactly that many bytes. */
export function hexToBytes(s: unknown, field: string, origin: Origin = 'network', length?: number): Uint8Array {
  const d = digits(s, field, origin);
  if (d.length % 2 !== 0) fail(origin, field, 'odd number of hex digits');
  if (length !== undefined && d.length !== 2 * length) fail(origin, field, `expected ${length} bytes`, true);
  const out = new Uint8Array(d.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = LUT[d.slice(2 * i, 2 * i + 2)] as number;
  return out;
}

/** Decodes a `QUANTITY` of at most `bits` bits. */
export function hexToBigInt(s: unknown, field: string, origin: Origin = 'network', bits = 256): bigint {
  const d = digits(s, field, origin);
  if (d.length === 0) fail(origin, field, 'empty quantity');
  const v = BigInt('0x' + d);
  if (v >> BigInt(bits) !== 0n) fail(origin, field, `quantity exceeds ${bits} bits`, true);
  return v;
}

/** Lowercase `0x`-hex of `b`. */
export function bytesToHex(b: Uint8Array): string {
  let s = '0x';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
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
