/**
 * Ethereum's consensus encodings of transactions and receipts (EIP-2718 envelopes, types 0–4)
 * from their JSON-RPC objects — what a header's `transactionsRoot` and `receiptsRoot` commit to
 * (the ordered trie of these bytes, {@link orderedTrieRoot}). Fields a node adds that no
 * encoding covers (`hash`, `from`, `blockHash`, `gasUsed`, …) are ignored; every field the
 * encoding needs is checked, and its absence is `BAD_ENCODING` naming it.
 */
import { RLP } from '@ethereumjs/rlp';

import { VerificationError } from './errors.js';
import { bytesToHex, hexToBigInt, hexToBytes } from './hex.js';

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

/**
 * Each transaction type's RLP fields in order, as JSON-RPC names them; the last three are the
 * signature (`yParity` stands for `v` where a typed transaction's object has only `v`).
 */
const FIELDS: readonly (readonly string[])[] = [
  ['nonce', 'gasPrice', 'gas', 'to', 'value', 'input', 'v', 'r', 's'],
  ['chainId', 'nonce', 'gasPrice', 'gas', 'to', 'value', 'input', 'accessList', 'yParity', 'r', 's'],
  ['chainId', 'nonce', 'maxPriorityFeePerGas', 'maxFeePerGas', 'gas', 'to', 'value', 'input', 'accessList', 'yParity', 'r', 's'],
  ['chainId', 'nonce', 'maxPriorityFeePerGas', 'maxFeePerGas', 'gas', 'to', 'value', 'input', 'accessList', 'maxFeePerBlobGas', 'blobVersionedHashes', 'yParity', 'r', 's'],
  ['chainId', 'nonce', 'maxPriorityFeePerGas', 'maxFeePerGas', 'gas', 'to', 'value', 'input', 'accessList', 'authorizationList', 'yParity', 'r', 's'],
];
/** An EIP-7702 authorization's RLP fields. */
const AUTHORIZATION = ['chainId', 'address', 'nonce', 'yParity', 'r', 's'];

/** One field of a transaction object as its RLP item. */
function fieldItem(o: Json, name: string, path: string): Item {
  switch (name) {
    case 'to':
      return to(o, path);
    case 'input':
      return data(o, 'input', path);
    case 'accessList':
      return accessList(o, path);
    case 'yParity':
      return yParity(o, path);
    case 'blobVersionedHashes':
      return list(o, name, path).map((h, i) => hexToBytes(h, `${path}.${name}[${i}]`, 'network', 32));
    case 'authorizationList':
      return list(o, name, path).map((e, i) => {
        const a = object(e, `${path}.${name}[${i}]`);
        const p = `${path}.${name}[${i}]`;
        return AUTHORIZATION.map((f) => (f === 'address' ? data(a, f, p, 20) : f === 'yParity' ? yParity(a, p) : quantity(a, f, p, f === 'nonce' ? 64 : 256)));
      });
    default:
      return quantity(o, name, path);
  }
}

/** A transaction's type, the fields its sender signed, and its signature fields. */
function transactionParts(json: unknown, path: string): { type: number; unsigned: Item[]; sig: Uint8Array[] } {
  const o = object(json, path);
  const type = typeOf(o, path);
  const items = (FIELDS[type] as readonly string[]).map((name) => fieldItem(o, name, path));
  return { type, unsigned: items.slice(0, -3), sig: items.slice(-3) as Uint8Array[] };
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

const bad = (path: string, why: string): VerificationError => new VerificationError('BAD_ENCODING', `${path}: ${why}`, { field: path });
const quantityHex = (b: Uint8Array): string => '0x' + big(b).toString(16);

/** `encoded` split into its EIP-2718 type (0: a legacy RLP list) and its RLP fields. */
function envelopeItems(encoded: Uint8Array, path: string): { type: number; items: Item[] } {
  if (!(encoded instanceof Uint8Array) || encoded.length === 0) throw bad(path, 'empty');
  const type = encoded[0]! < 0x80 ? encoded[0]! : 0;
  let items: unknown;
  try {
    items = RLP.decode(type === 0 ? encoded : encoded.subarray(1));
  } catch (err) {
    throw new VerificationError('BAD_ENCODING', `${path}: ${(err as Error).message}`, { field: path, cause: err });
  }
  if (!Array.isArray(items)) throw bad(path, 'not an RLP list');
  return { type, items: items as Item[] };
}

const bytesOf = (item: Item | undefined, path: string): Uint8Array => {
  if (!(item instanceof Uint8Array)) throw bad(path, 'expected a byte string');
  return item;
};
const listOf = (item: Item | undefined, path: string): Item[] => {
  if (!Array.isArray(item)) throw bad(path, 'expected a list');
  return item;
};

/** One RLP item of a transaction as its JSON-RPC field (the inverse of `fieldItem`). */
function fieldJson(name: string, item: Item | undefined, path: string): unknown {
  const p = `${path}.${name}`;
  switch (name) {
    case 'to': {
      const b = bytesOf(item, p);
      return b.length === 0 ? null : bytesToHex(b);
    }
    case 'input':
      return bytesToHex(bytesOf(item, p));
    case 'accessList':
      return listOf(item, p).map((e, i) => {
        const [address, keys] = listOf(e, `${p}[${i}]`);
        return { address: bytesToHex(bytesOf(address, `${p}[${i}].address`)), storageKeys: listOf(keys, `${p}[${i}].storageKeys`).map((k, j) => bytesToHex(bytesOf(k, `${p}[${i}].storageKeys[${j}]`))) };
      });
    case 'blobVersionedHashes':
      return listOf(item, p).map((h, i) => bytesToHex(bytesOf(h, `${p}[${i}]`)));
    case 'authorizationList':
      return listOf(item, p).map((e, i) => {
        const a = listOf(e, `${p}[${i}]`);
        return Object.fromEntries(AUTHORIZATION.map((f, k) => [f, f === 'address' ? bytesToHex(bytesOf(a[k], `${p}[${i}].${f}`)) : quantityHex(bytesOf(a[k], `${p}[${i}].${f}`))]));
      });
    default:
      return quantityHex(bytesOf(item, p));
  }
}

/**
 * A transaction's JSON-RPC fields from its EIP-2718 encoding (types 0–4; for EIP-155 legacy
 * transactions also `chainId`, for typed ones `v` = `yParity`): the inverse of
 * {@link encodeTransaction}, which must give back the same bytes, so only the one canonical
 * encoding decodes. Anything else is `BAD_ENCODING` naming `path`.
 */
export function decodeTransaction(encoded: Uint8Array, path = 'transaction'): Record<string, unknown> {
  const { type, items } = envelopeItems(encoded, path);
  const names = FIELDS[type];
  if (!names) throw bad(`${path}.type`, `unknown transaction type ${type}`);
  if (items.length !== names.length) throw bad(path, `a type ${type} transaction has ${names.length} fields, not ${items.length}`);
  const o: Record<string, unknown> = { type: '0x' + type.toString(16) };
  names.forEach((name, i) => (o[name] = fieldJson(name, items[i], path)));
  if (type !== 0) o['v'] = o['yParity'];
  else if (big(bytesOf(items[6], `${path}.v`)) >= 35n) o['chainId'] = '0x' + ((big(items[6] as Uint8Array) - 35n) >> 1n).toString(16);
  requireCanonical(encodeTransaction(o, path), encoded, path);
  return o;
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

/** A canonical quantity of at most `bytes` bytes. */
function scalar(b: Uint8Array, path: string, bytes: number): bigint {
  if (b.length > bytes || (b.length > 0 && b[0] === 0)) throw bad(path, 'not a canonical quantity');
  return big(b);
}

/**
 * A receipt's fields from its EIP-2718 encoding, as bytes (for receipts already checked against
 * a root, read many at a time): `BAD_ENCODING` naming `path` for anything that is not a receipt.
 */
export function readReceipt(encoded: Uint8Array, path = 'receipt'): DecodedReceipt {
  const { type, items } = envelopeItems(encoded, path);
  if (type > 4) throw bad(`${path}.type`, `unknown receipt type ${type}`);
  if (items.length !== 4) throw bad(path, `a receipt has 4 fields, not ${items.length}`);
  const outcome = bytesOf(items[0], `${path}.status`);
  const isRoot = outcome.length === 32;
  if (!isRoot && outcome.length > 1) throw bad(`${path}.status`, 'neither a status nor a state root');
  const logsBloom = bytesOf(items[2], `${path}.logsBloom`);
  if (logsBloom.length !== 256) throw bad(`${path}.logsBloom`, `expected 256 bytes, found ${logsBloom.length}`);
  return {
    type,
    status: isRoot ? undefined : Number(scalar(outcome, `${path}.status`, 1)),
    root: isRoot ? outcome : undefined,
    cumulativeGasUsed: scalar(bytesOf(items[1], `${path}.cumulativeGasUsed`), `${path}.cumulativeGasUsed`, 8),
    logsBloom,
    logs: listOf(items[3], `${path}.logs`).map((l, i) => {
      const p = `${path}.logs[${i}]`;
      const fields = listOf(l, p);
      if (fields.length !== 3) throw bad(p, `a log has 3 fields, not ${fields.length}`);
      const address = bytesOf(fields[0], `${p}.address`);
      if (address.length !== 20) throw bad(`${p}.address`, `expected 20 bytes, found ${address.length}`);
      return {
        address,
        topics: listOf(fields[1], `${p}.topics`).map((t, j) => {
          const topic = bytesOf(t, `${p}.topics[${j}]`);
          if (topic.length !== 32) throw bad(`${p}.topics[${j}]`, `expected 32 bytes, found ${topic.length}`);
          return topic;
        }),
        data: bytesOf(fields[2], `${p}.data`),
      };
    }),
  };
}

/**
 * A receipt's JSON-RPC fields (`type`, `status` or pre-Byzantium `root`, `cumulativeGasUsed`,
 * `logsBloom`, `logs`) from its EIP-2718 encoding: the inverse of {@link encodeReceipt}, which
 * must give back the same bytes. Anything else is `BAD_ENCODING` naming `path`.
 */
export function decodeReceipt(encoded: Uint8Array, path = 'receipt'): Record<string, unknown> {
  const r = readReceipt(encoded, path);
  const o: Record<string, unknown> = {
    type: '0x' + r.type.toString(16),
    ...(r.root !== undefined ? { root: bytesToHex(r.root) } : { status: '0x' + (r.status ?? 0).toString(16) }),
    cumulativeGasUsed: '0x' + r.cumulativeGasUsed.toString(16),
    logsBloom: bytesToHex(r.logsBloom),
    logs: r.logs.map((l) => ({ address: bytesToHex(l.address), topics: l.topics.map(bytesToHex), data: bytesToHex(l.data) })),
  };
  requireCanonical(encodeReceipt(o, path), encoded, path);
  return o;
}

/**
 * The consensus encodings of the transactions of a block's RLP (`debug_getRawBlock`): typed
 * transactions are byte strings in it, legacy ones lists, re-encoded here (the strict decoder
 * accepts only canonical RLP, so the bytes are the block's).
 */
export function blockTransactionEncodings(raw: Uint8Array, path = 'block'): Uint8Array[] {
  let block: unknown;
  try {
    block = RLP.decode(raw);
  } catch (err) {
    throw new VerificationError('BAD_ENCODING', `${path}: ${(err as Error).message}`, { field: path, cause: err });
  }
  const fields = listOf(block as Item, path);
  if (fields.length < 3) throw bad(path, `expected header, transactions and ommers, found ${fields.length} fields`);
  return listOf(fields[1], `${path}.transactions`).map((t) => (t instanceof Uint8Array ? t : RLP.encode(t)));
}

function requireCanonical(again: Uint8Array, encoded: Uint8Array, path: string): void {
  if (again.length !== encoded.length || again.some((b, i) => b !== encoded[i])) throw bad(path, 'not the canonical encoding of its fields');
}
