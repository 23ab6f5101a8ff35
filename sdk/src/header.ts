/**
 * Block headers, Frontier to Prague: keccak256(RLP(header)) must equal the trusted hash.
 */
import { RLP } from '@ethereumjs/rlp';

import { VerificationError, wasmCall } from './errors.js';
import { bigIntToMinimalBytes, bytesArg, bytesToHex, hexToBigInt, hexToBytes } from './hex.js';
import { wasmOf } from './init.js';

/** The fields every header layout has, integers as `Int`. */
interface HeaderFields<Int> {
  parentHash: string;
  sha3Uncles: string;
  miner: string;
  stateRoot: string;
  transactionsRoot: string;
  receiptsRoot: string;
  logsBloom: string;
  difficulty: Int;
  number: Int;
  gasLimit: Int;
  gasUsed: Int;
  timestamp: Int;
  extraData: string;
  mixHash: string;
  nonce: string;
}

/** A block object from `eth_getBlockByNumber` / `eth_getBlockByHash` (other fields are ignored). */
export interface BlockHeaderJson extends HeaderFields<string> {
  baseFeePerGas?: string | null;
  withdrawalsRoot?: string | null;
  blobGasUsed?: string | null;
  excessBlobGas?: string | null;
  parentBeaconBlockRoot?: string | null;
  requestsHash?: string | null;
  [other: string]: unknown;
}

/** The field layouts, by the fork that introduced them. */
export type HeaderLayout = 'frontier' | 'london' | 'shanghai' | 'cancun' | 'prague';

/** A header whose hash was checked. Hashes are lowercase hex, integers bigint. */
export interface VerifiedHeader extends HeaderFields<bigint> {
  hash: string;
  layout: HeaderLayout;
  baseFeePerGas?: bigint;
  withdrawalsRoot?: string;
  blobGasUsed?: bigint;
  excessBlobGas?: bigint;
  parentBeaconBlockRoot?: string;
  requestsHash?: string;
}

type Kind = ['data', number | null] | ['uint', number];

/** The header fields in RLP order with their JSON types (width in bytes, or bits for integers). */
const FIELDS: readonly (readonly [string, Kind])[] = [
  ['parentHash', ['data', 32]],
  ['sha3Uncles', ['data', 32]],
  ['miner', ['data', 20]],
  ['stateRoot', ['data', 32]],
  ['transactionsRoot', ['data', 32]],
  ['receiptsRoot', ['data', 32]],
  ['logsBloom', ['data', 256]],
  ['difficulty', ['uint', 256]],
  ['number', ['uint', 64]],
  ['gasLimit', ['uint', 64]],
  ['gasUsed', ['uint', 64]],
  ['timestamp', ['uint', 64]],
  ['extraData', ['data', null]],
  ['mixHash', ['data', 32]],
  ['nonce', ['data', 8]],
  ['baseFeePerGas', ['uint', 256]],
  ['withdrawalsRoot', ['data', 32]],
  ['blobGasUsed', ['uint', 64]],
  ['excessBlobGas', ['uint', 64]],
  ['parentBeaconBlockRoot', ['data', 32]],
  ['requestsHash', ['data', 32]],
];

const LAYOUTS: Partial<Record<number, HeaderLayout>> = {
  15: 'frontier',
  16: 'london',
  17: 'shanghai',
  20: 'cancun',
  21: 'prague',
};

/** Parses a header and returns its fields and canonical RLP. */
export function encodeHeader(json: unknown): { rlp: Uint8Array; header: Omit<VerifiedHeader, 'hash'> } {
  if (typeof json !== 'object' || json === null) {
    throw new VerificationError('BAD_ENCODING', 'header: expected an object', { field: 'header' });
  }
  const o = json as Record<string, unknown>;
  const items: Uint8Array[] = [];
  const out: Record<string, unknown> = {};
  let gap: string | undefined;
  for (const [name, [kind, width]] of FIELDS) {
    const v = o[name];
    if (v === undefined || v === null) {
      if (items.length < 15) throw new VerificationError('BAD_ENCODING', `${name}: missing`, { field: name });
      gap ??= name;
      continue;
    }
    if (gap !== undefined) {
      throw new VerificationError('BAD_HEADER_LAYOUT', `${name} is present but ${gap} is not: no known header layout`, { field: name });
    }
    if (kind === 'data') {
      const b = hexToBytes(v, name, 'network', width ?? undefined);
      items.push(b);
      out[name] = bytesToHex(b);
    } else {
      const n = hexToBigInt(v, name, 'network', width);
      items.push(bigIntToMinimalBytes(n));
      out[name] = n;
    }
  }
  const layout = LAYOUTS[items.length];
  if (layout === undefined) {
    throw new VerificationError('BAD_HEADER_LAYOUT', `no known header layout has ${items.length} fields`, { field: 'header' });
  }
  out['layout'] = layout;
  return { rlp: RLP.encode(items), header: out as unknown as Omit<VerifiedHeader, 'hash'> };
}

/** The canonical RLP of a verified header (its hash is keccak256 of it). */
export function headerRlp(h: VerifiedHeader): Uint8Array {
  const fields = h as unknown as Record<string, unknown>;
  const items: Uint8Array[] = [];
  for (const [name, [kind]] of FIELDS) {
    const v = fields[name];
    if (v === undefined) break;
    items.push(kind === 'data' ? hexToBytes(v, name) : bigIntToMinimalBytes(v as bigint));
  }
  return RLP.encode(items);
}

/**
 * Checks that a block object from `eth_getBlockByNumber` hashes to `expectedHash` and returns
 * its fields. Throws {@link VerificationError}: `HEADER_HASH_MISMATCH`, `BAD_HEADER_LAYOUT` or
 * `BAD_ENCODING` (with the field). Requires `await init()`.
 */
export function verifyHeader(header: BlockHeaderJson | unknown, expectedHash: string | Uint8Array): VerifiedHeader {
  const expected = bytesArg(expectedHash, 'expectedHash', 32);
  const wasm = wasmOf('header');
  const { rlp, header: fields } = encodeHeader(header);
  wasmCall(() => wasm.verifyHeaderRlp(rlp, expected));
  return { hash: bytesToHex(expected), ...fields };
}
