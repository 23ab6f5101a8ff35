/**
 * `LightClient`: reads state from one or more untrusted JSON-RPC nodes and returns it only after
 * checking it against a chain of headers verified from a trust anchor.
 *
 * - Anchor `{genesisHash, signers}` (a proof-of-authority chain such as lightprov-node's): every
 *   header from genesis on must link to its parent by hash and carry a seal by a trusted signer.
 * - Anchor `{checkpoint: {number, hash}}` (plain Ethereum networks): headers after the checkpoint
 *   are checked by hash links (and seals, if `signers` are given); headers before it by walking
 *   the parent hashes back from it.
 *
 * State (`getBalance`, `getTransactionCount`, `getCode`, `getStorageAt`, `getAccount`) comes from
 * `eth_getProof` and is verified against the state root of a verified header. With several
 * URLs, a node that fails or times out is skipped for the call, and a node that serves data that
 * does not verify is marked faulty and not asked again.
 */
import { BeaconHead, type BeaconTrust } from './beacon-head.js';
import type { BeaconHeader } from './beacon-store.js';
import { type BlobSchedule, type BlobScheduleEntry, blobScheduleArg } from './blobs.js';
import { type BlockTag, blockNumberArg, blockTagArg, objectArg, stateKeyArg, uint64Arg } from './args.js';
import { HeaderChain, type HeaderProgress, type Trust, anchorArg } from './chain.js';
import { type Eip1193Options, type Eip1193Provider, eip1193 } from './eip1193.js';
import {
  type AccessListResult,
  type CallContext,
  type CallLimits,
  type CallMethod,
  type CallOptions,
  type CallProgress,
  type CallRequest,
  type CallStats,
  type ChainConfig,
  accessListOutput,
  callLimitsArg,
  callOutput,
  callRequestArg,
  chainConfigArg,
  estimateOutput,
  verifiedCall,
} from './evm.js';
import { type ClientKeys, erc20BalanceKey } from './erc20.js';
import { type NodeFaultError, VerificationError, wasmCall } from './errors.js';
import { commitmentsOf, diffReader, historyProof, historyReader, maxHistoryBlocksOf, rangeReader, valueReader } from './families/index.js';
import {
  type DiffScheme,
  type FamilyContext,
  type HistoryProgress,
  type HistoryScheme,
  type RangeScheme,
  type ValueScheme,
  type VerifiedDiff,
  type VerifiedHistory,
  type VerifiedRange,
  type VerifiedValue,
  joinedHistory,
  provenBy,
} from './families/family.js';
import { type MbtParams, mbtParamsArg } from './families/mbt.js';
import { type VerifiedAccount, fetchAccount } from './families/mpt.js';
import type { VerifiedHeader } from './header.js';
import { bigIntToBytes, bytesArg, bytesToHex, hexToBytes, slotToHex } from './hex.js';
import { type StateKey, type Version, stateKeys } from './history.js';
import { loadFamily, wasmOf } from './init.js';
import { type LogFilter, type VerifiedLog, type VerifiedReceipt, blockReceipts, filterArg, logRange, rangeLogs } from './logs.js';
import { type IndexedTransaction, type VerifiedTransaction, type VerifiedTransactionReceipt, locateTransaction, orNotFound, provenTransaction, receiptOf } from './transactions.js';
import { Transport } from './transport.js';

export type { BlockTag } from './args.js';
export type { BlobScheduleEntry } from './blobs.js';
export type { BeaconStorage, BeaconTrust } from './beacon-head.js';
export type { HeaderProgress, Trust } from './chain.js';
export type { Eip1193Options, Eip1193Provider } from './eip1193.js';
export type { ClientKeys, Erc20BalanceKey, Erc20BalanceOptions, Erc20Probe } from './erc20.js';
export type { AccessListResult, CallLimits, CallOptions, CallProgress, CallRequest, CallStats, ChainConfig } from './evm.js';
export type { DiffScheme, HistoryProgress, HistoryProof, HistoryScheme, RangeScheme, ValueScheme, VerifiedDiff, VerifiedHistory, VerifiedRange, VerifiedValue } from './families/family.js';

/**
 * What `onProgress` hears: a walk of headers (`forward`, `backward`), a history read in several
 * proofs (`history`), or a round of a verified call (`call`).
 */
export type Progress = HeaderProgress | HistoryProgress | CallProgress;

/** An `eth_getProof` answer in geth's shape, every value the proven one (see `LightClient.getProof`). */
export interface ProvenAccountJson {
  address: string;
  accountProof: string[];
  balance: string;
  codeHash: string;
  nonce: string;
  storageHash: string;
  storageProof: { key: string; value: string; proof: string[] }[];
}

const ZERO_HASH = '0x' + '00'.repeat(32);

/** A JSON-RPC quantity (`0x0`, `0x1f`). */
const quantity = (v: bigint): string => '0x' + v.toString(16);

export interface LightClientOptions {
  /** JSON-RPC URLs, tried in order. */
  rpc: string | readonly string[];
  trust: Trust;
  /** Per-request timeout (default 10 s). */
  timeoutMs?: number;
  /** Headers fetched per JSON-RPC batch while extending the verified chain (default 100). */
  batchSize?: number;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /**
   * The most headers one call may verify to reach its block (default 100 000), forward from the
   * newest verified header or back from the oldest: a bound on the work a node can cause by
   * claiming a far head or naming an old block hash. Start from a newer checkpoint to go further.
   */
  maxHeaderGap?: number;
  /**
   * Called after each batch of headers a walk verifies (long walks take a while), and after
   * each proof of a history that takes several (`direction: 'history'`: the blocks one proof
   * covers, proofs verified of the total).
   */
  onProgress?: (p: Progress) => void;
  /**
   * SHA-256 of the LVMT parameters to accept (hex). Default: the verified genesis header's
   * `mixHash`, where lightprov-node binds them. Needed for chains that do not.
   */
  lvmtParamsId?: string;
  /**
   * The Merkle Bucket Tree parameters to accept. Default: those the verified genesis header pins
   * (`mbtParams`, extraData bytes 192..224), where lightprov-node pins them. Needed for chains
   * that do not.
   */
  mbtParams?: MbtParams;
  /**
   * The chain's blob base fee update fraction from each fork on (EIP-4844, EIP-7691, EIP-7892):
   * `[{ timestamp, baseFeeUpdateFraction }]`, e.g. `[{ timestamp: 0, baseFeeUpdateFraction:
   * 5007716 }]` for a chain on Prague's schedule from genesis. No header holds it; with it, a blob
   * transaction's receipt has its verified `blobGasPrice` (its `blobGasUsed` needs nothing).
   */
  blobSchedule?: readonly BlobScheduleEntry[];
  /**
   * The chain's fork schedule for verified calls (`call`, `estimateGas`, `createAccessList`), in
   * the keys of geth's genesis `config` (paste it whole): which fork's rules a block runs under
   * is chain data no header holds. Built in for mainnet, Sepolia and Hoodi; needed for others.
   * Under an anchor with signers (a Clique chain such as lightprov-node's), the calls run under
   * proof-of-authority rules, as with `clique` in the config.
   */
  chainConfig?: ChainConfig;
  /** Bounds of one verified call: gas, rounds, state proven, the hint taken (see `DEFAULT_CALL_LIMITS`). */
  callLimits?: Partial<CallLimits>;
}

/** What {@link LightClient.getValue} asks for. */
export interface ValueQuery {
  /**
   * `mpt` (default): `eth_getProof`; `lvmt`: an LVMT proof of presence or absence; `forkless`: a
   * LiveDB proof; `pos`: a POS-Tree path against the block's own `posRoot`.
   */
  scheme?: ValueScheme;
  /** The block (default: the verified head). LVMT proves older blocks by a one-block history. */
  block?: BlockTag;
}

/** What {@link LightClient.getHistory} asks for. */
export interface HistoryQuery {
  /** First block of the range. */
  fromBlock: bigint | number;
  /** Last block of the range (default: the verified head). */
  toBlock?: bigint | number | 'latest';
  /**
   * `cole` / `cole-star` / `lvmt` / `forkless`: one provenance proof; `pos`: one POS-Tree node set
   * checked against every block's `posRoot`; `mpt`: one `eth_getProof` per block.
   */
  scheme: HistoryScheme;
}

/** What {@link LightClient.getRange} asks for. */
export interface RangeQuery {
  /** The block (default: the verified head). */
  block?: BlockTag;
  /** `pos` (the default while it is the only one): one POS-Tree range proof. */
  scheme?: RangeScheme;
}

/** What {@link LightClient.getDiff} asks for. */
export interface DiffQuery {
  /**
   * `mbt` (one Merkle Bucket Tree diff proof against both blocks' `mbtRoot`) or `pos` (one
   * POS-Tree diff proof against both `posRoot`s). Required while several schemes answer diffs.
   */
  scheme?: DiffScheme;
}

/** Chain data is verified before it is returned; see the module documentation. */
export class LightClient {
  /**
   * State key builders: `client.keys.balance(addr)`, `.nonce(addr)`, `.storage(addr, slot)`,
   * `.mapping(addr, index, key)`, and `await .erc20Balance(token, owner, { slot })` — a token
   * balance, its slot index given or found by a verified probe (`SlotProbeError` when it cannot
   * be told).
   */
  readonly keys: ClientKeys = { ...stateKeys, erc20Balance: (token, owner, options) => erc20BalanceKey(this, token, owner, options) };

  private constructor(
    private readonly net: Transport,
    private readonly chain: HeaderChain,
    private readonly ctx: FamilyContext,
    private readonly beaconHead: BeaconHead | undefined,
    private readonly blobs: BlobSchedule | undefined,
    private readonly calls: CallContext,
  ) {}

  /** Creates a client and verifies its anchor header. */
  static async connect(opts: LightClientOptions): Promise<LightClient> {
    objectArg(opts, 'options', 'an object');
    let anchor = anchorArg(opts.trust);
    const urls = typeof opts.rpc === 'string' ? [opts.rpc] : Array.isArray(opts.rpc) ? [...(opts.rpc as readonly string[])] : [];
    const net = new Transport(urls, opts.timeoutMs ?? 10_000, opts.fetch ?? globalThis.fetch.bind(globalThis));
    const batchSize = opts.batchSize ?? 100;
    const gap = opts.maxHeaderGap ?? 100_000;
    if (!Number.isSafeInteger(gap) || gap < 1) throw new RangeError('maxHeaderGap: expected a positive integer');
    const lvmtParamsId = opts.lvmtParamsId === undefined ? undefined : bytesToHex(bytesArg(opts.lvmtParamsId, 'lvmtParamsId', 32));
    await loadFamily('header');
    if (opts.onProgress !== undefined && typeof opts.onProgress !== 'function') throw new TypeError('onProgress: expected a function');
    if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 1000) throw new RangeError('batchSize: expected an integer from 1 to 1000');
    let beacon: BeaconHead | undefined;
    if (anchor.field === 'trust.beacon') {
      // The head the sync committee signed is the anchor; the chain follows it from there.
      beacon = await BeaconHead.open((opts.trust as { beacon: BeaconTrust }).beacon, opts.timeoutMs ?? 10_000, opts.fetch ?? globalThis.fetch.bind(globalThis));
      const { head } = beacon.execution();
      anchor = { ...anchor, number: head.number, hash: head.hash };
    }
    const chain = await HeaderChain.open(net, anchor, batchSize, BigInt(gap), opts.onProgress);
    if (beacon !== undefined) chain.trackBeacon(beacon);
    const mbtParams = opts.mbtParams === undefined ? undefined : mbtParamsArg(opts.mbtParams, 'mbtParams');
    const blobs = blobScheduleArg(opts.blobSchedule);
    const ctx: FamilyContext = { net, chain, batchSize, state: new Map(), options: { lvmtParamsId, mbtParams }, progress: opts.onProgress };
    const calls: CallContext = { net, chain, chainId: chain.chainId, schedule: chainConfigArg(opts.chainConfig, 'chainConfig', anchor.signers.length > 0), limits: callLimitsArg(opts.callLimits), progress: opts.onProgress };
    return new LightClient(net, chain, ctx, beacon, blobs, calls);
  }

  /**
   * With `trust: { beacon }`: the beacon light client's verified headers after a refresh, each
   * with its execution block — `head` (the newest header at least `minParticipation` of the
   * committee signed: what `latest` reads), `finalized`, and the protocol's `optimistic` one
   * (on a fresh store a single member's signature moves it; never read as the head) — the
   * head's `age` against the clock (past `maxHeadAge`, reads of `latest` throw
   * `StaleHeadError`), how many of the committee signed the last update, and the beacon nodes
   * marked faulty. `undefined` for other anchors.
   */
  async beacon(): Promise<
    | {
        head: BeaconHeader;
        finalized: BeaconHeader;
        optimistic: BeaconHeader;
        age: { slots: bigint; seconds: number };
        participation: { signed: number; size: number } | undefined;
        faultyNodes: { url: string; error: Error }[];
      }
    | undefined
  > {
    const b = this.beaconHead;
    if (b === undefined) return undefined;
    await b.refresh();
    return { head: b.head(), finalized: b.finalized(), optimistic: b.optimistic(), age: b.age(), participation: b.participation(), faultyNodes: b.net.faultyNodes() };
  }

  /**
   * With a checkpoint anchor (no signers), adds a newer checkpoint: a block hash the app trusts,
   * from a source it trusts (its own node, a consensus client, a service it pays). Headers after
   * a checkpoint carry no proof of consensus the client can check, so `latest` stays at the
   * newest checkpoint until the app adds one; the headers between are verified by hash links.
   * Refused (`PARENT_MISMATCH`) when it does not descend from the verified chain.
   *
   * @example
   * await client.addCheckpoint({ number: 19_000_100n, hash: '0x…' });
   */
  async addCheckpoint(checkpoint: { number: bigint | number; hash: string }): Promise<VerifiedHeader> {
    const c = objectArg<{ number: bigint | number; hash: string }>(checkpoint, 'checkpoint', '{ number, hash }');
    const number = blockNumberArg(c.number, 'checkpoint.number');
    const hash = bytesToHex(bytesArg(c.hash, 'checkpoint.hash', 32));
    return this.net.withFailover((e) => this.chain.addCheckpoint(e, number, hash));
  }

  /** The verified header of a block ('latest' is the node's head, verified back to the anchor). */
  async getHeader(block: BlockTag = 'latest'): Promise<VerifiedHeader> {
    return this.net.withFailover((e) => this.chain.headerAt(e, block));
  }

  /** The account and the requested slots, verified. */
  async getAccount(address: string, slots: readonly (string | bigint | number)[] = [], block: BlockTag = 'latest'): Promise<VerifiedAccount> {
    const addr = bytesToHex(bytesArg(address, 'address', 20));
    const keys = slots.map((s, i) => slotToHex(s, `slots[${i}]`));
    return this.net.withFailover(async (e) => (await fetchAccount(this.ctx, e, addr, keys, block)).account);
  }

  /**
   * An `eth_getProof` answer for `address` and `slots` at `block`, after the node's verified
   * against the verified header of `block`, with what it proves. `proof` holds the node's proof
   * nodes (each one checked) and, for every value, the proven one in geth's form — not the
   * node's text: no field the proof does not cover passes through (an absent account's code
   * hash and storage root are zero, as geth answers them).
   */
  async getProof(address: string, slots: readonly (string | bigint | number)[] = [], block: BlockTag = 'latest'): Promise<{ proof: ProvenAccountJson; account: VerifiedAccount; header: VerifiedHeader }> {
    const addr = bytesToHex(bytesArg(address, 'address', 20));
    const keys = slots.map((s, i) => slotToHex(s, `slots[${i}]`));
    return this.net.withFailover(async (e) => {
      const { account, header, raw } = await fetchAccount(this.ctx, e, addr, keys, block);
      const node = raw as { accountProof: string[]; storageProof: { key: string; proof: string[] }[] };
      const proof: ProvenAccountJson = {
        address: account.address,
        accountProof: node.accountProof,
        balance: quantity(account.balance),
        // geth answers zero hashes for an account that does not exist.
        codeHash: account.exists ? account.codeHash : ZERO_HASH,
        nonce: quantity(account.nonce),
        storageHash: account.exists ? account.storageHash : ZERO_HASH,
        storageProof: account.storage.map((slot, i) => ({ key: node.storageProof[i]!.key, value: quantity(slot.value), proof: node.storageProof[i]!.proof })),
      };
      return { proof, account, header };
    });
  }

  /** Balance in wei, verified. */
  async getBalance(address: string, block: BlockTag = 'latest'): Promise<bigint> {
    return (await this.getAccount(address, [], block)).balance;
  }

  /** Nonce, verified. */
  async getTransactionCount(address: string, block: BlockTag = 'latest'): Promise<bigint> {
    return (await this.getAccount(address, [], block)).nonce;
  }

  /** A storage slot as 32-byte hex, verified. */
  async getStorageAt(address: string, slot: string | bigint | number, block: BlockTag = 'latest'): Promise<string> {
    const a = await this.getAccount(address, [slot], block);
    return bytesToHex(bigIntToBytes(a.storage[0]?.value ?? 0n, 32));
  }

  /** Code as hex; its keccak256 must equal the verified code hash. */
  async getCode(address: string, block: BlockTag = 'latest'): Promise<string> {
    const addr = bytesToHex(bytesArg(address, 'address', 20));
    return this.net.withFailover(async (e) => {
      const { account, header } = await fetchAccount(this.ctx, e, addr, [], block);
      const code = hexToBytes(await this.net.call(e, 'eth_getCode', [addr, { blockHash: header.hash }]), 'code');
      const wasm = wasmOf('mpt');
      const hash = bytesToHex(wasmCall(() => wasm.keccak256(code)));
      if (hash !== account.codeHash) {
        throw new VerificationError('VALUE_MISMATCH', `the code hashes to ${hash}, not to the proven ${account.codeHash}`, { field: 'code' });
      }
      return bytesToHex(code);
    });
  }

  /**
   * The value of a state key, verified by MPT (`eth_getProof`) or by LVMT.
   *
   * @example
   * const wei = await client.getValue(client.keys.balance(addr), { scheme: 'lvmt' });
   */
  async getValue(key: StateKey | string, query: ValueQuery = {}): Promise<bigint> {
    return (await this.getValueDetailed(key, query)).value;
  }

  /** {@link LightClient.getValue} with the anchor header, version, proof size and verify time. */
  async getValueDetailed(key: StateKey | string, query: ValueQuery = {}): Promise<VerifiedValue> {
    const q = objectArg<ValueQuery>(query, 'query', '{ scheme, block }');
    const reader = valueReader(q.scheme ?? 'mpt');
    this.chain.requireCommitments(q.scheme ?? 'mpt', commitmentsOf(reader.name));
    const stateKey = stateKeyArg(key);
    const k = typeof key === 'string' ? undefined : key;
    const block = q.block ?? 'latest';
    return this.net.withFailover((e) => reader.value!(this.ctx, e, stateKey, k, block));
  }

  /**
   * The values of a state key over a block range, verified: the value at `fromBlock`, then one
   * point per block where it changed. A range longer than one proof covers (MBT 1,024 blocks,
   * POS-Tree 4,096, or the node's `--max-history-range` for COLE, LVMT, MBT and POS-Tree) is read
   * in consecutive proofs, each verified, that must join: each starts at the block the one
   * before ends at, and both prove the same value there (`onProgress` hears of each proof).
   *
   * @example
   * const points = await client.getHistory(client.keys.balance(addr), { fromBlock: 1, toBlock: 64, scheme: 'cole' });
   */
  async getHistory(key: StateKey | string, query: HistoryQuery): Promise<Version[]> {
    return (await this.getHistoryDetailed(key, query)).points;
  }

  /** {@link LightClient.getHistory} with the anchor header, proof size and verify time. */
  async getHistoryDetailed(key: StateKey | string, query: HistoryQuery): Promise<VerifiedHistory> {
    const q = objectArg<HistoryQuery>(query, 'query', '{ fromBlock, toBlock, scheme }');
    const reader = historyReader(q.scheme);
    this.chain.requireCommitments(q.scheme, commitmentsOf(reader.name));
    const stateKey = stateKeyArg(key);
    const k = typeof key === 'string' ? undefined : key;
    const from = blockNumberArg(q.fromBlock, 'fromBlock');
    return this.net.withFailover(async (e) => {
      const to = q.toBlock === undefined || q.toBlock === 'latest' ? (await this.chain.headerAt(e, 'latest')).number : blockNumberArg(q.toBlock, 'toBlock');
      if (from > to) throw new RangeError(`fromBlock ${from} is after toBlock ${to}`);
      return joinedHistory(this.ctx, e, reader, maxHistoryBlocksOf(reader.name), { stateKey, key: k, from, to, scheme: q.scheme });
    });
  }

  /**
   * Every state entry with a key in `lo..=hi` at a block, verified complete: no entry of the
   * range left out, none added (POS-Tree: against the block's `posRoot`).
   *
   * @example
   * const entries = await client.getRange(lo, hi, { block: 64 });
   */
  async getRange(lo: string | Uint8Array, hi: string | Uint8Array, query: RangeQuery = {}): Promise<VerifiedRange['entries']> {
    return (await this.getRangeDetailed(lo, hi, query)).entries;
  }

  /** {@link LightClient.getRange} with the anchor header, proof size and verify time. */
  async getRangeDetailed(lo: string | Uint8Array, hi: string | Uint8Array, query: RangeQuery = {}): Promise<VerifiedRange> {
    const q = objectArg<RangeQuery>(query, 'query', '{ block, scheme }');
    const reader = rangeReader(q.scheme);
    const l = bytesToHex(bytesArg(lo, 'lo', 32));
    const h = bytesToHex(bytesArg(hi, 'hi', 32));
    if (BigInt(l) > BigInt(h)) throw new RangeError(`lo ${l} is above hi ${h}`);
    this.chain.requireCommitments(reader.rangeSchemes?.[0] ?? reader.name, commitmentsOf(reader.name));
    const block = q.block === undefined ? 'latest' : blockTagArg(q.block, 'block');
    return this.net.withFailover((e) => reader.range!(this.ctx, e, l, h, block));
  }

  /**
   * Every state key whose value differs between two blocks, with its value at each (`null`:
   * absent), verified complete against both blocks' headers (MBT: `mbtRoot`; POS-Tree:
   * `posRoot`).
   *
   * @example
   * const changes = await client.getDiff(63, 64, { scheme: 'pos' });
   */
  async getDiff(fromBlock: bigint | number, toBlock: bigint | number, query: DiffQuery = {}): Promise<VerifiedDiff['changes']> {
    return (await this.getDiffDetailed(fromBlock, toBlock, query)).changes;
  }

  /** {@link LightClient.getDiff} with both anchor headers, proof size and verify time. */
  async getDiffDetailed(fromBlock: bigint | number, toBlock: bigint | number, query: DiffQuery = {}): Promise<VerifiedDiff> {
    const q = objectArg<DiffQuery>(query, 'query', '{ scheme }');
    const reader = diffReader(q.scheme);
    const from = blockNumberArg(fromBlock, 'fromBlock');
    const to = blockNumberArg(toBlock, 'toBlock');
    if (from > to) throw new RangeError(`fromBlock ${from} is after toBlock ${to}`);
    this.chain.requireCommitments(reader.diffSchemes?.[0] ?? reader.name, commitmentsOf(reader.name));
    const scheme = q.scheme ?? (reader.diffSchemes?.[0] as DiffScheme);
    return this.net.withFailover((e) => reader.diff!(this.ctx, e, from, to, scheme));
  }

  /**
   * Verifies `proof` in place of the proof behind `h`, a history this client verified: same key,
   * range and scheme, against the same anchor header, by the same verifier (its family's
   * `reverify`). `proof` defaults to the history's own ({@link historyProof}; for MPT the
   * `eth_getProof` answer for the range's last block, checked against the header of `toBlock`;
   * for a history read in several proofs, the last, checked as the last of `h.chunks`).
   * Throws `VerificationError` if it does not verify; no node is asked or marked faulty.
   *
   * @example
   * const h = await client.getHistoryDetailed(key, { fromBlock: 1, toBlock: 64, scheme: 'cole' });
   * client.verifyHistoryProof(h, forged.proof); // throws VerificationError
   */
  verifyHistoryProof(h: VerifiedHistory, proof: unknown = historyProof(h).proof): void {
    const reader = historyReader(h.scheme);
    if (!reader.reverify) throw new TypeError(`scheme: the ${reader.name} family cannot verify a proof in place of another`);
    reader.reverify(this.ctx, provenBy(h), proof);
  }

  /**
   * The receipts of a block, verified: they must rebuild the verified header's `receiptsRoot`
   * (and the block's transactions its `transactionsRoot`, which names each receipt's
   * transaction). Needs a node that serves `eth_getBlockReceipts`.
   */
  async getBlockReceipts(block: BlockTag = 'latest'): Promise<{ header: VerifiedHeader; receipts: VerifiedReceipt[] }> {
    return this.net.withFailover(async (e) => {
      const header = await this.chain.headerAt(e, block);
      return { header, receipts: await blockReceipts(this.net, e, header) };
    });
  }

  /**
   * The logs matching `filter` (as `eth_getLogs`), verified and complete per block: a block whose
   * verified `logsBloom` rules the filter out is skipped, every other block's receipts must
   * rebuild its `receiptsRoot`, so no log can be hidden. At most `MAX_LOG_RANGE` blocks a call.
   *
   * @example
   * const transfers = await client.getLogs({ fromBlock: 100, toBlock: 200, address: token, topics: [TRANSFER_TOPIC] });
   */
  async getLogs(filter: LogFilter): Promise<VerifiedLog[]> {
    const q = objectArg<LogFilter>(filter, 'filter', '{ fromBlock, toBlock, address?, topics? }');
    const from = blockNumberArg(q.fromBlock, 'filter.fromBlock');
    const to = blockNumberArg(q.toBlock, 'filter.toBlock');
    const f = filterArg(q);
    return this.net.withFailover(async (e) => {
      return rangeLogs(this.net, e, await logRange(this.chain, e, from, to), f);
    });
  }

  /**
   * A transaction by hash, verified: its block is on the verified chain, the block's
   * transactions rebuild `transactionsRoot` with this one among them, and its sender is
   * recovered from the signature. `undefined` when no node places it in a block — which proves
   * nothing (a node can hide a transaction, not forge one).
   */
  async getTransaction(hash: string): Promise<VerifiedTransaction | undefined> {
    const h = bytesToHex(bytesArg(hash, 'hash', 32));
    return orNotFound(() => this.net.withFailover(async (e) => (await locateTransaction(this.net, this.chain, e, h)).tx));
  }

  /**
   * A transaction's receipt, verified: the receipt at the transaction's index of its verified
   * block, all of whose receipts rebuild `receiptsRoot`. `undefined` as for `getTransaction`.
   */
  async getTransactionReceipt(hash: string): Promise<VerifiedTransactionReceipt | undefined> {
    const h = bytesToHex(bytesArg(hash, 'hash', 32));
    return orNotFound(() =>
      this.net.withFailover(async (e) => {
        const { header, tx, block } = await locateTransaction(this.net, this.chain, e, h);
        return receiptOf(this.net, e, header, tx, block, this.blobs);
      }),
    );
  }

  /**
   * The transaction and receipt at `index` of `block`, each proven by one trie proof
   * (`lightprov_getTransactionProof`) against the verified header's `transactionsRoot` and
   * `receiptsRoot`; sender recovered, `gasUsed` from the receipt before it (proven in the same
   * batch). From a node without that method (geth and every other execution client), from the
   * block's transactions and receipts, which must rebuild the same roots. `undefined` when the
   * proofs (or the whole list) show the block holds no transaction at `index` — a proof, unlike
   * `getTransaction`'s `undefined`. The receipt's logs carry no block-wide `logIndex` (that
   * needs every earlier receipt: use `getTransactionReceipt`).
   *
   * @example
   * const first = await client.getTransactionProof(1234n, 0);
   * first?.transaction.from; first?.receipt.status;
   */
  async getTransactionProof(block: BlockTag, index: bigint | number): Promise<IndexedTransaction | undefined> {
    const tag = blockTagArg(block, 'block');
    const i = uint64Arg(index, 'index', 'an index');
    return this.net.withFailover(async (e) => provenTransaction(this.net, e, await this.chain.headerAt(e, tag), i, this.blobs));
  }

  /** URLs that served data that did not verify (or numbers that contradict themselves), with the error. */
  faultyNodes(): { url: string; error: VerificationError | NodeFaultError }[] {
    return this.net.faultyNodes();
  }

  /**
   * `eth_call`, verified: the call runs in WebAssembly (revm) over state proven against the
   * verified header of `block` (default: the verified head, pinned for the whole call), and its
   * return data is returned. A revert throws an `ExecutionError` as geth answers it (code 3,
   * "execution reverted: reason", the revert data in `data`); an exceptional halt or a
   * transaction the chain's rules refuse, one with code -32000 and geth's message. The node's
   * access list is only a prefetch hint; the node's own `eth_call` is never asked.
   *
   * @example
   * const data = iface.encodeFunctionData('balanceOf', [holder]);
   * const balance = BigInt(await client.call({ to: token, data }));
   */
  async call(tx: CallRequest, options: CallOptions = {}): Promise<string> {
    return (await this.callDetailed(tx, options)).output;
  }

  /** {@link LightClient.call} with the gas used, the pinned header and what the call cost. */
  async callDetailed(tx: CallRequest, options: CallOptions = {}): Promise<{ output: string; gasUsed: bigint; header: VerifiedHeader; stats: CallStats }> {
    const { answer, header, stats } = await this.verified('call', tx, options);
    return { ...callOutput(answer), header, stats };
  }

  /**
   * `eth_estimateGas`, verified: geth's binary search (its 1.5 % stop, Osaka's 2^24 cap, the
   * block's gas limit when `gas` is not given) over runs on proven state. A call that reverts at
   * the highest gas allowed throws its revert as `call` does.
   */
  async estimateGas(tx: CallRequest, options: CallOptions = {}): Promise<bigint> {
    return estimateOutput((await this.verified('estimateGas', tx, options)).answer);
  }

  /**
   * `eth_createAccessList`, verified: geth's access-list tracer run to its fixed point over
   * proven state (the sender, the callee and the fork's precompiles left out, as geth leaves
   * them), with the gas the call uses with the list, and the call's failure if it fails.
   */
  async createAccessList(tx: CallRequest, options: CallOptions = {}): Promise<AccessListResult> {
    return accessListOutput((await this.verified('createAccessList', tx, options)).answer);
  }

  private async verified(method: CallMethod, tx: CallRequest, options: CallOptions) {
    const o = objectArg<CallOptions>(options, 'options', '{ block }');
    for (const k of Object.keys(o)) if (k !== 'block') throw new TypeError(`options.${k}: unknown option (verified calls take { block })`);
    const req = callRequestArg(tx);
    const block = o.block === undefined ? 'latest' : blockTagArg(o.block, 'block');
    return this.net.withFailover((e) => verifiedCall(this.calls, e, method, req, block));
  }

  /**
   * An EIP-1193 provider. Each method has a class (`EIP1193_METHODS`): state, proofs, the head
   * and block headers are answered after verification; the chain id, sends and the pending nonce
   * are forwarded and checked; every other method is refused with error 4200 unless named in
   * `allowUnverified`, which forwards it to a node as it is.
   *
   * @example
   * const provider = new ethers.BrowserProvider(client.asEip1193());
   * const viem = createPublicClient({ transport: custom(client.asEip1193()) });
   * // A wallet that sends needs fee data, which no proof covers (the node's word, forwarded as it is):
   * client.asEip1193({ allowUnverified: ['eth_estimateGas', 'eth_gasPrice', 'eth_maxPriorityFeePerGas'] });
   */
  asEip1193(options: Eip1193Options = {}): Eip1193Provider {
    return eip1193(this, this.net, this.chain, options);
  }
}
