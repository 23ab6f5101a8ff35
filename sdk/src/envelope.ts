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

/** A receipt read back from its consensus encoding. */
export interface DecodedReceipt {
  /** 0 legacy, 1–4 typed. */
  type: number;
  /** 1 success, 0 failure; `undefined` before Byzantium (see `root`). */
  status: number | undefined;
  root: Uint8Array | undefined;
  cumulativeGasUsed: bigint;
  logsBloom: Uint8Array;
  logs: { address: Uint8Array; topics: Uint8Array[]; data: Uint8Array }[];
}

function bad(path: string, why: string): never {
  throw new VerificationError('BAD_ENCODING', `${path}: ${why}`, { field: path });
}

function bytesItem(v: unknown, path: string, length?: number): Uint8Array {
  if (!(v instanceof Uint8Array)) bad(path, 'expected bytes, found a list');
  if (length !== undefined && v.length !== length) bad(path, `expected ${length} bytes, found ${v.length}`);
  return v;
}

function listItem(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) bad(path, 'expected a list');
  return v;
}

function scalar(b: Uint8Array, path: string, bytes: number): bigint {
  if (b.length > bytes || (b.length > 0 && b[0] === 0)) bad(path, 'not a canonical quantity');
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}

function rlpDecode(b: Uint8Array, path: string): unknown {
  try {
    return RLP.decode(b);
  } catch (e) {
    return bad(path, `malformed RLP (${(e as Error).message})`);
  }
}

/** Reads a receipt's consensus encoding (an EIP-2718 envelope, types 0–4). */
export function decodeReceipt(enc: Uint8Array, path = 'receipt'): DecodedReceipt {
  if (enc.length === 0) bad(path, 'empty');
  const type = enc[0]! < 0x80 ? enc[0]! : 0;
  if (type > 4) bad(`${path}.type`, `unknown receipt type ${type}`);
  const fields = listItem(rlpDecode(type === 0 ? enc : enc.subarray(1), path), path);
  if (fields.length !== 4) bad(path, `expected 4 fields, found ${fields.length}`);
  const outcome = bytesItem(fields[0], `${path}.status`);
  const isRoot = outcome.length === 32;
  if (!isRoot && outcome.length > 1) bad(`${path}.status`, 'neither a status nor a state root');
  return {
    type,
    status: isRoot ? undefined : Number(scalar(outcome, `${path}.status`, 1)),
    root: isRoot ? outcome : undefined,
    cumulativeGasUsed: scalar(bytesItem(fields[1], `${path}.cumulativeGasUsed`), `${path}.cumulativeGasUsed`, 8),
    logsBloom: bytesItem(fields[2], `${path}.logsBloom`, 256),
    logs: listItem(fields[3], `${path}.logs`).map((l, i) => {
      const p = `${path}.logs[${i}]`;
      const [address, topics, data, ...rest] = listItem(l, p);
      if (rest.length > 0) bad(p, 'expected 3 fields');
      return {
        address: bytesItem(address, `${p}.address`, 20),
        topics: listItem(topics, `${p}.topics`).map((t, j) => bytesItem(t, `${p}.topics[${j}]`, 32)),
        data: bytesItem(data, `${p}.data`),
      };
    }),
  };
}

/**
 * The consensus encodings of the transactions of a block's RLP (`debug_getRawBlock`): typed
 * transactions are byte strings in it, legacy ones lists, re-encoded here (the strict decoder
 * accepts only canonical RLP, so the bytes are the block's).
 */
export function blockTransactionEncodings(raw: Uint8Array, path = 'block'): Uint8Array[] {
  const block = listItem(rlpDecode(raw, path), path);
  if (block.length < 3) bad(path, `expected header, transactions and ommers, found ${block.length} fields`);
  return listItem(block[1], `${path}.transactions`).map((t, i) => (t instanceof Uint8Array ? t : RLP.encode(t as Item)));
}
