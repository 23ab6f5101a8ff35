/**
 * The verified header chain: the trust anchor, and every header linked to it — going forward by
 * parent hash and a Clique-style seal by a trusted signer, going back by each header hashing to
 * its child's parentHash. `latest` never moves below the highest verified header, whatever a node
 * claims, and one call verifies at most `maxHeaderGap` headers.
 */
import { type BlockTag, blockNumberArg, blockTagArg } from './args.js';
import { commitmentOf, headerCommitments } from './commitments.js';
import { NodeFaultError, ReorgError, RpcError, VerificationError, wasmCall } from './errors.js';
import { type VerifiedHeader, encodeHeader } from './header.js';
import { bytesArg, bytesToHex, hexToBigInt, hexToBytes } from './hex.js';
import { loadFamily, wasmOf } from './init.js';
import type { BeaconExecutionHead, BeaconHead, BeaconTrust } from './beacon-head.js';
import type { Endpoint, Transport } from './transport.js';

/**
 * What the client trusts. `commitments` names the roots the chain's headers carry beyond
 * `stateRoot` (`coleRoot`, `lvmtRoot`, `lvmtHistoryRoot`, `lvmtParamsId`: see
 * `headerCommitments()`); a family whose commitments the chain does not carry is refused before
 * any request (`UNSUPPORTED_SCHEME`). Default: for a genesis anchor, those the genesis header
 * carries in lightprov's layout (each nonzero); for a checkpoint, none — on a chain whose block
 * builders choose `extraData`, roots read from it would prove nothing.
 */
export type Trust = (
  | { genesisHash: string; signers: readonly string[]; commitments?: readonly string[] }
  | { checkpoint: { number: number | bigint; hash: string }; signers?: readonly string[]; commitments?: readonly string[] }
  | { beacon: BeaconTrust; commitments?: readonly string[] }
) & {
  /**
   * The chain's EIP-155 id. No header commits to it, so a node's `eth_chainId` can only be
   * checked against this; `asEip1193()` answers it from here when given.
   */
  chainId?: number | bigint;
};

/** How far a walk of headers got: reported after each batch of `batchSize` headers. */
export interface HeaderProgress {
  /** `forward` (after the verified range, by parent links and seals) or `backward` (before it, by hash links). */
  direction: 'forward' | 'backward';
  /** Headers verified so far in this walk. */
  verified: bigint;
  /** Headers the walk verifies. */
  total: bigint;
}

/** The anchor a {@link Trust} names, with the signers packed for the wasm seal check. */
export interface Anchor {
  number: bigint;
  hash: string;
  /** The argument that named it, for errors. */
  field: 'trust.genesisHash' | 'trust.checkpoint.hash' | 'trust.beacon';
  /** `trust.commitments`, if given. */
  commitments: readonly string[] | undefined;
  /** `trust.chainId`, if given. */
  chainId: bigint | undefined;
  /** 20 bytes per trusted signer (empty: hash links only). */
  signers: Uint8Array;
}

/** The execution chain id (EIP-155) of each public beacon network, by the name `trust.beacon.network` takes. */
const EXECUTION_CHAIN_IDS: Readonly<Record<string, bigint>> = { mainnet: 1n, sepolia: 11155111n, holesky: 17000n, hoodi: 560048n };

/** Checks a caller's trust argument. */
export function anchorArg(trust: unknown): Anchor {
  const t = trust as Partial<{ genesisHash: string; signers: readonly string[]; checkpoint: { number: number | bigint; hash: string }; commitments: unknown }>;
  if (typeof t !== 'object' || t === null) throw new TypeError('trust: expected {genesisHash, signers}, {checkpoint} or {beacon}');
  if (t.commitments !== undefined && !(Array.isArray(t.commitments) && t.commitments.every((c) => typeof c === 'string'))) {
    throw new TypeError('trust.commitments: expected an array of commitment names (coleRoot, lvmtRoot, …)');
  }
  const commitments = t.commitments as readonly string[] | undefined;
  const raw = (t as { chainId?: unknown }).chainId;
  const chainId = raw === undefined ? undefined : blockNumberArg(raw, 'trust.chainId');
  const signerList = t.signers ?? [];
  if (!Array.isArray(signerList)) throw new TypeError('trust.signers: expected an array of addresses');
  const signers = new Uint8Array(20 * signerList.length);
  signerList.forEach((s, i) => signers.set(bytesArg(s, `trust.signers[${i}]`, 20), 20 * i));
  if (t.genesisHash !== undefined) {
    if (signerList.length === 0) throw new RangeError('trust.signers: a genesis anchor needs at least one signer');
    return { number: 0n, hash: bytesToHex(bytesArg(t.genesisHash, 'trust.genesisHash', 32)), signers, field: 'trust.genesisHash', commitments, chainId };
  }
  if ((t as { beacon?: unknown }).beacon !== undefined) {
    if (signerList.length > 0) throw new TypeError('trust.signers: a beacon anchor has no signers (the sync committee signs its headers)');
    // A public network's execution chain id is a fact of the network the app named, not a
    // node's word: it is pinned from the name (and a different trust.chainId refused).
    const net = (t as { beacon: { network?: unknown } }).beacon.network;
    const name = typeof net === 'string' ? net : typeof net === 'object' && net !== null && 'name' in net ? (net as { name: unknown }).name : undefined;
    const known = typeof name === 'string' ? EXECUTION_CHAIN_IDS[name] : undefined;
    if (known !== undefined && chainId !== undefined && chainId !== known) {
      throw new RangeError(`trust.chainId: ${name}'s execution chain id is ${known}, not ${chainId}`);
    }
    // The block comes from the beacon chain once it is synced (LightClient.connect).
    return { number: -1n, hash: '', signers, field: 'trust.beacon', commitments, chainId: chainId ?? known };
  }
  if (t.checkpoint !== undefined) {
    const checkpoint = t.checkpoint as { number?: unknown; hash?: unknown };
    return {
      number: blockNumberArg(checkpoint.number, 'trust.checkpoint.number'),
      hash: bytesToHex(bytesArg(checkpoint.hash, 'trust.checkpoint.hash', 32)),
      signers,
      field: 'trust.checkpoint.hash',
      commitments,
      chainId,
    };
  }
  throw new TypeError('trust: expected {genesisHash, signers}, {checkpoint: {number, hash}} or {beacon: {network, checkpoint, urls}}');
}

/**
 * The commitments a chain carries: `trust.commitments` (checked against the table), else, for a
 * genesis anchor, each one the genesis header holds in lightprov's layout (extraData exactly the
 * commitments and a seal) with a nonzero value, else `stateRoot` only.
 */
function carried(anchor: Anchor, genesis: VerifiedHeader): ReadonlySet<string> {
  const table = headerCommitments();
  const out = new Set(['stateRoot']);
  if (anchor.commitments !== undefined) {
    anchor.commitments.forEach((name, i) => {
      if (!table.some((c) => c.name === name)) {
        throw new RangeError(`trust.commitments[${i}]: no header commitment is named ${JSON.stringify(name)} (known: ${table.map((c) => c.name).join(', ')})`);
      }
      out.add(name);
    });
    return out;
  }
  if (anchor.number !== 0n) return out;
  const extraLen = Math.max(0, ...table.filter((c) => c.field === 'extraData').map((c) => c.offset + c.length));
  const lightprovLayout = hexToBytes(genesis.extraData, 'extraData').length === extraLen + SEAL_BYTES;
  for (const c of table) {
    if (c.field === 'extraData' && !lightprovLayout) continue;
    if (!/^0x0*$/.test(commitmentOf(genesis as unknown as Record<string, unknown>, c.name))) out.add(c.name);
  }
  return out;
}

/**
 * Refuses a block number no chain reaches (2^53 blocks: 3 billion years at 12 s): a node that
 * names one lies, and is marked faulty. A far but possible number only skips the node, which
 * may be honest and further ahead than the client can verify.
 */
function impossible(e: Endpoint, method: string, n: bigint): void {
  if (n >= IMPOSSIBLE_BLOCK) throw new NodeFaultError(method, e.url, `names block ${n}, beyond 2^53: no chain is that long`);
}

const IMPOSSIBLE_BLOCK = 1n << 53n;

/** A verified header after the anchor, as fork choice needs it. */
interface BranchHeader {
  number: bigint;
  parentHash: string;
  /** Total difficulty since the anchor. */
  td: bigint;
  /** Its signer (lowercase hex), `''` for the anchor. */
  signer: string;
}

/** How far back a competing branch may leave the verified chain. */
export const MAX_REORG_DEPTH = 128;
/** Branch headers remembered for fork choice before the oldest are dropped. */
const MAX_BRANCH_HEADERS = 4096;
/** Whole headers kept in memory (about 2 KB each): enough for `getLogs` over 2,048 blocks without fetching one twice. */
const RECENT_HEADERS = 2048;

/** Bytes of a Clique seal at the end of extraData. */
const SEAL_BYTES = 65;
/** Reads of a header range restarted after a reorganisation cut it, before a {@link ReorgError}. */
const RANGE_ATTEMPTS = 3;

/**
 * How a fetched header is tied to what is verified: by a hash the client already trusts (and,
 * with `sealed`, a trusted signer's seal as well), or — the forward walk only — by its seal and
 * a parent link.
 */
type Tie = { hash: string; sealed: boolean } | { forward: true; parent?: string };

/** Headers verified from the anchor, and how to verify more. */
export class HeaderChain {
  /** Hash of every verified block, by number: a contiguous range [lowest, highest]. */
  private readonly hashes = new Map<bigint, string>();
  private readonly byHash = new Map<string, bigint>();
  private lowest = 0n;
  private highest = -1n;
  /** The most recently used full headers (the hashes above are what is trusted). */
  /** The last {@link RECENT_HEADERS} headers verified or read, whole (older ones are fetched again by hash). */
  private readonly recent = new Map<bigint, VerifiedHeader>();
  /** Serialises extensions of the verified range, so concurrent calls do not fetch twice. */
  private extending: Promise<unknown> = Promise.resolve();

  /** The header commitments the trusted chain carries (`stateRoot` always). */
  commitments: ReadonlySet<string> = new Set(['stateRoot']);
  /** How errors name the chain: its anchor. */
  readonly name: string;
  /** `trust.chainId`, if given. */
  readonly chainId: bigint | undefined;

  /** Every verified header after the anchor, on any branch: parent, total difficulty, signer. */
  private readonly info = new Map<string, BranchHeader>();
  /** The trusted signers, sorted (Clique's turn order). */
  private readonly sortedSigners: string[];
  private readonly anchorNumber: bigint;
  /** How often a heavier branch replaced the verified one. */
  reorgs = 0;
  /** The beacon light client whose verified execution blocks are the chain's head, if any. */
  private beacon: BeaconHead | undefined;
  /** The newest execution block the beacon chain finalized (-1: none yet). */
  private finalizedNumber = -1n;

  private constructor(
    private readonly net: Transport,
    private readonly signers: Uint8Array,
    private readonly batchSize: number,
    private readonly maxHeaderGap: bigint,
    anchor: Anchor,
    private readonly progress: ((p: HeaderProgress) => void) | undefined,
  ) {
    this.name = `the chain of ${anchor.field.replace('trust.', '')} ${anchor.hash}`;
    this.chainId = anchor.chainId;
    this.anchorNumber = anchor.number;
    const list: string[] = [];
    for (let i = 0; i < signers.length; i += 20) list.push(bytesToHex(signers.subarray(i, i + 20)));
    this.sortedSigners = list.sort();
  }

  /** Fetches the anchor header (from the first node that serves it) and checks its hash and number. */
  static async open(net: Transport, anchor: Anchor, batchSize: number, maxHeaderGap: bigint, progress?: (p: HeaderProgress) => void): Promise<HeaderChain> {
    await loadFamily('header');
    const chain = new HeaderChain(net, anchor.signers, batchSize, maxHeaderGap, anchor, progress);
    // The anchor is trusted by its hash; its number is part of what that hash covers.
    const header = await net.withFailover(async (e) => {
      try {
        return await chain.fetchByHash(e, anchor.hash);
      } catch (err) {
        if (err instanceof RpcError && err.code === -32001) {
          throw new RpcError('eth_getBlockByHash', -32001, `${e.url} has no block ${anchor.hash} (${anchor.field}): is it a block of this node's chain?`);
        }
        throw err;
      }
    });
    if (header.number !== anchor.number) {
      throw new RangeError(`trust: the anchor ${anchor.hash} is block ${header.number}, not ${anchor.number}`);
    }
    chain.lowest = anchor.number;
    chain.highest = anchor.number - 1n;
    chain.remember(header);
    chain.info.set(header.hash, { number: header.number, parentHash: header.parentHash, td: 0n, signer: '' });
    chain.commitments = carried(anchor, header);
    return chain;
  }

  /**
   * Refuses, before any request, a family whose header commitments the chain does not carry
   * (`UNSUPPORTED_SCHEME`, naming the scheme, the chain and what it carries).
   */
  requireCommitments(scheme: string, needed: readonly string[]): void {
    const missing = needed.filter((c) => !this.commitments.has(c));
    if (missing.length > 0) {
      throw new VerificationError(
        'UNSUPPORTED_SCHEME',
        `${scheme}: ${this.name} does not commit to ${missing.join(', ')} (it carries ${[...this.commitments].join(', ')}; name more in trust.commitments if it does)`,
        { field: 'scheme' },
      );
    }
  }

  /**
   * The verified header at `block`, extending the verified range as needed. `origin` says who
   * chose the block: a caller's block the client cannot reach is a `RangeError` naming the
   * argument; a block the node chose (the one its proof is against, the number it gives a
   * hash) is the node's problem: an `RpcError` that skips it for this read when the client
   * cannot verify that far, a `NodeFaultError` that marks it faulty when the block is past the
   * head the node itself reports.
   */
  async headerAt(e: Endpoint, block: BlockTag, origin: 'argument' | 'network' = 'argument'): Promise<VerifiedHeader> {
    const tag = blockTagArg(block, 'block');
    let target: bigint;
    if (typeof tag === 'object') {
      const hash = tag.blockHash;
      const known = this.byHash.get(hash);
      if (known !== undefined) return this.verifiedAt(e, known);
      const json = await this.net.call(e, 'eth_getBlockByHash', [hash, false]);
      if (typeof json !== 'object' || json === null) throw new RpcError('eth_getBlockByHash', -32001, `unknown block ${hash}`);
      target = hexToBigInt((json as { number?: unknown }).number, 'number', 'network', 64);
      const onChain = target >= this.lowest && target <= this.highest ? await this.verifiedAt(e, target) : await this.headerAt(e, target, 'network');
      if (onChain.hash !== hash) {
        // A block off the verified chain (an uncle, a side chain), or a false number: either
        // way not one this client can vouch for, and not proof of a lie.
        throw new RpcError('eth_getBlockByHash', -32001, `block ${hash} is not on the verified chain`);
      }
      return onChain;
    }
    if (tag === 'earliest') target = 0n;
    else if (typeof tag === 'bigint' || typeof tag === 'number') target = BigInt(tag);
    else if (this.beacon !== undefined) {
      // The beacon chain's verified head (or its finalized block for `finalized` and `safe`).
      await this.followBeacon(e);
      target = tag === 'finalized' || tag === 'safe' ? this.finalizedNumber : this.highest;
    } else if (this.signers.length === 0) {
      // Hash links verify only backwards: the newest verifiable header is the checkpoint, which
      // the app trusts as final (so it is `finalized` and `safe` too).
      target = this.highest;
    } else if (tag === 'finalized' || tag === 'safe') {
      // Clique finalizes nothing: any block may still be replaced by a heavier branch (this
      // client follows one up to MAX_REORG_DEPTH blocks deep). geth refuses the tags on such a
      // chain too; answering the head under the name `finalized` would mislead a bridge or a
      // deposit page into treating a reversible block as final.
      throw new RangeError(
        `block: '${tag}' names a block the chain's consensus finalized, and a proof-of-authority (Clique) chain finalizes none: ` +
          `ask for a block number, or 'latest' (a block ${MAX_REORG_DEPTH} below the head is one this client never reorganises past), or connect with trust: { beacon }`,
      );
    } else {
      // `latest` and `pending` (no state of pending transactions is provable: answered at the head).
      const claimed = hexToBigInt(await this.net.call(e, 'eth_blockNumber', []), 'blockNumber', 'network', 64);
      impossible(e, 'eth_blockNumber', claimed);
      if (claimed - this.highest > this.maxHeaderGap) {
        throw new RpcError('eth_blockNumber', -1, `${e.url} claims head ${claimed}, more than maxHeaderGap past the verified ${this.highest}`);
      }
      // A node may be behind, or pretend to be: never go back below what was verified.
      target = claimed > this.highest ? claimed : this.highest;
    }

    if (origin === 'network') impossible(e, 'headers', target);
    if (target >= this.lowest && target <= this.highest) return this.verifiedAt(e, target);
    // Out of reach: the caller's mistake (RangeError) or, for a block the node chose, a reason
    // to ask another node (RpcError).
    const unreachable = (why: string): Error =>
      origin === 'argument' ? new RangeError(`block ${target} ${why}`) : new RpcError('headers', -1, `${e.url} answers against block ${target}, which ${why}`);
    if (target > this.highest && this.beacon !== undefined) {
      await this.followBeacon(e);
      if (target <= this.highest) return this.verifiedAt(e, target);
      throw unreachable(`is after the newest block the beacon chain's sync committee has signed (${this.highest})`);
    }
    if (target > this.highest) {
      if (this.signers.length === 0) {
        throw unreachable(
          `is after the newest verified header (${this.highest}); with a checkpoint and no signers, ` +
            'only blocks up to the newest checkpoint can be verified (no header after it carries a proof of consensus): ' +
            'add a newer one from a source you trust (client.addCheckpoint), or connect with trust: { beacon }',
        );
      }
      if (typeof tag !== 'string') {
        const head = hexToBigInt(await this.net.call(e, 'eth_blockNumber', []), 'blockNumber', 'network', 64);
        if (target > head && origin === 'network') {
          throw new NodeFaultError('eth_blockNumber', e.url, `answers against block ${target}, after its own head ${head}`);
        }
        if (target > head) throw new RpcError('eth_getBlockByNumber', -32001, `unknown block ${target} (${e.url} is at ${head})`);
      }
      if (target - this.highest > this.maxHeaderGap) {
        throw unreachable(`is more than maxHeaderGap headers past the verified ${this.highest}`);
      }
      return this.serial(() => this.extended(e, target));
    }
    if (this.lowest - target > this.maxHeaderGap) {
      throw unreachable(`is more than maxHeaderGap headers before the verified ${this.lowest}`);
    }
    return this.serial(() => this.extended(e, target));
  }

  /**
   * The verified header at `target`, extending the verified range forward or backward to it.
   * Runs in {@link serial}: another read's extension may have reached `target` while this one
   * waited, so the range is looked at again here (a walk that starts past its target would
   * return the header it starts from, another block's).
   */
  private extended(e: Endpoint, target: bigint): Promise<VerifiedHeader> {
    if (target >= this.lowest && target <= this.highest) return this.verifiedAt(e, target);
    return target > this.highest ? this.extendForward(e, target) : this.extendBackward(e, target);
  }

  /**
   * Adds a newer checkpoint (a block the app trusts, taken from a source it trusts) to a chain
   * anchored by checkpoints: its header is fetched by its hash, and every header between it and
   * the verified chain by hash links, so it becomes the head (`latest`). A checkpoint that
   * contradicts the earlier ones (not their descendant, or another block at a verified number),
   * or whose block has another number, is the caller's error (`RangeError`), not the node's.
   */
  async addCheckpoint(e: Endpoint, number: bigint, hash: string): Promise<VerifiedHeader> {
    if (this.beacon !== undefined || this.signers.length > 0) {
      throw new TypeError('addCheckpoint: only a chain anchored by a checkpoint without signers takes more checkpoints (a beacon or Clique chain follows its head itself)');
    }
    const top = await this.fetchByHash(e, hash);
    if (top.number !== number) throw new RangeError(`checkpoint: block ${hash} is block ${top.number}, not ${number}`);
    if (number <= this.highest) {
      const h = await this.headerAt(e, number);
      if (h.hash !== hash) throw new RangeError(`checkpoint: ${hash} is not the verified block ${number} (${h.hash}): it contradicts the earlier checkpoints`);
      return h;
    }
    // Every trusted checkpoint is final: a new one must descend from them.
    if (this.finalizedNumber < this.anchorNumber) this.finalizedNumber = this.anchorNumber;
    try {
      await this.serial(() => this.adopt(e, { number, hash, slot: -1n }, true));
    } catch (err) {
      // `adopt` names a link that leaves a final block by its parentHash (a node's wrong number, by `number`).
      if (err instanceof VerificationError && err.code === 'PARENT_MISMATCH' && err.field === 'parentHash') {
        throw new RangeError(`checkpoint: ${hash} (block ${number}) does not descend from the earlier checkpoints`);
      }
      throw err;
    }
    return this.verifiedAt(e, number);
  }

  /**
   * Makes the execution blocks `beacon` verifies the chain's head: the anchor was its head when
   * the client connected; every read of `latest` (or of a block past the verified range) asks it
   * for a newer one first.
   */
  trackBeacon(beacon: BeaconHead): void {
    this.beacon = beacon;
    const { finalized } = beacon.execution();
    if (this.hashes.get(finalized.number) === finalized.hash) this.finalizedNumber = finalized.number;
  }

  /**
   * Refreshes the beacon store and adopts its finalized, then its followed, execution block (a
   * `StaleHeadError` if the followed head is older than `trust.beacon.maxHeadAge`).
   */
  private async followBeacon(e: Endpoint): Promise<void> {
    const { head, finalized } = await (this.beacon as BeaconHead).current();
    await this.serial(async () => {
      await this.adopt(e, finalized, true);
      if (head.hash !== finalized.hash) await this.adopt(e, head, false);
    });
  }

  /**
   * Makes `b` (an execution block the sync committee signed) verified: its header fetched by its
   * hash, and its ancestors by hash links down to a verified block. Verified blocks after that
   * one (an optimistic branch the beacon chain left) are dropped; a link that contradicts a
   * block the beacon chain finalized is refused (`PARENT_MISMATCH`: a committee that signs two
   * finalized histories). A node that serves another branch's block at a number is asked for
   * the block by hash instead.
   */
  private async adopt(e: Endpoint, b: BeaconExecutionHead, final: boolean): Promise<void> {
    const finalize = () => {
      if (final && b.number > this.finalizedNumber) this.finalizedNumber = b.number;
    };
    if (this.hashes.get(b.number) === b.hash) return finalize();
    const conflict = (n: bigint) =>
      new VerificationError('PARENT_MISMATCH', `the beacon chain's block ${b.number} (${b.hash}) descends from another block ${n} than the finalized one (${this.hashes.get(n)})`, { field: 'parentHash' });
    if (b.number <= this.finalizedNumber && this.hashes.has(b.number)) throw conflict(b.number);
    const top = await this.fetchByHash(e, b.hash);
    if (top.number !== b.number) {
      throw new VerificationError('HEADER_HASH_MISMATCH', `the beacon chain names ${b.hash} block ${b.number}, but that header is block ${top.number}`, {
        field: 'number',
        expected: String(b.number),
        found: String(top.number),
      });
    }
    const branch = [top];
    let cur = top;
    const byNumber = new Map<bigint, unknown>();
    let reset = false;
    for (;;) {
      const n = cur.number - 1n;
      if (n < this.lowest) {
        // The whole verified range was on a branch the beacon chain left (it was all optimistic).
        if (this.finalizedNumber >= this.lowest) throw conflict(this.finalizedNumber);
        reset = true;
        break;
      }
      if (n <= this.highest) {
        if (this.hashes.get(n) === cur.parentHash) break;
        if (n <= this.finalizedNumber) throw conflict(n);
      }
      if (BigInt(branch.length) > this.maxHeaderGap) {
        throw new RpcError('headers', -1, `the beacon chain's head ${b.number} is more than maxHeaderGap blocks past the verified ${this.highest}`);
      }
      if (!byNumber.has(n)) {
        // The headers below, by number in one batch: the node's canonical chain is the beacon's.
        let low = n - BigInt(this.batchSize) + 1n;
        if (n > this.highest && low <= this.highest) low = this.highest + 1n;
        const numbers: bigint[] = [];
        for (let k = n; k >= low && k >= 0n; k--) numbers.push(k);
        const jsons = numbers.length > 1 ? await this.net.batch(e, 'eth_getBlockByNumber', numbers.map((k) => ['0x' + k.toString(16), false])) : [];
        jsons.forEach((j, i) => byNumber.set(numbers[i]!, j));
      }
      let parent: VerifiedHeader;
      try {
        parent = this.checkHeader(byNumber.get(n), 'eth_getBlockByNumber', cur.parentHash);
      } catch (err) {
        if (!(err instanceof VerificationError) && !(err instanceof RpcError)) throw err;
        parent = await this.fetchByHash(e, cur.parentHash); // another branch at that number: by hash
      }
      if (parent.number !== n) {
        throw new VerificationError('PARENT_MISMATCH', `block ${cur.number}'s parent claims number ${parent.number}`, { field: 'number' });
      }
      branch.push(parent);
      cur = parent;
    }
    const from = reset ? this.lowest : cur.number;
    for (let n = from; n <= this.highest; n++) {
      const old = this.hashes.get(n);
      if (old !== undefined) this.byHash.delete(old);
      this.hashes.delete(n);
      this.recent.delete(n);
    }
    if (reset) this.lowest = cur.number;
    this.highest = cur.number - 1n;
    for (const h of branch.reverse()) this.remember(h);
    finalize();
  }

  /**
   * Checks a fetched header against a hash the client already trusts (a child's `parentHash`, a
   * verified number's hash, a hash the beacon chain signed) and returns its fields. The hash is
   * never optional here: a header with no trusted hash to check goes through
   * {@link checkForward}, which only the forward walk calls.
   */
  private checkHeader(json: unknown, method: string, expectedHash: string): VerifiedHeader {
    return this.checkTied(json, method, { hash: expectedHash, sealed: false }).header;
  }

  /**
   * The forward walk's check of a header no trusted hash names yet: its seal by a trusted
   * signer, and, with `parent`, that it names `parent` as its parent (without, the caller checks
   * the link against the verified tip). Returns the header and its signer.
   */
  private checkForward(json: unknown, method: string, parent?: string): { header: VerifiedHeader; signer: string } {
    if (this.signers.length === 0) throw new Error('internal: a forward walk needs trusted signers');
    return this.checkTied(json, method, parent === undefined ? { forward: true } : { forward: true, parent });
  }

  /**
   * The one place a header's fields are hashed: tied to a trusted `hash` (and, with `sealed`,
   * also sealed by a trusted signer), or, for the forward walk, sealed (and linked to `parent`).
   */
  private checkTied(json: unknown, method: string, tie: Tie): { header: VerifiedHeader; signer: string } {
    if (json === null || json === undefined) throw new RpcError(method, -32001, 'unknown block');
    if ('hash' in tie && (typeof tie.hash !== 'string' || !/^0x[0-9a-f]{64}$/.test(tie.hash))) {
      // Unreachable by the types; a guard so that no future call site can skip the hash check.
      throw new Error(`internal: ${method} header checked against ${String(tie.hash)}, not a hash`);
    }
    const { rlp, header } = encodeHeader(json);
    const wasm = wasmOf('header');
    const parent = 'parent' in tie && tie.parent !== undefined ? hexToBytes(tie.parent, 'parentHash') : new Uint8Array(0);
    const signers = 'forward' in tie || tie.sealed ? this.signers : new Uint8Array(0);
    const out = wasmCall(() => wasm.verifyHeaderLink(rlp, parent, signers));
    const hash = bytesToHex(out.subarray(0, 32));
    if ('hash' in tie && hash !== tie.hash) {
      throw new VerificationError('HEADER_HASH_MISMATCH', `the header hashes to ${hash}, not to ${tie.hash}`, { field: 'hash' });
    }
    return { header: { hash, ...header }, signer: bytesToHex(out.subarray(32, 52)) };
  }

  /**
   * The proof-of-authority rules of a sealed header after the anchor (Clique's): difficulty 2
   * when its signer is in turn (`number mod N` is the signer's place among the sorted
   * signers), 1 otherwise; and no signer seals two blocks among `floor(N/2) + 1` in a row.
   */
  private checkRules(h: VerifiedHeader, signer: string): void {
    if (this.sortedSigners.length === 0) return;
    const n = BigInt(this.sortedSigners.length);
    const inTurn = h.number % n === BigInt(this.sortedSigners.indexOf(signer));
    const want = inTurn ? 2n : 1n;
    if (h.difficulty !== want) {
      throw new VerificationError('SIGNER_RULE', `block ${h.number}, sealed ${inTurn ? 'in' : 'out of'} turn by ${signer}, has difficulty ${h.difficulty}, not ${want}`, {
        field: 'difficulty',
        expected: String(want),
        found: String(h.difficulty),
      });
    }
    const limit = this.sortedSigners.length / 2;
    let parent = this.info.get(h.parentHash);
    for (let k = 0; k < Math.floor(limit) && parent; k++, parent = this.info.get(parent.parentHash)) {
      if (parent.signer === signer) {
        throw new VerificationError('SIGNER_RULE', `${signer} sealed block ${h.number} and block ${parent.number}, within ${Math.floor(limit) + 1} blocks`, { field: 'miner' });
      }
    }
  }

  /** Records a verified header of any branch after the anchor, with its total difficulty. */
  private record(h: VerifiedHeader, signer: string): bigint {
    const parent = this.info.get(h.parentHash);
    const td = (parent?.td ?? 0n) + h.difficulty;
    this.info.set(h.hash, { number: h.number, parentHash: h.parentHash, td, signer });
    if (this.info.size > MAX_BRANCH_HEADERS) {
      // The oldest entries are at the start (insertion order); keep what recent branches need.
      for (const [k, v] of this.info) {
        if (this.info.size <= MAX_BRANCH_HEADERS / 2) break;
        if (v.number < this.highest - BigInt(MAX_REORG_DEPTH)) this.info.delete(k);
        else break;
      }
    }
    return td;
  }

  /** Fetches the header with a trusted hash. */
  private async fetchByHash(e: Endpoint, hash: string): Promise<VerifiedHeader> {
    return this.checkHeader(await this.net.call(e, 'eth_getBlockByHash', [hash, false]), 'eth_getBlockByHash', hash);
  }

  private remember(h: VerifiedHeader): void {
    this.hashes.set(h.number, h.hash);
    this.byHash.set(h.hash, h.number);
    if (h.number > this.highest) this.highest = h.number;
    if (h.number < this.lowest) this.lowest = h.number;
    this.recent.delete(h.number);
    this.recent.set(h.number, h);
    if (this.recent.size > RECENT_HEADERS) this.recent.delete(this.recent.keys().next().value as bigint);
  }

  /**
   * The verified headers of blocks `from` to `to` (inclusive, numbers the caller chose), in
   * order: the verified range is extended to both ends as {@link headerAt} does, then the hashes
   * of the whole range are taken in one step, and the headers not cached are fetched by those
   * hashes, `batchSize` a request. A reorganisation that cuts the range before the hashes are
   * taken, or replaces any of them before the last header arrives, restarts the read (at most
   * {@link RANGE_ATTEMPTS} times), then fails with a {@link ReorgError}: every header returned
   * hashes to the hash the verified chain held for its number when the range was read.
   */
  async headersIn(e: Endpoint, from: bigint, to: bigint): Promise<VerifiedHeader[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.headerAt(e, to);
        await this.headerAt(e, from);
      } catch (err) {
        // After a reorganisation cut the range, a block of it may be out of reach now (the
        // beacon chain's new head is below it): the read's failure, not the caller's or the node's.
        const unreachable = err instanceof RangeError || (err instanceof RpcError && !(err instanceof NodeFaultError));
        if (attempt > 1 && unreachable) {
          throw new ReorgError(`the verified chain reorganised while blocks ${from}..${to} were read, and no longer reaches them all; nothing unverified was returned: retry the read`, { cause: err });
        }
        throw err;
      }
      const range = this.snapshot(from, to);
      if (range !== undefined) {
        const out = await this.fetchRange(e, range);
        if (this.unchanged(range.hashes, from)) return out;
      }
      if (attempt >= RANGE_ATTEMPTS) {
        throw new ReorgError(`the verified chain changed ${attempt} times while blocks ${from}..${to} were read (a reorganisation); nothing unverified was returned: retry the read`);
      }
    }
  }

  /**
   * The trusted hashes of `from..=to` and the cached headers among them, taken together with no
   * await in between; `undefined` if the verified range no longer covers them all.
   */
  private snapshot(from: bigint, to: bigint): { hashes: string[]; have: (VerifiedHeader | undefined)[] } | undefined {
    const hashes: string[] = [];
    const have: (VerifiedHeader | undefined)[] = [];
    for (let n = from; n <= to; n++) {
      const hash = this.hashes.get(n);
      if (hash === undefined) return undefined;
      hashes.push(hash);
      const h = this.recent.get(n);
      have.push(h?.hash === hash ? h : undefined);
    }
    return { hashes, have };
  }

  /** The headers of a {@link snapshot}: the cached ones, the others fetched by their hashes. */
  private async fetchRange(e: Endpoint, range: { hashes: string[]; have: (VerifiedHeader | undefined)[] }): Promise<VerifiedHeader[]> {
    const out = [...range.have];
    const missing = out.flatMap((h, i) => (h === undefined ? [i] : []));
    for (let i = 0; i < missing.length; i += this.batchSize) {
      const at = missing.slice(i, i + this.batchSize);
      const jsons = await this.net.batch(e, 'eth_getBlockByHash', at.map((k) => [range.hashes[k], false]));
      jsons.forEach((json, j) => {
        const k = at[j] as number;
        out[k] = this.checkHeader(json, 'eth_getBlockByHash', range.hashes[k] as string);
      });
    }
    return out as VerifiedHeader[];
  }

  /** Whether the verified chain still holds `hashes` for the numbers from `from` on. */
  private unchanged(hashes: readonly string[], from: bigint): boolean {
    return hashes.every((h, i) => this.hashes.get(from + BigInt(i)) === h);
  }

  /**
   * The full header of a verified block number (cached, or fetched by its trusted hash). A
   * number the verified range no longer holds (a reorganisation moved it since the caller
   * looked) is a {@link ReorgError}; a header fetched while the chain moved is returned (it was
   * verified against the hash the chain held) but not cached.
   */
  private async verifiedAt(e: Endpoint, n: bigint): Promise<VerifiedHeader> {
    const cached = this.recent.get(n);
    if (cached) return cached;
    const hash = this.hashes.get(n);
    if (hash === undefined) throw new ReorgError(`block ${n} left the verified range while it was read (a reorganisation): retry the read`);
    const h = await this.fetchByHash(e, hash);
    if (this.hashes.get(n) === hash) this.remember(h);
    return h;
  }

  /** Runs `f` after any extension of the verified range in progress. */
  private serial<T>(f: () => Promise<T>): Promise<T> {
    const run = this.extending.then(f, f);
    this.extending = run.catch(() => undefined);
    return run;
  }

  /**
   * Verifies headers from the highest verified one up to `target`: seals, parent links and the
   * signer rules. A node whose next header does not extend the verified chain but links back to
   * it within `MAX_REORG_DEPTH` blocks, validly sealed, follows a competing branch: the heavier
   * branch (Clique's total difficulty; the one verified first on a tie) becomes the chain, and a
   * node on the lighter one is skipped for the read, not marked faulty.
   */
  private async extendForward(e: Endpoint, target: bigint): Promise<VerifiedHeader> {
    let parent = await this.verifiedAt(e, this.highest);
    const total = target - parent.number;
    while (parent.number < target) {
      const from = parent.number + 1n;
      const to = from + BigInt(this.batchSize) - 1n < target ? from + BigInt(this.batchSize) - 1n : target;
      const list: unknown[][] = [];
      for (let n = from; n <= to; n++) list.push(['0x' + n.toString(16), false]);
      for (const json of await this.net.batch(e, 'eth_getBlockByNumber', list)) {
        const { header: h, signer } = this.checkForward(json, 'eth_getBlockByNumber');
        if (h.number !== parent.number + 1n) {
          throw new VerificationError('PARENT_MISMATCH', `expected block ${parent.number + 1n}, got ${h.number}`, { field: 'number' });
        }
        if (h.parentHash !== parent.hash) return this.competingBranch(e, h, signer, target);
        this.checkRules(h, signer);
        this.record(h, signer);
        this.remember(h);
        parent = h;
      }
      this.progress?.({ direction: 'forward', verified: total - (target - parent.number), total });
    }
    return parent;
  }

  /**
   * A node's header `first` (sealed by `signer`) that does not extend the verified chain: walks
   * the node's branch back to a verified header, verifies it forward to `target`, and makes it
   * the chain if it is heavier; else remembers it and skips the node for this read.
   */
  private async competingBranch(e: Endpoint, first: VerifiedHeader, signer: string, target: bigint): Promise<VerifiedHeader> {
    const branch = [{ h: first, signer }];
    let low = first;
    while (!this.info.has(low.parentHash)) {
      if (branch.length > MAX_REORG_DEPTH || low.number <= this.anchorNumber) {
        throw new RpcError('eth_getBlockByNumber', -1, `${e.url} follows a branch that leaves the verified chain more than ${MAX_REORG_DEPTH} blocks back, or before the anchor`);
      }
      const json = await this.net.call(e, 'eth_getBlockByNumber', ['0x' + (low.number - 1n).toString(16), false]);
      // The node's own headers must link: one that does not contradicts the node itself.
      const parent = this.checkTied(json, 'eth_getBlockByNumber', { hash: low.parentHash, sealed: true });
      if (parent.header.number !== low.number - 1n) {
        throw new VerificationError('PARENT_MISMATCH', `block ${low.number}'s parent claims number ${parent.header.number}`, { field: 'number' });
      }
      branch.unshift({ h: parent.header, signer: parent.signer });
      low = parent.header;
    }
    const ancestor = this.info.get(low.parentHash) as BranchHeader;
    for (const b of branch) {
      this.checkRules(b.h, b.signer);
      this.record(b.h, b.signer);
    }
    let tip = first;
    // The rest of the node's branch up to `target`, linked to its tip.
    while (tip.number < target) {
      const n = tip.number + 1n;
      const json = await this.net.call(e, 'eth_getBlockByNumber', ['0x' + n.toString(16), false]);
      const next = this.checkForward(json, 'eth_getBlockByNumber', tip.hash);
      if (next.header.number !== n) throw new VerificationError('PARENT_MISMATCH', `expected block ${n}, got ${next.header.number}`, { field: 'number' });
      this.checkRules(next.header, next.signer);
      this.record(next.header, next.signer);
      branch.push({ h: next.header, signer: next.signer });
      tip = next.header;
    }
    const tipTd = (this.info.get(tip.hash) as BranchHeader).td;
    const head = this.info.get(this.hashes.get(this.highest) as string) as BranchHeader;
    if (tipTd <= head.td) {
      throw new RpcError(
        'eth_getBlockByNumber',
        -1,
        `${e.url} follows a competing branch from block ${ancestor.number + 1n} that is not heavier than the verified one (total difficulty ${tipTd} against ${head.td})`,
      );
    }
    // The heavier branch becomes the chain from the fork point on.
    for (let n = ancestor.number + 1n; n <= this.highest; n++) {
      const old = this.hashes.get(n);
      if (old !== undefined) this.byHash.delete(old);
      this.hashes.delete(n);
      this.recent.delete(n);
    }
    this.highest = ancestor.number;
    for (const b of branch) this.remember(b.h);
    this.reorgs += 1;
    return tip;
  }

  /**
   * Verifies headers back from the lowest verified one to `target`: each must hash to its
   * child's parentHash. Fetched by number in batches of `batchSize` (the hash links are checked
   * after each batch arrives, top down), not one request per parent hash.
   */
  private async extendBackward(e: Endpoint, target: bigint): Promise<VerifiedHeader> {
    let child = await this.verifiedAt(e, this.lowest);
    const total = child.number - target;
    while (child.number > target) {
      const to = child.number - 1n;
      const from = to - BigInt(this.batchSize) + 1n > target ? to - BigInt(this.batchSize) + 1n : target;
      const list: unknown[][] = [];
      for (let n = to; n >= from; n--) list.push(['0x' + n.toString(16), false]);
      for (const json of await this.net.batch(e, 'eth_getBlockByNumber', list)) {
        const h = this.checkHeader(json, 'eth_getBlockByNumber', child.parentHash);
        if (h.number !== child.number - 1n) {
          throw new VerificationError('PARENT_MISMATCH', `block ${child.number}'s parent claims number ${h.number}`, { field: 'number' });
        }
        this.remember(h);
        child = h;
      }
      this.progress?.({ direction: 'backward', verified: total - (child.number - target), total });
    }
    return child;
  }
}
