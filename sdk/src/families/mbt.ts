/**
 * Merkle Bucket Tree (mbt) proofs: a state key's value or absence at a block, the changes
 * between two blocks, and a key's value after every block of a range. The tree keeps every
 * version, so each proof is checked against the `mbtRoot` of the block it is about (a history
 * against the root of every block of its range), never against the node's head.
 *
 * The tree's parameters (`bucketBits`, `fanout`) are pinned once per chain — in the verified
 * genesis header (`mbtParams`, extraData bytes 192..224) or by the client's `mbtParams` option —
 * and the reader verifies every proof under them: a proof made under others fails with
 * `PARAMS_MISMATCH`, as does an answer that claims others. They are inside every hash of the
 * tree too, so a root made under other parameters fails with `ROOT_MISMATCH`.
 */
import { blockNumberArg } from '../args.js';
import { commitmentOf } from '../commitments.js';
import { NodeFaultError, RpcError, VerificationError, wasmCall } from '../errors.js';
import { bigIntToBytes, bytesArg, bytesToHex, hexToBigInt, hexToBytes, readU32, readWord } from '../hex.js';
import { changesFromValues } from '../history.js';
import { loadFamily, wasmOf } from '../init.js';
import type { Endpoint } from '../transport.js';
import type { VerifiedHeader } from '../header.js';
import { type Family, type FamilyContext, type VerifiedDiff, type VerifiedHistory, type VerifiedValue, answerProof, historyAnswer, provenBy } from './family.js';

/** The tree's parameters: `2^bucketBits` buckets under a `fanout`-ary tree. */
export interface MbtParams {
  bucketBits: number;
  fanout: number;
}

/** A verified mbt value. */
export interface MbtValue {
  /** Whether the key has an entry in its bucket (absent keys read as 0). */
  present: boolean;
  value: bigint;
}

/** One key whose value differs between two blocks (0: absent in that block). */
export interface MbtChange {
  /** The state key (32-byte hex). */
  stateKey: string;
  old: bigint;
  new: bigint;
}

/** An mbt value proof and what it is checked against (see {@link verifyMbtValue}). */
export interface MbtProofArgs {
  proof: string | Uint8Array;
  stateKey: string | Uint8Array;
  /** The `mbtRoot` of the block the value is asked at. */
  mbtRoot: string | Uint8Array;
  params: MbtParams;
  /** The value the caller holds (0n: absent), checked against the proven one (`VALUE_MISMATCH`). */
  claimed?: bigint;
}

/** An mbt diff proof and the two roots it is checked against (see {@link verifyMbtDiff}). */
export interface MbtDiffArgs {
  proof: string | Uint8Array;
  /** The older block's `mbtRoot`. */
  oldRoot: string | Uint8Array;
  /** The newer block's `mbtRoot`. */
  newRoot: string | Uint8Array;
  params: MbtParams;
}

/** An mbt history proof and the roots it is checked against (see {@link verifyMbtHistory}). */
export interface MbtHistoryArgs {
  proof: string | Uint8Array;
  stateKey: string | Uint8Array;
  fromBlock: bigint | number;
  toBlock: bigint | number;
  /** The `mbtRoot` of every block `fromBlock..=toBlock`, in order. */
  roots: readonly (string | Uint8Array)[];
  params: MbtParams;
}

/**
 * Checks that `p` has the shape of {@link MbtParams} (integers from 0 to 255; the verifier checks
 * their bounds), naming `name` in the error.
 */
export function mbtParamsArg(p: unknown, name: string): MbtParams {
  if (typeof p !== 'object' || p === null) throw new TypeError(`${name}: expected { bucketBits, fanout }`);
  const { bucketBits, fanout } = p as Record<string, unknown>;
  for (const [field, v] of [[`${name}.bucketBits`, bucketBits], [`${name}.fanout`, fanout]] as const) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 255) throw new TypeError(`${field}: expected an integer from 0 to 255, got ${String(v)}`);
  }
  return { bucketBits: bucketBits as number, fanout: fanout as number };
}

function paramsArg(p: unknown): [number, number] {
  const { bucketBits, fanout } = mbtParamsArg(p, 'params');
  return [bucketBits, fanout];
}

/**
 * The parameters a genesis header's `mbtParams` word pins (`bucketBits ‖ fanout ‖ 30 zero
 * bytes`), or `null` for the zero word (the chain pins none). Throws `BAD_HEADER_LAYOUT` for any
 * other word.
 */
export function mbtParamsOfWord(word: string): MbtParams | null {
  const b = hexToBytes(word, 'mbtParams');
  if (b.length !== 32) throw new VerificationError('BAD_HEADER_LAYOUT', 'mbtParams: expected 32 bytes', { field: 'mbtParams' });
  if (b.every((x) => x === 0)) return null;
  if (b.subarray(2).some((x) => x !== 0)) {
    throw new VerificationError('BAD_HEADER_LAYOUT', 'mbtParams: bytes 2..32 of the pinned parameters must be zero', { field: 'mbtParams' });
  }
  return { bucketBits: b[0] ?? 0, fanout: b[1] ?? 0 };
}

function claimedArg(v: unknown): Uint8Array {
  if (typeof v !== 'bigint' || v < 0n || v >= 1n << 256n) throw new TypeError(`claimed: expected a bigint from 0 to 2^256 − 1, got ${String(v)}`);
  return bigIntToBytes(v, 32);
}

const proofArg = (p: unknown) => (p instanceof Uint8Array ? p : hexToBytes(p, 'proof'));

/**
 * Verifies an mbt proof of a state key's value (as `lightprov_getMbtProof` returns it) against
 * the `mbtRoot` of the block asked. Synchronous after `await init()`.
 */
export function verifyMbtValue(args: MbtProofArgs): MbtValue {
  const [b, m] = paramsArg(args.params);
  const root = bytesArg(args.mbtRoot, 'mbtRoot', 32);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const proof = proofArg(args.proof);
  const claimed = args.claimed === undefined ? undefined : claimedArg(args.claimed);
  const wasm = wasmOf('mbt');
  const out = wasmCall(() => wasm.verifyMbtValue(b, m, root, key, proof, claimed));
  return { present: out[0] === 1, value: readWord(out, 1) };
}

/**
 * Verifies an mbt diff proof (as `lightprov_getMbtDiff` returns it): every state key whose value
 * differs between the blocks of `oldRoot` and `newRoot`, by bucket then key.
 */
export function verifyMbtDiff(args: MbtDiffArgs): MbtChange[] {
  const [b, m] = paramsArg(args.params);
  const oldRoot = bytesArg(args.oldRoot, 'oldRoot', 32);
  const newRoot = bytesArg(args.newRoot, 'newRoot', 32);
  const proof = proofArg(args.proof);
  const wasm = wasmOf('mbt');
  const out = wasmCall(() => wasm.verifyMbtDiff(b, m, oldRoot, newRoot, proof));
  const changes: MbtChange[] = [];
  for (let i = 0, n = readU32(out, 0); i < n; i++) {
    const at = 4 + i * 96;
    changes.push({ stateKey: bytesToHex(out.subarray(at, at + 32)), old: readWord(out, at + 32), new: readWord(out, at + 64) });
  }
  return changes;
}

/**
 * Verifies an mbt history proof (the `mbt` scheme of `lightprov_getHistory`): the key's value
 * after every block of `fromBlock..=toBlock` (0: absent), checked against each block's root.
 */
export function verifyMbtHistory(args: MbtHistoryArgs): bigint[] {
  const [b, m] = paramsArg(args.params);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const lo = blockNumberArg(args.fromBlock, 'fromBlock');
  const hi = blockNumberArg(args.toBlock, 'toBlock');
  if (!Array.isArray(args.roots)) throw new TypeError('roots: expected an array of 32-byte roots');
  const roots = new Uint8Array(args.roots.length * 32);
  args.roots.forEach((r, i) => roots.set(bytesArg(r, `roots[${i}]`, 32), i * 32));
  const proof = proofArg(args.proof);
  const wasm = wasmOf('mbt');
  const out = wasmCall(() => wasm.verifyMbtHistory(b, m, roots, key, lo, hi, proof));
  const values: bigint[] = [];
  for (let i = 0, n = readU32(out, 0); i < n; i++) values.push(readWord(out, 4 + i * 32));
  return values;
}

/** The `mbtRoot` held in a header's extraData (where: the core's commitment table). */
export function mbtRootOf(extraData: string): string {
  return commitmentOf({ extraData }, 'mbtRoot');
}

const same = (a: MbtParams, b: MbtParams) => a.bucketBits === b.bucketBits && a.fanout === b.fanout;
const show = (p: MbtParams) => `2^${p.bucketBits} buckets, fanout ${p.fanout}`;

/**
 * The parameters this client accepts: its `mbtParams` option, else those the verified genesis
 * header pins (fetched once).
 */
async function pinnedParams(ctx: FamilyContext, e: Endpoint): Promise<MbtParams> {
  const cached = ctx.state.get('mbt') as MbtParams | undefined;
  if (cached !== undefined) return cached;
  let p = ctx.options['mbtParams'] as MbtParams | undefined;
  if (p === undefined) {
    const genesis = await ctx.chain.headerAt(e, 0n);
    const pinned = mbtParamsOfWord(commitmentOf(genesis as unknown as Record<string, unknown>, 'mbtParams'));
    if (pinned === null) throw new TypeError("mbtParams: this chain's genesis header pins no MBT parameters (extraData 192..224 is zero); pass mbtParams");
    p = pinned;
  }
  ctx.state.set('mbt', p);
  return p;
}

/** The pinned parameters, after checking that the node's answer claims the same. */
async function answeredUnder(ctx: FamilyContext, e: Endpoint, method: string, raw: Record<string, unknown>): Promise<MbtParams> {
  const pinned = await pinnedParams(ctx, e);
  const claimed = answerParams(method, raw);
  if (!same(claimed, pinned)) {
    throw new VerificationError('PARAMS_MISMATCH', `${method}: the answer is under other MBT parameters (${show(claimed)}) than the chain pins (${show(pinned)})`, {
      field: 'params',
      expected: show(pinned),
      found: show(claimed),
    });
  }
  return pinned;
}

/** The parameters a node's answer claims (checked against the pinned ones). */
function answerParams(method: string, raw: Record<string, unknown>): MbtParams {
  const n = (f: string) => {
    const v = raw[f];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 255) throw new RpcError(method, -1, `malformed response: ${f}`);
    return v;
  };
  return { bucketBits: n('bucketBits'), fanout: n('fanout') };
}

/**
 * The parameters the answer an mbt history was verified from claims (the reader checked them
 * against the pinned ones; of a history read in several proofs, the last answer's).
 */
export function mbtHistoryParams(h: VerifiedHistory): MbtParams {
  return answerParams('lightprov_getHistory', (provenBy(h).raw ?? {}) as Record<string, unknown>);
}

const hex = (v: bigint) => '0x' + v.toString(16);

async function call(ctx: FamilyContext, e: Endpoint, method: string, params: unknown[]) {
  const raw = (await ctx.net.call(e, method, params)) as Record<string, unknown> | null;
  if (typeof raw !== 'object' || raw === null) throw new RpcError(method, -1, 'malformed response');
  return { raw, params: await answeredUnder(ctx, e, method, raw), proof: hexToBytes(raw['proof'], 'proof') };
}

/** The history of `stateKey` over `from..=to`, checked against the root of every block. */
function checkHistory(roots: readonly string[], stateKey: string, from: bigint, to: bigint, params: MbtParams, proof: unknown): bigint[] {
  return verifyMbtHistory({ proof: proof as string | Uint8Array, stateKey, fromBlock: from, toBlock: to, roots, params });
}

/** The mbt family's reader: fetch → verify against the block's own root → typed result. */
export const mbt: Family = {
  name: 'mbt',
  valueSchemes: ['mbt'],
  historySchemes: ['mbt'],
  diffSchemes: ['mbt'],
  nodeBoundsHistory: true,
  describe: {
    mbt: { label: 'MBT', what: "the key's bucket and its path in each block's Merkle Bucket Tree, against that block's mbtRoot" },
  },
  async value(ctx, e, stateKey, _key, block): Promise<VerifiedValue> {
    await loadFamily('mbt');
    const anchor = await ctx.chain.headerAt(e, block);
    const method = 'lightprov_getMbtProof';
    const { raw, params, proof } = await call(ctx, e, method, [stateKey, hex(anchor.number)]);
    const at = hexToBigInt(raw['block'], 'block', 'network', 64);
    if (at !== anchor.number) throw new NodeFaultError(method, e.url, `the proof is of block ${at}, not block ${anchor.number} as asked`);
    const t0 = performance.now();
    const v = verifyMbtValue({ proof, stateKey, mbtRoot: mbtRootOf(anchor.extraData), params });
    return { value: v.value, present: v.present, scheme: 'mbt', block: anchor.number, anchor, proofBytes: proof.length, verifyMs: performance.now() - t0, raw };
  },
  async history(ctx, e, stateKey, key, from, to): Promise<VerifiedHistory> {
    await loadFamily('mbt');
    const { raw, proof } = await historyAnswer(ctx, e, stateKey, from, to, 'mbt');
    const params = await answeredUnder(ctx, e, 'lightprov_getHistory', raw as Record<string, unknown>);
    const headers = await ctx.chain.headersIn(e, from, to);
    const blockRoots = headers.map((h) => mbtRootOf(h.extraData));
    // The proof is checked against every block's root of the range: the header it is anchored to
    // is the range's last (not the block the node names as its own).
    const anchor = headers[headers.length - 1] as VerifiedHeader;
    const t0 = performance.now();
    const values = checkHistory(blockRoots, stateKey, from, to, params, proof);
    const verifyMs = performance.now() - t0;
    return {
      points: changesFromValues(values, from),
      scheme: 'mbt',
      fromBlock: from,
      toBlock: to,
      anchor,
      proofBytes: proof.length,
      verifyMs,
      raw,
      stateKey,
      ...(key ? { key } : {}),
      blockRoots,
    };
  },
  historyProof(h) {
    return answerProof(h, 'MBT');
  },
  reverify(ctx, h, proof) {
    if (!h.blockRoots) throw new TypeError('history: an mbt history carries the root of every block of its range (blockRoots)');
    // The parameters this client pins, as the first verification used — never the answer's claim.
    const pinned = (ctx.state.get('mbt') ?? ctx.options['mbtParams']) as MbtParams | undefined;
    if (pinned === undefined) throw new TypeError('history: not an mbt history this client verified (it has pinned no MBT parameters yet)');
    checkHistory(h.blockRoots, h.stateKey, h.fromBlock, h.toBlock, pinned, proof);
  },
  async diff(ctx, e, from, to): Promise<VerifiedDiff> {
    await loadFamily('mbt');
    const [older, newer] = await Promise.all([ctx.chain.headerAt(e, from), ctx.chain.headerAt(e, to)]);
    const { raw, params, proof } = await call(ctx, e, 'lightprov_getMbtDiff', [hex(from), hex(to)]);
    const t0 = performance.now();
    const proven = verifyMbtDiff({ proof, oldRoot: mbtRootOf(older.extraData), newRoot: mbtRootOf(newer.extraData), params });
    // MBT holds no zero values (a zero write deletes): absent is null, as for every diff scheme.
    const absent = (v: bigint) => (v === 0n ? null : v);
    const changes = proven.map((c) => ({ stateKey: c.stateKey, old: absent(c.old), new: absent(c.new) }));
    return { changes, scheme: 'mbt', fromBlock: from, toBlock: to, anchors: [older, newer], proofBytes: proof.length, verifyMs: performance.now() - t0, raw };
  },
};
