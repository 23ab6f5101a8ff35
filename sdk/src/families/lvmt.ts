/**
 * LVMT proofs: a key's latest value (or its absence) and its history, checked against a
 * verified header's `lvmtRoot` (the root AMT's commitment) and `lvmtHistoryRoot`, with one
 * batched pairing check in wasm.
 *
 * Parameters (`depth ‖ [1]₂ ‖ [τ^{2^j}]₂`) are decoded and validated once; pin them by their
 * SHA-256 (`params.id`).
 */
import { commitmentOf } from '../commitments.js';
import { NodeFaultError, RpcError, VerificationError, wasmCall } from '../errors.js';
import { bytesArg, bytesToHex, hexToBigInt, hexToBytes, readU32, readU64, readWord } from '../hex.js';
import { changesFromVersions } from '../history.js';
import { loadFamily, wasmOf } from '../init.js';
import type { Endpoint } from '../transport.js';
import type { VerifiedHeader } from '../header.js';
import { type Family, type FamilyContext, type VerifiedHistory, type VerifiedValue, answerProof, historyAnswer } from './family.js';

/** Validated LVMT verifier parameters. */
export class LvmtParams {
  /** @internal */
  readonly inner: { id(): Uint8Array; readonly depth: number };
  /** SHA-256 of the canonical encoding (lowercase hex). */
  readonly id: string;
  /** The AMT depth D. */
  readonly depth: number;

  private constructor(inner: { id(): Uint8Array; readonly depth: number }) {
    this.inner = inner;
    this.id = bytesToHex(inner.id());
    this.depth = inner.depth;
  }

  /**
   * Decodes and validates parameters (every G2 point on the curve and in the subgroup) and
   * refuses them unless their SHA-256 is `pinnedId` — the genesis header's `mixHash` on a
   * lightprov chain, or an id the app was configured with. Parameters are never trusted for
   * being well formed: whoever knows the τ behind them can forge every LVMT proof, and the
   * points alone cannot show that nobody does (they are `[τ^{2^j}]₂` only, with no G1 powers a
   * pairing could check them against). Throws `TypeError` without `pinnedId`, and
   * `VerificationError('ROOT_MISMATCH')` when the id differs. For parameters the app ships
   * itself, see {@link LvmtParams.shipped}.
   */
  static fromBytes(bytes: string | Uint8Array, pinnedId: string | Uint8Array): LvmtParams {
    if (pinnedId === undefined || pinnedId === null) {
      throw new TypeError('pinnedId: required — LVMT parameters from a node prove nothing unless their id is pinned (the genesis mixHash, or lvmtParamsId)');
    }
    const want = bytesToHex(bytesArg(pinnedId, 'pinnedId', 32));
    const p = LvmtParams.shipped(bytes);
    if (p.id !== want) {
      throw new VerificationError('ROOT_MISMATCH', `LVMT parameters ${p.id} are not the pinned ${want}`, { field: 'params' });
    }
    return p;
  }

  /**
   * Parameters the app ships in its own code or assets (never bytes from a node: use
   * {@link LvmtParams.fromBytes} with a pinned id). Decoded and validated like `fromBytes`.
   */
  static shipped(bytes: string | Uint8Array): LvmtParams {
    const b = bytes instanceof Uint8Array ? bytes : hexToBytes(bytes, 'params');
    const wasm = wasmOf('lvmt');
    return new LvmtParams(wasmCall(() => new wasm.LvmtParams(b)));
  }
}

/** The header fields LVMT proofs are checked against. */
export interface LvmtAnchor {
  /** `lvmtRoot` (32 bytes, a compressed G1 point). */
  lvmtRoot: string | Uint8Array;
  /** `lvmtHistoryRoot` (32 bytes). */
  lvmtHistoryRoot: string | Uint8Array;
  /** The header's block number (the history covers blocks 0..=number). */
  number: bigint | number;
}

/** One version of a key. */
export interface LvmtVersion {
  block: bigint;
  version: bigint;
  value: bigint;
}

/** The lvmtRoot and lvmtHistoryRoot held in a header's extraData (where: the core's commitment table). */
export function lvmtRootsOf(extraData: string): { lvmtRoot: string; lvmtHistoryRoot: string } {
  return { lvmtRoot: commitmentOf({ extraData }, 'lvmtRoot'), lvmtHistoryRoot: commitmentOf({ extraData }, 'lvmtHistoryRoot') };
}

function anchorArgs(a: LvmtAnchor): [Uint8Array, Uint8Array, bigint] {
  const n = typeof a.number === 'number' ? BigInt(a.number) : a.number;
  if (typeof n !== 'bigint' || n < 0n) throw new TypeError('anchor.number: expected a block number');
  return [bytesArg(a.lvmtRoot, 'lvmtRoot', 32), bytesArg(a.lvmtHistoryRoot, 'lvmtHistoryRoot', 32), n + 1n];
}

/** Verifies an LVMT proof of `stateKey`'s latest value (`null`: proven absent). */
export function verifyLvmtProof(args: { params: LvmtParams; anchor: LvmtAnchor; stateKey: string | Uint8Array; proof: string | Uint8Array }): LvmtVersion | null {
  const [root, hist, blocks] = anchorArgs(args.anchor);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const proof = args.proof instanceof Uint8Array ? args.proof : hexToBytes(args.proof, 'proof');
  const wasm = wasmOf('lvmt');
  const out = wasmCall(() => wasm.verifyLvmtProof(args.params.inner as never, root, hist, blocks, key, proof));
  if (out[0] !== 1) return null;
  return { version: readU64(out, 1), block: readU64(out, 9), value: readWord(out, 17) };
}

/** Verifies an LVMT history proof of `stateKey` over `fromBlock..=toBlock`. */
export function verifyLvmtHistory(args: {
  params: LvmtParams;
  anchor: LvmtAnchor;
  stateKey: string | Uint8Array;
  fromBlock: bigint | number;
  toBlock: bigint | number;
  proof: string | Uint8Array;
}): { versions: LvmtVersion[]; atFrom: LvmtVersion | null } {
  const [root, hist, blocks] = anchorArgs(args.anchor);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const proof = args.proof instanceof Uint8Array ? args.proof : hexToBytes(args.proof, 'proof');
  const lo = BigInt(args.fromBlock);
  const hi = BigInt(args.toBlock);
  const wasm = wasmOf('lvmt');
  const out = wasmCall(() => wasm.verifyLvmtHistory(args.params.inner as never, root, hist, blocks, key, lo, hi, proof));
  const read = (at: number): LvmtVersion => ({ block: readU64(out, at), version: readU64(out, at + 8), value: readWord(out, at + 16) });
  const atFrom = out[0] === 1 ? read(1) : null;
  const count = readU32(out, 49);
  const versions: LvmtVersion[] = [];
  for (let i = 0; i < count; i++) versions.push(read(53 + i * 48));
  return { versions, atFrom };
}

/** The LVMT parameters of this client, validated once and pinned (`lvmtParamsId`, or the genesis header's). */
async function paramsFrom(ctx: FamilyContext, e: Endpoint): Promise<LvmtParams> {
  await loadFamily('lvmt');
  const cached = ctx.state.get('lvmt');
  if (cached instanceof LvmtParams) return cached;
  let pinned = ctx.options['lvmtParamsId'] as string | undefined;
  if (pinned === undefined) {
    const genesis = await ctx.chain.headerAt(e, 0n);
    const id = commitmentOf(genesis as unknown as Record<string, unknown>, 'lvmtParamsId');
    if (/^0x0{64}$/.test(id)) {
      throw new TypeError('lvmtParamsId: this chain\'s genesis does not name LVMT parameters (mixHash is zero); pass lvmtParamsId');
    }
    pinned = id;
  }
  const raw = (await ctx.net.call(e, 'lightprov_params', [])) as { lvmt?: { params?: unknown } } | null;
  if (typeof raw !== 'object' || raw === null || typeof raw.lvmt !== 'object' || raw.lvmt === null) {
    throw new RpcError('lightprov_params', -1, 'malformed response: no lvmt parameters');
  }
  const params = LvmtParams.fromBytes(hexToBytes(raw.lvmt.params, 'params'), pinned);
  ctx.state.set('lvmt', params);
  return params;
}

/** Checks an LVMT history proof of `stateKey` over `from..=to` against a verified header. */
function check(params: LvmtParams, anchor: VerifiedHeader, stateKey: string, from: bigint, to: bigint, proof: unknown) {
  return verifyLvmtHistory({ params, anchor: { ...lvmtRootsOf(anchor.extraData), number: anchor.number }, stateKey, fromBlock: from, toBlock: to, proof: proof as string | Uint8Array });
}

/** A verified LVMT history of `stateKey` over `from..=to`, from one node. */
async function history(ctx: FamilyContext, e: Endpoint, params: LvmtParams, stateKey: string, from: bigint, to: bigint) {
  const { raw, anchor, proof } = await historyAnswer(ctx, e, stateKey, from, to, 'lvmt');
  const t0 = performance.now();
  const h = check(params, anchor, stateKey, from, to, proof);
  const verifyMs = performance.now() - t0;
  return { ...h, anchor, proofBytes: proof.length, verifyMs, raw };
}

/** The LVMT family's reader: fetch → verify → typed result. */
export const lvmt: Family = {
  name: 'lvmt',
  valueSchemes: ['lvmt'],
  historySchemes: ['lvmt'],
  nodeBoundsHistory: true,
  describe: {
    lvmt: { label: 'LVMT', what: 'one LVMT history proof (AMT openings + Merkle tuples) against lvmtRoot / lvmtHistoryRoot' },
  },
  async value(ctx, e, stateKey, _key, block): Promise<VerifiedValue> {
    const params = await paramsFrom(ctx, e);
    const wanted = await ctx.chain.headerAt(e, block);
    const raw = (await ctx.net.call(e, 'lightprov_getLvmtProof', [stateKey, 'latest'])) as { block?: unknown; proof?: unknown };
    if (typeof raw !== 'object' || raw === null) throw new RpcError('lightprov_getLvmtProof', -1, 'malformed response');
    const at = hexToBigInt(raw.block, 'block', 'network', 64);
    if (at < wanted.number) {
      throw new NodeFaultError('lightprov_getLvmtProof', e.url, `the proof is against block ${at}, before block ${wanted.number} this node already served`);
    }
    const anchor = await ctx.chain.headerAt(e, at, 'network');
    const proof = hexToBytes(raw.proof, 'proof');
    if (at === wanted.number) {
      const t0 = performance.now();
      const v = verifyLvmtProof({ params, anchor: { ...lvmtRootsOf(anchor.extraData), number: at }, stateKey, proof });
      const verifyMs = performance.now() - t0;
      return {
        value: v?.value ?? 0n,
        present: v !== null,
        ...(v ? { version: v.version, writtenAt: v.block } : {}),
        scheme: 'lvmt',
        block: at,
        anchor,
        proofBytes: proof.length,
        verifyMs,
        raw,
      };
    }
    // An older block: the version in force there, from a one-block history.
    const h = await history(ctx, e, params, stateKey, wanted.number, wanted.number);
    const v = h.atFrom;
    return {
      value: v?.value ?? 0n,
      present: v !== null,
      ...(v ? { version: v.version, writtenAt: v.block } : {}),
      scheme: 'lvmt',
      block: wanted.number,
      anchor: h.anchor,
      proofBytes: h.proofBytes,
      verifyMs: h.verifyMs,
      raw: h.raw,
    };
  },
  async history(ctx, e, stateKey, key, from, to): Promise<VerifiedHistory> {
    const params = await paramsFrom(ctx, e);
    const h = await history(ctx, e, params, stateKey, from, to);
    const points = changesFromVersions({ versions: h.versions, atFrom: h.atFrom }, from);
    const { anchor, proofBytes, verifyMs, raw } = h;
    return { points, scheme: 'lvmt', fromBlock: from, toBlock: to, anchor, proofBytes, verifyMs, raw, stateKey, ...(key ? { key } : {}) };
  },
  historyProof(h) {
    return answerProof(h, lvmt.describe[h.scheme]?.label ?? h.scheme);
  },
  reverify(ctx, h, proof) {
    const params = ctx.state.get('lvmt');
    if (!(params instanceof LvmtParams)) throw new TypeError('history: not an LVMT history this client verified (it holds no LVMT parameters)');
    check(params, h.anchor, h.stateKey, h.fromBlock, h.toBlock, proof);
  },
};
