/**
 * The POS-Tree family in the SDK: a state key's value or absence (`lightprov_getPosProof`), a
 * key range (`lightprov_getPosRange`), the changes between two blocks (`lightprov_getPosDiff`)
 * and a key's value at every block of a range (`lightprov_getHistory`, scheme `pos`). A
 * POS-Tree keeps every version, so each proof is checked against the `posRoot` of the block it
 * answers for (a history: of every block of its range), not against the node's head.
 */
import { type BlockTag, blockNumberArg } from '../args.js';
import { commitmentOf } from '../commitments.js';
import { RpcError, VerificationError, wasmCall } from '../errors.js';
import type { VerifiedHeader } from '../header.js';
import { bytesArg, bytesToHex, hexToBytes, readU32, readWord } from '../hex.js';
import { type Version, changesFromValues } from '../history.js';
import { loadFamily, wasmOf } from '../init.js';
import type { Endpoint } from '../transport.js';
import type { Family, FamilyContext, HistoryProof, VerifiedDiff, VerifiedHistory, VerifiedRange, VerifiedValue } from './family.js';

/** A verified POS-Tree value. */
export interface PosValue {
  /** Whether the key is in the tree at the proof's block. */
  present: boolean;
  /** Its value (0 when absent). */
  value: bigint;
}

/** One entry of a verified key range. */
export interface PosEntry {
  /** The state key (32-byte hex). */
  key: string;
  value: bigint;
}

/** One key whose value differs between two blocks (`null`: absent at that block). */
export interface PosChange {
  /** The state key (32-byte hex). */
  key: string;
  old: bigint | null;
  new: bigint | null;
}

type Bytes = string | Uint8Array;

/** A POS-Tree path proof and what it is checked against (see {@link verifyPosValue}). */
export interface PosValueArgs {
  proof: Bytes;
  stateKey: Bytes;
  posRoot: Bytes;
  /**
   * A value the caller was told (a word as bigint or 32-byte hex; `null`: absent), checked
   * against the proven one (`VALUE_MISMATCH`). Left out: nothing is claimed.
   */
  value?: bigint | Bytes | null;
}

/** A POS-Tree range proof of the keys `lo..=hi` (see {@link verifyPosRange}). */
export interface PosRangeArgs {
  proof: Bytes;
  lo: Bytes;
  hi: Bytes;
  posRoot: Bytes;
}

/** A POS-Tree diff proof between two blocks (see {@link verifyPosDiff}). */
export interface PosDiffArgs {
  proof: Bytes;
  /** `posRoot` of the first block. */
  oldRoot: Bytes;
  /** `posRoot` of the second block. */
  newRoot: Bytes;
}

/** A POS-Tree history proof (see {@link verifyPosHistory}). */
export interface PosHistoryArgs {
  proof: Bytes;
  stateKey: Bytes;
  /** The range's first block. */
  fromBlock: bigint | number;
  /** `posRoot` of `fromBlock`, `fromBlock + 1`, … (one per block of the range). */
  roots: readonly Bytes[];
}

function proofArg(p: unknown): Uint8Array {
  return p instanceof Uint8Array ? p : hexToBytes(p, 'proof', 'argument');
}

/** `present(u8) ‖ value(32)` at `at`. */
function maybe(b: Uint8Array, at: number): bigint | null {
  return b[at] === 1 ? readWord(b, at + 1) : null;
}

/**
 * Verifies a POS-Tree path proof (as `lightprov_getPosProof` returns it) of a state key's value
 * or absence against the `posRoot` of the block's verified header. Synchronous after
 * `await init()`.
 */
export function verifyPosValue(args: PosValueArgs): PosValue {
  const proof = proofArg(args.proof);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const root = bytesArg(args.posRoot, 'posRoot', 32);
  const wasm = wasmOf('pos');
  const out = wasmCall(() => wasm.verifyPosValue(root, key, proof));
  const proven: PosValue = { present: out[0] === 1, value: readWord(out, 1) };
  if (args.value !== undefined) {
    const claimed = args.value === null ? null : typeof args.value === 'bigint' ? args.value : readWord(bytesArg(args.value, 'value', 32), 0);
    if (claimed !== null && (claimed < 0n || claimed >> 256n !== 0n)) throw new RangeError('value: expected a 256-bit word');
    const shown = (v: bigint | null) => (v === null ? 'absent' : '0x' + v.toString(16));
    const got = proven.present ? proven.value : null;
    if (claimed !== got) throw new VerificationError('VALUE_MISMATCH', `the proof proves ${shown(got)}, not the claimed ${shown(claimed)}`, { field: 'value', expected: shown(claimed), found: shown(got) });
  }
  return proven;
}

/** Verifies a POS-Tree range proof: every entry with a key in `lo..=hi`, keys ascending. */
export function verifyPosRange(args: PosRangeArgs): PosEntry[] {
  const proof = proofArg(args.proof);
  const lo = bytesArg(args.lo, 'lo', 32);
  const hi = bytesArg(args.hi, 'hi', 32);
  const root = bytesArg(args.posRoot, 'posRoot', 32);
  const wasm = wasmOf('pos');
  const out = wasmCall(() => wasm.verifyPosRange(root, lo, hi, proof));
  const entries: PosEntry[] = [];
  for (let i = 0, n = readU32(out, 0); i < n; i++) {
    const at = 4 + i * 64;
    entries.push({ key: bytesToHex(out.subarray(at, at + 32)), value: readWord(out, at + 32) });
  }
  return entries;
}

/** Verifies a POS-Tree diff proof: every key whose value differs between the two blocks. */
export function verifyPosDiff(args: PosDiffArgs): PosChange[] {
  const proof = proofArg(args.proof);
  const oldRoot = bytesArg(args.oldRoot, 'oldRoot', 32);
  const newRoot = bytesArg(args.newRoot, 'newRoot', 32);
  const wasm = wasmOf('pos');
  const out = wasmCall(() => wasm.verifyPosDiff(oldRoot, newRoot, proof));
  const changes: PosChange[] = [];
  for (let i = 0, n = readU32(out, 0); i < n; i++) {
    const at = 4 + i * 98;
    changes.push({ key: bytesToHex(out.subarray(at, at + 32)), old: maybe(out, at + 32), new: maybe(out, at + 65) });
  }
  return changes;
}

/** One `posRoot` per block of a range (`roots[i]` named in errors), concatenated for the wasm. */
export function rootsArg(roots: readonly Bytes[]): Uint8Array {
  if (!Array.isArray(roots) || roots.length === 0) throw new TypeError('roots: expected one posRoot per block of the range');
  const out = new Uint8Array(32 * roots.length);
  roots.forEach((r, i) => out.set(bytesArg(r, `roots[${i}]`, 32), 32 * i));
  return out;
}

/**
 * Verifies a POS-Tree history proof: the key's value at every block of the range (`null`:
 * absent), one per root given, each path checked against its block's root.
 */
export function verifyPosHistory(args: PosHistoryArgs): (bigint | null)[] {
  const proof = proofArg(args.proof);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const from = blockNumberArg(args.fromBlock, 'fromBlock');
  const roots = rootsArg(args.roots);
  const wasm = wasmOf('pos');
  const out = wasmCall(() => wasm.verifyPosHistory(from, roots, key, proof));
  const values: (bigint | null)[] = [];
  for (let i = 0, n = readU32(out, 0); i < n; i++) values.push(maybe(out, 4 + i * 33));
  return values;
}

/** The `posRoot` held in a header's extraData (where: the core's commitment table). */
export function posRootOf(extraData: string): string {
  return commitmentOf({ extraData }, 'posRoot');
}

const hex = (v: bigint) => '0x' + v.toString(16);

/** A `{proof}` answer of `method` (`params` as sent), its proof's bytes. */
async function call(ctx: FamilyContext, e: Endpoint, method: string, params: unknown[]) {
  const raw = (await ctx.net.call(e, method, params)) as { proof?: unknown } | null;
  if (typeof raw !== 'object' || raw === null) throw new RpcError(method, -1, 'malformed response');
  return { raw, proof: hexToBytes(raw.proof, 'proof') };
}

function values(h: VerifiedHistory, proof: unknown): (bigint | null)[] {
  const roots = (h.anchors ?? [h.anchor]).map((a) => posRootOf(a.extraData));
  return verifyPosHistory({ proof: proof as Bytes, stateKey: h.stateKey, fromBlock: h.fromBlock, roots });
}

/** The POS-Tree family's reader: fetch → verify → typed result. */
export const pos: Family = {
  name: 'pos',
  valueSchemes: ['pos'],
  historySchemes: ['pos'],
  rangeSchemes: ['pos'],
  diffSchemes: ['pos'],
  nodeBoundsHistory: true,
  describe: {
    pos: { label: 'POS-Tree', what: 'one path per block (shared nodes sent once) against each block\'s posRoot' },
  },
  async value(ctx, e, stateKey, _key, block: BlockTag): Promise<VerifiedValue> {
    await loadFamily('pos');
    const anchor = await ctx.chain.headerAt(e, block);
    const { raw, proof } = await call(ctx, e, 'lightprov_getPosProof', [stateKey, hex(anchor.number)]);
    const t0 = performance.now();
    const v = verifyPosValue({ proof, stateKey, posRoot: posRootOf(anchor.extraData) });
    return { value: v.value, present: v.present, scheme: 'pos', block: anchor.number, anchor, proofBytes: proof.length, verifyMs: performance.now() - t0, raw };
  },
  async history(ctx, e, stateKey, key, from, to): Promise<VerifiedHistory> {
    await loadFamily('pos');
    const anchors = await ctx.chain.headersIn(e, from, to);
    const { raw, proof } = await call(ctx, e, 'lightprov_getHistory', [stateKey, hex(from), hex(to), 'pos']);
    const anchor = anchors[anchors.length - 1] as VerifiedHeader;
    const h: VerifiedHistory = { points: [], scheme: 'pos', fromBlock: from, toBlock: to, anchor, anchors, proofBytes: proof.length, verifyMs: 0, raw, stateKey, ...(key ? { key } : {}) };
    const t0 = performance.now();
    const vs = values(h, proof);
    h.verifyMs = performance.now() - t0;
    h.points = posPoints(vs, from);
    return h;
  },
  async range(ctx, e, lo, hi, block): Promise<VerifiedRange> {
    await loadFamily('pos');
    const anchor = await ctx.chain.headerAt(e, block);
    const { raw, proof } = await call(ctx, e, 'lightprov_getPosRange', [lo, hi, hex(anchor.number)]);
    const t0 = performance.now();
    const entries = verifyPosRange({ proof, lo, hi, posRoot: posRootOf(anchor.extraData) });
    return { entries, scheme: 'pos', block: anchor.number, anchor, proofBytes: proof.length, verifyMs: performance.now() - t0, raw };
  },
  async diff(ctx, e, from, to): Promise<VerifiedDiff> {
    await loadFamily('pos');
    const [older, newer] = [await ctx.chain.headerAt(e, from), await ctx.chain.headerAt(e, to)];
    const { raw, proof } = await call(ctx, e, 'lightprov_getPosDiff', [hex(from), hex(to)]);
    const t0 = performance.now();
    const proven = verifyPosDiff({ proof, oldRoot: posRootOf(older.extraData), newRoot: posRootOf(newer.extraData) });
    const changes = proven.map((c) => ({ stateKey: c.key, old: c.old, new: c.new }));
    return { changes, scheme: 'pos', fromBlock: from, toBlock: to, anchors: [older, newer], proofBytes: proof.length, verifyMs: performance.now() - t0, raw };
  },
  historyProof(h): HistoryProof {
    const proof = (h.raw as { proof?: unknown } | null)?.proof;
    return { proof, bytes: hexToBytes(proof, 'proof').length, what: `POS-Tree history proof of blocks ${h.fromBlock}…${h.toBlock} (${h.toBlock - h.fromBlock + 1n} paths)` };
  },
  reverify(_ctx, h, proof) {
    values(h, proof);
  },
};

/** The points of a history from the values {@link verifyPosHistory} returns (absent: 0). */
export function posPoints(values: readonly (bigint | null)[], from: bigint): Version[] {
  return changesFromValues(
    values.map((v) => v ?? 0n),
    from,
  );
}
