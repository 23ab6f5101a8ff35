/**
 * Transactions and receipts by hash, verified: the node says which block holds the transaction;
 * that block's header must be on the verified chain, its transactions must rebuild the header's
 * `transactionsRoot` with the transaction's keccak256 among them, and its receipts the
 * `receiptsRoot`. The sender is recovered from the signature. A hash no node can place is
 * reported as not found — which proves nothing: a node may hide a transaction, never forge one.
 *
 * By block and index (`lightprov_getTransactionProof`), one trie proof each proves the
 * transaction and its receipt — or that the block holds none at that index — without fetching
 * the block's other transactions and receipts.
 */
import { RLP } from '@ethereumjs/rlp';

import { type BlobSchedule, GAS_PER_BLOB, blobBaseFee } from './blobs.js';
import type { HeaderChain } from './chain.js';
import { decodeTransaction, readReceipt, signedPayload } from './envelope.js';
import { RpcError, VerificationError, wasmCall } from './errors.js';
import type { VerifiedHeader } from './header.js';
import { bigIntToBytes, bytesToHex, hexToBigInt, hexToBytes } from './hex.js';
import { loadFamily, wasmOf } from './init.js';
import { type ProvenTransactionBytes, verifyTransactionProof } from './families/mpt.js';
import { type BlockTransactions, type VerifiedLog, type VerifiedReceipt, blockReceipts, blockTransactions, receiptAt } from './logs.js';
import type { Endpoint, Transport } from './transport.js';

/** A transaction, verified: every field its encoding holds, its sender and where it sits. */
export interface VerifiedTransaction {
  hash: string;
  blockHash: string;
  blockNumber: bigint;
  /** The verified header's timestamp (geth's `blockTimestamp`). */
  blockTimestamp: bigint;
  transactionIndex: number;
  /** Recovered from the signature. */
  from: string;
  /** What was paid per gas: `gasPrice`, or for fee-market types min(maxFeePerGas, baseFee + tip). */
  effectiveGasPrice: bigint;
  /** The transaction's JSON-RPC fields that its encoding covers (`nonce`, `to`, `value`, `input`, fees, …). */
  fields: Readonly<Record<string, unknown>>;
}

/** A receipt, verified, with what follows from its transaction and its place. */
export interface VerifiedTransactionReceipt extends VerifiedReceipt {
  blockHash: string;
  blockNumber: bigint;
  from: string;
  to: string | null;
  /** This transaction's gas: its cumulative gas minus the previous receipt's. */
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  /** The created contract's address (keccak256(RLP([sender, nonce]))[12..]) when `to` is null. */
  contractAddress: string | null;
  /** A blob transaction's blob gas: 131072 per blob hash it carries. */
  blobGasUsed?: bigint;
  /**
   * A blob transaction's price per blob gas: the blob base fee of the verified header's
   * `excessBlobGas` under the client's `blobSchedule` (absent without one).
   */
  blobGasPrice?: bigint;
}

/** The encoding fields of each transaction type, as JSON-RPC names them. */
const SIGNED = ['type', 'chainId', 'nonce', 'gas', 'to', 'value', 'input', 'v', 'r', 's', 'yParity'];
const BY_TYPE: Record<number, string[]> = {
  0: ['gasPrice'],
  1: ['gasPrice', 'accessList'],
  2: ['maxPriorityFeePerGas', 'maxFeePerGas', 'accessList'],
  3: ['maxPriorityFeePerGas', 'maxFeePerGas', 'accessList', 'maxFeePerBlobGas', 'blobVersionedHashes'],
  4: ['maxPriorityFeePerGas', 'maxFeePerGas', 'accessList', 'authorizationList'],
};

const keccak = (b: Uint8Array): Uint8Array => wasmCall(() => wasmOf('mpt').keccak256(b));

/** secp256k1's group order. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * The address that signed `json` (a transaction object), recovered from its signature. A
 * signature with a high `s` (allowed before Homestead, so real in old mainnet blocks) is
 * recovered as its low-`s` twin (`n − s`, the other parity), which names the same key.
 */
export function transactionSender(json: unknown, path = 'transaction'): string {
  const { payload, signature } = signedPayload(json, path);
  const s = BigInt(bytesToHex(signature.subarray(32, 64)));
  if (s > SECP256K1_N >> 1n) {
    signature.set(bigIntToBytes(SECP256K1_N - s, 32), 32);
    signature[64] = signature[64]! ^ 1;
  }
  return bytesToHex(wasmCall(() => wasmOf('header').recoverAddress(keccak(payload), signature)));
}

/** What a transaction of this type paid per gas in a block of this base fee. */
function effectivePrice(fields: Readonly<Record<string, unknown>>, type: number, baseFee: bigint | undefined, path: string): bigint {
  if (type < 2) return hexToBigInt(fields['gasPrice'], `${path}.gasPrice`);
  const max = hexToBigInt(fields['maxFeePerGas'], `${path}.maxFeePerGas`);
  const tip = hexToBigInt(fields['maxPriorityFeePerGas'], `${path}.maxPriorityFeePerGas`);
  const base = baseFee ?? 0n;
  return base + tip < max ? base + tip : max;
}

/** The verified transaction `hash` of the verified block whose transactions are `block`. */
async function inBlock(header: VerifiedHeader, block: BlockTransactions, hash: string): Promise<VerifiedTransaction> {
  await loadFamily('header');
  const index = block.hashes.indexOf(hash);
  if (index < 0) {
    throw new VerificationError('VALUE_MISMATCH', `block ${header.number} (${header.hash}), where the node places transaction ${hash}, does not hold it`, { field: 'blockHash' });
  }
  return verifiedTransaction(header, block.encoded[index]!, index, hash, `transactions[${index}]`);
}

/**
 * The transaction whose encoding `encoded` is proven in `header`'s block at `index`, as verified:
 * its fields read back from those bytes (never from a node's object, whose fields the encoding
 * may not cover: a typed transaction's `v` beside its `yParity`, a legacy one's `chainId`).
 */
function verifiedTransaction(header: VerifiedHeader, encoded: Uint8Array, index: number, hash: string, path: string): VerifiedTransaction {
  const json = decodeTransaction(encoded, path);
  const type = encoded[0]! < 0x80 ? encoded[0]! : 0;
  const fields = Object.fromEntries([...SIGNED, ...(BY_TYPE[type] ?? [])].filter((k) => json[k] !== undefined).map((k) => [k, json[k]]));
  return {
    hash,
    blockHash: header.hash,
    blockNumber: header.number,
    blockTimestamp: header.timestamp,
    transactionIndex: index,
    from: transactionSender(json, path),
    effectiveGasPrice: effectivePrice(fields, type, header.baseFeePerGas, path),
    fields,
  };
}

/**
 * The transactions of the verified block `header` (`block`: its transactions, checked against
 * its `transactionsRoot`), each with its sender recovered and what it paid per gas.
 */
export async function verifiedTransactions(header: VerifiedHeader, block: BlockTransactions): Promise<VerifiedTransaction[]> {
  await loadFamily('header');
  return block.encoded.map((encoded, i) => verifiedTransaction(header, encoded, i, block.hashes[i] as string, `transactions[${i}]`));
}

/** Where a node places `hash`: the block (verified on the chain) and the verified transaction. */
export async function locateTransaction(net: Transport, chain: HeaderChain, e: Endpoint, hash: string): Promise<{ header: VerifiedHeader; tx: VerifiedTransaction; block: BlockTransactions }> {
  const t = (await net.call(e, 'eth_getTransactionByHash', [hash])) as { blockHash?: unknown; blockNumber?: unknown } | null;
  if (t === null || typeof t !== 'object' || t.blockHash === null || t.blockHash === undefined) {
    throw new RpcError('eth_getTransactionByHash', -32001, `${e.url} has no block for transaction ${hash}`);
  }
  if (t.blockNumber !== undefined && t.blockNumber !== null) {
    // In a block after the verified head (a checkpoint's chain before the app adds a newer one,
    // a beacon chain's before its committee signs it): not yet in the verified chain.
    const n = hexToBigInt(t.blockNumber, 'blockNumber', 'network', 64);
    const head = await chain.headerAt(e, 'latest');
    if (n > head.number) throw new RpcError('eth_getTransactionByHash', -32001, `${e.url} has no block for transaction ${hash} in the verified chain (it names block ${n}, after the verified head ${head.number})`);
  }
  const blockHash = bytesToHex(hexToBytes(t.blockHash, 'blockHash', 'network', 32));
  const header = await chain.headerAt(e, { blockHash }, 'network');
  const block = await blockTransactions(net, e, header);
  return { header, tx: await inBlock(header, block, hash), block };
}

/** The receipt of the verified `tx` in `header`'s block. */
export async function receiptOf(
  net: Transport,
  e: Endpoint,
  header: VerifiedHeader,
  tx: VerifiedTransaction,
  block?: BlockTransactions,
  blobs?: BlobSchedule,
): Promise<VerifiedTransactionReceipt> {
  return receiptIn(header, await blockReceipts(net, e, header, block), tx, blobs);
}

/** The receipt of the verified `tx` among the verified `receipts` of `header`'s block. */
function receiptIn(header: VerifiedHeader, receipts: readonly VerifiedReceipt[], tx: VerifiedTransaction, blobs: BlobSchedule | undefined): VerifiedTransactionReceipt {
  const r = receipts[tx.transactionIndex];
  if (!r || r.transactionHash !== tx.hash) throw new VerificationError('VALUE_MISMATCH', `no receipt at index ${tx.transactionIndex} for ${tx.hash}`, { field: 'receipts' });
  const before = tx.transactionIndex === 0 ? 0n : (receipts[tx.transactionIndex - 1] as VerifiedReceipt).cumulativeGasUsed;
  return withTransaction(r, before, header, tx, blobs);
}

/**
 * The verified receipt `r` of `tx`, with what follows from it: `before` is the cumulative gas of
 * the receipt before it (0 for the first); a blob transaction's blob gas and its price (under
 * the schedule `blobs`).
 */
function withTransaction(r: VerifiedReceipt, before: bigint, header: VerifiedHeader, tx: VerifiedTransaction, blobs: BlobSchedule | undefined): VerifiedTransactionReceipt {
  const to = tx.fields['to'] === null || tx.fields['to'] === undefined ? null : bytesToHex(hexToBytes(tx.fields['to'], 'to'));
  const nonce = hexToBigInt(tx.fields['nonce'], 'nonce');
  const created = to === null ? bytesToHex(keccak(RLP.encode([hexToBytes(tx.from, 'from'), nonce])).subarray(12)) : null;
  const out: VerifiedTransactionReceipt = { ...r, blockHash: header.hash, blockNumber: header.number, from: tx.from, to, gasUsed: r.cumulativeGasUsed - before, effectiveGasPrice: tx.effectiveGasPrice, contractAddress: created };
  const hashes = tx.fields['blobVersionedHashes'];
  if (Array.isArray(hashes)) {
    out.blobGasUsed = BigInt(hashes.length) * GAS_PER_BLOB;
    const price = header.excessBlobGas === undefined ? undefined : blobBaseFee(blobs, header.timestamp, header.excessBlobGas);
    if (price !== undefined) out.blobGasPrice = price;
  }
  return out;
}

/** A receipt proven alone: as {@link VerifiedTransactionReceipt}, but its logs carry no block-wide `logIndex`, which needs every earlier receipt of the block. */
export interface IndexedReceipt extends Omit<VerifiedTransactionReceipt, 'logs'> {
  logs: Omit<VerifiedLog, 'logIndex'>[];
}

/** A block's transaction and receipt at an index, each proven against the verified header's roots. */
export interface IndexedTransaction {
  header: VerifiedHeader;
  transaction: VerifiedTransaction;
  receipt: IndexedReceipt;
}

const PROOF_METHOD = 'lightprov_getTransactionProof';

/** A `lightprov_getTransactionProof` answer for `index` of `header`'s block, verified. */
function provenAt(answer: unknown, header: VerifiedHeader, index: bigint): ProvenTransactionBytes | null {
  if (typeof answer !== 'object' || answer === null) throw new RpcError(PROOF_METHOD, -1, 'malformed response (expected an object)');
  const blockHash = bytesToHex(hexToBytes((answer as { blockHash?: unknown }).blockHash, 'blockHash', 'network', 32));
  if (blockHash !== header.hash) {
    throw new VerificationError('VALUE_MISMATCH', `the proof of index ${index} is for block ${blockHash}, not ${header.hash}`, { field: 'blockHash', expected: header.hash, found: blockHash });
  }
  return verifyTransactionProof(answer, header, index);
}

/** Endpoints that answered that they do not serve `lightprov_getTransactionProof` (-32601). */
const NO_TX_PROOF = new WeakSet<Endpoint>();

/**
 * The transaction and receipt at `index` of the verified block `header`, proven by
 * `lightprov_getTransactionProof` against its `transactionsRoot` and `receiptsRoot` (and, for
 * the receipt's `gasUsed`, the receipt before it, in the same batch). From a node without that
 * method (any other execution client), read from the block's transactions and receipts, all of
 * which must rebuild the same roots. `undefined`: the block holds no transaction at `index`.
 */
export async function provenTransaction(net: Transport, e: Endpoint, header: VerifiedHeader, index: bigint, blobs?: BlobSchedule): Promise<IndexedTransaction | undefined> {
  await loadFamily('mpt');
  await loadFamily('header');
  if (!NO_TX_PROOF.has(e)) {
    const asked = index === 0n ? [index] : [index, index - 1n];
    let answers: unknown[] | undefined;
    try {
      answers = await net.batch(e, PROOF_METHOD, asked.map((i) => [header.hash, '0x' + i.toString(16)]));
    } catch (err) {
      // The node's own refusal (geth: -32601, "does not exist/is not available"): the block's lists.
      if (!(err instanceof RpcError) || err.nodeMessage === undefined) throw err;
      if (err.code === -32601) NO_TX_PROOF.add(e);
    }
    if (answers !== undefined) {
      const [mine, before] = answers.map((a, k) => provenAt(a, header, asked[k]!));
      if (!mine) return undefined;
      if (index > 0n && !before) {
        throw new VerificationError('VALUE_MISMATCH', `the block holds a transaction at index ${index} but none at ${index - 1n}`, { field: 'receiptProof' });
      }
      const i = Number(index);
      const hash = bytesToHex(keccak(mine.transaction));
      const tx = verifiedTransaction(header, mine.transaction, i, hash, 'transaction');
      const r = receiptAt(header, readReceipt(mine.receipt), hash, i, 0);
      const previous = before ? readReceipt(before.receipt, 'previousReceipt').cumulativeGasUsed : 0n;
      return indexed(header, tx, withTransaction(r, previous, header, tx, blobs));
    }
  }
  const block = await blockTransactions(net, e, header);
  if (index >= BigInt(block.encoded.length)) return undefined;
  const i = Number(index);
  const tx = verifiedTransaction(header, block.encoded[i]!, i, block.hashes[i]!, `transactions[${i}]`);
  return indexed(header, tx, receiptIn(header, await blockReceipts(net, e, header, block), tx, blobs));
}

/** A transaction and its receipt as {@link IndexedTransaction} (logs without their block-wide index). */
function indexed(header: VerifiedHeader, transaction: VerifiedTransaction, full: VerifiedTransactionReceipt): IndexedTransaction {
  return { header, transaction, receipt: { ...full, logs: full.logs.map(({ logIndex: _, ...l }) => l) } };
}

/** Runs `f`; `undefined` when every node answered that it has no such transaction. */
export async function orNotFound<T>(f: () => Promise<T>): Promise<T | undefined> {
  try {
    return await f();
  } catch (err) {
    if (notFound(err)) return undefined;
    throw err;
  }
}

function notFound(err: unknown): boolean {
  if (err instanceof RpcError && 'faults' in err) {
    const faults = (err as unknown as { faults: { error: unknown }[] }).faults;
    return faults.length > 0 && faults.every((f) => notFound(f.error));
  }
  return err instanceof RpcError && err.code === -32001 && /has no block for transaction/.test(err.message);
}
