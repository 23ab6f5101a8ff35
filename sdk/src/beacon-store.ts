/**
 * The beacon family's store over its wasm module (`beacon`): {@link BeaconStore}, the
 * sync-committee light client, and the network and argument checks it shares with the
 * follower (`beacon-head.ts`). Apps import it through `@lightprov/sdk/beacon`
 * (`families/beacon.ts`), which adds the follower; this module imports neither, so that the
 * follower can import it.
 */
import { objectArg, uint64Arg } from './args.js';
import { wasmCall } from './errors.js';
import { bytesArg, bytesToHex, hexToBytes } from './hex.js';
import { loadFamily, wasmOf } from './init.js';

/** The forks with a light-client protocol, oldest first. */
export type BeaconFork = 'altair' | 'bellatrix' | 'capella' | 'deneb' | 'electra' | 'fulu';

/**
 * A minimal-preset test chain (a simulated sync committee): its genesis validators root, and
 * every fork through `lastFork` at genesis — or at `forkEpochs`, one epoch per fork from Altair
 * to `lastFork`, never decreasing (a chain that goes through a fork, as the consensus spec's
 * fork-transition tests do).
 */
export interface MinimalBeaconChain {
  preset: 'minimal';
  genesisValidatorsRoot: string | Uint8Array;
  lastFork: BeaconFork;
  forkEpochs?: readonly (number | bigint)[];
}

/** A public network by name (see {@link beaconNetworks}), or a minimal-preset test chain. */
export type BeaconNetworkArg = string | { name: string } | MinimalBeaconChain;

/** One light-client object as a beacon node serves it: SSZ bytes (or 0x-hex) and its fork. */
export interface BeaconObject {
  /** The fork of its container (the answer's `Eth-Consensus-Version`, lowercase). */
  fork: BeaconFork;
  ssz: string | Uint8Array;
}

/** What {@link BeaconStore.bootstrap} starts from. */
export interface BeaconBootstrapArgs {
  network: BeaconNetworkArg;
  /** The beacon block root the app trusts (a finalized checkpoint's), 32 bytes. */
  trustedBlockRoot: string | Uint8Array;
  /** The `LightClientBootstrap` for that root. */
  bootstrap: BeaconObject;
}

/** An update with the slot it is checked at (see {@link BeaconStore.processUpdate}). */
export interface BeaconUpdateArgs extends BeaconObject {
  /**
   * The current slot (bigint or safe integer): an update signed after it is refused. Default:
   * the slot of the network's clock now (the core's genesis time and slot length; a minimal
   * chain's genesis is at Unix time 0, so pass its slot).
   */
  currentSlot?: bigint | number;
}

/** The execution block a beacon header commits to (Capella on). */
export interface ExecutionHeader {
  blockNumber: bigint;
  /** The execution block hash (0x-hex, 32 bytes): what the header walk starts from. */
  blockHash: string;
  /** The execution state root (0x-hex): what MPT proofs are checked against. */
  stateRoot: string;
  /** hash_tree_root of the execution payload header (the leaf of the execution branch). */
  root: string;
}

/** A verified beacon header. */
export interface BeaconHeader {
  slot: bigint;
  /** Its beacon block root (hash_tree_root of the BeaconBlockHeader, 0x-hex). */
  beaconRoot: string;
  /** Its execution payload header; absent before Capella, which had no execution branch. */
  execution?: ExecutionHeader;
}

/** What an update changed. */
export interface BeaconProgress {
  /** The store applied it: the finalized header moved or the next sync committee was learned. */
  applied: boolean;
  /** The optimistic header moved. */
  optimistic: boolean;
}

/** Loads the beacon module (once; later calls share the load). Needed before any other call. */
export function loadBeacon(): Promise<void> {
  return loadFamily('beacon');
}

/** The public networks the core knows (`mainnet`, `sepolia`, …), from the beacon module. */
export function beaconNetworks(): readonly string[] {
  return wasmOf('beacon').beaconNetworks().split(',');
}

type Wasm = ReturnType<typeof wasmOf<'beacon'>>;
type WasmStore = ReturnType<Wasm['BeaconStore']['bootstrap']>;

/** A network argument as the wasm calls take it: a public name, or a minimal chain's parts. */
function networkOf(wasm: Wasm, v: unknown, field = 'network'): { name: string } | { gvr: Uint8Array; lastFork: string; epochs: Uint8Array } {
  const name = typeof v === 'object' && v !== null && 'name' in v ? (v as { name: unknown }).name : v;
  if (typeof name === 'string') {
    const known = wasm.beaconNetworks().split(',');
    if (!known.includes(name)) throw new RangeError(`${field}: expected ${known.join(', ')} or a minimal chain, got ${JSON.stringify(name)}`);
    return { name };
  }
  const m = objectArg<Partial<MinimalBeaconChain>>(v, field, "a network name or { preset: 'minimal', genesisValidatorsRoot, lastFork }");
  if (m.preset !== 'minimal') throw new RangeError(`${field}.preset: expected 'minimal', got ${JSON.stringify(m.preset)}`);
  if (typeof m.lastFork !== 'string') throw new TypeError(`${field}.lastFork: expected a fork name (altair … fulu)`);
  if (m.forkEpochs !== undefined && !Array.isArray(m.forkEpochs)) throw new TypeError(`${field}.forkEpochs: expected an array of epochs, one per fork from altair to lastFork`);
  // One u64 little-endian per fork, as the wasm module reads them.
  const list = m.forkEpochs ?? [];
  const epochs = new Uint8Array(8 * list.length);
  list.forEach((e, i) => new DataView(epochs.buffer).setBigUint64(8 * i, uint64Arg(e, `${field}.forkEpochs[${i}]`, 'an epoch'), true));
  return { gvr: bytesArg(m.genesisValidatorsRoot, `${field}.genesisValidatorsRoot`, 32), lastFork: m.lastFork, epochs };
}

/** Checks a network argument (after {@link loadBeacon}), naming `field` in its errors. */
export function beaconNetworkArg(v: unknown, field: string): BeaconNetworkArg {
  networkOf(wasmOf('beacon'), v, field);
  return v as BeaconNetworkArg;
}

/** A light-client object's fork and bytes; the bytes came from a node (bad hex: BAD_ENCODING). */
function beaconObjectArg(v: unknown, field: string): [string, Uint8Array] {
  const o = objectArg<Partial<BeaconObject>>(v, field, '{ fork, ssz }');
  if (typeof o.fork !== 'string') throw new TypeError(`${field}.fork: expected a fork name (altair … fulu)`);
  if (!(o.ssz instanceof Uint8Array) && typeof o.ssz !== 'string') throw new TypeError(`${field}.ssz: expected bytes or 0x-hex`);
  return [o.fork, o.ssz instanceof Uint8Array ? o.ssz : hexToBytes(o.ssz, `${field}.ssz`)];
}

const U64 = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset + at, 8).getBigUint64(0, false);
const isZero = (b: Uint8Array) => b.every((x) => x === 0);

/**
 * A header as the module packs it: slot, beacon root, block number, hash, state root, execution
 * root (then the last update's participation, which {@link BeaconStore.participation} reads).
 */
function unpack(p: Uint8Array): BeaconHeader {
  const slot = U64(p, 0);
  const beaconRoot = bytesToHex(p.subarray(8, 40));
  const root = p.subarray(112, 144);
  if (isZero(root)) return { slot, beaconRoot };
  return {
    slot,
    beaconRoot,
    execution: { blockNumber: U64(p, 40), blockHash: bytesToHex(p.subarray(48, 80)), stateRoot: bytesToHex(p.subarray(80, 112)), root: bytesToHex(root) },
  };
}

/**
 * The fork of a light-client object told from its bytes: the fork whose container decodes them
 * and is in force at the object's header slot (what a Beacon API answer's context names), or
 * `undefined` if none. For the chunks of an `updates` answer, and for answers whose
 * `Eth-Consensus-Version` header a browser does not expose.
 */
export function forkOf(network: BeaconNetworkArg, kind: 'bootstrap' | 'update' | 'finality_update' | 'optimistic_update', ssz: Uint8Array): BeaconFork | undefined {
  const wasm = wasmOf('beacon');
  const n = networkOf(wasm, network);
  if (!(ssz instanceof Uint8Array)) throw new TypeError('ssz: expected a Uint8Array');
  const bytes = ssz;
  const f = wasmCall(() => ('name' in n ? wasm.beaconForkOf(n.name, kind, bytes) : wasm.beaconForkOfMinimal(n.gvr, n.lastFork, n.epochs, kind, bytes)));
  return f as BeaconFork | undefined;
}

/** A share of the sync committee, `0 < fraction ≤ 1`, naming `field` when it is not one. */
export function minParticipationArg(v: unknown, field: string): number {
  if (typeof v !== 'number') throw new TypeError(`${field}: expected a number, a share of the sync committee`);
  if (!Number.isFinite(v) || v <= 0 || v > 1) {
    throw new RangeError(`${field}: expected a share of the sync committee, more than 0 and at most 1 (2/3 is the default), got ${String(v)}`);
  }
  return v;
}

const progress = (bits: number): BeaconProgress => ({ applied: (bits & 1) !== 0, optimistic: (bits & 2) !== 0 });

/**
 * A light-client store of one network: the finalized and optimistic headers and the sync
 * committees it verified. Start one with {@link BeaconStore.bootstrap} (or
 * {@link BeaconStore.restore}), then feed it the node's updates. Holds wasm memory: call
 * {@link BeaconStore.free} when done with it.
 */
export class BeaconStore {
  readonly #inner: WasmStore;

  private constructor(inner: WasmStore) {
    this.#inner = inner;
  }

  /**
   * A store started from `bootstrap`, whose header must hash to `trustedBlockRoot`
   * (`CHECKPOINT_MISMATCH`) and whose current sync committee must be in its state
   * (`SYNC_COMMITTEE_BRANCH_MISMATCH`).
   */
  static bootstrap(args: BeaconBootstrapArgs): BeaconStore {
    const a = objectArg<Partial<BeaconBootstrapArgs>>(args, 'args', '{ network, trustedBlockRoot, bootstrap }');
    const wasm = wasmOf('beacon');
    const network = networkOf(wasm, a.network);
    const root = bytesArg(a.trustedBlockRoot, 'trustedBlockRoot', 32);
    const [fork, ssz] = beaconObjectArg(a.bootstrap, 'bootstrap');
    return new BeaconStore(
      wasmCall(() =>
        'name' in network
          ? wasm.BeaconStore.bootstrap(network.name, root, fork, ssz)
          : wasm.BeaconStore.bootstrapMinimal(network.gvr, network.lastFork, network.epochs, root, fork, ssz),
      ),
    );
  }

  /**
   * A store saved by {@link save}, for the same network (a store saved for another network, or
   * bytes altered or cut, are refused: `BAD_ENCODING` or the check its headers fail).
   */
  static restore(network: BeaconNetworkArg, saved: Uint8Array): BeaconStore {
    const wasm = wasmOf('beacon');
    const n = networkOf(wasm, network);
    if (!(saved instanceof Uint8Array)) throw new TypeError('saved: expected the Uint8Array save() returned');
    return new BeaconStore(wasmCall(() => ('name' in n ? wasm.BeaconStore.restore(n.name, saved) : wasm.BeaconStore.restoreMinimal(n.gvr, n.lastFork, n.epochs, saved))));
  }

  /** The slot of the store's network at Unix time `unixSeconds` (default: now). */
  slotAt(unixSeconds: bigint | number = Math.floor(Date.now() / 1000)): bigint {
    return this.#inner.slotAt(uint64Arg(unixSeconds, 'unixSeconds', 'Unix seconds'));
  }

  #slot(v: unknown): bigint {
    return v === undefined ? this.slotAt() : uint64Arg(v, 'update.currentSlot', 'a slot');
  }

  /** Checks `update`'s arguments, then hands its fork, bytes and current slot to the store. */
  #run<T>(update: BeaconUpdateArgs, call: (store: WasmStore, fork: string, ssz: Uint8Array, currentSlot: bigint) => T): T {
    const [fork, ssz] = beaconObjectArg(update, 'update');
    const slot = this.#slot(update.currentSlot);
    return wasmCall(() => call(this.#inner, fork, ssz, slot));
  }

  /** Checks and applies a `LightClientUpdate` (`/eth/v1/beacon/light_client/updates`). */
  processUpdate(update: BeaconUpdateArgs): BeaconProgress {
    return progress(this.#run(update, (s, fork, ssz, slot) => s.processUpdate(fork, ssz, slot)));
  }

  /** Checks a `LightClientUpdate` without applying it; throws as {@link processUpdate} would. */
  validateUpdate(update: BeaconUpdateArgs): void {
    this.#run(update, (s, fork, ssz, slot) => s.validateUpdate(fork, ssz, slot));
  }

  /** Checks and applies a `LightClientFinalityUpdate` (`…/light_client/finality_update`). */
  processFinalityUpdate(update: BeaconUpdateArgs): BeaconProgress {
    return progress(this.#run(update, (s, fork, ssz, slot) => s.processFinalityUpdate(fork, ssz, slot)));
  }

  /** Checks and applies a `LightClientOptimisticUpdate` (`…/light_client/optimistic_update`). */
  processOptimisticUpdate(update: BeaconUpdateArgs): BeaconProgress {
    return progress(this.#run(update, (s, fork, ssz, slot) => s.processOptimisticUpdate(fork, ssz, slot)));
  }

  /**
   * After a sync committee period without finality, applies the best update the store has seen
   * (`process_light_client_store_force_update`); whether it applied one.
   */
  forceUpdate(currentSlot?: bigint | number): boolean {
    const slot = currentSlot === undefined ? this.slotAt() : uint64Arg(currentSlot, 'currentSlot', 'a slot');
    return wasmCall(() => this.#inner.forceUpdate(slot));
  }

  /** The sync-committee period of `slot` on the store's network. */
  periodAt(slot: bigint | number): bigint {
    return this.#inner.periodAt(uint64Arg(slot, 'slot', 'a slot'));
  }

  /** The finalized header, with its execution block. */
  finalizedHeader(): BeaconHeader {
    return unpack(this.#inner.header(0));
  }

  /**
   * The optimistic header, with its execution block: the specification's, the newest header
   * signed by more members than half the most participation the store has seen — on a fresh
   * store (or one restored), a single member's signature moves it, and from Capella on that
   * member chooses the execution block. Follow {@link followedHeader} instead.
   */
  optimisticHeader(): BeaconHeader {
    return unpack(this.#inner.header(1));
  }

  /**
   * The head to follow: the newest of the finalized header and the attested headers of the
   * updates this store processed (their signature verified) that at least two thirds of the
   * committee signed — the supermajority the specification asks of finality — or the share
   * {@link setMinParticipation} set. Not kept by {@link save}: a restored store follows its
   * finalized header until it processes an update.
   */
  followedHeader(): BeaconHeader {
    return unpack(this.#inner.header(2));
  }

  /**
   * How many members of the sync committee signed the last update this store processed (its
   * aggregate signature verified over exactly those members' keys), of how many; `undefined`
   * before any.
   */
  participation(): { signed: number; size: number } | undefined {
    const p = this.#inner.header(2);
    const v = new DataView(p.buffer, p.byteOffset + 144, 8);
    const signed = v.getUint32(0, false);
    return signed === 0 ? undefined : { signed, size: v.getUint32(4, false) };
  }

  /**
   * Makes {@link followedHeader} follow the headers at least `fraction` of the committee
   * signed (rounded up to whole members) instead of two thirds. Below two thirds, fewer
   * members than finality needs choose the head and the execution block it names: at `1 / 512`
   * on mainnet, any one of them.
   */
  setMinParticipation(fraction: number): void {
    this.#inner.setMinParticipation(minParticipationArg(fraction, 'fraction'));
  }

  /** The store as bytes, to keep across restarts ({@link BeaconStore.restore} takes them back). */
  save(): Uint8Array {
    return this.#inner.save();
  }

  /** Frees the store's wasm memory; the store is unusable afterwards. */
  free(): void {
    this.#inner.free();
  }
}
