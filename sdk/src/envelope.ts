/**
 * Ethereum's consensus encodings of transactions and receipts (EIP-2718 envelopes, types 0–4)
 * from their JSON-RPC objects — what a header's `transactionsRoot` and `receiptsRoot` commit to
 * (the ordered trie of these bytes, {@link orderedTrieRoot}). Fields a node adds that no
 * encoding covers (`hash`, `from`, `blockHash`, `gasUsed`, …) are ignored; every field the
 * encoding needs is checked, and its absence is `BAD_ENCODING` naming it.
 */
import { RLP } from '@ethereumjs/rlp';

import { VerificationError } from './errors.js';
import { hexToBigInt, hexToBytes } from './hex.js';

type Item = Uint8Array | Item[];
type Json = Readonly<Record<string, unknown>>;

function field(o: Json, name: string, path: string): unknown {
  const v = o[name];
  if (v === undefined || v === null) throw new VerificationError('BAD_ENCODING', `${path}.${name}: missing`, { field: `${path}.${name}` });
  return v;
}

/** A quantity as RLP wants it: big-endian without leading zeros (0 is empty). */
function quantity(o: Json, name: string, path: string, bits = 256): Uint8Array {
  let v = hexToBigInt(field(o, name, path), `${path}.${name}`, 'network', bits);
  const out: number[] = [];
  while (v > 0n) {
    out.unshift(Number(v & 0xffn));
    v >>= 8n;
  }
  return Uint8Array.from(out);
}

const data = (o: Json, name: string, path: string, length?: number): Uint8Array => hexToBytes(field(o, name, path), `${path}.${name}`, 'network', length);

/** `to`, empty for a contract creation. */
function to(o: Json, path: string): Uint8Array {
  return o['to'] === null || o['to'] === undefined ? new Uint8Array(0) : hexToBytes(o['to'], `${path}.to`, 'network', 20);
}

function list(o: Json, name: string, path: string): readonly unknown[] {
  const v = field(o, name, path);
  if (!Array.isArray(v)) throw new VerificationError('BAD_ENCODING', `${path}.${name}: expected an array`, { field: `${path}.${name}` });
  return v;
}

function object(v: unknown, path: string): Json {
  if (typeof v !== 'object' || v === null) throw new VerificationError('BAD_ENCODING', `${path}: expected an object`, { field: path });
  return v as Json;
}

function accessList(o: Json, path: string): Item[] {
  return list(o, 'accessList', path).map((e, i) => {
    const a = object(e, `${path}.accessList[${i}]`);
    const p = `${path}.accessList[${i}]`;
    return [data(a, 'address', p, 20), list(a, 'storageKeys', p).map((k, j) => hexToBytes(k, `${p}.storageKeys[${j}]`, 'network', 32))];
  });
}

/** The signature's parity: `yParity`, or `v` of a typed transaction (0 or 1). */
function yParity(o: Json, path: string): Uint8Array {
  return quantity(o, o['yParity'] === undefined || o['yParity'] === null ? 'v' : 'yParity', path, 8);
}

function typeOf(o: Json, path: string): number {
  const t = o['type'] === undefined || o['type'] === null ? 0n : hexToBigInt(o['type'], `${path}.type`, 'network', 8);
  if (t > 4n) throw new VerificationError('BAD_ENCODING', `${path}.type: unknown transaction type ${t}`, { field: `${path}.type` });
  return Number(t);
}

const typed = (type: number, fields: Item[]): Uint8Array => {
  const body = RLP.encode(fields);
  const out = new Uint8Array(1 + body.length);
  out[0] = type;
  out.set(body, 1);
  return out;
};

/** A transaction's type, the fields its sender signed, and its signature fields. */
function transactionParts(json: unknown, path: string): { type: number; unsigned: Item[]; sig: Uint8Array[] } {
  const o = object(json, path);
  const t = typeOf(o, path);
  const q = (name: string) => quantity(o, name, path);
  const base = [q('nonce')];
  const tail = [q('gas'), to(o, path), q('value'), data(o, 'input', path)];
  const rs = [quantity(o, 'r', path), quantity(o, 's', path)];
  switch (t) {
    case 0:
      return { type: 0, unsigned: [...base, q('gasPrice'), ...tail], sig: [q('v'), ...rs] };
    case 1:
      return { type: 1, unsigned: [q('chainId'), ...base, q('gasPrice'), ...tail, accessList(o, path)], sig: [yParity(o, path), ...rs] };
    case 2:
      return { type: 2, unsigned: [q('chainId'), ...base, q('maxPriorityFeePerGas'), q('maxFeePerGas'), ...tail, accessList(o, path)], sig: [yParity(o, path), ...rs] };
    case 3:
      return {
        type: 3,
        unsigned: [
          q('chainId'),
          ...base,
          q('maxPriorityFeePerGas'),
          q('maxFeePerGas'),
          ...tail,
          accessList(o, path),
          q('maxFeePerBlobGas'),
          list(o, 'blobVersionedHashes', path).map((h, i) => hexToBytes(h, `${path}.blobVersionedHashes[${i}]`, 'network', 32)),
        ],
        sig: [yParity(o, path), ...rs],
      };
    default: {
      const auths = list(o, 'authorizationList', path).map((e, i) => {
        const a = object(e, `${path}.authorizationList[${i}]`);
        const p = `${path}.authorizationList[${i}]`;
        return [quantity(a, 'chainId', p), data(a, 'address', p, 20), quantity(a, 'nonce', p, 64), yParity(a, p), quantity(a, 'r', p), quantity(a, 's', p)];
      });
      return { type: 4, unsigned: [q('chainId'), ...base, q('maxPriorityFeePerGas'), q('maxFeePerGas'), ...tail, accessList(o, path), auths], sig: [yParity(o, path), ...rs] };
    }
  }
}

/** The EIP-2718 encoding of a transaction object (legacy: its RLP list), as it sits in `transactionsRoot`. */
export function encodeTransaction(json: unknown, path = 'transaction'): Uint8Array {
  const { type, unsigned, sig } = transactionParts(json, path);
  return type === 0 ? RLP.encode([...unsigned, ...sig]) : typed(type, [...unsigned, ...sig]);
}

const big = (b: Uint8Array): bigint => b.reduce((acc, x) => (acc << 8n) | BigInt(x), 0n);
const minimal = (v: bigint): Uint8Array => {
  const out: number[] = [];
  for (let x = v; x > 0n; x >>= 8n) out.unshift(Number(x & 0xffn));
  return Uint8Array.from(out);
};

/**
 * What the sender of a transaction signed (the payload whose keccak256 is the signing hash) and
 * its signature as `r ‖ s ‖ parity` (65 bytes). Legacy transactions: EIP-155 (`v` = 35 + 2 ×
 * chainId + parity) or Homestead (`v` = 27 + parity).
 */
export function signedPayload(json: unknown, path = 'transaction'): { payload: Uint8Array; signature: Uint8Array } {
  const { type, unsigned, sig } = transactionParts(json, path);
  const [v, r, s] = sig as [Uint8Array, Uint8Array, Uint8Array];
  let parity: bigint;
  let payload: Uint8Array;
  if (type === 0) {
    const vv = big(v);
    if (vv >= 35n) {
      const chainId = (vv - 35n) >> 1n;
      parity = vv - 35n - 2n * chainId;
      payload = RLP.encode([...unsigned, minimal(chainId), new Uint8Array(0), new Uint8Array(0)]);
    } else if (vv === 27n || vv === 28n) {
      parity = vv - 27n;
      payload = RLP.encode(unsigned);
    } else {
      throw new VerificationError('BAD_ENCODING', `${path}.v: ${vv} is neither 27/28 nor EIP-155`, { field: `${path}.v` });
    }
  } else {
    parity = big(v);
    payload = typed(type, unsigned);
  }
  if (r.length > 32 || s.length > 32 || parity > 1n) throw new VerificationError('BAD_ENCODING', `${path}: malformed signature`, { field: `${path}.r` });
  const signature = new Uint8Array(65);
  signature.set(r, 32 - r.length);
  signature.set(s, 64 - s.length);
  signature[64] = Number(parity);
  return { payload, signature };
}

/** The EIP-2718 encoding of a receipt object, as it sits in `receiptsRoot`. */
export function encodeReceipt(json: unknown, path = 'receipt'): Uint8Array {
  const o = object(json, path);
  const t = typeOf(o, path);
  // Pre-Byzantium receipts hold the state root after the transaction; later ones a status.
  const outcome = o['root'] !== undefined && o['root'] !== null && o['root'] !== '0x' ? data(o, 'root', path, 32) : quantity(o, 'status', path, 8);
  const logs = list(o, 'logs', path).map((e, i) => {
    const l = object(e, `${path}.logs[${i}]`);
    const p = `${path}.logs[${i}]`;
    return [data(l, 'address', p, 20), list(l, 'topics', p).map((x, j) => hexToBytes(x, `${p}.topics[${j}]`, 'network', 32)), data(l, 'data', p)];
  });
  const fields: Item[] = [outcome, quantity(o, 'cumulativeGasUsed', path, 64), data(o, 'logsBloom', path, 256), logs];
  return t === 0 ? RLP.encode(fields) : typed(t, fields);
}
