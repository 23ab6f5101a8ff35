/**
 * The forkless family in the SDK: a key's value (or its absence) and its complete history from a
 * forkless LiveDB (`lightprov_getForklessProof`), checked against the `forklessRoot` of a
 * verified header. The proof opens the key's record in the LiveDB's paged files (or the index
 * bucket that proves it has none) and, for a history, the key's hash chain back to the change in
 * force at the range's start; it is made against the node's head.
 */
import { blockNumberArg } from '../args.js';
import { commitmentOf } from '../commitments.js';
import { NodeFaultError, RpcError, VerificationError, wasmCall } from '../errors.js';
import type { VerifiedHeader } from '../header.js';
import { bytesArg, hexToBigInt, hexToBytes, readWord } from '../hex.js';
import { type StateKey, type Version, changesFromVersions, readVersions } from '../history.js';
import { loadFamily, wasmOf } from '../init.js';
import type { Endpoint } from '../transport.js';
import { type Family, type FamilyContext, type VerifiedHistory, type VerifiedValue, answerProof } from './family.js';

/** A verified forkless value. */
export interface ForklessValue {
  /** Whether the key has a record: it was written at some block, possibly to zero. */
  exists: boolean;
  /** Its value (0 when absent). */
  value: bigint;
}

/** A verified forkless history. */
export interface ForklessHistory {
  /** Whether the key has a record at the proof's state. */
  exists: boolean;
  /** Every change written in the range, oldest first. */
  versions: Version[];
  /** The change in force at the range's first block (`null`: never written by then). */
  atFrom: Version | null;
}

/** A key as the forkless LiveDB files it (a `StateKey` serves). */
export interface ForklessKeyArg {
  kind: 'balance' | 'nonce' | 'storage';
  address: string | Uint8Array;
  slot?: string | Uint8Array;
}

/** A forkless proof and what it is checked against (see {@link verifyForklessValue}). */
export interface ForklessProofArgs {
  proof: string | Uint8Array;
  key: ForklessKeyArg;
  forklessRoot: string | Uint8Array;
}

/** A forkless history proof and what it is checked against (see {@link verifyForklessHistory}). */
export interface ForklessHistoryArgs extends ForklessProofArgs {
  fromBlock: bigint | number;
  toBlock: bigint | number;
}

function keyParts(key: ForklessKeyArg): [string, Uint8Array, Uint8Array] {
  if (typeof key !== 'object' || key === null) throw new TypeError('key: expected { kind, address, slot? }');
  if (key.kind !== 'balance' && key.kind !== 'nonce' && key.kind !== 'storage') {
    throw new TypeError(`key.kind: expected balance, nonce or storage, got ${String(key.kind)}`);
  }
  const address = bytesArg(key.address, 'key.address', 20);
  const slot = key.kind === 'storage' ? bytesArg(key.slot ?? '', 'key.slot', 32) : new Uint8Array(0);
  return [key.kind, address, slot];
}

/**
 * Verifies a forkless proof of a key's value (as `lightprov_getForklessProof` without a range
 * returns it) against a verified header's `forklessRoot`. Synchronous after `await init()`.
 */
export function verifyForklessValue(args: ForklessProofArgs): ForklessValue {
  const proof = args.proof instanceof Uint8Array ? args.proof : hexToBytes(args.proof, 'proof');
  const root = bytesArg(args.forklessRoot, 'forklessRoot', 32);
  const [kind, address, slot] = keyParts(args.key);
  const wasm = wasmOf('forkless');
  const out = wasmCall(() => wasm.verifyForklessValue(root, kind, address, slot, proof));
  return { exists: out[0] === 1, value: readWord(out, 1) };
}

/**
 * Verifies a forkless proof of a key's complete history over `fromBlock..=toBlock` against a
 * verified header's `forklessRoot` (of the block the node proved it at, at or after `toBlock`).
 */
export function verifyForklessHistory(args: ForklessHistoryArgs): ForklessHistory {
  const proof = args.proof instanceof Uint8Array ? args.proof : hexToBytes(args.proof, 'proof');
  const root = bytesArg(args.forklessRoot, 'forklessRoot', 32);
  const [kind, address, slot] = keyParts(args.key);
  const lo = blockNumberArg(args.fromBlock, 'fromBlock');
  const hi = blockNumberArg(args.toBlock, 'toBlock');
  const wasm = wasmOf('forkless');
  const out = wasmCall(() => wasm.verifyForklessHistory(root, kind, address, slot, lo, hi, proof));
  return { exists: out[0] === 1, ...readVersions(out, 1) };
}

/**
 * The key at `block` of a verified history's range: the change in force there (`writtenAt`, the
 * block that wrote it), or none — the key had no record yet (`exists` false), whatever the
 * history's `exists` says of the proof's own state. From the verified links alone.
 */
export function forklessValueAt(h: ForklessHistory, block: bigint): ForklessValue & { writtenAt?: bigint } {
  const inForce = [...h.versions].reverse().find((v) => v.block <= block) ?? (h.atFrom !== null && h.atFrom.block <= block ? h.atFrom : undefined);
  return inForce ? { exists: true, value: inForce.value, writtenAt: inForce.block } : { exists: false, value: 0n };
}

/** The `forklessRoot` held in a header's extraData (where: the core's commitment table). */
export function forklessRootOf(extraData: string): string {
  return commitmentOf({ extraData }, 'forklessRoot');
}

function typedKey(key: StateKey | undefined): StateKey {
  if (!key) throw new TypeError('key: the forkless scheme needs the StateKey (its kind, address and slot), not a bare state key');
  return key;
}

const wireKey = (k: StateKey) => ({ kind: k.kind, address: k.address, ...(k.slot !== undefined ? { slot: k.slot } : {}) });

/** One `lightprov_getForklessProof` answer, and the verified header it is against (at or after `atLeast`). */
async function answer(ctx: FamilyContext, e: Endpoint, key: StateKey, atLeast: bigint, range?: [bigint, bigint]) {
  const hex = (v: bigint) => '0x' + v.toString(16);
  const params: unknown[] = [wireKey(key), ...(range ? [hex(range[0]), hex(range[1])] : [])];
  const raw = (await ctx.net.call(e, 'lightprov_getForklessProof', params)) as { block?: unknown; proof?: unknown };
  if (typeof raw !== 'object' || raw === null) throw new RpcError('lightprov_getForklessProof', -1, 'malformed response');
  const at = hexToBigInt(raw.block, 'block', 'network', 64);
  if (at < atLeast) {
    if (range) throw new VerificationError('INCOMPLETE_RANGE', `the proof is against block ${at}, before the range's end ${atLeast}`, { field: 'block' });
    throw new NodeFaultError('lightprov_getForklessProof', e.url, `the proof is against block ${at}, before block ${atLeast} this node already served`);
  }
  const anchor = await ctx.chain.headerAt(e, at, 'network');
  return { raw, at, anchor, proof: hexToBytes(raw.proof, 'proof') };
}

function checkHistory(anchor: VerifiedHeader, key: StateKey, from: bigint, to: bigint, proof: unknown): ForklessHistory {
  return verifyForklessHistory({ proof: proof as string | Uint8Array, key, fromBlock: from, toBlock: to, forklessRoot: forklessRootOf(anchor.extraData) });
}

/** The forkless family's reader: fetch → verify → typed result. */
export const forkless: Family = {
  name: 'forkless',
  valueSchemes: ['forkless'],
  historySchemes: ['forkless'],
  describe: {
    forkless: { label: 'Forkless', what: 'one LiveDB proof (paged-file openings + the key\'s hash chain) against forklessRoot' },
  },
  async value(ctx, e, _stateKey, key, block): Promise<VerifiedValue> {
    await loadFamily('forkless');
    const k = typedKey(key);
    const wanted = await ctx.chain.headerAt(e, block);
    const { raw, at, anchor, proof } = await answer(ctx, e, k, wanted.number);
    if (at === wanted.number) {
      const t0 = performance.now();
      const v = verifyForklessValue({ proof, key: k, forklessRoot: forklessRootOf(anchor.extraData) });
      return { value: v.value, present: v.exists, scheme: 'forkless', block: at, anchor, proofBytes: proof.length, verifyMs: performance.now() - t0, raw };
    }
    // An older block: the change in force there, from a one-block history.
    const h = await answer(ctx, e, k, wanted.number, [wanted.number, wanted.number]);
    const t0 = performance.now();
    const v = forklessValueAt(checkHistory(h.anchor, k, wanted.number, wanted.number, h.proof), wanted.number);
    const verifyMs = performance.now() - t0;
    return {
      value: v.value,
      present: v.exists,
      ...(v.writtenAt !== undefined ? { writtenAt: v.writtenAt } : {}),
      scheme: 'forkless',
      block: wanted.number,
      anchor: h.anchor,
      proofBytes: h.proof.length,
      verifyMs,
      raw: h.raw,
    };
  },
  async history(ctx, e, stateKey, key, from, to): Promise<VerifiedHistory> {
    await loadFamily('forkless');
    const k = typedKey(key);
    const { raw, anchor, proof } = await answer(ctx, e, k, to, [from, to]);
    const t0 = performance.now();
    const h = checkHistory(anchor, k, from, to, proof);
    const verifyMs = performance.now() - t0;
    const points = changesFromVersions(h, from);
    return { points, scheme: 'forkless', fromBlock: from, toBlock: to, anchor, proofBytes: proof.length, verifyMs, raw, stateKey, key: k };
  },
  historyProof(h) {
    return answerProof(h, 'Forkless');
  },
  reverify(_ctx, h, proof) {
    checkHistory(h.anchor, typedKey(h.key), h.fromBlock, h.toBlock, proof);
  },
};
