/**
 * An EIP-1193 provider over a `LightClient`, for ethers' `BrowserProvider` and viem's `custom()`.
 * Every method has a class ({@link EIP1193_METHODS}): answered after verification, forwarded to a
 * node with a check of what can be checked, answered locally, or refused with EIP-1193 error
 * 4200 — unless the app names it in `allowUnverified`, which forwards it to a node as it is.
 */
import { type BlockTag, rpcBlockArg } from './args.js';
import type { HeaderChain } from './chain.js';
import { FailoverError, NodeFaultError, RpcError, VerificationError, wasmCall } from './errors.js';
import { type VerifiedHeader, encodeHeader } from './header.js';
import { bytesToHex, hexToBigInt, hexToBytes } from './hex.js';
import { loadFamily, wasmOf } from './init.js';
import type { Endpoint, Transport } from './transport.js';
import { type AccessListResult, CallLimitError, type CallOptions, type CallRequest, ExecutionError } from './evm.js';
import { type BlockTransactions, type LogFilter, type VerifiedLog, blockTransactions, checkTransactions } from './logs.js';
import { type VerifiedTransaction, type VerifiedTransactionReceipt, verifiedTransactions } from './transactions.js';
import { requireListRoot } from './trie.js';
import { type VerifiedWithdrawal, checkWithdrawals, withdrawalEncoding, withdrawalJson } from './withdrawals.js';

/** The minimal EIP-1193 provider shape that ethers' BrowserProvider and viem's custom() accept. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] | object }): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): Eip1193Provider;
  removeListener(event: string, listener: (...args: unknown[]) => void): Eip1193Provider;
}

/** Options of `LightClient.asEip1193()`. */
export interface Eip1193Options {
  /**
   * Methods to forward to a node without verification (by name, e.g. `eth_estimateGas`,
   * `eth_getTransactionReceipt`). Every method not in {@link EIP1193_METHODS} is refused with
   * error 4200 unless it is named here; a method of the table keeps its class.
   */
  allowUnverified?: readonly string[];
}

/**
 * How a method is answered: `verified` (from proofs against verified headers), `checked`
 * (forwarded to a node, and its answer checked as far as it can be), `local` (answered without
 * a node).
 */
export type MethodClass = 'verified' | 'checked' | 'local';

/** Every method `asEip1193()` answers without `allowUnverified`, its class and how. */
export const EIP1193_METHODS: Readonly<Record<string, { readonly class: MethodClass; readonly how: string }>> = Object.freeze({
  eth_getBalance: { class: 'verified', how: 'eth_getProof against the state root of the verified header' },
  eth_getTransactionCount: {
    class: 'verified',
    how: "eth_getProof; for 'pending' (the node's mempool, which no proof covers) the node's count, refused if below the verified latest nonce",
  },
  eth_getStorageAt: { class: 'verified', how: 'eth_getProof (storage proof) against the verified header' },
  eth_getCode: { class: 'verified', how: 'the code, whose keccak256 must be the proven code hash' },
  eth_getProof: { class: 'verified', how: "the node's proof nodes, after they verify against the verified header of the block, with the proven values (not the node's text) in geth's form" },
  eth_blockNumber: { class: 'verified', how: 'the newest verified header' },
  eth_getBlockByNumber: {
    class: 'verified',
    how: "the verified header's fields and hash; the transaction hashes, from the node's raw transactions (or, from a node without them, its transaction objects), which must rebuild transactionsRoot; uncles only when provably none; withdrawals, which must rebuild withdrawalsRoot; size, the length of the block's verified encoding. Full transaction objects: the node's must rebuild transactionsRoot; each is answered with the fields read back from its encoding, its hash, its recovered sender, its place and the gas price it paid",
  },
  eth_getBlockByHash: { class: 'verified', how: 'as eth_getBlockByNumber' },
  eth_chainId: {
    class: 'checked',
    how: "trust.chainId when given, or the public network's with trust: { beacon } (no header commits to the chain id); else the first node's answer, pinned, and a node answering another is marked faulty",
  },
  net_version: { class: 'checked', how: 'the chain id of eth_chainId, in decimal' },
  eth_sendRawTransaction: { class: 'checked', how: "forwarded; the hash the node returns must be keccak256 of the transaction (a node's 'already known' is the same send)" },
  eth_getLogs: {
    class: 'verified',
    how: "per block of the range: skipped when the verified logsBloom rules the filter out, else every receipt, which must rebuild receiptsRoot (and the transactions transactionsRoot); needs the node's eth_getBlockReceipts",
  },
  eth_getTransactionByHash: {
    class: 'verified',
    how: "the transaction in its block, whose transactions rebuild transactionsRoot; sender recovered from the signature; null when no node places it (unproven)",
  },
  eth_getTransactionReceipt: {
    class: 'verified',
    how: "the receipt at the transaction's index of its block, whose receipts rebuild receiptsRoot; gasUsed, effectiveGasPrice, contractAddress and a blob transaction's blobGasUsed (and, with blobSchedule, blobGasPrice) derived from verified data; null when no node places it in the verified chain",
  },
  eth_call: {
    class: 'verified',
    how: "executed in WebAssembly (revm) over state proven against the verified header of the block (pinned for the call): accounts and slots by eth_getProof, code by its proven hash; the node's access list only a prefetch hint; a revert answered as geth answers it (3, 'execution reverted', the revert data); state overrides refused",
  },
  eth_estimateGas: {
    class: 'verified',
    how: "geth's binary search (1.5 % stop, Osaka's 2^24 cap) over runs on proven state, as eth_call; a call that always reverts answered with its revert",
  },
  eth_createAccessList: {
    class: 'verified',
    how: "geth's access-list tracer run to its fixed point over proven state, as eth_call (sender, callee and precompiles left out, as geth)",
  },
  eth_accounts: { class: 'local', how: 'none: a light client holds no keys' },
});

/**
 * An EIP-1193 error, in the shape ethers' `BrowserProvider` and viem's `custom()` read (`code`,
 * `message`, `data`):
 * - a node's own error answer to a forwarded call (a revert, "nonce too low", …): the node's
 *   `code`, `message` and `data` as it sent them, so ethers and viem decode revert reasons and
 *   custom errors;
 * - an answer lightprov refused ({@link VERIFICATION_FAILED}): `message` names the check, and
 *   `data` is {@link Eip1193ErrorData} (`data.code` the `VerificationError` code);
 * - 4200: a method outside the table (see `allowUnverified`); -32602: a bad argument.
 */
export class ProviderRpcError extends Error {
  override readonly name = 'ProviderRpcError';
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.data = data;
  }
}

/**
 * The `code` of a provider error for a read lightprov answers only verified and could not:
 * the node's answer failed a check, or no node gave one (EIP-1474's "resource unavailable";
 * viem's `ResourceUnavailableRpcError`, which it does not retry).
 */
export const VERIFICATION_FAILED = -32002;

/** `data` of a {@link VERIFICATION_FAILED} error. */
export interface Eip1193ErrorData {
  /**
   * The `VerificationError` code (`ROOT_MISMATCH`, `HEADER_HASH_MISMATCH`, …); `NODE_FAULT` for
   * a node whose numbers contradict themselves; `NO_ANSWER` when no node answered.
   */
  code: string;
  /** The field at fault, and what the check expected and found there, when known. */
  field?: string;
  expected?: string;
  found?: string;
  /** The node, for `NODE_FAULT`. */
  node?: string;
  /** With several nodes: each node's fault. */
  faults?: { url: string; code: string; message: string }[];
}

/** Why `e` refused an answer, as {@link Eip1193ErrorData}. */
function refusal(e: VerificationError | RpcError): Eip1193ErrorData {
  if (e instanceof VerificationError) {
    return { code: e.code, ...(e.field !== undefined ? { field: e.field } : {}), ...(e.expected !== undefined ? { expected: e.expected } : {}), ...(e.found !== undefined ? { found: e.found } : {}) };
  }
  if (e instanceof NodeFaultError) return { code: 'NODE_FAULT', node: e.url };
  return { code: 'NO_ANSWER' };
}

/** A node's own error answer, as it sent it. */
function nodeError(e: RpcError): ProviderRpcError {
  return new ProviderRpcError(e.code, e.nodeMessage ?? e.message, e.data, { cause: e });
}

/** Any error of a read, as the {@link ProviderRpcError} the provider throws. */
export function providerError(err: unknown): unknown {
  if (err instanceof ProviderRpcError) return err;
  // A verified call's own failure: geth's code, message and revert data.
  if (err instanceof ExecutionError) return new ProviderRpcError(err.code, err.message, err.data, { cause: err });
  // EIP-1474's "limit exceeded".
  if (err instanceof CallLimitError) return new ProviderRpcError(-32005, err.message, { code: 'CALL_LIMIT', limit: err.limit }, { cause: err });
  if (err instanceof VerificationError) return new ProviderRpcError(VERIFICATION_FAILED, `${err.code}${err.field !== undefined ? ` (${err.field})` : ''}: ${err.message}`, refusal(err), { cause: err });
  if (err instanceof FailoverError) {
    const faults = err.faults.map((f) => ({ url: f.url, code: refusal(f.error).code, message: f.error.message }));
    const refused = err.faults.find((f) => f.error instanceof VerificationError || f.error instanceof NodeFaultError);
    if (refused) return new ProviderRpcError(VERIFICATION_FAILED, err.message, { ...refusal(refused.error), faults }, { cause: err });
    // No node's answer failed a check: a node's own error answer (a revert) is the answer.
    const answered = err.faults.find((f) => f.error instanceof RpcError && f.error.nodeMessage !== undefined);
    if (answered) return nodeError(answered.error as RpcError);
    return new ProviderRpcError(VERIFICATION_FAILED, err.message, { code: 'NO_ANSWER', faults }, { cause: err });
  }
  if (err instanceof NodeFaultError) return new ProviderRpcError(VERIFICATION_FAILED, err.message, refusal(err), { cause: err });
  if (err instanceof RpcError) {
    if (err.nodeMessage !== undefined) return nodeError(err);
    return new ProviderRpcError(err.code === -1 ? VERIFICATION_FAILED : err.code, err.message, { code: 'NO_ANSWER' }, { cause: err });
  }
  if (err instanceof TypeError || err instanceof RangeError) return new ProviderRpcError(-32602, err.message, undefined, { cause: err });
  return err;
}

/** What the provider reads through: the client's verified reads, its nodes and its headers. */
export interface VerifiedReads {
  getBalance(address: string, block?: BlockTag): Promise<bigint>;
  getTransactionCount(address: string, block?: BlockTag): Promise<bigint>;
  getStorageAt(address: string, slot: string, block?: BlockTag): Promise<string>;
  getCode(address: string, block?: BlockTag): Promise<string>;
  getHeader(block?: BlockTag): Promise<VerifiedHeader>;
  /** An `eth_getProof` answer for `block`, verified against its header, every value the proven one. */
  getProof(address: string, slots: readonly (string | bigint | number)[], block?: BlockTag): Promise<{ proof: { storageProof: { key: string }[] } }>;
  getLogs(filter: LogFilter): Promise<VerifiedLog[]>;
  getTransaction(hash: string): Promise<VerifiedTransaction | undefined>;
  getTransactionReceipt(hash: string): Promise<VerifiedTransactionReceipt | undefined>;
  call(tx: CallRequest, options: CallOptions): Promise<string>;
  estimateGas(tx: CallRequest, options: CallOptions): Promise<bigint>;
  createAccessList(tx: CallRequest, options: CallOptions): Promise<AccessListResult>;
}

function keccakHex(b: Uint8Array): string {
  return bytesToHex(wasmCall(() => wasmOf('mpt').keccak256(b)));
}

/**
 * A block's transactions, verified: the node's raw transactions (EIP-2718 encodings) must
 * rebuild the header's `transactionsRoot`; each hash is keccak256 of one. From a
 * node without `eth_getBlockTransactionCountByHash` or `eth_getRawTransactionByBlockHashAndIndex`,
 * the block's transaction objects, which must rebuild the same root.
 */
async function transactionHashes(net: Transport, e: Endpoint, header: VerifiedHeader): Promise<BlockTransactions> {
  if (header.transactionsRoot === EMPTY_ROOT) return { encoded: [], hashes: [] };
  await loadFamily('mpt');
  let count: bigint;
  try {
    count = hexToBigInt(await net.call(e, 'eth_getBlockTransactionCountByHash', [header.hash]), 'transactionCount', 'network', 32);
  } catch (err) {
    if (!(err instanceof RpcError) || err instanceof NodeFaultError) throw err;
    return blockTransactions(net, e, header);
  }
  if (count > MAX_BLOCK_TRANSACTIONS) throw new NodeFaultError('eth_getBlockTransactionCountByHash', e.url, `claims ${count} transactions in one block`);
  const raws: Uint8Array[] = [];
  for (let i = 0n; i < count; i += BATCH) {
    const list: unknown[][] = [];
    for (let k = i; k < count && k < i + BATCH; k++) list.push([header.hash, '0x' + k.toString(16)]);
    let got: unknown[];
    try {
      got = await net.batch(e, 'eth_getRawTransactionByBlockHashAndIndex', list);
    } catch (err) {
      if (!(err instanceof RpcError) || err instanceof NodeFaultError) throw err;
      return blockTransactions(net, e, header);
    }
    got.forEach((r, k) => raws.push(hexToBytes(r, `transactions[${Number(i) + k}]`)));
  }
  requireListRoot(raws, header.transactionsRoot, 'transactions');
  return { encoded: raws, hashes: raws.map(keccakHex) };
}

/** Transactions fetched per batch. */
const BATCH = 100n;
/** More than a block can hold at 30 M gas (21 000 each: 1 428), with room for larger limits. */
const MAX_BLOCK_TRANSACTIONS = 100_000n;

/** keccak256(RLP([])): the ommers hash of a block without uncles. */
const EMPTY_OMMERS = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
/** keccak256(RLP("")): the transactions root of a block without transactions. */
const EMPTY_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

/** Builds the provider. */
export function eip1193(reads: VerifiedReads, net: Transport, chain: HeaderChain, options: Eip1193Options = {}): Eip1193Provider {
  const allowed = new Set(allowUnverifiedArg(options.allowUnverified));
  const listeners = new Map<string, Set<(...a: unknown[]) => void>>();
  const hex = (v: bigint) => '0x' + v.toString(16);
  let chainId: bigint | undefined = chain.chainId;
  const forward = (method: string, p: unknown[]) => net.withFailover((e) => net.call(e, method, p));

  /** The chain id all nodes must agree on (the first answer pinned). */
  const pinnedChainId = async (): Promise<bigint> => {
    if (chain.chainId !== undefined) return chain.chainId;
    return net.withFailover(async (e) => {
      const id = hexToBigInt(await net.call(e, 'eth_chainId', []), 'chainId', 'network', 64);
      chainId ??= id;
      if (id !== chainId) throw new NodeFaultError('eth_chainId', e.url, `answers chain id ${id}, the other nodes ${chainId}`);
      return id;
    });
  };

  const block = async (method: string, p: unknown[]): Promise<unknown> => {
    const tag = method === 'eth_getBlockByHash' ? rpcBlockArg({ blockHash: String(p[0]) }) : rpcBlockArg(p[0]);
    const full = p[1] === true;
    let header: VerifiedHeader;
    try {
      header = await reads.getHeader(tag);
    } catch (err) {
      if (unknownBlock(err)) return null;
      throw err;
    }
    const fields: Record<string, unknown> = { ...headerJson(header) };
    // Uncles are proven only when there are none (the ommers hash of the empty list).
    if (header.sha3Uncles === EMPTY_OMMERS) fields['uncles'] = [];
    return net.withFailover(async (e) => {
      // The node's block object, read once when its transaction objects or its withdrawals are needed.
      let body: Promise<unknown> | undefined;
      const nodeBlock = () => (body ??= net.call(e, 'eth_getBlockByHash', [header.hash, full]));
      let withdrawals: VerifiedWithdrawal[] | undefined;
      if (header.withdrawalsRoot !== undefined) {
        // The node's withdrawals, which must rebuild withdrawalsRoot.
        await loadFamily('header');
        withdrawals = header.withdrawalsRoot === EMPTY_ROOT ? [] : (checkWithdrawals(e.url, header, await nodeBlock()) ?? []);
        fields['withdrawals'] = withdrawals.map(withdrawalJson);
      }
      // Full objects: the node's, which must rebuild transactionsRoot; each answered with only
      // what its encoding proves, its hash, its recovered sender and its place.
      await loadFamily('mpt');
      const block = !full ? await transactionHashes(net, e, header) : header.transactionsRoot === EMPTY_ROOT ? { encoded: [], hashes: [] } : checkTransactions(e, header, await nodeBlock());
      // The size of the block's encoding, when all of it is proven (no uncles).
      if (header.sha3Uncles === EMPTY_OMMERS) fields['size'] = hex(blockSize(header, block.encoded, withdrawals));
      return { ...fields, transactions: full ? (await verifiedTransactions(header, block)).map(transactionJson) : block.hashes };
    });
  };

  const answer = async ({ method, params }: { method: string; params?: unknown[] | object }): Promise<unknown> => {
    const p = Array.isArray(params) ? params : [];
    switch (method) {
      case 'eth_getBalance':
        return hex(await reads.getBalance(p[0] as string, rpcBlockArg(p[1])));
      case 'eth_getTransactionCount': {
        if (p[1] !== 'pending') return hex(await reads.getTransactionCount(p[0] as string, rpcBlockArg(p[1])));
        const latest = await reads.getTransactionCount(p[0] as string, 'latest');
        return net.withFailover(async (e) => {
          const pending = hexToBigInt(await net.call(e, method, p), 'nonce', 'network', 64);
          if (pending < latest) throw new NodeFaultError(method, e.url, `pending nonce ${pending} is below the verified nonce ${latest}`);
          return hex(pending);
        });
      }
      case 'eth_getStorageAt':
        return reads.getStorageAt(p[0] as string, p[1] as string, rpcBlockArg(p[2]));
      case 'eth_getCode':
        return reads.getCode(p[0] as string, rpcBlockArg(p[1]));
      case 'eth_call':
        refuseOverrides(method, p, 2);
        return reads.call(p[0] as CallRequest, { block: rpcBlockArg(p[1]) });
      case 'eth_estimateGas':
        refuseOverrides(method, p, 2);
        return hex(await reads.estimateGas(p[0] as CallRequest, { block: rpcBlockArg(p[1]) }));
      case 'eth_createAccessList': {
        refuseOverrides(method, p, 2);
        const r = await reads.createAccessList(p[0] as CallRequest, { block: rpcBlockArg(p[1]) });
        return { accessList: r.accessList, ...(r.error !== undefined ? { error: r.error } : {}), gasUsed: hex(r.gasUsed) };
      }
      case 'eth_getProof': {
        const keys = Array.isArray(p[1]) ? (p[1] as string[]) : [];
        const { proof } = await reads.getProof(p[0] as string, keys, rpcBlockArg(p[2]));
        // The SDK asks with 32-byte keys; each key is answered as the caller wrote it, as geth does.
        return { ...proof, storageProof: proof.storageProof.map((s, i) => ({ ...s, key: keys[i] })) };
      }
      case 'eth_blockNumber':
        return hex((await reads.getHeader('latest')).number);
      case 'eth_getBlockByNumber':
      case 'eth_getBlockByHash':
        return block(method, p);
      case 'eth_chainId':
        return hex(await pinnedChainId());
      case 'net_version':
        return (await pinnedChainId()).toString();
      case 'eth_sendRawTransaction': {
        const raw = hexToBytes(p[0], 'transaction', 'argument');
        await loadFamily('mpt');
        const want = keccakHex(raw);
        return net.withFailover(async (e) => {
          let answer: unknown;
          try {
            answer = await net.call(e, method, p);
          } catch (err) {
            // geth's answer when the transaction is in its pool already (sent through another
            // node, or again): the send has happened.
            if (err instanceof RpcError && /already known/i.test(err.message)) return want;
            throw err;
          }
          const got = bytesToHex(hexToBytes(answer, 'transactionHash', 'network', 32));
          if (got !== want) throw new NodeFaultError(method, e.url, `returned hash ${got} for a transaction whose hash is ${want}`);
          return got;
        });
      }
      case 'eth_getLogs':
        return (await reads.getLogs(await logFilter(p[0], reads))).map(logJson);
      case 'eth_getTransactionByHash': {
        const tx = await reads.getTransaction(String(p[0]));
        return tx ? transactionJson(tx) : null;
      }
      case 'eth_getTransactionReceipt': {
        const r = await reads.getTransactionReceipt(String(p[0]));
        return r ? receiptJson(r) : null;
      }
      case 'eth_accounts':
        return [];
      default:
        if (allowed.has(method)) return forward(method, p);
        throw new ProviderRpcError(
          4200,
          `${method}: not verified by lightprov, so not answered (name it in asEip1193({ allowUnverified: ['${method}'] }) to forward it to a node unverified)`,
        );
    }
  };

  const provider: Eip1193Provider = {
    request: async (args) => {
      try {
        return await answer(args);
      } catch (err) {
        throw providerError(err);
      }
    },
    on: (event, listener) => {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      return provider;
    },
    removeListener: (event, listener) => {
      listeners.get(event)?.delete(listener);
      return provider;
    },
  };
  return provider;
}

/** State and block overrides (`params[from]` on): no proof covers state the caller makes up. */
function refuseOverrides(method: string, p: readonly unknown[], from: number): void {
  const given = p.slice(from).findIndex((x) => x !== undefined && x !== null && !(typeof x === 'object' && Object.keys(x).length === 0));
  if (given >= 0) {
    throw new RangeError(`${method}: ${given === 0 ? 'state' : 'block'} overrides are not supported by verified calls (no proof covers state the caller makes up)`);
  }
}

/** An `eth_getLogs` filter object as a {@link LogFilter} (block tags resolved to verified numbers). */
async function logFilter(v: unknown, reads: VerifiedReads): Promise<LogFilter> {
  if (typeof v !== 'object' || v === null) throw new TypeError('filter: expected an object');
  const o = v as { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown; address?: unknown; topics?: unknown };
  const number = async (tag: unknown, field: string) => (await reads.getHeader(rpcBlockArg(tag ?? 'latest', field))).number;
  let from: bigint;
  let to: bigint;
  if (o.blockHash !== undefined) {
    if (o.fromBlock !== undefined || o.toBlock !== undefined) throw new TypeError('filter: blockHash excludes fromBlock and toBlock (EIP-234)');
    from = to = await number({ blockHash: o.blockHash }, 'filter.blockHash');
  } else {
    from = await number(o.fromBlock, 'filter.fromBlock');
    to = await number(o.toBlock, 'filter.toBlock');
  }
  const address = o.address === undefined || o.address === null ? undefined : (o.address as string | string[]);
  const topics = o.topics === undefined || o.topics === null ? undefined : (o.topics as (string | string[] | null)[]);
  return { fromBlock: from, toBlock: to, ...(address ? { address } : {}), ...(topics ? { topics } : {}) };
}

/** A verified transaction as `eth_getTransactionByHash` answers it (geth's shape). */
function transactionJson(t: VerifiedTransaction): Record<string, unknown> {
  const q = (n: bigint | number) => '0x' + n.toString(16);
  return {
    ...t.fields,
    hash: t.hash,
    from: t.from,
    blockHash: t.blockHash,
    blockNumber: q(t.blockNumber),
    blockTimestamp: q(t.blockTimestamp),
    transactionIndex: q(t.transactionIndex),
    gasPrice: q(t.effectiveGasPrice),
  };
}

/** A verified receipt as `eth_getTransactionReceipt` answers it (geth's shape). */
function receiptJson(r: VerifiedTransactionReceipt): Record<string, unknown> {
  const q = (n: bigint | number) => '0x' + n.toString(16);
  return {
    type: q(r.type),
    ...(r.root !== undefined ? { root: r.root } : { status: q(r.status ?? 0) }),
    cumulativeGasUsed: q(r.cumulativeGasUsed),
    logsBloom: r.logsBloom,
    logs: r.logs.map(logJson),
    transactionHash: r.transactionHash,
    transactionIndex: q(r.transactionIndex),
    blockHash: r.blockHash,
    blockNumber: q(r.blockNumber),
    from: r.from,
    to: r.to,
    gasUsed: q(r.gasUsed),
    effectiveGasPrice: q(r.effectiveGasPrice),
    contractAddress: r.contractAddress,
    ...(r.blobGasUsed !== undefined ? { blobGasUsed: q(r.blobGasUsed) } : {}),
    ...(r.blobGasPrice !== undefined ? { blobGasPrice: q(r.blobGasPrice) } : {}),
  };
}

/** A verified log as `eth_getLogs` answers it. */
function logJson(l: VerifiedLog): Record<string, unknown> {
  const q = (n: bigint | number) => '0x' + n.toString(16);
  return {
    address: l.address,
    topics: l.topics,
    data: l.data,
    blockNumber: q(l.blockNumber),
    blockHash: l.blockHash,
    blockTimestamp: q(l.blockTimestamp),
    transactionHash: l.transactionHash,
    transactionIndex: q(l.transactionIndex),
    logIndex: q(l.logIndex),
    removed: false,
  };
}

/** An unknown block: the node's -32001, or every node's. */
function unknownBlock(err: unknown): boolean {
  if (err instanceof FailoverError) return err.faults.length > 0 && err.faults.every((f) => unknownBlock(f.error));
  return err instanceof RpcError && err.code === -32001;
}

function allowUnverifiedArg(v: unknown): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((m) => typeof m === 'string')) throw new TypeError('allowUnverified: expected an array of method names');
  return v as string[];
}

/** A verified header as the JSON-RPC block fields. */
function headerJson(h: VerifiedHeader): Record<string, string> {
  const q = (v: bigint) => '0x' + v.toString(16);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (k === 'layout' || v === undefined) continue;
    out[k] = typeof v === 'bigint' ? q(v) : (v as string);
  }
  return out;
}

/** The length of an RLP item whose payload is `n` bytes (a list, or a string of more than one byte). */
function rlpLength(n: number): number {
  let prefix = 1;
  if (n >= 56) for (let x = n; x > 0; x = Math.floor(x / 256)) prefix++;
  return n + prefix;
}

/**
 * geth's `size`: the length of the block's RLP — header, transactions (a legacy one as its list,
 * a typed one as a byte string), no uncles, and from Shanghai on its withdrawals — all verified.
 */
function blockSize(header: VerifiedHeader, transactions: readonly Uint8Array[], withdrawals: readonly VerifiedWithdrawal[] | undefined): bigint {
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const head = encodeHeader(headerJson(header)).rlp.length;
  const txs = rlpLength(sum(transactions.map((t) => (t[0]! >= 0xc0 ? t.length : rlpLength(t.length)))));
  const ws = withdrawals === undefined ? 0 : rlpLength(sum(withdrawals.map((w) => withdrawalEncoding(w).length)));
  return BigInt(rlpLength(head + txs + 1 + ws));
}
