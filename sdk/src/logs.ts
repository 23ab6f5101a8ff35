/**
 * A block's receipts and logs, verified: the node's receipts must rebuild the verified header's
 * `receiptsRoot` and its transactions the `transactionsRoot`, so no receipt or log can be left
 * out, changed or moved. `getLogs` skips the blocks whose verified `logsBloom` rules out the
 * filter and reads every receipt of the others: the logs it returns are complete per block.
 */
import type { HeaderChain } from './chain.js';
import { encodeReceipt, encodeTransaction } from './envelope.js';
import { RpcError, VerificationError, wasmCall } from './errors.js';
import type { VerifiedHeader } from './header.js';
import { bytesArg, bytesToHex, hexToBytes } from './hex.js';
import { loadFamily, wasmOf } from './init.js';
import type { Endpoint, Transport } from './transport.js';
import { requireListRoot } from './trie.js';

/** One verified log, with where it sits. */
export interface VerifiedLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: bigint;
  blockHash: string;
  transactionHash: string;
  transactionIndex: number;
  /** Its place among the block's logs. */
  logIndex: number;
}

/** A block's receipts as the consensus encoding commits to them, with the transaction each is for. */
export interface VerifiedReceipt {
  transactionHash: string;
  transactionIndex: number;
  /** Receipt type (0 legacy, 1–4 typed). */
  type: number;
  /** 1 success, 0 failure; `undefined` before Byzantium (see `root`). */
  status: number | undefined;
  /** The state root after the transaction (receipts before Byzantium). */
  root: string | undefined;
  cumulativeGasUsed: bigint;
  logsBloom: string;
  logs: VerifiedLog[];
}

/** What `getLogs` asks for (as `eth_getLogs`): a range, addresses and topics (each position: null, one or any of several). */
export interface LogFilter {
  fromBlock: bigint | number;
  toBlock: bigint | number;
  address?: string | readonly string[];
  topics?: readonly (string | readonly string[] | null)[];
}

const keccak = (b: Uint8Array): Uint8Array => wasmCall(() => wasmOf('mpt').keccak256(b));

/** Whether `bloom` (256 bytes) may contain `item` (Yellow Paper §4.3.1: three bits of keccak256). */
export function bloomMayContain(bloom: Uint8Array, item: Uint8Array): boolean {
  const h = keccak(item);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    if ((bloom[255 - (bit >> 3)]! & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}

/** The filter's checked parts. */
export interface CheckedFilter {
  addresses: Uint8Array[] | undefined;
  topics: (Uint8Array[] | undefined)[];
}

/** Checks a caller's filter (addresses of 20 bytes, topics of 32). */
export function filterArg(f: LogFilter): CheckedFilter {
  const addresses = f.address === undefined ? undefined : (typeof f.address === 'string' ? [f.address] : [...f.address]).map((a, i) => bytesArg(a, `filter.address[${i}]`, 20));
  if (f.topics !== undefined && (!Array.isArray(f.topics) || f.topics.length > 4)) throw new RangeError('filter.topics: expected at most 4 positions');
  const topics = (f.topics ?? []).map((t, i) => (t === null || t === undefined ? undefined : (typeof t === 'string' ? [t] : [...t]).map((x, j) => bytesArg(x, `filter.topics[${i}][${j}]`, 32))));
  return { addresses, topics };
}

/** Whether a block whose verified bloom is `bloom` can hold a log matching `f`. */
export function bloomMayMatch(bloom: Uint8Array, f: CheckedFilter): boolean {
  if (f.addresses && !f.addresses.some((a) => bloomMayContain(bloom, a))) return false;
  return f.topics.every((set) => set === undefined || set.some((t) => bloomMayContain(bloom, t)));
}

const eq = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Whether `log` matches `f`. */
export function logMatches(log: VerifiedLog, f: CheckedFilter): boolean {
  if (f.addresses && !f.addresses.some((a) => eq(a, hexToBytes(log.address, 'address')))) return false;
  return f.topics.every((set, i) => set === undefined || (log.topics[i] !== undefined && set.some((t) => eq(t, hexToBytes(log.topics[i], 'topic')))));
}

/**
 * The receipts of the block `header`, verified: the node's `eth_getBlockReceipts` must rebuild
 * `receiptsRoot`, and its transactions (`eth_getBlockByHash` with objects) `transactionsRoot`,
 * which gives each receipt its transaction's hash.
 */
export async function blockReceipts(net: Transport, e: Endpoint, header: VerifiedHeader, known?: BlockTransactions): Promise<VerifiedReceipt[]> {
  await loadFamily('mpt');
  const rs = await net.call(e, 'eth_getBlockReceipts', [header.hash]);
  if (!Array.isArray(rs)) throw new RpcError('eth_getBlockReceipts', -1, `${e.url}: malformed response (expected an array)`);
  const encoded = rs.map((r, i) => encodeReceipt(r, `receipts[${i}]`));
  requireListRoot(encoded, header.receiptsRoot, 'receipts');
  // `known`: the block's transactions, when the caller verified them already.
  const hashes = rs.length === 0 ? [] : await transactionHashes(net, e, header, rs.length, known);
  let logIndex = 0;
  return rs.map((raw, i) => {
    const r = verifiedReceipt(raw, encoded[i] as Uint8Array, header, hashes[i] as string, i, logIndex);
    logIndex += r.logs.length;
    return r;
  });
}

/**
 * One receipt object (JSON-RPC shape, whose consensus encoding `enc` was checked against the
 * header) as verified: the receipt of transaction `hash` at `index`, its logs numbered from
 * `firstLog` on.
 */
export function verifiedReceipt(raw: unknown, enc: Uint8Array, header: VerifiedHeader, hash: string, index: number, firstLog: number): VerifiedReceipt {
  const r = raw as Record<string, unknown>;
  const type = enc[0]! < 0x80 ? enc[0]! : 0;
  const hasRoot = r['root'] !== undefined && r['root'] !== null && r['root'] !== '0x';
  const logs = (r['logs'] as Record<string, unknown>[]).map((l, k) => ({
    address: bytesToHex(hexToBytes(l['address'], 'address')),
    topics: (l['topics'] as unknown[]).map((t) => bytesToHex(hexToBytes(t, 'topic'))),
    data: bytesToHex(hexToBytes(l['data'], 'data')),
    blockNumber: header.number,
    blockHash: header.hash,
    transactionHash: hash,
    transactionIndex: index,
    logIndex: firstLog + k,
  }));
  return {
    transactionHash: hash,
    transactionIndex: index,
    type,
    status: hasRoot ? undefined : Number(BigInt(r['status'] as string)),
    root: hasRoot ? bytesToHex(hexToBytes(r['root'], 'root')) : undefined,
    cumulativeGasUsed: BigInt(r['cumulativeGasUsed'] as string),
    logsBloom: bytesToHex(hexToBytes(r['logsBloom'], 'logsBloom')),
    logs,
  };
}

/** The hashes of the block's `count` transactions, from objects that rebuild `transactionsRoot`. */
async function transactionHashes(net: Transport, e: Endpoint, header: VerifiedHeader, count: number, known?: BlockTransactions): Promise<readonly string[]> {
  const { hashes } = known ?? (await blockTransactions(net, e, header));
  if (hashes.length !== count) {
    throw new VerificationError('VALUE_MISMATCH', `the block holds ${hashes.length} transactions and ${count} receipts`, { field: 'receipts' });
  }
  return hashes;
}

/** A block's transaction objects, their encodings and hashes, verified against `transactionsRoot`. */
export interface BlockTransactions {
  objects: readonly unknown[];
  encoded: readonly Uint8Array[];
  hashes: readonly string[];
}

/** The transactions of the verified block `header`, as objects that rebuild its `transactionsRoot`. */
export async function blockTransactions(net: Transport, e: Endpoint, header: VerifiedHeader): Promise<BlockTransactions> {
  await loadFamily('mpt');
  const block = (await net.call(e, 'eth_getBlockByHash', [header.hash, true])) as { transactions?: unknown } | null;
  const objects = block?.transactions;
  if (!Array.isArray(objects)) throw new RpcError('eth_getBlockByHash', -1, `${e.url}: no transaction objects for block ${header.hash}`);
  const encoded = objects.map((t, i) => encodeTransaction(t, `transactions[${i}]`));
  requireListRoot(encoded, header.transactionsRoot, 'transactions');
  return { objects, encoded, hashes: encoded.map((t) => bytesToHex(keccak(t))) };
}

/** The verified logs of `header`'s block that match `f` (none read when its bloom rules them out). */
export async function blockLogs(net: Transport, e: Endpoint, header: VerifiedHeader, f: CheckedFilter): Promise<VerifiedLog[]> {
  await loadFamily('mpt');
  if (!bloomMayMatch(hexToBytes(header.logsBloom, 'logsBloom', 'network', 256), f)) return [];
  const receipts = await blockReceipts(net, e, header);
  return receipts.flatMap((r) => r.logs).filter((l) => logMatches(l, f));
}

/** The most blocks one `getLogs` call may span. */
export const MAX_LOG_RANGE = 10_000n;

/** Checks a range and returns the verified header of each block in it, in order. */
export async function logRange(chain: HeaderChain, e: Endpoint, from: bigint, to: bigint): Promise<VerifiedHeader[]> {
  if (from > to) throw new RangeError(`filter.fromBlock ${from} is after filter.toBlock ${to}`);
  if (to - from >= MAX_LOG_RANGE) throw new RangeError(`filter: ${to - from + 1n} blocks asked, at most ${MAX_LOG_RANGE} per call`);
  const out: VerifiedHeader[] = [];
  for (let n = from; n <= to; n++) out.push(await chain.headerAt(e, n));
  return out;
}
