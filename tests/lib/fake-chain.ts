/**
 * A node of made-up headers, in memory, for tests of the SDK's header chain: branches of valid
 * headers (each hashing to its child's parentHash), a canonical branch the node serves by
 * number, and a `fetch` that answers `eth_blockNumber`, `eth_getBlockByNumber` and
 * `eth_getBlockByHash` (single calls and batches) from them. A test can hold any answer until it
 * releases it (to interleave reads and reorganisations exactly), and the node lies where a lie
 * cannot be checked: asked for a block by something that is not a hash it knows, it answers a
 * header it made up, so that a client that asks without a trusted hash accepts a forgery.
 */
import { encodeHeader } from '@lightprov/sdk';
import { keccak256, toBeHex } from 'ethers';

export type HeaderJson = Record<string, string>;

const ZERO32 = '0x' + '00'.repeat(32);

/** One JSON-RPC call as the node saw it. */
export interface SeenCall {
  method: string;
  params: unknown[];
}

export class FakeChain {
  readonly url = 'http://fake-chain.invalid/';
  /** Every header the node built (honest ones), by hash. */
  readonly byHash = new Map<string, HeaderJson>();
  /** Every header it made up in answer to a question it could not check. */
  readonly forged = new Set<string>();
  /** The canonical branch, by number. */
  private canonical = new Map<number, string>();
  private tip = -1;
  /** Every call, in order. */
  readonly calls: SeenCall[] = [];
  /** Called before each answer is sent; the answer waits for the promise it returns. */
  hold: (calls: SeenCall[]) => Promise<void> | void = () => undefined;
  private salt = 0;

  /**
   * Builds `count` headers on `parent` (a hash the node built, or `undefined` for a new
   * genesis), numbered from the parent's number + 1; returns their hashes, oldest first. Each
   * branch differs by its `salt` (in the header's extraData), so two branches never share a hash.
   */
  build(parent: string | undefined, count: number): string[] {
    const salt = ++this.salt;
    let parentHash = parent ?? ZERO32;
    let number = parent === undefined ? 0 : Number(BigInt((this.byHash.get(parent) as HeaderJson)['number']!)) + 1;
    const out: string[] = [];
    for (let i = 0; i < count; i++, number++) {
      const h: HeaderJson = {
        parentHash,
        sha3Uncles: ZERO32,
        miner: '0x' + '00'.repeat(20),
        stateRoot: keccak256(toBeHex(number * 1000 + salt, 32)),
        transactionsRoot: ZERO32,
        receiptsRoot: ZERO32,
        logsBloom: '0x' + '00'.repeat(256),
        difficulty: '0x0',
        number: toBeHex(number),
        gasLimit: '0x1c9c380',
        gasUsed: '0x0',
        timestamp: toBeHex(1_700_000_000 + number * 12),
        extraData: toBeHex(salt, 4),
        mixHash: ZERO32,
        nonce: '0x0000000000000000',
      };
      const hash = keccak256(encodeHeader(h).rlp);
      this.byHash.set(hash, { ...h, hash });
      out.push(hash);
      parentHash = hash;
    }
    return out;
  }

  /** Makes the branch ending at `tip` the one served by number. */
  follow(tip: string): void {
    this.canonical = new Map();
    let h = this.byHash.get(tip);
    this.tip = h === undefined ? -1 : this.numberOf(tip);
    while (h !== undefined) {
      this.canonical.set(Number(BigInt(h['number']!)), h['hash']!);
      h = this.byHash.get(h['parentHash']!);
    }
  }

  numberOf(hash: string): number {
    return Number(BigInt((this.byHash.get(hash) as HeaderJson)['number']!));
  }

  /** The hash the node serves at `n`. */
  hashAt(n: number): string {
    return this.canonical.get(n) as string;
  }

  /** A header no one built, claiming number `n`: what the node answers a question it cannot check. */
  private forge(n: number): HeaderJson {
    const h: HeaderJson = { ...(this.byHash.get(this.hashAt(0)) as HeaderJson), number: toBeHex(n), receiptsRoot: keccak256(toBeHex(0xdead0000 + n, 32)) };
    delete h['hash'];
    const hash = keccak256(encodeHeader(h).rlp);
    this.forged.add(hash);
    return { ...h, hash };
  }

  private answer(c: SeenCall): unknown {
    switch (c.method) {
      case 'eth_blockNumber':
        return toBeHex(this.tip);
      case 'eth_getBlockByNumber': {
        const n = Number(BigInt(c.params[0] as string));
        const hash = this.canonical.get(n);
        return hash === undefined ? null : this.byHash.get(hash);
      }
      case 'eth_getBlockByHash': {
        const hash = c.params[0];
        if (typeof hash === 'string' && this.byHash.has(hash)) return this.byHash.get(hash);
        // Asked without a hash it knows: nobody can check the answer, so it lies.
        return this.forge(this.tip + 1);
      }
      default:
        throw new Error(`fake chain: no ${c.method}`);
    }
  }

  /** The `fetch` a Transport takes. */
  readonly fetch: typeof fetch = async (_input, init) => {
    const body = JSON.parse(String(init?.body)) as ({ id: unknown } & SeenCall) | ({ id: unknown } & SeenCall)[];
    const list = Array.isArray(body) ? body : [body];
    const seen = list.map((c) => ({ method: c.method, params: c.params }));
    this.calls.push(...seen);
    await this.hold(seen);
    const out = list.map((c) => ({ jsonrpc: '2.0', id: c.id, result: this.answer(c) }));
    return new Response(JSON.stringify(Array.isArray(body) ? out : out[0]), { headers: { 'content-type': 'application/json' } });
  };
}

/**
 * A beacon light client as the header chain sees it: the execution blocks it vouches for (its
 * followed head and its finalized block), which a test moves to stage the beacon chain's reorgs.
 */
export class FakeBeacon {
  head: { number: bigint; hash: string; slot: bigint };
  finalized: { number: bigint; hash: string; slot: bigint };

  constructor(
    private readonly chain: FakeChain,
    head: string,
    finalized: string,
  ) {
    this.head = this.of(head);
    this.finalized = this.of(finalized);
  }

  private of(hash: string) {
    const n = BigInt(this.chain.numberOf(hash));
    return { number: n, hash, slot: n };
  }

  /** The beacon chain moves its head (and the node its canonical chain) to `hash`. */
  moveTo(hash: string): void {
    this.head = this.of(hash);
    this.chain.follow(hash);
  }

  async refresh(): Promise<void> {}

  execution() {
    return { head: this.head, finalized: this.finalized };
  }

  /** What the header chain asks on a read of `latest`: never stale here. */
  async current() {
    await this.refresh();
    return this.execution();
  }
}
