/**
 * Transactions and receipts by hash, verified: the node says which block holds the transaction;
 * that block's header must be on the verified chain, its transactions must rebuild the header's
 * `transactionsRoot` with the transaction's keccak256 among them, and its receipts the
 * `receiptsRoot`. The sender is recovered from the signature. A hash no node can place is
 * reported as not found — which proves nothing: a node may hide a transaction, never forge one.
 */
import { RLP } from '@ethereumjs/rlp';

import type { HeaderChain } from './chain.js';
import { signedPayload } from './envelope.js';
import { RpcError, VerificationError, wasmCall } from './errors.js';
import type { VerifiedHeader } from './header.js';
import { bytesToHex, hexToBigInt, hexToBytes } from './hex.js';
import { loadFamily, wasmOf } from './init.js';
import { type BlockTransactions, type VerifiedReceipt, blockReceipts, blockTransactions } from './logs.js';
import type { Endpoint, Transport } from './transport.js';

/** A transaction, verified: every field its encoding holds, its sender and where it sits. */
export interface VerifiedTransaction {
  hash: string;
  blockHash: string;
  blockNumber: bigint;
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

/** The address that signed `json` (a transaction object), recovered from its signature. */
export function transactionSender(json: unknown, path = 'transaction'): string {
  const { payload, signature } = signedPayload(json, path);
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
  const index = block.hashes.indexOf(hash);
  if (index < 0) {
    throw new VerificationError('VALUE_MISMATCH', `block ${header.number} (${header.hash}), where the node places transaction ${hash}, does not hold it`, { field: 'blockHash' });
  }
  return (await verifiedTransactions(header, block, [index]))[0] as VerifiedTransaction;
}

/**
 * The transactions of the verified block `header` (`block`: its transactions, checked against
 * its `transactionsRoot`) at `indices` (all when omitted), each with its sender recovered and
 * what it paid per gas.
 */
export async function verifiedTransactions(header: VerifiedHeader, block: BlockTransactions, indices?: readonly number[]): Promise<VerifiedTransaction[]> {
  await loadFamily('header');
  const { objects: txs, encoded, hashes } = block;
  return (indices ?? txs.map((_, i) => i)).map((index) => {
    const json = txs[index] as Record<string, unknown>;
    const type = encoded[index]![0]! < 0x80 ? encoded[index]![0]! : 0;
    const fields = Object.fromEntries([...SIGNED, ...(BY_TYPE[type] ?? [])].filter((k) => json[k] !== undefined).map((k) => [k, json[k]]));
    return {
      hash: hashes[index] as string,
      blockHash: header.hash,
      blockNumber: header.number,
      transactionIndex: index,
      from: transactionSender(json, `transactions[${index}]`),
      effectiveGasPrice: effectivePrice(fields, type, header.baseFeePerGas, `transactions[${index}]`),
      fields,
    };
  });
}

/** Where a node places `hash`: the block (verified on the chain) and the verified transaction. */
export async function locateTransaction(net: Transport, chain: HeaderChain, e: Endpoint, hash: string): Promise<{ header: VerifiedHeader; tx: VerifiedTransaction; block: BlockTransactions }> {
  const t = (await net.call(e, 'eth_getTransactionByHash', [hash])) as { blockHash?: unknown } | null;
  if (t === null || typeof t !== 'object' || t.blockHash === null || t.blockHash === undefined) {
    throw new RpcError('eth_getTransactionByHash', -32001, `${e.url} has no block for transaction ${hash}`);
  }
  const blockHash = bytesToHex(hexToBytes(t.blockHash, 'blockHash', 'network', 32));
  const header = await chain.headerAt(e, { blockHash }, 'network');
  const block = await blockTransactions(net, e, header);
  return { header, tx: await inBlock(header, block, hash), block };
}

/** The receipt of the verified `tx` in `header`'s block. */
export async function receiptOf(net: Transport, e: Endpoint, header: VerifiedHeader, tx: VerifiedTransaction, block?: BlockTransactions): Promise<VerifiedTransactionReceipt> {
  const receipts = await blockReceipts(net, e, header, block);
  const r = receipts[tx.transactionIndex];
  if (!r || r.transactionHash !== tx.hash) throw new VerificationError('VALUE_MISMATCH', `no receipt at index ${tx.transactionIndex} for ${tx.hash}`, { field: 'receipts' });
  const before = tx.transactionIndex === 0 ? 0n : (receipts[tx.transactionIndex - 1] as VerifiedReceipt).cumulativeGasUsed;
  const to = tx.fields['to'] === null || tx.fields['to'] === undefined ? null : bytesToHex(hexToBytes(tx.fields['to'], 'to'));
  const nonce = hexToBigInt(tx.fields['nonce'], 'nonce');
  const created = to === null ? bytesToHex(keccak(RLP.encode([hexToBytes(tx.from, 'from'), nonce])).subarray(12)) : null;
  return { ...r, blockHash: header.hash, blockNumber: header.number, from: tx.from, to, gasUsed: r.cumulativeGasUsed - before, effectiveGasPrice: tx.effectiveGasPrice, contractAddress: created };
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
