/**
 * A block's receipts and logs, verified: the node's receipts must rebuild the verified header's
 * `receiptsRoot` and its transactions the `transactionsRoot`, so no receipt or log can be left
 * out, changed or moved. `getLogs` skips the blocks whose verified `logsBloom` rules out the
 * filter and reads every receipt of the others: the logs it returns are complete per block.
 */
import type { HeaderChain } from './chain.js';
import { type DecodedReceipt, blockTransactionEncodings, encodeReceipt, encodeTransaction, readReceipt } from './envelope.js';
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
  /** The verified header's timestamp (geth's `blockTimestamp`). */
  blockTimestamp: bigint;
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
  // As eth_getLogs: an empty list of addresses, or of topics at a position, restricts nothing.
  const listed = f.address === undefined ? undefined : (typeof f.address === 'string' ? [f.address] : [...f.address]).map((a, i) => bytesArg(a, `filter.address[${i}]`, 20));
  const addresses = listed === undefined || listed.length === 0 ? undefined : listed;
  if (f.topics !== undefined && (!Array.isArray(f.topics) || f.topics.length > 4)) throw new RangeError('filter.topics: expected at most 4 positions');
  const topics = (f.topics ?? []).map((t, i) => (t === null || t === undefined || (typeof t !== 'string' && t.length === 0) ? undefined : (typeof t === 'string' ? [t] : [...t]).map((x, j) => bytesArg(x, `filter.topics[${i}][${j}]`, 32))));
  return { addresses, topics };
}

/** Whether a block whose verified bloom is `bloom` can hold a log matching `f`. */
export function bloomMayMatch(bloom: Uint8Array, f: CheckedFilter): boolean {
  if (f.addresses && !f.addresses.some((a) => bloomMayContain(bloom, a))) return false;
  return f.topics.every((set) => set === undefined || set.some((t) => bloomMayContain(bloom, t)));
}

const eq = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Whether a log (its address and topics as bytes) matches `f`. */
export function logMatches(log: { address: Uint8Array; topics: readonly Uint8Array[] }, f: CheckedFilter): boolean {
  if (f.addresses && !f.addresses.some((a) => eq(a, log.address))) return false;
  return f.topics.every((set, i) => set === undefined || (log.topics[i] !== undefined && set.some((t) => eq(t, log.topics[i]!))));
}

/**
 * The receipts of the block `header`, verified: the node's `eth_getBlockReceipts` must rebuild
 * `receiptsRoot`, and its transactions (`eth_getBlockByHash` with objects) `transactionsRoot`,
 * which gives each receipt its transaction's hash.
 */
export async function blockReceipts(net: Transport, e: Endpoint, header: VerifiedHeader, known?: BlockTransactions): Promise<VerifiedReceipt[]> {
  await loadFamily('mpt');
  const rs = await net.call(e, 'eth_getBlockReceipts', [header.hash]);
  // `known`: the block's transactions, when the caller verified them already.
  const txs = known ?? (Array.isArray(rs) && rs.length === 0 ? NO_TRANSACTIONS : await blockTransactions(net, e, header));
  return checkReceipts(e, header, rs, txs);
}

const NO_TRANSACTIONS: BlockTransactions = { encoded: [], hashes: [] };

/**
 * Checks a node's `eth_getBlockReceipts` answer for `header`'s block against its
 * `receiptsRoot`, one receipt per transaction of `txs` (the block's verified transactions).
 */
export function checkReceipts(e: Endpoint, header: VerifiedHeader, rs: unknown, txs: BlockTransactions): VerifiedReceipt[] {
  return receiptsOf(header, checkJsonReceipts(e, header, rs, txs.hashes), txs.hashes);
}

function checkJsonReceipts(e: Endpoint, header: VerifiedHeader, rs: unknown, hashes: readonly string[]): DecodedReceipt[] {
  if (!Array.isArray(rs)) throw new RpcError('eth_getBlockReceipts', -1, `${e.url}: malformed response (expected an array)`);
  return checkedReceipts(header, rs.map((r, i) => encodeReceipt(r, `receipts[${i}]`)), hashes);
}

/**
 * Checks a node's `debug_getRawReceipts` answer (the receipts' consensus encodings) for
 * `header`'s block against its `receiptsRoot` and returns them decoded; `hashes` are the
 * block's verified transactions'.
 */
export function checkRawReceipts(e: Endpoint, header: VerifiedHeader, rs: unknown, hashes: readonly string[]): DecodedReceipt[] {
  if (!Array.isArray(rs)) throw new RpcError('debug_getRawReceipts', -1, `${e.url}: malformed response (expected an array)`);
  return checkedReceipts(header, rs.map((r, i) => hexToBytes(r, `receipts[${i}]`)), hashes);
}

/** A block's receipts from their encodings, which must rebuild `header`'s `receiptsRoot`, one per transaction. */
function checkedReceipts(header: VerifiedHeader, encoded: readonly Uint8Array[], hashes: readonly string[]): DecodedReceipt[] {
  requireListRoot(encoded, header.receiptsRoot, 'receipts');
  if (hashes.length !== encoded.length) {
    throw new VerificationError('VALUE_MISMATCH', `the block holds ${hashes.length} transactions and ${encoded.length} receipts`, { field: 'receipts' });
  }
  return encoded.map((enc, i) => readReceipt(enc, `receipts[${i}]`));
}

/**
 * The logs of receipt `r` (decoded from an encoding checked against `header`) of transaction
 * `hash` at `index`, numbered from `firstLog` on; with `f`, only those that match it.
 */
function logsAt(header: VerifiedHeader, r: DecodedReceipt, hash: string, index: number, firstLog: number, f?: CheckedFilter): VerifiedLog[] {
  const out: VerifiedLog[] = [];
  r.logs.forEach((l, k) => {
    if (f !== undefined && !logMatches(l, f)) return;
    out.push({
      address: bytesToHex(l.address),
      topics: l.topics.map(bytesToHex),
      data: bytesToHex(l.data),
      blockNumber: header.number,
      blockHash: header.hash,
      blockTimestamp: header.timestamp,
      transactionHash: hash,
      transactionIndex: index,
      logIndex: firstLog + k,
    });
  });
  return out;
}

/** Receipt `r` (decoded from an encoding checked against `header`) as verified: the receipt of transaction `hash` at `index`, its logs numbered from `firstLog` on. */
export function receiptAt(header: VerifiedHeader, r: DecodedReceipt, hash: string, index: number, firstLog: number): VerifiedReceipt {
  return {
    transactionHash: hash,
    transactionIndex: index,
    type: r.type,
    status: r.status,
    root: r.root === undefined ? undefined : bytesToHex(r.root),
    cumulativeGasUsed: r.cumulativeGasUsed,
    logsBloom: bytesToHex(r.logsBloom),
    logs: logsAt(header, r, hash, index, firstLog),
  };
}

/** The logs of a block's checked receipts that match `f`, per receipt. */
function blockLogsOf(header: VerifiedHeader, receipts: readonly DecodedReceipt[], hashes: readonly string[], f: CheckedFilter): VerifiedLog[][] {
  let first = 0;
  return receipts.map((r, i) => {
    const logs = logsAt(header, r, hashes[i] as string, i, first, f);
    first += r.logs.length;
    return logs;
  });
}

function receiptsOf(header: VerifiedHeader, receipts: readonly DecodedReceipt[], hashes: readonly string[]): VerifiedReceipt[] {
  let first = 0;
  return receipts.map((r, i) => {
    const out = receiptAt(header, r, hashes[i] as string, i, first);
    first += r.logs.length;
    return out;
  });
}

/** A block's transactions as their encodings (which rebuild `transactionsRoot`) and hashes; their fields are read back from the encodings, never taken from a node's objects. */
export interface BlockTransactions {
  encoded: readonly Uint8Array[];
  hashes: readonly string[];
}

/** The transactions of the verified block `header`, as objects that rebuild its `transactionsRoot`. */
export async function blockTransactions(net: Transport, e: Endpoint, header: VerifiedHeader): Promise<BlockTransactions> {
  await loadFamily('mpt');
  return checkTransactions(e, header, await net.call(e, 'eth_getBlockByHash', [header.hash, true]));
}

/** Checks a node's `eth_getBlockByHash` answer (with transaction objects) against `header`'s `transactionsRoot`. */
export function checkTransactions(e: Endpoint, header: VerifiedHeader, block: unknown): BlockTransactions {
  const objects = (block as { transactions?: unknown } | null)?.transactions;
  if (!Array.isArray(objects)) throw new RpcError('eth_getBlockByHash', -1, `${e.url}: no transaction objects for block ${header.hash}`);
  const encoded = objects.map((t, i) => encodeTransaction(t, `transactions[${i}]`));
  requireListRoot(encoded, header.transactionsRoot, 'transactions');
  return { encoded, hashes: encoded.map((t) => bytesToHex(keccak(t))) };
}

/**
 * The hashes of the transactions of a node's `debug_getRawBlock` answer for `header`'s block,
 * whose encodings must rebuild its `transactionsRoot`.
 */
export function checkRawTransactions(e: Endpoint, header: VerifiedHeader, raw: unknown): readonly string[] {
  if (typeof raw !== 'string') throw new RpcError('debug_getRawBlock', -1, `${e.url}: no block ${header.hash}`);
  const encoded = blockTransactionEncodings(hexToBytes(raw, 'block'), 'block');
  requireListRoot(encoded, header.transactionsRoot, 'transactions');
  return encoded.map((t) => bytesToHex(keccak(t)));
}

/** Whether `header`'s verified `logsBloom` lets `f` match a log of its block. */
export function headerMayMatch(header: VerifiedHeader, f: CheckedFilter): boolean {
  return bloomMayMatch(hexToBytes(header.logsBloom, 'logsBloom', 'network', 256), f);
}

/** Blocks whose receipts and transactions one round of `getLogs` asks for (one batch each). */
const LOG_BATCH = 100;

/** Endpoints that do not serve geth's raw block and receipts (`debug_getRawBlock`, `debug_getRawReceipts`). */
const NO_RAW = new WeakSet<Endpoint>();

/** The root of the empty trie: a block with no transactions, receipts or withdrawals. */
const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

/**
 * The verified logs matching `f` in the blocks of `headers` (verified, in order): the blocks
 * whose bloom may match are read in batches — their receipts and their transactions, one
 * JSON-RPC batch each, two rounds in flight — and each block's lists must rebuild its roots.
 * The raw encodings (`debug_getRawReceipts`, `debug_getRawBlock`) are asked for first: they
 * are what the roots commit to, a third of the JSON's bytes; a node that does not serve them is
 * asked for `eth_getBlockReceipts` and the block with its transaction objects.
 */
export async function rangeLogs(net: Transport, e: Endpoint, headers: readonly VerifiedHeader[], f: CheckedFilter): Promise<VerifiedLog[]> {
  await loadFamily('mpt');
  // A block with no receipts (the empty trie's root) has no logs, whatever the filter.
  const matching = headers.filter((h) => h.receiptsRoot !== EMPTY_TRIE_ROOT && headerMayMatch(h, f));
  const rounds: VerifiedHeader[][] = [];
  for (let i = 0; i < matching.length; i += LOG_BATCH) rounds.push(matching.slice(i, i + LOG_BATCH));
  // One round's answers: the raw encodings or, from a node without them, the JSON objects.
  const fetchRound = async (round: VerifiedHeader[]) => {
    const hashes = round.map((h) => [h.hash]);
    if (!NO_RAW.has(e)) {
      try {
        const [receipts, blocks] = await Promise.all([net.batch(e, 'debug_getRawReceipts', hashes), net.batch(e, 'debug_getRawBlock', hashes)]);
        if (receipts.every(Array.isArray) && blocks.every((b) => typeof b === 'string')) return { raw: true, receipts, blocks };
      } catch (err) {
        // Any failure of the raw forms (a node without the debug_ methods answers -32601,
        // -32004 or something else) sends this node's reads to the JSON path, which is
        // checked against the same roots.
        if (!(err instanceof RpcError)) throw err;
      }
      NO_RAW.add(e);
    }
    const [receipts, blocks] = await Promise.all([
      net.batch(e, 'eth_getBlockReceipts', hashes),
      net.batch(e, 'eth_getBlockByHash', round.map((h) => [h.hash, true])),
    ]);
    return { raw: false, receipts, blocks };
  };
  const check = (h: VerifiedHeader, raw: boolean, receipts: unknown, block: unknown): VerifiedLog[][] => {
    const hashes = raw ? checkRawTransactions(e, h, block) : checkTransactions(e, h, block).hashes;
    return blockLogsOf(h, raw ? checkRawReceipts(e, h, receipts, hashes) : checkJsonReceipts(e, h, receipts, hashes), hashes, f);
  };
  const logs: VerifiedLog[] = [];
  // The first round finds out whether the node serves the raw forms; after it, the next round
  // travels while one is checked.
  // A round in flight when a check fails is abandoned: its failure must not go unobserved.
  const start = (round: VerifiedHeader[]) => {
    const p = fetchRound(round);
    p.catch(() => undefined);
    return p;
  };
  let next = rounds.length > 0 ? start(rounds[0]!) : undefined;
  for (let r = 0; r < rounds.length; r++) {
    const answers = await (next as ReturnType<typeof fetchRound>);
    next = r + 1 < rounds.length ? start(rounds[r + 1]!) : undefined;
    rounds[r]!.forEach((h, i) => {
      for (const receiptLogs of check(h, answers.raw, answers.receipts[i], answers.blocks[i])) logs.push(...receiptLogs);
    });
  }
  return logs;
}

/** The most blocks one `getLogs` call may span. */
export const MAX_LOG_RANGE = 10_000n;

/** Checks a range and returns the verified header of each block in it, in order. */
export async function logRange(chain: HeaderChain, e: Endpoint, from: bigint, to: bigint): Promise<VerifiedHeader[]> {
  if (from > to) throw new RangeError(`filter.fromBlock ${from} is after filter.toBlock ${to}`);
  if (to - from >= MAX_LOG_RANGE) throw new RangeError(`filter: ${to - from + 1n} blocks asked, at most ${MAX_LOG_RANGE} per call`);
  return chain.headersIn(e, from, to);
}
