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
}

/** The minimal EIP-1193 provider shape that ethers' BrowserProvider and viem's custom() accept. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] | object }): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): Eip1193Provider;
  removeListener(event: string, listener: (...args: unknown[]) => void): Eip1193Provider;
}

interface Endpoint {
  url: string;
  faulty: VerificationError | undefined;
}

let nextId = 1;

/** Chain data is verified before it is returned; see the module documentation. */
export class LightClient {
  private readonly endpoints: Endpoint[];
  private readonly signers: Uint8Array;
  private readonly timeoutMs: number;
  private readonly batchSize: number;
  private readonly fetchFn: typeof fetch;
  /** Verified headers by number. */
  private readonly headers = new Map<bigint, VerifiedHeader>();
  private readonly byHash = new Map<string, bigint>();
  private anchor: bigint = 0n;

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
    client.anchor = number;
    await client.withFailover(async (e) => {
      const json = await client.call(e, 'eth_getBlockByHash', [hash, false]);
      const h = client.checkHeader(json, hash);
      if (h.number !== number) {
        throw new VerificationError('HEADER_HASH_MISMATCH', `the anchor ${hash} is block ${h.number}, not ${number}`, { field: 'number' });
      }
      client.remember(h);
    });
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
              const json = (await this.call(e, method, p)) as Record<string, unknown> | null;
              if (json === null) return null;
              const claimed = String(json['hash']);
              const h = await this.headerAt(e, { blockHash: claimed });
              if (h.hash !== claimed.toLowerCase()) throw new VerificationError('HEADER_HASH_MISMATCH', 'block hash mismatch', { field: 'hash' });
              return json;
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
      if (!res.ok) throw new RpcError(method, -1, `HTTP ${res.status} from ${e.url}`);
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

  /** Hashes a header's fields and, when signers are trusted, checks its seal and parent link. */
  private checkHeader(json: unknown, expectedHash?: string, parent?: string): VerifiedHeader {
    if (json === null || json === undefined) throw new RpcError('eth_getBlockByNumber', -32001, 'unknown block');
    const { rlp, header } = encodeHeader(json);
    const wasm = verifier();
    const parentBytes = parent === undefined ? new Uint8Array(0) : hexToBytes(parent, 'parentHash');
    const hash = bytesToHex(wasmCall(() => wasm.verifyHeaderLink(rlp, parentBytes, this.signers)));
    if (expectedHash !== undefined && hash !== expectedHash.toLowerCase()) {
      throw new VerificationError('HEADER_HASH_MISMATCH', `the header hashes to ${hash}, not to ${expectedHash}`, { field: 'hash' });
    }
    return { hash, ...header };
  }

  private remember(h: VerifiedHeader): void {
    this.headers.set(h.number, h);
    this.byHash.set(h.hash, h.number);
  }

  /** The verified header at `block`, extending the verified chain as needed. */
  private async headerAt(e: Endpoint, block: BlockTag): Promise<VerifiedHeader> {
    let target: bigint;
    if (typeof block === 'object' && block !== null) {
      const hash = bytesToHex(bytesArg(block.blockHash, 'blockHash', 32));
      const known = this.byHash.get(hash);
      if (known !== undefined) return this.headers.get(known) as VerifiedHeader;
      const json = await this.call(e, 'eth_getBlockByHash', [hash, false]);
      if (json === null) throw new RpcError('eth_getBlockByHash', -32001, `unknown block ${hash}`);
      target = hexToBigInt((json as { number?: unknown }).number, 'number');
      const h = await this.headerAt(e, target);
      if (h.hash !== hash) throw new VerificationError('HEADER_HASH_MISMATCH', `block ${target} of the verified chain is ${h.hash}, not ${hash}`, { field: 'hash' });
      return h;
    }
    if (block === 'earliest') target = 0n;
    else if (typeof block === 'bigint' || typeof block === 'number') {
      if (BigInt(block) < 0n) throw new RangeError('block: must not be negative');
      target = BigInt(block);
    } else if (['latest', 'pending', 'safe', 'finalized'].includes(block)) {
      target = hexToBigInt(await this.call(e, 'eth_blockNumber', []), 'blockNumber');
    } else throw new TypeError(`block: unknown tag ${String(block)}`);

    const have = this.headers.get(target);
    if (have) return have;
    const numbers = [...this.headers.keys()];
    const below = numbers.filter((n) => n < target).reduce((a, b) => (b > a ? b : a), -1n);
    if (below >= 0n) {
      // Forward from the highest verified header below: each must name its parent.
      let parent = this.headers.get(below) as VerifiedHeader;
      for (let from = below + 1n; from <= target; from += BigInt(this.batchSize)) {
        const to = from + BigInt(this.batchSize) - 1n < target ? from + BigInt(this.batchSize) - 1n : target;
        const list: unknown[][] = [];
        for (let n = from; n <= to; n++) list.push(['0x' + n.toString(16), false]);
        const blocks = await this.batch(e, 'eth_getBlockByNumber', list);
        for (const json of blocks) {
          const h = this.checkHeader(json, undefined, parent.hash);
          if (h.number !== parent.number + 1n) throw new VerificationError('PARENT_MISMATCH', `expected block ${parent.number + 1n}, got ${h.number}`, { field: 'number' });
          this.remember(h);
          parent = h;
        }
      }
      return parent;
    }
    // Before a checkpoint: walk parent hashes back from the lowest verified header.
    let child = this.headers.get(numbers.reduce((a, b) => (b < a ? b : a))) as VerifiedHeader;
    while (child.number > target) {
      const json = await this.call(e, 'eth_getBlockByHash', [child.parentHash, false]);
      const h = this.checkHeader(json, child.parentHash);
      this.remember(h);
      child = h;
    }
    return child;
  }
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
