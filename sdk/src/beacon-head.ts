/**
 * Following Ethereum's head through the beacon chain's sync committee, for `LightClient`'s
 * `trust: { beacon }`: a {@link BeaconStore} bootstrapped from a finalized beacon block root the
 * app trusts, synced through the light-client endpoints of one or more beacon nodes
 * (`/eth/v1/beacon/light_client/{bootstrap,updates,finality_update,optimistic_update}`, as SSZ),
 * and kept across restarts. Its verified execution block (number and hash) is what the header
 * chain trusts as its head; older blocks are reached by the hash links back from it.
 *
 * Beacon nodes get the failover and fault marking of execution nodes: one that errs is skipped
 * for the call, one whose object fails verification is marked faulty and not asked again.
 */
import { uint64Arg } from './args.js';
import { FailoverError, NodeFaultError, RpcError, StaleHeadError, isVerificationError } from './errors.js';
import { type BeaconFork, type BeaconHeader, type BeaconNetworkArg, BeaconStore, beaconNetworkArg, forkOf, loadBeacon, minParticipationArg } from './beacon-store.js';
import { bytesArg, bytesToHex } from './hex.js';
import type { Endpoint } from './transport.js';
import { Transport } from './transport.js';

/** Where a beacon store is kept between runs: bytes in, bytes out. */
export interface BeaconStorage {
  /** The bytes saved last, or `undefined` if none. */
  load(): Promise<Uint8Array | undefined>;
  /** Keeps `bytes`, replacing what was saved (atomically: a crash leaves the old or the new). */
  save(bytes: Uint8Array): Promise<void>;
}

/** `trust.beacon` of `LightClient.connect`. */
export interface BeaconTrust {
  /** `mainnet`, `sepolia`, `holesky`, `hoodi`, or a minimal-preset chain (a simulated committee). */
  network: BeaconNetworkArg;
  /**
   * A finalized beacon block root the app trusts (a weak-subjectivity checkpoint, from a source
   * it trusts: a block explorer, its own node, a friend). Only its bootstrap is fetched.
   */
  checkpoint: string | Uint8Array;
  /** Beacon API base URLs, tried in order. */
  urls: string | readonly string[];
  /**
   * Where the verified store is kept, so that a restart within the committee's period needs no
   * sync: default — IndexedDB in browsers (database `lightprov`), a file in Node (under
   * `$XDG_CACHE_HOME/lightprov` or `~/.cache/lightprov`), keyed by network and checkpoint; a file
   * path (Node); a {@link BeaconStorage}; or `false` for none.
   */
  storage?: BeaconStorage | string | false;
  /**
   * Which beacon header `latest` follows: `optimistic` (default; the newest header at least
   * `minParticipation` of the committee signed, about one slot behind; it may still be
   * reverted) or `finalized` (about two epochs behind, never reverted).
   */
  head?: 'optimistic' | 'finalized';
  /**
   * The share of the sync committee that must sign a header before it becomes the head (and
   * its execution block the one `latest` reads): default `2 / 3`, the supermajority the
   * protocol asks of finality. The protocol's own optimistic header needs less — on a fresh
   * store one member's signature moves it, and from Capella that member chooses the execution
   * block it names — so lowering this lets that few members choose the client's head: at
   * `1 / 512` on mainnet, any single member, who can then make the client read state and logs
   * of a block that never was. Lower it only for a chain whose committee rarely reaches two
   * thirds, and only as far as you trust that share of it.
   */
  minParticipation?: number;
  /**
   * How old the head may be, in seconds against the clock (`currentSlot`), before reads of
   * `latest`, `safe` and `finalized` throw a `StaleHeadError` (`STALE_HEAD`) instead of
   * naming old blocks as the newest: default 300 (25 slots on mainnet). Measured on the
   * newest header the committee signed (with `head: 'finalized'` too: the finalized header
   * lags it by the chain's finality, which the follower cannot change).
   */
  maxHeadAge?: number;
  /**
   * Accept a checkpoint (or a saved store) whose finalized header is older than the
   * weak-subjectivity bound (14 days on public networks): a committee that long gone may have
   * signed another history. Default: refused with a `RangeError`.
   */
  allowStaleCheckpoint?: boolean;
  /**
   * The current slot (default: the network's clock). A simulated chain's genesis is at Unix
   * time 0, so its node's slot must be given.
   */
  currentSlot?: () => bigint | number;
  /** How long a verified head is used before the beacon nodes are asked again (default: 6 s). */
  refreshMs?: number;
}

/** How old the followed head may be by default, in seconds: 5 minutes (25 slots on mainnet). */
const MAX_HEAD_AGE_SECONDS = 300;
/** How old a checkpoint may be, in seconds: 14 days, the bound helios and others use. */
const WEAK_SUBJECTIVITY_SECONDS = 14 * 24 * 3600;
/** Updates asked for per request (the Beacon API's MAX_REQUEST_LIGHT_CLIENT_UPDATES is 128). */
const UPDATES_PER_REQUEST = 128;

/** The execution block the beacon chain vouches for. */
export interface BeaconExecutionHead {
  number: bigint;
  hash: string;
  /** The beacon slot of the header that carries it. */
  slot: bigint;
}

/** A verified beacon store and the nodes it is kept up to date from. */
export class BeaconHead {
  private lastRefresh = 0;
  private refreshing: Promise<void> | undefined;

  private constructor(
    readonly net: Transport,
    private store: BeaconStore,
    private readonly network: BeaconNetworkArg,
    private readonly storage: BeaconStorage | undefined,
    private readonly opts: {
      head: 'optimistic' | 'finalized';
      clock: () => bigint;
      refreshMs: number;
      allowStale: boolean;
      public: boolean;
      maxHeadAge: number;
      secondsPerSlot: number;
    },
  ) {}

  /**
   * Restores the saved store (when there is one and it reads back) or bootstraps from the
   * checkpoint, checks the finalized header's age, and syncs to the current period.
   */
  static async open(trust: BeaconTrust, timeoutMs: number, fetchFn: typeof fetch): Promise<BeaconHead> {
    if (typeof trust !== 'object' || trust === null) throw new TypeError('trust.beacon: expected { network, checkpoint, urls }');
    await loadBeacon();
    beaconNetworkArg(trust.network, 'trust.beacon.network');
    const urls = typeof trust.urls === 'string' ? [trust.urls] : Array.isArray(trust.urls) ? [...(trust.urls as readonly string[])] : [];
    const net = new Transport(urls, timeoutMs, fetchFn, 'trust.beacon.urls');
    const checkpoint = bytesToHex(bytesArg(trust.checkpoint, 'trust.beacon.checkpoint', 32));
    const head = trust.head ?? 'optimistic';
    if (head !== 'optimistic' && head !== 'finalized') throw new RangeError(`trust.beacon.head: expected 'optimistic' or 'finalized', got ${JSON.stringify(head)}`);
    if (trust.currentSlot !== undefined && typeof trust.currentSlot !== 'function') throw new TypeError('trust.beacon.currentSlot: expected a function returning the current slot');
    const refreshMs = trust.refreshMs ?? 6000;
    if (!Number.isFinite(refreshMs) || refreshMs < 0) throw new RangeError('trust.beacon.refreshMs: expected a number of milliseconds ≥ 0');
    const maxHeadAge = trust.maxHeadAge ?? MAX_HEAD_AGE_SECONDS;
    if (typeof maxHeadAge !== 'number' || !Number.isFinite(maxHeadAge) || maxHeadAge < 0) throw new RangeError('trust.beacon.maxHeadAge: expected a number of seconds ≥ 0');
    const minParticipation = trust.minParticipation === undefined ? undefined : minParticipationArg(trust.minParticipation, 'trust.beacon.minParticipation');
    const isPublic = typeof trust.network === 'string' || (typeof trust.network === 'object' && trust.network !== null && 'name' in trust.network);
    const networkName = isPublic ? String(typeof trust.network === 'string' ? trust.network : (trust.network as { name: string }).name) : 'minimal';
    const storage = await storageOf(trust.storage, `${networkName}-${checkpoint}`);

    let store: BeaconStore | undefined;
    const saved = await storage?.load().catch(() => undefined);
    if (saved !== undefined) {
      try {
        store = BeaconStore.restore(trust.network, saved);
      } catch (err) {
        // Saved bytes that no longer read back (another version, a cut file) are dropped: the
        // checkpoint is still trusted, so the store is made again from it.
        if (!isVerificationError(err)) throw err;
      }
    }
    if (store === undefined) {
      const s = await net.withFailover(async (e) => {
        const path = `/eth/v1/beacon/light_client/bootstrap/${checkpoint}`;
        const { body, version } = await net.getBytes(e, path);
        const fork = forkFor(trust.network, 'bootstrap', body, version, e, path);
        return BeaconStore.bootstrap({ network: trust.network, trustedBlockRoot: checkpoint, bootstrap: { fork, ssz: body } });
      });
      store = s;
    }
    if (minParticipation !== undefined) store.setMinParticipation(minParticipation);
    const clock = trust.currentSlot === undefined ? () => (store as BeaconStore).slotAt() : () => uint64Arg(trust.currentSlot?.(), 'trust.beacon.currentSlot()', 'a slot');
    // The network's slot length, from the core's clock: the slots of a day.
    const day = 86_400;
    const nowSeconds = Math.max(Math.floor(Date.now() / 1000), 2 * day);
    const secondsPerSlot = Math.round(day / Number(store.slotAt(nowSeconds) - store.slotAt(nowSeconds - day)));
    const h = new BeaconHead(net, store, trust.network, storage, {
      head,
      clock,
      refreshMs,
      allowStale: trust.allowStaleCheckpoint === true,
      public: isPublic,
      maxHeadAge,
      secondsPerSlot,
    });
    h.checkAge();
    await h.sync();
    return h;
  }

  /** The store's finalized header. */
  finalized(): BeaconHeader {
    return this.store.finalizedHeader();
  }

  /**
   * The store's optimistic header, the specification's: on a fresh store one member's
   * signature moves it. Not what the follower follows: see {@link head}.
   */
  optimistic(): BeaconHeader {
    return this.store.optimisticHeader();
  }

  /**
   * The head the follower follows: the newest header at least `minParticipation` (default two
   * thirds) of the committee signed, or the finalized header when that is newer.
   */
  head(): BeaconHeader {
    return this.store.followedHeader();
  }

  /**
   * The execution block of the followed header (`head`: {@link head}, or the finalized header
   * with `head: 'finalized'`), and of the finalized one.
   */
  execution(): { head: BeaconExecutionHead; finalized: BeaconExecutionHead } {
    const of = (h: BeaconHeader, which: string): BeaconExecutionHead => {
      if (h.execution === undefined) {
        throw new RangeError(`trust.beacon: the ${which} beacon header (slot ${h.slot}) is before Capella and names no execution block: start from a newer checkpoint`);
      }
      return { number: h.execution.blockNumber, hash: h.execution.blockHash, slot: h.slot };
    };
    const finalized = of(this.finalized(), 'finalized');
    return { head: this.opts.head === 'finalized' ? finalized : of(this.head(), 'followed'), finalized };
  }

  /**
   * How old {@link head} is against the clock (`currentSlot`): in slots, and in seconds at the
   * network's slot length.
   */
  age(): { slots: bigint; seconds: number } {
    const now = this.opts.clock();
    const slot = this.head().slot;
    const slots = now > slot ? now - slot : 0n;
    return { slots, seconds: Number(slots) * this.opts.secondsPerSlot };
  }

  /** Whether {@link head} is older than `maxHeadAge`. */
  private stale(): boolean {
    return this.age().seconds > this.opts.maxHeadAge;
  }

  /**
   * After a refresh, the execution blocks of {@link execution}, for a read of `latest`, `safe`
   * or `finalized`: a `StaleHeadError` if the head is older than `maxHeadAge`.
   */
  async current(): Promise<{ head: BeaconExecutionHead; finalized: BeaconExecutionHead }> {
    await this.refresh();
    if (this.stale()) {
      const { seconds } = this.age();
      throw new StaleHeadError(this.head().slot, this.opts.clock(), seconds, this.opts.maxHeadAge);
    }
    return this.execution();
  }

  /**
   * How many of the sync committee signed the last update the store took (its aggregate
   * signature verified over exactly those members' keys), of how many; `undefined` until one.
   */
  participation(): { signed: number; size: number } | undefined {
    return this.store.participation();
  }

  /** The store's bytes, as saved. */
  save(): Uint8Array {
    return this.store.save();
  }

  /** Syncs again if the last sync is older than `refreshMs` (concurrent callers share one). */
  async refresh(): Promise<void> {
    if (Date.now() - this.lastRefresh < this.opts.refreshMs) return;
    this.refreshing ??= this.sync().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Refuses a finalized header older than the weak-subjectivity bound, unless allowed. */
  private checkAge(): void {
    if (!this.opts.public || this.opts.allowStale) return;
    const slot = this.finalized().slot;
    const now = this.opts.clock();
    const bound = this.store.slotAt(Math.floor(Date.now() / 1000)) - this.store.slotAt(Math.floor(Date.now() / 1000) - WEAK_SUBJECTIVITY_SECONDS);
    if (now > slot && now - slot > bound) {
      throw new RangeError(
        `trust.beacon.checkpoint: its finalized header (slot ${slot}) is ${now - slot} slots old, more than the weak-subjectivity bound of ${bound} slots (14 days): ` +
          'use a recent finalized block root, or pass allowStaleCheckpoint: true if you trust it anyway',
      );
    }
  }

  /**
   * Brings the store to the current period with `updates` (each period's best update, its next
   * committee), then applies the newest finality and optimistic updates, and saves it.
   */
  private async sync(): Promise<void> {
    const now = this.opts.clock();
    const target = this.store.periodAt(now);
    // Whole periods first: each update carries the committee that signs the next period.
    for (let guard = 0; guard < 1 << 16; guard++) {
      const period = this.store.periodAt(this.finalized().slot);
      if (period >= target) break;
      const count = Number(target - period + 1n < BigInt(UPDATES_PER_REQUEST) ? target - period + 1n : BigInt(UPDATES_PER_REQUEST));
      const before = this.faulty();
      const moved = await this.net.withFailover(async (e) => {
        const path = `/eth/v1/beacon/light_client/updates?start_period=${period}&count=${count}`;
        const { body } = await this.net.getBytes(e, path);
        let applied = false;
        for (const [i, ssz] of chunks(body, e, path).entries()) {
          const fork = forkFor(this.network, 'update', ssz, undefined, e, `${path} [${i}]`);
          try {
            applied = this.store.processUpdate({ fork, ssz, currentSlot: now }).applied || applied;
          } catch (err) {
            if (!benign(err)) throw err;
          }
        }
        // An answer that moves nothing: ask the next node (this one may be behind).
        if (!applied) throw new RpcError(path, -1, `${e.url} has no update that advances the store from period ${period}`);
        return applied;
      }).catch((err: unknown) => {
        if (err instanceof RpcError && !lied(err, before)) return false; // no node has more: finality updates may still move it
        throw err;
      });
      if (!moved) break;
    }
    await this.latest('finality_update', now);
    await this.latest('optimistic_update', now);
    this.lastRefresh = Date.now();
    await this.storage?.save(this.store.save()).catch(() => undefined);
  }

  /**
   * Fetches and applies the newest finality or optimistic update. A node without one, with one
   * the store has nothing to take from (older than the store, or signed after the client's
   * clock), or whose update leaves the head older than `maxHeadAge` (it is behind), is passed
   * for the next.
   */
  private async latest(kind: 'finality_update' | 'optimistic_update', now: bigint): Promise<void> {
    const before = this.faulty();
    try {
      await this.net.withFailover(async (e) => {
        const path = `/eth/v1/beacon/light_client/${kind}`;
        const { body, version } = await this.net.getBytes(e, path);
        const fork = forkFor(this.network, kind, body, version, e, path);
        try {
          if (kind === 'finality_update') this.store.processFinalityUpdate({ fork, ssz: body, currentSlot: now });
          else this.store.processOptimisticUpdate({ fork, ssz: body, currentSlot: now });
        } catch (err) {
          if (!benign(err)) throw err;
          throw new RpcError(path, -1, `${e.url} has no ${kind.replace('_', ' ')} this store can take (${(err as Error).message})`);
        }
        if (this.stale()) throw new RpcError(path, -1, `${e.url} is behind: the head is ${this.age().seconds} s old after its ${kind.replace('_', ' ')}`);
      });
    } catch (err) {
      // No node has one (a chain without finality yet), or none is ahead of the store: it keeps
      // what it has. A node that lied in this call is not forgiven: that is thrown (one marked
      // faulty before is not this call's failure).
      if (!(err instanceof RpcError) || lied(err, before)) throw err;
    }
  }

  /** The beacon nodes marked faulty now. */
  private faulty(): Set<string> {
    return new Set(this.net.faultyNodes().map((f) => f.url));
  }
}

/**
 * Whether a failure (or any node's, for a failover) was a node's lie, not an absence; with
 * `before`, a node already marked faulty then is not counted.
 */
function lied(err: unknown, before: ReadonlySet<string> = new Set()): boolean {
  const own = (x: unknown) => isVerificationError(x) || x instanceof NodeFaultError;
  return own(err) || (err instanceof FailoverError && err.faults.some((f) => own(f.error) && !before.has(f.url)));
}

/**
 * An update that is honest but brings nothing new to this store (it is older than what the
 * store has, or of a period it has moved past): not a fault of the node.
 */
function benign(err: unknown): boolean {
  if (!isVerificationError(err)) return false;
  // An update signed after the slot this client's clock says now is not a lie: the node's
  // clock (or the chain) is ahead of ours. It is left for a later refresh, not applied.
  const early = err.code === 'SLOT_ORDER' && err.field === 'update.signature_slot';
  return early || err.code === 'STALE_UPDATE' || err.code === 'PERIOD_MISMATCH';
}

/** The fork of an object: its `Eth-Consensus-Version` if given (and a fork), else its bytes'. */
function forkFor(network: BeaconNetworkArg, kind: 'bootstrap' | 'update' | 'finality_update' | 'optimistic_update', ssz: Uint8Array, version: string | undefined, e: Endpoint, what: string): BeaconFork {
  const named = ['altair', 'bellatrix', 'capella', 'deneb', 'electra', 'fulu'].includes(version ?? '') ? (version as BeaconFork) : undefined;
  const fork = named ?? forkOf(network, kind, ssz);
  if (fork === undefined) throw new NodeFaultError(what, e.url, `answers bytes that are no ${kind.replace('_', ' ')} of any fork of this network`);
  return fork;
}

/**
 * The SSZ payloads of a multi-object answer (`updates`): each `length(u64 LE) ‖ forkDigest(4) ‖
 * ssz`, the length counting the digest and the SSZ bytes (as lodestar and lightprov-node frame
 * them). A framing that does not add up is the node's fault.
 */
function chunks(body: Uint8Array, e: Endpoint, what: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let at = 0;
  while (at < body.length) {
    if (body.length - at < 12) throw new NodeFaultError(what, e.url, `answers a chunk header cut at byte ${at}`);
    const len = view.getBigUint64(at, true);
    if (len < 4n) throw new NodeFaultError(what, e.url, `answers a chunk of ${len} bytes at byte ${at}, shorter than its fork digest`);
    if (len > BigInt(body.length - at - 8)) throw new NodeFaultError(what, e.url, `answers a chunk of ${len} bytes at byte ${at}, past the end`);
    out.push(body.subarray(at + 12, at + 8 + Number(len)));
    at += 8 + Number(len);
  }
  return out;
}

/** The storage `trust.beacon.storage` names, under `key` for the defaults. */
async function storageOf(arg: BeaconStorage | string | false | undefined, key: string): Promise<BeaconStorage | undefined> {
  if (arg === false) return undefined;
  if (typeof arg === 'object' && arg !== null) {
    if (typeof arg.load !== 'function' || typeof arg.save !== 'function') throw new TypeError('trust.beacon.storage: expected { load, save }, a file path, or false');
    return arg;
  }
  if (arg !== undefined && typeof arg !== 'string') throw new TypeError('trust.beacon.storage: expected { load, save }, a file path, or false');
  if (typeof indexedDB !== 'undefined' && arg === undefined) return indexedDbStorage(key);
  const node = (globalThis as { process?: { versions?: { node?: string }; env?: Record<string, string | undefined> } }).process;
  if (node?.versions?.node === undefined) {
    if (arg !== undefined) throw new TypeError('trust.beacon.storage: a file path needs Node');
    return undefined; // neither IndexedDB nor a file system: nothing to keep it in
  }
  return fileStorage(arg, key, node.env ?? {});
}

/** What the file storage uses of `node:fs/promises` (the SDK does not depend on Node's types). */
interface NodeFs {
  readFile(path: string): Promise<Uint8Array>;
  writeFile(path: string, data: Uint8Array): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  mkdir(path: string, opts: { recursive: boolean }): Promise<unknown>;
}

/** What it uses of `node:path`. */
interface NodePath {
  join(...parts: string[]): string;
  dirname(path: string): string;
}

/** A file in Node: written to a temporary name and renamed over the old one. */
async function fileStorage(path: string | undefined, key: string, env: Record<string, string | undefined>): Promise<BeaconStorage> {
  // Through variables, so that bundlers for browsers do not try to resolve Node's modules.
  const fsName = 'node:fs/promises';
  const pathName = 'node:path';
  const osName = 'node:os';
  const fs = (await import(/* @vite-ignore */ fsName)) as NodeFs;
  const p = (await import(/* @vite-ignore */ pathName)) as NodePath;
  const home = async () => ((await import(/* @vite-ignore */ osName)) as { homedir(): string }).homedir();
  const file = path ?? p.join(env.XDG_CACHE_HOME ?? p.join(await home(), '.cache'), 'lightprov', `beacon-${key}.bin`);
  return {
    async load() {
      try {
        return new Uint8Array(await fs.readFile(file));
      } catch (err) {
        if ((err as { code?: unknown }).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async save(bytes) {
      await fs.mkdir(p.dirname(file), { recursive: true });
      const tmp = `${file}.${Math.random().toString(36).slice(2)}.tmp`;
      await fs.writeFile(tmp, bytes);
      await fs.rename(tmp, file);
    },
  };
}

/** IndexedDB in browsers: database `lightprov`, object store `beacon`. */
function indexedDbStorage(key: string): BeaconStorage {
  const open = (): Promise<IDBDatabase> =>
    new Promise((resolve, reject) => {
      const req = indexedDB.open('lightprov', 1);
      req.onupgradeneeded = () => req.result.createObjectStore('beacon');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error ?? new Error('IndexedDB: open failed'));
    });
  const run = async <T>(mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> => {
    const db = await open();
    try {
      return await new Promise<T>((resolve, reject) => {
        const tx = db.transaction('beacon', mode);
        const req = f(tx.objectStore('beacon'));
        tx.oncomplete = () => resolve(req.result);
        tx.onerror = () => reject(tx.error ?? new Error('IndexedDB: transaction failed'));
      });
    } finally {
      db.close();
    }
  };
  return {
    async load() {
      const v = await run('readonly', (s) => s.get(key) as IDBRequest<unknown>);
      return v instanceof Uint8Array ? v : v instanceof ArrayBuffer ? new Uint8Array(v) : undefined;
    },
    async save(bytes) {
      await run('readwrite', (s) => s.put(bytes, key));
    },
  };
}
