/**
 * Ethereum Merkle-Patricia trie proofs: EIP-1186 account proofs (`eth_getProof`) and single
 * trie proofs, verified in WebAssembly.
 */
import { type BlockTag, uint64Arg } from '../args.js';
import { VerificationError, wasmCall } from '../errors.js';
import type { VerifiedHeader } from '../header.js';
import { bigIntToBytes, bytesArg, bytesToHex, hexToBigInt, hexToBytes, readU32, slotToHex } from '../hex.js';
import { type StateKey, changesFromValues } from '../history.js';
import { loadFamily, wasmOf } from '../init.js';
import type { Endpoint } from '../transport.js';
import type { Family, FamilyContext, VerifiedHistory, VerifiedValue } from './family.js';

/** One storage slot of an `eth_getProof` answer. */
export interface StorageProofJson {
  key: string;
  value: string;
  proof: readonly string[];
}

/** The `result` of `eth_getProof`, as JSON-RPC returns it. */
export interface AccountProofJson {
  address: string;
  balance: string;
  nonce: string;
  codeHash: string;
  storageHash: string;
  accountProof: readonly string[];
  storageProof: readonly StorageProofJson[];
}

/** A storage slot's value, proven. */
export interface VerifiedSlot {
  /** The slot, as 32-byte hex. */
  key: string;
  /** Its value (0n for an absent slot). */
  value: bigint;
}

/** An account, proven against a state root. */
export interface VerifiedAccount {
  /** Lowercase hex address. */
  address: string;
  /** False when the proof shows that no account exists at this address. */
  exists: boolean;
  balance: bigint;
  nonce: bigint;
  /** keccak256 of the code (of the empty string for accounts without code). */
  codeHash: string;
  /** The storage trie root. */
  storageHash: string;
  /** The requested slots, in the order of the proof. */
  storage: VerifiedSlot[];
}

const VERSION = 1;
/** A 32-byte key path has 64 nibbles: at most 65 hashed nodes. */
const MAX_NODES = 65;
/** The wire format counts storage proofs in a u16. */
const MAX_STORAGE_PROOFS = 0xffff;
const KECCAK_EMPTY = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';
const EMPTY_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

function obj(v: unknown, field: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new VerificationError('BAD_ENCODING', `${field}: expected an object`, { field });
  }
  return v as Record<string, unknown>;
}

function nodeList(v: unknown, field: string, max = MAX_NODES, key = 'any 32-byte key'): Uint8Array[] {
  if (!Array.isArray(v)) throw new VerificationError('BAD_ENCODING', `${field}: expected an array of hex strings`, { field });
  if (v.length > max) {
    throw new VerificationError('BAD_ENCODING', `${field}: more nodes than ${key} path has`, { field });
  }
  return v.map((n, i) => hexToBytes(n, `${field}[${i}]`));
}

/** Encodes the wire format: big-endian integers, `Nodes` = `count:u16 { len:u32 node }*`. */
class Writer {
  private buf: Uint8Array;
  pos = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
  }
  bytes(b: Uint8Array): void {
    if (b.length < 64) for (let i = 0; i < b.length; i++) this.buf[this.pos + i] = b[i] as number;
    else this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  uint(v: number, width: number): void {
    for (let i = width - 1; i >= 0; i--) {
      this.buf[this.pos + i] = v & 0xff;
      v = Math.floor(v / 256);
    }
    this.pos += width;
  }
  u16(v: number): void {
    this.uint(v, 2);
  }
  u64(v: bigint): void {
    this.uint(Number(v >> 32n), 4);
    this.uint(Number(v & 0xffffffffn), 4);
  }
  nodes(ns: readonly Uint8Array[]): void {
    this.u16(ns.length);
    for (const n of ns) {
      this.uint(n.length, 4);
      this.bytes(n);
    }
  }
  done(): Uint8Array {
    return this.pos === this.buf.length ? this.buf : this.buf.subarray(0, this.pos);
  }
}

const nodesSize = (ns: readonly Uint8Array[]): number => ns.reduce((s, n) => s + 4 + n.length, 2);

/** Packs a node list into the `Nodes` wire format. */
export function encodeNodes(nodes: readonly Uint8Array[]): Uint8Array {
  const w = new Writer(nodesSize(nodes));
  w.nodes(nodes);
  return w.done();
}

interface ParsedSlot {
  key: Uint8Array;
  value: bigint;
  proof: Uint8Array[];
}

interface ParsedProof {
  address: Uint8Array;
  balance: bigint;
  nonce: bigint;
  codeHash: Uint8Array;
  storageHash: Uint8Array;
  accountProof: Uint8Array[];
  storageProof: ParsedSlot[];
}

/** Parses an `eth_getProof` answer; every malformed field is a `BAD_ENCODING` naming it. */
export function parseAccountProof(json: unknown): ParsedProof {
  const o = obj(json, 'proof');
  const storage = o['storageProof'];
  if (!Array.isArray(storage)) throw new VerificationError('BAD_ENCODING', 'storageProof: expected an array', { field: 'storageProof' });
  if (storage.length > MAX_STORAGE_PROOFS) {
    throw new VerificationError('BAD_ENCODING', 'storageProof: more than 65535 storage proofs', { field: 'storageProof' });
  }
  const storageProof = storage.map((s: unknown, i) => {
    const p = `storageProof[${i}]`;
    const so = obj(s, p);
    return {
      key: bigIntToBytes(hexToBigInt(so['key'], `${p}.key`), 32),
      value: hexToBigInt(so['value'], `${p}.value`),
      proof: nodeList(so['proof'], `${p}.proof`),
    };
  });
  return {
    address: hexToBytes(o['address'], 'address', 'network', 20),
    balance: hexToBigInt(o['balance'], 'balance'),
    nonce: hexToBigInt(o['nonce'], 'nonce', 'network', 64),
    codeHash: hexToBytes(o['codeHash'], 'codeHash', 'network', 32),
    storageHash: hexToBytes(o['storageHash'], 'storageHash', 'network', 32),
    accountProof: nodeList(o['accountProof'], 'accountProof'),
    storageProof,
  };
}

/** The compact wire format of an account proof (docs/proofs.md). */
export function encodeAccountProof(p: ParsedProof): Uint8Array {
  const size =
    1 + 20 + 32 + 8 + 32 + 32 + nodesSize(p.accountProof) + 2 +
    p.storageProof.reduce((s, x) => s + 64 + nodesSize(x.proof), 0);
  const w = new Writer(size);
  w.bytes(Uint8Array.of(VERSION));
  w.bytes(p.address);
  w.bytes(bigIntToBytes(p.balance, 32));
  w.u64(p.nonce);
  w.bytes(p.codeHash);
  w.bytes(p.storageHash);
  w.nodes(p.accountProof);
  w.u16(p.storageProof.length);
  for (const s of p.storageProof) {
    w.bytes(s.key);
    w.bytes(bigIntToBytes(s.value, 32));
    w.nodes(s.proof);
  }
  return w.done();
}

/**
 * Verifies an `eth_getProof` answer against a trusted state root and returns the account and
 * slots it proves. Throws {@link VerificationError} (with `code` and `field`) if anything in it
 * does not check out. Requires `await init()`.
 *
 * @example
 * await init();
 * const account = verifyAccountProof(await provider.send('eth_getProof', [addr, [], hash]), header.stateRoot);
 * account.balance; // bigint, proven
 */
export function verifyAccountProof(proof: AccountProofJson | unknown, stateRoot: string | Uint8Array): VerifiedAccount {
  const root = bytesArg(stateRoot, 'stateRoot', 32);
  const wasm = wasmOf('mpt');
  const p = parseAccountProof(proof);
  const exists = wasmCall(() => wasm.verifyAccountProof(encodeAccountProof(p), root));
  return {
    address: bytesToHex(p.address),
    exists,
    balance: p.balance,
    nonce: p.nonce,
    codeHash: exists ? bytesToHex(p.codeHash) : KECCAK_EMPTY,
    storageHash: exists ? bytesToHex(p.storageHash) : EMPTY_ROOT,
    storage: p.storageProof.map((s) => ({ key: bytesToHex(s.key), value: s.value })),
  };
}

/**
 * Verifies one trie proof: that `proof` (RLP nodes from the root down) proves `key` (the trie
 * path, at most 32 bytes; for Ethereum's tries, keccak256 of the address or slot) holds `value`
 * (the raw stored bytes), or is absent when `value` is `null`. Requires `await init()`.
 */
export function verifyMptProof(
  root: string | Uint8Array,
  key: Uint8Array,
  proof: readonly Uint8Array[],
  value: Uint8Array | null,
): void {
  const r = bytesArg(root, 'root', 32);
  if (!(key instanceof Uint8Array)) throw new TypeError('key: expected a Uint8Array');
  if (key.length > 32) throw new RangeError(`key: at most 32 bytes, got ${key.length}`);
  if (value !== null && !(value instanceof Uint8Array)) throw new TypeError('value: expected a Uint8Array or null');
  if (!Array.isArray(proof) || !proof.every((n) => n instanceof Uint8Array)) {
    throw new TypeError('proof: expected an array of Uint8Array');
  }
  if (proof.length > MAX_NODES) {
    throw new VerificationError('BAD_ENCODING', 'proof: more nodes than any 32-byte key path has', { field: 'proof' });
  }
  const wasm = wasmOf('mpt');
  wasmCall(() => wasm.verifyMptProof(r, key, encodeNodes(proof), value ?? undefined));
}

/** The answer of `lightprov_getTransactionProof`: a block's transaction and receipt at an index, with their proofs. */
export interface TransactionProofJson {
  blockNumber: string;
  blockHash: string;
  index: string;
  /** EIP-2718 hex; `null` past the block's end. */
  transaction: string | null;
  receipt: string | null;
  transactionProof: readonly string[];
  receiptProof: readonly string[];
}

/** A transaction and its receipt as a block's tries hold them (EIP-2718 encodings). */
export interface ProvenTransactionBytes {
  transaction: Uint8Array;
  receipt: Uint8Array;
}

const TRANSACTION_PROOF_VERSION = 1;
/** An index below 2^64 has an RLP key of at most 18 nibbles: at most 19 hashed nodes. */
const MAX_INDEXED_NODES = 19;

/** The wire format of a transaction proof (docs/proofs.md). */
export function encodeTransactionProof(index: bigint, transactionProof: readonly Uint8Array[], receiptProof: readonly Uint8Array[]): Uint8Array {
  const w = new Writer(1 + 8 + nodesSize(transactionProof) + nodesSize(receiptProof));
  w.bytes(Uint8Array.of(TRANSACTION_PROOF_VERSION));
  w.u64(index);
  w.nodes(transactionProof);
  w.nodes(receiptProof);
  return w.done();
}

/** A claimed transaction or receipt: hex, or `null` for none. */
function claimOf(o: Record<string, unknown>, field: string): Uint8Array | null {
  if (o[field] === undefined) throw new VerificationError('BAD_ENCODING', `${field}: missing`, { field });
  return o[field] === null ? null : hexToBytes(o[field], field);
}

function requireClaim(claimed: Uint8Array | null, proven: Uint8Array | null, field: string): void {
  const same = claimed === null || proven === null ? claimed === proven : claimed.length === proven.length && claimed.every((b, i) => b === proven[i]);
  if (!same) {
    const show = (b: Uint8Array | null) => (b === null ? 'none' : bytesToHex(b));
    throw new VerificationError('VALUE_MISMATCH', `${field}: the node claims ${show(claimed).slice(0, 20)}…, the proof proves ${show(proven).slice(0, 20)}…`, { field, expected: show(proven), found: show(claimed) });
  }
}

/**
 * Verifies a `lightprov_getTransactionProof` answer against a block's `transactionsRoot` and
 * `receiptsRoot` (from a verified header) for `index` — and, when `hash` is given, that the
 * transaction there hashes to it. Returns the transaction and its receipt (EIP-2718 bytes), or
 * `null` when the proofs show the block holds no transaction at `index`. The answer's
 * `transaction` and `receipt` must be what the proofs prove (`VALUE_MISMATCH` otherwise).
 * Requires `await init()`.
 *
 * @example
 * const answer = await provider.send('lightprov_getTransactionProof', [header.hash, '0x3']);
 * const proven = verifyTransactionProof(answer, header, 3);
 */
export function verifyTransactionProof(
  proof: TransactionProofJson | unknown,
  roots: { transactionsRoot: string | Uint8Array; receiptsRoot: string | Uint8Array },
  index: bigint | number,
  hash?: string | Uint8Array,
): ProvenTransactionBytes | null {
  const txRoot = bytesArg(roots.transactionsRoot, 'transactionsRoot', 32);
  const receiptRoot = bytesArg(roots.receiptsRoot, 'receiptsRoot', 32);
  const i = uint64Arg(index, 'index', 'an index');
  const h = hash === undefined ? undefined : bytesArg(hash, 'hash', 32);
  const wasm = wasmOf('mpt');
  const o = obj(proof, 'proof');
  const wire = encodeTransactionProof(
    hexToBigInt(o['index'], 'index', 'network', 64),
    nodeList(o['transactionProof'], 'transactionProof', MAX_INDEXED_NODES, 'any RLP(index) key'),
    nodeList(o['receiptProof'], 'receiptProof', MAX_INDEXED_NODES, 'any RLP(index) key'),
  );
  const claims = [claimOf(o, 'transaction'), claimOf(o, 'receipt')] as const;
  const out = wasmCall(() => wasm.verifyTransactionProof(wire, txRoot, receiptRoot, i, h));
  let proven: ProvenTransactionBytes | null = null;
  if (out.length > 0) {
    const len = readU32(out, 0);
    proven = { transaction: out.subarray(4, 4 + len), receipt: out.subarray(4 + len) };
  }
  requireClaim(claims[0], proven && proven.transaction, 'transaction');
  requireClaim(claims[1], proven && proven.receipt, 'receipt');
  return proven;
}

/**
 * Checks that a verified answer is for the address and slots asked (a valid proof for another
 * account would verify too). Throws `KEY_MISMATCH` naming `address` or `storageProof`.
 */
export function checkAnswerIsFor(account: VerifiedAccount, address: string, slots: readonly string[]): void {
  if (account.address !== address) {
    throw new VerificationError('KEY_MISMATCH', `the proof is for ${account.address}, not ${address}`, { field: 'address' });
  }
  if (account.storage.length !== slots.length || account.storage.some((s, i) => s.key !== slots[i])) {
    throw new VerificationError('KEY_MISMATCH', 'the storage proofs are not for the slots asked', { field: 'storageProof' });
  }
}

/** The account, value and per-block history reads of a `StateKey`, by `eth_getProof`. */
function accountArgs(key: StateKey | undefined): { addr: string; slots: string[]; key: StateKey } {
  if (key === undefined) throw new TypeError('key: the mpt scheme needs a StateKey from client.keys (a bare state key hides the account)');
  const addr = bytesToHex(bytesArg(key.address, 'key.address', 20));
  const slots = key.kind === 'storage' ? [slotToHex(key.slot, 'key.slot')] : [];
  return { addr, slots, key };
}

function valueOf(account: VerifiedAccount, key: StateKey): bigint {
  return key.kind === 'balance' ? account.balance : key.kind === 'nonce' ? account.nonce : (account.storage[0]?.value ?? 0n);
}

/** The account at a verified header, from one node, verified and checked to be the one asked. */
export async function fetchAccount(ctx: FamilyContext, e: Endpoint, addr: string, slots: readonly string[], block: BlockTag) {
  await loadFamily('mpt');
  const header = await ctx.chain.headerAt(e, block);
  const raw = await ctx.net.call(e, 'eth_getProof', [addr, slots, { blockHash: header.hash }]);
  const t0 = performance.now();
  const account = check(raw, header, addr, slots);
  return { account, header, raw, verifyMs: performance.now() - t0 };
}

/** Verifies an `eth_getProof` answer against a verified header, and that it is for the account and slots asked. */
function check(raw: unknown, header: VerifiedHeader, addr: string, slots: readonly string[]): VerifiedAccount {
  const account = verifyAccountProof(raw, header.stateRoot);
  checkAnswerIsFor(account, addr, slots);
  return account;
}

/** The MPT family's reader: fetch → verify → typed result. */
export const mpt: Family = {
  name: 'mpt',
  valueSchemes: ['mpt'],
  historySchemes: ['mpt'],
  describe: {
    mpt: { label: 'MPT', what: 'one eth_getProof per block, each against its own header’s stateRoot (the baseline)' },
  },
  async value(ctx, e, _stateKey, k, block): Promise<VerifiedValue> {
    const { addr, slots, key } = accountArgs(k);
    const { account, header, raw, verifyMs } = await fetchAccount(ctx, e, addr, slots, block);
    return { value: valueOf(account, key), scheme: 'mpt', block: header.number, anchor: header, proofBytes: JSON.stringify(raw).length, verifyMs, raw };
  },
  /** The MPT baseline: one verified `eth_getProof` per block, in batches. */
  async history(ctx, e, stateKey, k, from, to): Promise<VerifiedHistory> {
    const { addr, slots, key } = accountArgs(k);
    await loadFamily('mpt');
    const anchor = await ctx.chain.headerAt(e, to);
    const headers: VerifiedHeader[] = [];
    for (let b = from; b <= to; b++) headers.push(await ctx.chain.headerAt(e, b));
    const values: bigint[] = [];
    const raw: unknown[] = [];
    let proofBytes = 0;
    let verifyMs = 0;
    for (let i = 0; i < headers.length; i += ctx.batchSize) {
      const chunk = headers.slice(i, i + ctx.batchSize);
      const answers = await ctx.net.batch(
        e,
        'eth_getProof',
        chunk.map((h) => [addr, slots, { blockHash: h.hash }]),
      );
      answers.forEach((proof, j) => {
        const header = chunk[j];
        if (!header) return;
        const t0 = performance.now();
        const account = check(proof, header, addr, slots);
        verifyMs += performance.now() - t0;
        proofBytes += JSON.stringify(proof).length;
        raw.push(proof);
        values.push(valueOf(account, key));
      });
    }
    const points = changesFromValues(values, from);
    return { points, scheme: 'mpt', fromBlock: from, toBlock: to, anchor, proofBytes, verifyMs, raw, stateKey, key };
  },
  /** The answer for the range's last block, the one `anchor` (the header of `toBlock`) is checked against. */
  historyProof(h) {
    const answers = Array.isArray(h.raw) ? (h.raw as unknown[]) : [];
    const proof = answers[answers.length - 1];
    return { proof, bytes: JSON.stringify(proof ?? null).length, what: `eth_getProof answer for block #${h.toBlock} (the last of ${h.toBlock - h.fromBlock + 1n})` };
  },
  reverify(_ctx, h, proof) {
    const { addr, slots } = accountArgs(h.key);
    check(proof, h.anchor, addr, slots);
  },
};
