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
import { RpcError, VerificationError, isVerificationError, wasmCall } from './errors.js';
import { type VerifiedHeader, encodeHeader } from './header.js';
import { bigIntToBytes, bytesArg, bytesToHex, hexToBigInt, hexToBytes, slotToHex } from './hex.js';
import { init, verifier } from './init.js';
import {
  type StateKey,
  type Version,
  changesFromValues,
  changesFromVersions,
  coleRootOf,
  stateKeys,
  verifyColeHistory,
} from './history.js';
import { LvmtParams, lvmtRootsOf, verifyLvmtHistory, verifyLvmtProof } from './lvmt.js';
import { type VerifiedAccount, checkAnswerIsFor, verifyAccountProof } from './mpt.js';

/** What the client trusts. */
export type Trust =
  | { genesisHash: string; signers: readonly string[] }
  | { checkpoint: { number: number | bigint; hash: string }; signers?: readonly string[] };

/** A block: a number, a tag, or an EIP-1898 `{blockHash}`. */
export type BlockTag = bigint | number | 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized' | { blockHash: string };

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
   * The most headers one call may verify to reach its block (default 100 000): a bound on the
   * work a node can cause by claiming a far head. Start from a newer checkpoint to go further.
   */
  maxHeaderGap?: number;
  /**
   * SHA-256 of the LVMT parameters to accept (hex). Default: the verified genesis header's
   * `mixHash`, where lightprov-node binds them. Needed for chains that do not.
   */
  lvmtParamsId?: string;
}

/** The minimal EIP-1193 provider shape that ethers' BrowserProvider and viem's custom() accept. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] | object }): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): Eip1193Provider;
  removeListener(event: string, listener: (...args: unknown[]) => void): Eip1193Provider;
}

/** The schemes a history can be proven by. */
export type HistoryScheme = 'cole' | 'cole-star' | 'lvmt' | 'mpt';

/** The schemes a single value can be proven by. */
export type ValueScheme = 'lvmt' | 'mpt';

/** What {@link LightClient.getValue} asks for. */
export interface ValueQuery {
  /** `mpt` (default): `eth_getProof`; `lvmt`: an LVMT proof of presence or absence. */
  scheme?: ValueScheme;
  /** The block (default: the verified head). LVMT proves older blocks by a one-block history. */
  block?: BlockTag;
}

/** A verified value with what it took to verify it. */
export interface VerifiedValue {
  /** The value (0 for a key never written). */
  value: bigint;
  /** LVMT: whether the key was ever written by `block` (MPT cannot tell a zero from absence). */
  present?: boolean;
  /** LVMT: the key's version (writes so far) and the block that wrote the value. */
  version?: bigint;
  writtenAt?: bigint;
  scheme: ValueScheme;
  /** The block the value is for. */
  block: bigint;
  /** The header the proof was checked against. */
  anchor: VerifiedHeader;
  proofBytes: number;
  verifyMs: number;
  raw: unknown;
}

/** What {@link LightClient.getHistory} asks for. */
export interface HistoryQuery {
  /** First block of the range. */
  fromBlock: bigint | number;
  /** Last block of the range (default: the verified head). */
  toBlock?: bigint | number | 'latest';
  /** `cole` / `cole-star` / `lvmt`: one provenance proof; `mpt`: one `eth_getProof` per block. */
  scheme: HistoryScheme;
}

/** A verified history with what it took to verify it. */
export interface VerifiedHistory {
  /** The value at `fromBlock`, then one point per block where the value changed. */
  points: Version[];
  scheme: HistoryScheme;
  fromBlock: bigint;
  toBlock: bigint;
  /** The header the proof was checked against (COLE: the node's head; MPT: `toBlock`). */
  anchor: VerifiedHeader;
  /** Bytes of proof verified (COLE: the provenance proof; MPT: the encoded account proofs). */
  proofBytes: number;
  /** Milliseconds spent in verification (wasm), excluding the network. */
  verifyMs: number;
  /** The raw proof response(s), for inspection. */
  raw: unknown;
}

interface Endpoint {
  url: string;
  faulty: VerificationError | undefined;
}

let nextId = 1;

/** Chain data is verified before it is returned; see the module documentation. */
export class LightClient {
  /** State key builders: `client.keys.balance(addr)`, `.nonce(addr)`, `.storage(addr, slot)`. */
  readonly keys = stateKeys;

  private readonly endpoints: Endpoint[];
  private readonly signers: Uint8Array;
  private readonly timeoutMs: number;
  private readonly batchSize: number;
  private readonly fetchFn: typeof fetch;
  private readonly maxHeaderGap: bigint;
  private readonly lvmtParamsId: string | undefined;
  /** Validated once, then reused. */
  private lvmtParams: LvmtParams | undefined;
  /** Hash of every verified block, by number: a contiguous range [lowest, highest]. */
  private readonly hashes = new Map<bigint, string>();
  private readonly byHash = new Map<string, bigint>();
  private lowest = 0n;
  private highest = -1n;
  /** The most recently used full headers (the hashes above are what is trusted). */
  private readonly recent = new Map<bigint, VerifiedHeader>();
  /** Serialises extensions of the verified range, so concurrent calls do not fetch twice. */
  private extending: Promise<unknown> = Promise.resolve();

  private constructor(opts: LightClientOptions, signers: Uint8Array) {
    const urls = typeof opts.rpc === 'string' ? [opts.rpc] : [...opts.rpc];
    if (urls.length === 0 || !urls.every((u) => typeof u === 'string' && /^https?:\/\//.test(u))) {
      throw new TypeError('rpc: expected one or more http(s) URLs');
    }
    this.endpoints = urls.map((url) => ({ url, faulty: undefined }));
    this.signers = signers;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.batchSize = opts.batchSize ?? 100;
    this.fetchFn = opts.fetch ?? globalThis.fetch.bind(globalThis);
    const gap = opts.maxHeaderGap ?? 100_000;
    if (!Number.isSafeInteger(gap) || gap < 1) throw new RangeError('maxHeaderGap: expected a positive integer');
    this.maxHeaderGap = BigInt(gap);
    this.lvmtParamsId = opts.lvmtParamsId === undefined ? undefined : bytesToHex(bytesArg(opts.lvmtParamsId, 'lvmtParamsId', 32));
  }

  /** Creates a client and verifies its anchor header. */
  static async connect(opts: LightClientOptions): Promise<LightClient> {
    if (typeof opts !== 'object' || opts === null) throw new TypeError('options: expected an object');
    const trust = opts.trust as Partial<{ genesisHash: string; signers: readonly string[]; checkpoint: { number: number | bigint; hash: string } }>;
    if (typeof trust !== 'object' || trust === null) throw new TypeError('trust: expected {genesisHash, signers} or {checkpoint}');
    const signerList = trust.signers ?? [];
    if (!Array.isArray(signerList)) throw new TypeError('trust.signers: expected an array of addresses');
    const signers = new Uint8Array(20 * signerList.length);
    signerList.forEach((s, i) => signers.set(bytesArg(s, `trust.signers[${i}]`, 20), 20 * i));
    let number: bigint;
    let hash: string;
    if (trust.genesisHash !== undefined) {
      if (signerList.length === 0) throw new RangeError('trust.signers: a genesis anchor needs at least one signer');
      number = 0n;
      hash = bytesToHex(bytesArg(trust.genesisHash, 'trust.genesisHash', 32));
    } else if (trust.checkpoint !== undefined) {
      const n = trust.checkpoint.number;
      if ((typeof n !== 'number' && typeof n !== 'bigint') || BigInt(n) < 0n) throw new TypeError('trust.checkpoint.number: expected a non-negative integer');
      number = BigInt(n);
      hash = bytesToHex(bytesArg(trust.checkpoint.hash, 'trust.checkpoint.hash', 32));
    } else {
      throw new TypeError('trust: expected {genesisHash, signers} or {checkpoint: {number, hash}}');
    }
    await init();
    const client = new LightClient(opts, signers);
    // The anchor is trusted by its hash; its number is part of what that hash covers.
    const anchor = await client.withFailover(async (e) => client.fetchByHash(e, hash));
    if (anchor.number !== number) {
      throw new RangeError(`trust: the anchor ${hash} is block ${anchor.number}, not ${number}`);
    }
    client.lowest = number;
    client.highest = number - 1n;
    client.remember(anchor);
    return client;
  }

  /** The verified header of a block ('latest' is the node's head, verified back to the anchor). */
  async getHeader(block: BlockTag = 'latest'): Promise<VerifiedHeader> {
    return this.withFailover((e) => this.headerAt(e, block));
  }

  /** The account and the requested slots, verified. */
  async getAccount(address: string, slots: readonly (string | bigint | number)[] = [], block: BlockTag = 'latest'): Promise<VerifiedAccount> {
    const addr = bytesToHex(bytesArg(address, 'address', 20));
    const keys = slots.map((s, i) => slotToHex(s, `slots[${i}]`));
    return this.withFailover(async (e) => {
      const header = await this.headerAt(e, block);
      const proof = await this.call(e, 'eth_getProof', [addr, keys, { blockHash: header.hash }]);
      const account = verifyAccountProof(proof, header.stateRoot);
      checkAnswerIsFor(account, addr, keys);
      return account;
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
    return this.withFailover(async (e) => {
      const header = await this.headerAt(e, block);
      const proof = await this.call(e, 'eth_getProof', [addr, [], { blockHash: header.hash }]);
      const account = verifyAccountProof(proof, header.stateRoot);
      const code = hexToBytes(await this.call(e, 'eth_getCode', [addr, { blockHash: header.hash }]), 'code');
      const wasm = verifier();
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
    if (typeof query !== 'object' || query === null) throw new TypeError('query: expected { scheme, block }');
    const scheme = query.scheme ?? 'mpt';
    if (scheme !== 'mpt' && scheme !== 'lvmt') throw new TypeError(`scheme: expected 'lvmt' or 'mpt', got ${String(scheme)}`);
    const stateKey = typeof key === 'string' ? bytesToHex(bytesArg(key, 'key', 32)) : stateKeyOf(key);
    const block = query.block ?? 'latest';
    if (scheme === 'mpt') {
      if (typeof key === 'string') throw new TypeError('key: the mpt scheme needs a StateKey from client.keys (a bare state key hides the account)');
      const addr = bytesToHex(bytesArg(key.address, 'key.address', 20));
      const slots = key.kind === 'storage' ? [slotToHex(key.slot, 'key.slot')] : [];
      return this.withFailover(async (e) => {
        const anchor = await this.headerAt(e, block);
        const raw = await this.call(e, 'eth_getProof', [addr, slots, { blockHash: anchor.hash }]);
        const t0 = performance.now();
        const account = verifyAccountProof(raw, anchor.stateRoot);
        checkAnswerIsFor(account, addr, slots);
        const verifyMs = performance.now() - t0;
        const value = key.kind === 'balance' ? account.balance : key.kind === 'nonce' ? account.nonce : (account.storage[0]?.value ?? 0n);
        return { value, scheme, block: anchor.number, anchor, proofBytes: JSON.stringify(raw).length, verifyMs, raw };
      });
    }
    return this.withFailover(async (e) => {
      const params = await this.lvmtParamsFrom(e);
      const wanted = await this.headerAt(e, block);
      const raw = (await this.call(e, 'lightprov_getLvmtProof', [stateKey, 'latest'])) as { block?: unknown; proof?: unknown };
      if (typeof raw !== 'object' || raw === null) throw new RpcError('lightprov_getLvmtProof', -1, 'malformed response');
      const at = hexToBigInt(raw.block, 'block', 'network', 64);
      if (at < wanted.number) {
        throw new RpcError('lightprov_getLvmtProof', -1, `the proof is against block ${at}, before block ${wanted.number} this node already served`);
      }
      const anchor = await this.headerAt(e, at);
      const proof = hexToBytes(raw.proof, 'proof');
      const roots = lvmtRootsOf(anchor.extraData);
      if (at === wanted.number) {
        const t0 = performance.now();
        const v = verifyLvmtProof({ params, anchor: { ...roots, number: at }, stateKey, proof });
        const verifyMs = performance.now() - t0;
        return {
          value: v?.value ?? 0n,
          present: v !== null,
          ...(v ? { version: v.version, writtenAt: v.block } : {}),
          scheme,
          block: at,
          anchor,
          proofBytes: proof.length,
          verifyMs,
          raw,
        };
      }
      // An older block: the version in force there, from a one-block history.
      const h = await this.lvmtHistory(e, params, stateKey, wanted.number, wanted.number);
      const v = h.atFrom;
      return {
        value: v?.value ?? 0n,
        present: v !== null,
        ...(v ? { version: v.version, writtenAt: v.block } : {}),
        scheme,
        block: wanted.number,
        anchor: h.anchor,
        proofBytes: h.proofBytes,
        verifyMs: h.verifyMs,
        raw: h.raw,
      };
    });
  }

  /** The LVMT parameters, validated once and pinned (see {@link LightClientOptions.lvmtParamsId}). */
  private async lvmtParamsFrom(e: Endpoint): Promise<LvmtParams> {
    if (this.lvmtParams) return this.lvmtParams;
    let pinned = this.lvmtParamsId;
    if (pinned === undefined) {
      const genesis = await this.headerAt(e, 0n);
      if (/^0x0{64}$/.test(genesis.mixHash)) {
        throw new TypeError('lvmtParamsId: this chain\'s genesis does not name LVMT parameters (mixHash is zero); pass lvmtParamsId');
      }
      pinned = genesis.mixHash;
    }
    const raw = (await this.call(e, 'lightprov_params', [])) as { lvmt?: { params?: unknown } } | null;
    if (typeof raw !== 'object' || raw === null || typeof raw.lvmt !== 'object' || raw.lvmt === null) {
      throw new RpcError('lightprov_params', -1, 'malformed response: no lvmt parameters');
    }
    const params = LvmtParams.fromBytes(hexToBytes(raw.lvmt.params, 'params'), pinned);
    this.lvmtParams = params;
    return params;
  }

  /**
   * A `lightprov_getHistory` answer, its proof's bytes and the verified header it is against
   * (which must cover the range).
   */
  private async historyAnswer(e: Endpoint, stateKey: string, from: bigint, to: bigint, scheme: HistoryScheme) {
    const raw = (await this.call(e, 'lightprov_getHistory', [stateKey, hex(from), hex(to), scheme])) as { block?: unknown; siblingRoot?: unknown; proof?: unknown };
    if (typeof raw !== 'object' || raw === null) throw new RpcError('lightprov_getHistory', -1, 'malformed response');
    const at = hexToBigInt(raw.block, 'block', 'network', 64);
    if (at < to) {
      throw new VerificationError('INCOMPLETE_RANGE', `the proof is against block ${at}, before the range's end ${to}`, { field: 'block' });
    }
    const anchor = await this.headerAt(e, at);
    return { raw, at, anchor, proof: hexToBytes(raw.proof, 'proof') };
  }

  /** A verified LVMT history of `stateKey` over `from..=to`, from one endpoint. */
  private async lvmtHistory(e: Endpoint, params: LvmtParams, stateKey: string, from: bigint, to: bigint) {
    const { raw, at, anchor, proof } = await this.historyAnswer(e, stateKey, from, to, 'lvmt');
    const t0 = performance.now();
    const h = verifyLvmtHistory({ params, anchor: { ...lvmtRootsOf(anchor.extraData), number: at }, stateKey, fromBlock: from, toBlock: to, proof });
    const verifyMs = performance.now() - t0;
    return { ...h, anchor, proofBytes: proof.length, verifyMs, raw };
  }

  /**
   * The values of a state key over a block range, verified: the value at `fromBlock`, then one
   * point per block where it changed.
   *
   * @example
   * const points = await client.getHistory(client.keys.balance(addr), { fromBlock: 1, toBlock: 64, scheme: 'cole' });
   */
  async getHistory(key: StateKey | string, query: HistoryQuery): Promise<Version[]> {
    return (await this.getHistoryDetailed(key, query)).points;
  }

  /** {@link LightClient.getHistory} with the anchor header, proof size and verify time. */
  async getHistoryDetailed(key: StateKey | string, query: HistoryQuery): Promise<VerifiedHistory> {
    if (typeof query !== 'object' || query === null) throw new TypeError('query: expected { fromBlock, toBlock, scheme }');
    const { scheme } = query;
    if (scheme !== 'cole' && scheme !== 'cole-star' && scheme !== 'lvmt' && scheme !== 'mpt') {
      throw new TypeError(`scheme: expected 'cole', 'cole-star', 'lvmt' or 'mpt', got ${String(scheme)}`);
    }
    const stateKey = typeof key === 'string' ? bytesToHex(bytesArg(key, 'key', 32)) : stateKeyOf(key);
    const from = blockArg(query.fromBlock, 'fromBlock');
    return this.withFailover(async (e) => {
      const to = query.toBlock === undefined || query.toBlock === 'latest' ? (await this.headerAt(e, 'latest')).number : blockArg(query.toBlock, 'toBlock');
      if (from > to) throw new RangeError(`fromBlock ${from} is after toBlock ${to}`);
      if (scheme === 'mpt') {
        if (typeof key === 'string') throw new TypeError('key: the mpt scheme needs a StateKey from client.keys (a bare state key hides the account)');
        return this.mptHistory(e, key, from, to);
      }
      if (scheme === 'lvmt') {
        const params = await this.lvmtParamsFrom(e);
        const h = await this.lvmtHistory(e, params, stateKey, from, to);
        const points = changesFromVersions({ versions: h.versions, atFrom: h.atFrom }, from);
        return { points, scheme, fromBlock: from, toBlock: to, anchor: h.anchor, proofBytes: h.proofBytes, verifyMs: h.verifyMs, raw: h.raw };
      }
      const { raw, anchor, proof } = await this.historyAnswer(e, stateKey, from, to, scheme);
      const t0 = performance.now();
      const h = verifyColeHistory({
        proof,
        stateKey,
        fromBlock: from,
        toBlock: to,
        coleRoot: coleRootOf(anchor.extraData),
        siblingRoot: bytesToHex(hexToBytes(raw.siblingRoot, 'siblingRoot', 'network', 32)),
        scheme,
      });
      const verifyMs = performance.now() - t0;
      return { points: changesFromVersions(h, from), scheme, fromBlock: from, toBlock: to, anchor, proofBytes: proof.length, verifyMs, raw };
    });
  }

  /** The MPT baseline: one verified `eth_getProof` per block, in batches. */
  private async mptHistory(e: Endpoint, key: StateKey, from: bigint, to: bigint): Promise<VerifiedHistory> {
    const addr = bytesToHex(bytesArg(key.address, 'key.address', 20));
    const slots = key.kind === 'storage' ? [slotToHex(key.slot, 'key.slot')] : [];
    const anchor = await this.headerAt(e, to);
    const headers: VerifiedHeader[] = [];
    for (let b = from; b <= to; b++) headers.push(await this.headerAt(e, b));
    const values: bigint[] = [];
    const raw: unknown[] = [];
    let proofBytes = 0;
    let verifyMs = 0;
    for (let i = 0; i < headers.length; i += this.batchSize) {
      const chunk = headers.slice(i, i + this.batchSize);
      const answers = await this.batch(
        e,
        'eth_getProof',
        chunk.map((h) => [addr, slots, { blockHash: h.hash }]),
      );
      answers.forEach((proof, j) => {
        const header = chunk[j];
        if (!header) return;
        const t0 = performance.now();
        const account = verifyAccountProof(proof, header.stateRoot);
        checkAnswerIsFor(account, addr, slots);
        verifyMs += performance.now() - t0;
        proofBytes += JSON.stringify(proof).length;
        raw.push(proof);
        values.push(key.kind === 'balance' ? account.balance : key.kind === 'nonce' ? account.nonce : (account.storage[0]?.value ?? 0n));
      });
    }
    return { points: changesFromValues(values, from), scheme: 'mpt', fromBlock: from, toBlock: to, anchor, proofBytes, verifyMs, raw };
  }

  /** URLs that served data that did not verify, with the error. */
  faultyNodes(): { url: string; error: VerificationError }[] {
    return this.endpoints.flatMap((e) => (e.faulty ? [{ url: e.url, error: e.faulty }] : []));
  }

  /**
   * An EIP-1193 provider: reads of state and headers are answered after verification; other
   * calls (eth_sendRawTransaction, eth_chainId, …) are passed to a node.
   *
   * @example
   * const provider = new ethers.BrowserProvider(client.asEip1193());
   * const client = createPublicClient({ transport: custom(lightClient.asEip1193()) }); // viem
   */
  asEip1193(): Eip1193Provider {
    const listeners = new Map<string, Set<(...a: unknown[]) => void>>();
    const provider: Eip1193Provider = {
      request: async ({ method, params }) => {
        const p = Array.isArray(params) ? params : [];
        const hex = (v: bigint) => '0x' + v.toString(16);
        switch (method) {
          case 'eth_getBalance':
            return hex(await this.getBalance(p[0] as string, tagOf(p[1])));
          case 'eth_getTransactionCount':
            // The pending nonce counts the node's mempool, which no proof covers: pass it on.
            if (p[1] === 'pending') return this.withFailover((e) => this.call(e, method, p));
            return hex(await this.getTransactionCount(p[0] as string, tagOf(p[1])));
          case 'eth_getStorageAt':
            return this.getStorageAt(p[0] as string, p[1] as string, tagOf(p[2]));
          case 'eth_getCode':
            return this.getCode(p[0] as string, tagOf(p[1]));
          case 'eth_blockNumber':
            return hex((await this.getHeader('latest')).number);
          case 'eth_getBlockByNumber':
          case 'eth_getBlockByHash':
            return this.withFailover(async (e) => {
              const tag = method === 'eth_getBlockByHash' ? { blockHash: String(p[0]) } : tagOf(p[0]);
              let header: VerifiedHeader;
              try {
                header = await this.headerAt(e, tag);
              } catch (err) {
                if (err instanceof RpcError && err.code === -32001) return null; // unknown block
                throw err;
              }
              const json = await this.call(e, 'eth_getBlockByHash', [header.hash, p[1] === true]);
              if (typeof json !== 'object' || json === null) throw new RpcError(method, -32001, `block ${header.hash} is unknown to ${e.url}`);
              const served = bytesToHex(hexToBytes((json as { hash?: unknown }).hash, 'hash', 'network', 32));
              if (served !== header.hash) throw new VerificationError('HEADER_HASH_MISMATCH', `asked for ${header.hash}, got ${served}`, { field: 'hash' });
              // Header fields come from the verified header; the transaction list is the node's.
              return { ...(json as object), ...headerJson(header) };
            });
          default:
            return this.withFailover((e) => this.call(e, method, p));
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

  // ------------------------------------------------------------------ internals

  /** Runs `f` against each usable endpoint until one succeeds. */
  private async withFailover<T>(f: (e: Endpoint) => Promise<T>): Promise<T> {
    let last: unknown;
    let verification: VerificationError | undefined;
    for (const e of this.endpoints) {
      if (e.faulty) continue;
      try {
        return await f(e);
      } catch (err) {
        if (isVerificationError(err)) {
          e.faulty = err;
          verification = err;
        } else if (!(err instanceof RpcError)) {
          throw err; // a bug or bad argument: do not hide it behind failover
        }
        last = err;
      }
    }
    if (verification) throw verification;
    if (last) throw last;
    throw new RpcError('request', -1, 'every node is marked faulty: ' + this.faultyNodes().map((f) => `${f.url} (${f.error.code})`).join(', '));
  }

  private async post(e: Endpoint, body: unknown, method: string): Promise<unknown> {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), this.timeoutMs);
    try {
      const res = await this.fetchFn(e.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: ctl.signal,
      });
      if (!res.ok) {
        // A node refusing at the HTTP level (busy, too big, too slow) may say why in a JSON-RPC
        // error object: keep its code and message.
        const why = (await res.json().catch(() => undefined)) as { error?: { code?: unknown; message?: unknown } } | undefined;
        const code = typeof why?.error?.code === 'number' ? why.error.code : -1;
        const message = typeof why?.error?.message === 'string' ? `: ${why.error.message.slice(0, 200)}` : '';
        throw new RpcError(method, code, `HTTP ${res.status} from ${e.url}${message}`);
      }
      return await res.json();
    } catch (err) {
      if (err instanceof RpcError) throw err;
      throw new RpcError(method, -1, `${e.url}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  private static unwrap(method: string, r: unknown): unknown {
    if (typeof r !== 'object' || r === null) throw new RpcError(method, -1, 'malformed JSON-RPC response');
    const { result, error } = r as { result?: unknown; error?: { code?: unknown; message?: unknown } };
    if (error) throw new RpcError(method, typeof error.code === 'number' ? error.code : -1, String(error.message ?? 'error'));
    if (result === undefined) throw new RpcError(method, -1, 'JSON-RPC response without a result');
    return result;
  }

  private async call(e: Endpoint, method: string, params: unknown[]): Promise<unknown> {
    return LightClient.unwrap(method, await this.post(e, { jsonrpc: '2.0', id: nextId++, method, params }, method));
  }

  private async batch(e: Endpoint, method: string, paramsList: unknown[][]): Promise<unknown[]> {
    const first = nextId;
    nextId += paramsList.length;
    const body = paramsList.map((params, i) => ({ jsonrpc: '2.0', id: first + i, method, params }));
    const res = await this.post(e, body, method);
    if (!Array.isArray(res)) throw new RpcError(method, -1, 'malformed JSON-RPC batch response');
    const byId = new Map(res.map((r: { id?: unknown }) => [r?.id, r]));
    return paramsList.map((_, i) => LightClient.unwrap(method, byId.get(first + i)));
  }

  /**
   * Hashes a header's fields; with `link`, also checks that it names `link.parent` as parent and,
   * when signers are trusted, that a trusted signer sealed it.
   */
  private checkHeader(json: unknown, method: string, expectedHash?: string, link?: { parent: string }): VerifiedHeader {
    if (json === null || json === undefined) throw new RpcError(method, -32001, 'unknown block');
    const { rlp, header } = encodeHeader(json);
    const wasm = verifier();
    const parent = link === undefined ? new Uint8Array(0) : hexToBytes(link.parent, 'parentHash');
    const signers = link === undefined ? new Uint8Array(0) : this.signers;
    const hash = bytesToHex(wasmCall(() => wasm.verifyHeaderLink(rlp, parent, signers)));
    if (expectedHash !== undefined && hash !== expectedHash) {
      throw new VerificationError('HEADER_HASH_MISMATCH', `the header hashes to ${hash}, not to ${expectedHash}`, { field: 'hash' });
    }
    return { hash, ...header };
  }

  /** Fetches the header with a trusted hash. */
  private async fetchByHash(e: Endpoint, hash: string): Promise<VerifiedHeader> {
    return this.checkHeader(await this.call(e, 'eth_getBlockByHash', [hash, false]), 'eth_getBlockByHash', hash);
  }

  private remember(h: VerifiedHeader): void {
    this.hashes.set(h.number, h.hash);
    this.byHash.set(h.hash, h.number);
    if (h.number > this.highest) this.highest = h.number;
    if (h.number < this.lowest) this.lowest = h.number;
    this.recent.delete(h.number);
    this.recent.set(h.number, h);
    if (this.recent.size > 512) this.recent.delete(this.recent.keys().next().value as bigint);
  }

  /** The full header of a verified block number (cached, or fetched by its trusted hash). */
  private async verifiedAt(e: Endpoint, n: bigint): Promise<VerifiedHeader> {
    const cached = this.recent.get(n);
    if (cached) return cached;
    const h = await this.fetchByHash(e, this.hashes.get(n) as string);
    this.remember(h);
    return h;
  }

  /** Runs `f` after any extension of the verified range in progress. */
  private serial<T>(f: () => Promise<T>): Promise<T> {
    const run = this.extending.then(f, f);
    this.extending = run.catch(() => undefined);
    return run;
  }

  /** The verified header at `block`, extending the verified range as needed. */
  private async headerAt(e: Endpoint, block: BlockTag): Promise<VerifiedHeader> {
    let target: bigint;
    if (typeof block === 'object' && block !== null) {
      const hash = bytesToHex(bytesArg(block.blockHash, 'blockHash', 32));
      const known = this.byHash.get(hash);
      if (known !== undefined) return this.verifiedAt(e, known);
      const json = await this.call(e, 'eth_getBlockByHash', [hash, false]);
      if (typeof json !== 'object' || json === null) throw new RpcError('eth_getBlockByHash', -32001, `unknown block ${hash}`);
      target = hexToBigInt((json as { number?: unknown }).number, 'number', 'network', 64);
      const onChain = target >= this.lowest && target <= this.highest ? await this.verifiedAt(e, target) : await this.headerAt(e, target);
      if (onChain.hash !== hash) {
        // A block off the verified chain (an uncle, a side chain), or a false number: either
        // way not one this client can vouch for, and not proof of a lie.
        throw new RpcError('eth_getBlockByHash', -32001, `block ${hash} is not on the verified chain`);
      }
      return onChain;
    }
    if (block === 'earliest') target = 0n;
    else if (typeof block === 'bigint' || typeof block === 'number') {
      if (typeof block === 'number' && !Number.isSafeInteger(block)) throw new RangeError('block: not a safe integer');
      if (BigInt(block) < 0n) throw new RangeError('block: must not be negative');
      target = BigInt(block);
    } else if (['latest', 'pending', 'safe', 'finalized'].includes(block)) {
      if (this.signers.length === 0) {
        // Hash links verify only backwards: the newest verifiable header is the checkpoint.
        target = this.highest;
      } else {
        const claimed = hexToBigInt(await this.call(e, 'eth_blockNumber', []), 'blockNumber', 'network', 64);
        if (claimed - this.highest > this.maxHeaderGap) {
          throw new RpcError('eth_blockNumber', -1, `${e.url} claims head ${claimed}, more than maxHeaderGap past the verified ${this.highest}`);
        }
        // A node may be behind, or pretend to be: never go back below what was verified.
        target = claimed > this.highest ? claimed : this.highest;
      }
    } else throw new TypeError(`block: unknown tag ${String(block)}`);

    if (target >= this.lowest && target <= this.highest) return this.verifiedAt(e, target);
    if (target > this.highest) {
      if (this.signers.length === 0) {
        throw new RangeError(
          `block ${target} is after the newest verified header (${this.highest}); with a checkpoint and no signers, ` +
            'only blocks up to the checkpoint can be verified: connect with a newer checkpoint',
        );
      }
      if (typeof block !== 'string') {
        const head = hexToBigInt(await this.call(e, 'eth_blockNumber', []), 'blockNumber', 'network', 64);
        if (target > head) throw new RpcError('eth_getBlockByNumber', -32001, `unknown block ${target} (${e.url} is at ${head})`);
      }
      if (target - this.highest > this.maxHeaderGap) {
        throw new RangeError(`block ${target} is more than maxHeaderGap headers past the verified ${this.highest}`);
      }
      return this.serial(() => this.extendForward(e, target));
    }
    if (this.lowest - target > this.maxHeaderGap) {
      throw new RangeError(`block ${target} is more than maxHeaderGap headers before the verified ${this.lowest}`);
    }
    return this.serial(() => this.extendBackward(e, target));
  }

  /** Verifies headers from the highest verified one up to `target`: parent links and seals. */
  private async extendForward(e: Endpoint, target: bigint): Promise<VerifiedHeader> {
    let parent = await this.verifiedAt(e, this.highest);
    while (parent.number < target) {
      const from = parent.number + 1n;
      const to = from + BigInt(this.batchSize) - 1n < target ? from + BigInt(this.batchSize) - 1n : target;
      const list: unknown[][] = [];
      for (let n = from; n <= to; n++) list.push(['0x' + n.toString(16), false]);
      for (const json of await this.batch(e, 'eth_getBlockByNumber', list)) {
        const h = this.checkHeader(json, 'eth_getBlockByNumber', undefined, { parent: parent.hash });
        if (h.number !== parent.number + 1n) {
          throw new VerificationError('PARENT_MISMATCH', `expected block ${parent.number + 1n}, got ${h.number}`, { field: 'number' });
        }
        this.remember(h);
        parent = h;
      }
    }
    return parent;
  }

  /** Verifies headers back from the lowest verified one to `target`: each must hash to its child's parentHash. */
  private async extendBackward(e: Endpoint, target: bigint): Promise<VerifiedHeader> {
    let child = await this.verifiedAt(e, this.lowest);
    while (child.number > target) {
      const h = await this.fetchByHash(e, child.parentHash);
      if (h.number !== child.number - 1n) {
        throw new VerificationError('PARENT_MISMATCH', `block ${child.number}'s parent claims number ${h.number}`, { field: 'number' });
      }
      this.remember(h);
      child = h;
    }
    return child;
  }
}

function hex(v: bigint): string {
  return '0x' + v.toString(16);
}

function blockArg(v: unknown, field: string): bigint {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new RangeError(`${field}: not a safe integer`);
    v = BigInt(v);
  }
  if (typeof v !== 'bigint') throw new TypeError(`${field}: expected a block number (bigint or number)`);
  if (v < 0n || v >> 64n !== 0n) throw new RangeError(`${field}: out of range`);
  return v;
}

/** Checks a caller's StateKey: its stateKey must be the hash of what it names. */
function stateKeyOf(k: StateKey): string {
  if (typeof k !== 'object' || k === null) throw new TypeError('key: expected a StateKey (client.keys.balance(addr), …) or a 32-byte hex state key');
  const again =
    k.kind === 'balance' ? stateKeys.balance(k.address) : k.kind === 'nonce' ? stateKeys.nonce(k.address) : k.kind === 'storage' ? stateKeys.storage(k.address, k.slot ?? '') : undefined;
  if (!again) throw new TypeError(`key.kind: expected balance, nonce or storage`);
  if (again.stateKey !== bytesToHex(bytesArg(k.stateKey, 'key.stateKey', 32))) {
    throw new RangeError('key.stateKey: does not hash from the key\'s kind, address and slot');
  }
  return again.stateKey;
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

/** A JSON-RPC block parameter as a BlockTag. */
function tagOf(v: unknown): BlockTag {
  if (v === undefined || v === null) return 'latest';
  if (typeof v === 'object' && typeof (v as { blockHash?: unknown }).blockHash === 'string') return { blockHash: (v as { blockHash: string }).blockHash };
  if (typeof v === 'object' && typeof (v as { blockNumber?: unknown }).blockNumber === 'string') {
    return hexToBigInt((v as { blockNumber: string }).blockNumber, 'blockNumber', 'argument');
  }
  if (typeof v === 'string' && /^0x/i.test(v)) return hexToBigInt(v, 'block', 'argument');
  if (typeof v === 'string') return v as BlockTag;
  throw new TypeError('block: expected a tag, a hex number or {blockHash}');
}
