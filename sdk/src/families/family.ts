/**
 * The shape every proof family takes in the SDK: a reader that fetches an answer from one node,
 * verifies it against a verified header, and returns a typed result. `LightClient` dispatches
 * `getValue` / `getHistory` by scheme to the family that answers it (see `families/index.ts`).
 */
import type { BlockTag } from '../args.js';
import type { HeaderChain } from '../chain.js';
import { ReorgError, RpcError, VerificationError } from '../errors.js';
import type { VerifiedHeader } from '../header.js';
import { hexToBigInt, hexToBytes } from '../hex.js';
import type { StateKey, Version } from '../history.js';
import type { Endpoint, Transport } from '../transport.js';

/** The schemes a history can be proven by. */
export type HistoryScheme = 'cole' | 'cole-star' | 'lvmt' | 'forkless' | 'mbt' | 'pos' | 'mpt';

/** The schemes a single value can be proven by. */
export type ValueScheme = 'lvmt' | 'forkless' | 'mbt' | 'pos' | 'mpt';

/** The schemes a key range (every entry between two keys at one block) can be proven by. */
export type RangeScheme = 'pos';

/** The schemes the changes between two blocks can be proven by. */
export type DiffScheme = 'mbt' | 'pos';

/** How a page names a scheme. */
export interface SchemeInfo {
  /** Short label (`COLE*`). */
  readonly label: string;
  /** What one answer consists of and what it is checked against. */
  readonly what: string;
}

/** A verified value with what it took to verify it. */
export interface VerifiedValue {
  /** The value (0 for a key never written). */
  value: bigint;
  /**
   * LVMT: whether the key was ever written by `block`; forkless: whether it has a record at
   * `block` (was written by then, possibly to zero); MBT: whether its bucket holds it at
   * `block` (a key written to zero is deleted); POS: whether the key is in the block's tree.
   * MPT cannot tell a zero from absence.
   */
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

/** A verified history with what it took to verify it. */
export interface VerifiedHistory {
  /** The value at `fromBlock`, then one point per block where the value changed. */
  points: Version[];
  scheme: HistoryScheme;
  fromBlock: bigint;
  toBlock: bigint;
  /** The header the proof was checked against (COLE: the node's head; MPT, POS: `toBlock`). */
  anchor: VerifiedHeader;
  /** POS: the headers of every block of the range, oldest first (each path is against its own). */
  anchors?: readonly VerifiedHeader[];
  /** Bytes of proof verified (COLE: the provenance proof; MPT: the encoded account proofs). */
  proofBytes: number;
  /** Milliseconds spent in verification (wasm), excluding the network. */
  verifyMs: number;
  /** The raw proof response(s), for inspection. */
  raw: unknown;
  /** The state key the history is of (32-byte hex). */
  stateKey: string;
  /** The caller's `StateKey`, when given (MPT needs the account it names). */
  key?: StateKey;
  /** MBT: the `mbtRoot` of every block of the range, from the verified headers, in order. */
  blockRoots?: readonly string[];
  /**
   * A range longer than one proof covers (see {@link joinedHistory}): the history each proof
   * gave, in order, consecutive ones sharing their seam block. `raw` is then their answers,
   * `proofBytes` and `verifyMs` their sums, `anchor` the last one's.
   */
  chunks?: readonly VerifiedHistory[];
}

/** A verified key range: every entry with a key in `lo..=hi` at one block. */
export interface VerifiedRange {
  /** The entries, keys ascending (state keys as 32-byte hex). */
  entries: { key: string; value: bigint }[];
  scheme: RangeScheme;
  /** The block the range is of. */
  block: bigint;
  /** The header the proof was checked against (of `block`). */
  anchor: VerifiedHeader;
  proofBytes: number;
  verifyMs: number;
  raw: unknown;
}

/** The verified changes between two blocks: every key whose value differs (`null`: absent). */
export interface VerifiedDiff {
  /** The changes, by state key (32-byte hex), in the order the proof gives them. */
  changes: { stateKey: string; old: bigint | null; new: bigint | null }[];
  scheme: DiffScheme;
  fromBlock: bigint;
  toBlock: bigint;
  /** The headers of `fromBlock` and `toBlock`, the proof was checked against both. */
  anchors: readonly [VerifiedHeader, VerifiedHeader];
  proofBytes: number;
  verifyMs: number;
  raw: unknown;
}

/**
 * The one proof behind a verified history, as a page draws, forges or re-verifies it (see
 * {@link Family.historyProof}).
 */
export interface HistoryProof {
  /** The proof as the node sent it (COLE, LVMT: 0x-hex wire bytes; MPT: `eth_getProof` JSON). */
  proof: unknown;
  /** Its size in bytes (MPT: of the JSON, as `proofBytes` counts it). */
  bytes: number;
  /** What it is, for a page (`COLE* proof of blocks 1…64`, `eth_getProof answer for block #64`). */
  what: string;
}

/**
 * How far a history over more blocks than one proof covers got (see {@link joinedHistory}):
 * reported to the client's `onProgress` after each proof is verified.
 */
export interface HistoryProgress {
  /** `history` (header walks report `forward` or `backward`). */
  direction: 'history';
  scheme: HistoryScheme;
  /** The most blocks one proof covers: the proof format's bound or the node's, the smaller. */
  blocksPerProof: bigint;
  /** Proofs verified so far (one request each). */
  verified: bigint;
  /** Proofs the range takes. */
  total: bigint;
}

/** What a family reader gets from the client: the nodes, the verified headers, its settings. */
export interface FamilyContext {
  readonly net: Transport;
  readonly chain: HeaderChain;
  /** Headers and proofs fetched per JSON-RPC batch. */
  readonly batchSize: number;
  /** Per-client state a family keeps between calls (validated parameters…), by family name. */
  readonly state: Map<string, unknown>;
  /** The client's options, for settings a family reads (`lvmtParamsId`). */
  readonly options: Readonly<Record<string, unknown>>;
  /** The client's `onProgress`, for reads that take several proofs. */
  readonly progress?: ((p: HistoryProgress) => void) | undefined;
}

/**
 * One proof family: which schemes it answers, and how. `stateKey` is checked 32-byte hex;
 * `key` is the caller's `StateKey` when given (MPT needs the account it names).
 */
export interface Family {
  readonly name: string;
  readonly valueSchemes: readonly ValueScheme[];
  readonly historySchemes: readonly HistoryScheme[];
  /** The schemes its {@link Family.range} answers (none if absent). */
  readonly rangeSchemes?: readonly RangeScheme[];
  /** The schemes its {@link Family.diff} answers (none if absent). */
  readonly diffSchemes?: readonly DiffScheme[];
  /** A short label and a one-line account of each of its schemes, for pages that list them. */
  readonly describe: Readonly<Partial<Record<HistoryScheme, SchemeInfo>>>;
  /**
   * Whether its histories come from `lightprov_getHistory`, whose range a node bounds
   * (`--max-history-range`, advertised as `maxHistoryRange` in `lightprov_status`). The proof
   * format's own bound is the registry's (`FamilyInfo.maxHistoryBlocks`).
   */
  readonly nodeBoundsHistory?: boolean;
  value?(ctx: FamilyContext, e: Endpoint, stateKey: string, key: StateKey | undefined, block: BlockTag): Promise<VerifiedValue>;
  history?(
    ctx: FamilyContext,
    e: Endpoint,
    stateKey: string,
    key: StateKey | undefined,
    from: bigint,
    to: bigint,
    scheme: HistoryScheme,
  ): Promise<VerifiedHistory>;
  /** Every entry with a key in `lo..=hi` (checked 32-byte hex) at `block`. */
  range?(ctx: FamilyContext, e: Endpoint, lo: string, hi: string, block: BlockTag): Promise<VerifiedRange>;
  /**
   * The proof behind a history this family verified from one proof (see {@link provenBy}): the
   * one answer COLE and LVMT histories come from; for MPT, whose history is one `eth_getProof`
   * answer per block, the answer for the range's last block (the one checked against `anchor`).
   */
  historyProof?(h: VerifiedHistory): HistoryProof;
  /**
   * Verifies `proof` in place of {@link historyProof}'s for a history this family verified:
   * same query (key, range, scheme), same anchor header, with the same verifier as
   * {@link history}. Throws `VerificationError` as that path does. Synchronous: what it needs
   * (wasm module, LVMT parameters) was loaded when the history was verified.
   */
  reverify?(ctx: FamilyContext, h: VerifiedHistory, proof: unknown): void;
  /** The changes between blocks `from` and `to` (`from ≤ to`), verified against both headers. */
  diff?(ctx: FamilyContext, e: Endpoint, from: bigint, to: bigint, scheme: DiffScheme): Promise<VerifiedDiff>;
}

/**
 * A `lightprov_getHistory` answer, its proof's bytes and the verified header it is against
 * (which must cover the range).
 */
export async function historyAnswer(ctx: FamilyContext, e: Endpoint, stateKey: string, from: bigint, to: bigint, scheme: HistoryScheme) {
  const hex = (v: bigint) => '0x' + v.toString(16);
  const raw = (await ctx.net.call(e, 'lightprov_getHistory', [stateKey, hex(from), hex(to), scheme])) as { block?: unknown; siblingRoot?: unknown; proof?: unknown };
  if (typeof raw !== 'object' || raw === null) throw new RpcError('lightprov_getHistory', -1, 'malformed response');
  const at = hexToBigInt(raw.block, 'block', 'network', 64);
  if (at < to) {
    throw new VerificationError('INCOMPLETE_RANGE', `the proof is against block ${at}, before the range's end ${to}`, { field: 'block' });
  }
  const anchor = await ctx.chain.headerAt(e, at, 'network');
  return { raw, at, anchor, proof: hexToBytes(raw.proof, 'proof') };
}

/** The proof of a history proven by one `lightprov_getHistory` answer (COLE, LVMT): its `proof`. */
export function answerProof(h: VerifiedHistory, label: string): HistoryProof {
  const proof = (h.raw as { proof?: unknown } | null)?.proof;
  return { proof, bytes: hexToBytes(proof, 'proof').length, what: `${label} proof of blocks ${h.fromBlock}…${h.toBlock}` };
}

/** The JSON-RPC code lightprov-node answers a call over one of its limits with. */
const LIMIT_EXCEEDED = -32005;

/** The blocks of each proof of `from..=to` at `cap` blocks a proof: consecutive ones share their seam block. */
export function historyChunks(from: bigint, to: bigint, cap: bigint): [bigint, bigint][] {
  if (cap < 2n && to > from) throw new RangeError(`cap: ${cap} block a proof cannot join a range of ${to - from + 1n} (consecutive proofs share a block)`);
  const out: [bigint, bigint][] = [];
  for (let lo = from; ; ) {
    const hi = lo + cap - 1n < to ? lo + cap - 1n : to;
    out.push([lo, hi]);
    if (hi === to) return out;
    lo = hi;
  }
}

/**
 * The history a verified history's proof is of: itself, or for one read in several proofs the
 * last (its proof is the one `historyProof` names and `verifyHistoryProof` replaces).
 */
export function provenBy(h: VerifiedHistory): VerifiedHistory {
  return h.chunks?.[h.chunks.length - 1] ?? h;
}

/**
 * Joins the histories of consecutive proofs of `from..=to` into one, after checking that they
 * join: the first starts at `from`, the last ends at `to`, each starts at the block the one
 * before ends at (no gap, no overlap beyond that shared block: `RANGE_MISMATCH`), and both prove
 * the same value at that block (`VALUE_MISMATCH`), so no change can fall between two proofs.
 * `headerAt` gives the client's verified header of a block now: every proof's anchor must still
 * be it, else the chain reorganised between the proofs (`ReorgError`, retry).
 */
export async function joinHistories(parts: readonly VerifiedHistory[], from: bigint, to: bigint, headerAt: (n: bigint) => Promise<VerifiedHeader>): Promise<VerifiedHistory> {
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (first === undefined || last === undefined) throw new TypeError('parts: expected the history of at least one proof');
  for (const [k, p] of parts.entries()) {
    const now = await headerAt(p.anchor.number);
    if (now.hash !== p.anchor.hash) {
      throw new ReorgError(`the chain reorganised while a history was read in ${parts.length} proofs: proof ${k} is against block ${p.anchor.number} ${p.anchor.hash}, the verified chain now has ${now.hash}`);
    }
  }
  const range = (k: number, field: 'fromBlock' | 'toBlock', want: bigint, got: bigint, what: string) => {
    if (got !== want) throw new VerificationError('RANGE_MISMATCH', `proof ${k} of the history ${what}`, { field: `chunks[${k}].${field}`, expected: String(want), found: String(got) });
  };
  range(0, 'fromBlock', from, first.fromBlock, `starts at block ${first.fromBlock}, not at the range's first block ${from}`);
  range(parts.length - 1, 'toBlock', to, last.toBlock, `ends at block ${last.toBlock}, not at the range's last block ${to}`);
  const points = [...first.points];
  for (let k = 1; k < parts.length; k++) {
    const [before, p] = [parts[k - 1] as VerifiedHistory, parts[k] as VerifiedHistory];
    const seam = before.toBlock;
    const gap =
      p.fromBlock === seam + 1n
        ? 'shares no block with it, so their values cannot be checked to join'
        : p.fromBlock > seam
          ? `leaves blocks ${seam + 1n}…${p.fromBlock - 1n} unproven`
          : `covers blocks ${p.fromBlock}…${seam} again (they share block ${seam} only)`;
    range(k, 'fromBlock', seam, p.fromBlock, `starts at block ${p.fromBlock}, not at block ${seam} where the one before ends: it ${gap}`);
    const carried = before.points[before.points.length - 1];
    const at = p.points[0];
    if (carried === undefined || at === undefined || at.block !== seam || at.value !== carried.value) {
      const show = (v: Version | undefined) => (v === undefined ? 'nothing' : `${v.value} at block ${v.block}`);
      throw new VerificationError('VALUE_MISMATCH', `proofs ${k - 1} and ${k} of the history disagree at block ${seam}, where they join: ${show(carried)} vs ${show(at)}`, {
        field: `chunks[${k}].points[0]`,
        expected: String(carried?.value),
        found: String(at?.value),
      });
    }
    points.push(...p.points.slice(1));
  }
  /** One entry per block of each part, the seam block once. */
  const perBlock = <T>(of: (p: VerifiedHistory) => readonly T[] | undefined): T[] | undefined =>
    parts.every((p) => of(p) !== undefined) ? parts.flatMap((p, k) => (of(p) as T[]).slice(k === 0 ? 0 : 1)) : undefined;
  const anchors = perBlock((p) => p.anchors);
  const blockRoots = perBlock((p) => p.blockRoots);
  return {
    points,
    scheme: last.scheme,
    fromBlock: from,
    toBlock: to,
    anchor: last.anchor,
    ...(anchors ? { anchors } : {}),
    proofBytes: parts.reduce((s, p) => s + p.proofBytes, 0),
    verifyMs: parts.reduce((s, p) => s + p.verifyMs, 0),
    raw: parts.map((p) => p.raw),
    stateKey: last.stateKey,
    ...(last.key ? { key: last.key } : {}),
    ...(blockRoots ? { blockRoots } : {}),
    chunks: parts,
  };
}

/** The node bounds the client learned, by URL (`null`: the node advertises none). */
function nodeBounds(ctx: FamilyContext): Map<string, bigint | null> {
  let m = ctx.state.get('history') as Map<string, bigint | null> | undefined;
  if (m === undefined) ctx.state.set('history', (m = new Map()));
  return m;
}

/**
 * The most blocks the node behind `e` proves in one `lightprov_getHistory` call, as its
 * `lightprov_status` says (`maxHistoryRange`); `undefined` if it does not say. Not verified —
 * nothing can be — and need not be: it only sets how the range is cut, each piece is verified.
 */
async function advertisedBound(ctx: FamilyContext, e: Endpoint): Promise<bigint | undefined> {
  let status: unknown;
  try {
    status = await ctx.net.call(e, 'lightprov_status', []);
  } catch (err) {
    if (err instanceof RpcError) return undefined;
    throw err;
  }
  const v = (status as { maxHistoryRange?: unknown } | null)?.maxHistoryRange;
  const bound = typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? BigInt(v) : null;
  nodeBounds(ctx).set(e.url, bound);
  return bound ?? undefined;
}

const smaller = (a: bigint | undefined, b: bigint | null | undefined) => (b === undefined || b === null ? a : a === undefined || b < a ? b : a);

/** One history asked of a family: the state key (and the caller's `StateKey`), range and scheme. */
export interface HistoryAsk {
  stateKey: string;
  key: StateKey | undefined;
  from: bigint;
  to: bigint;
  scheme: HistoryScheme;
}

/**
 * A verified history of `q.stateKey` over `q.from..=q.to` by `f`, in as many proofs as the
 * bounds take: `formatBound` (the family's proof format, from the registry) and, for a family
 * whose histories a node bounds, the node's. The node's bound is asked (`lightprov_status`)
 * once the node refused a range as over its limit, and kept for the client's life. Several
 * proofs are fetched one after another, each verified as a history of its own, and joined by
 * {@link joinHistories}; `onProgress` hears of each.
 */
export async function joinedHistory(ctx: FamilyContext, e: Endpoint, f: Family, formatBound: bigint | undefined, q: HistoryAsk): Promise<VerifiedHistory> {
  if (!f.history) throw new TypeError(`scheme: the ${f.name} family proves no history`);
  const known = f.nodeBoundsHistory ? nodeBounds(ctx).get(e.url) : null;
  const bound = smaller(formatBound, known);
  try {
    return await inProofs(ctx, e, f, bound, q);
  } catch (err) {
    // A node that bounds ranges more tightly than the format: learn its bound once, and cut by it.
    if (!f.nodeBoundsHistory || known !== undefined || !(err instanceof RpcError) || err.code !== LIMIT_EXCEEDED) throw err;
    const blocks = q.to - q.from + 1n;
    const asked = bound === undefined || blocks < bound ? blocks : bound;
    const advertised = await advertisedBound(ctx, e);
    if (advertised === undefined || advertised >= asked) throw err;
    return inProofs(ctx, e, f, smaller(formatBound, advertised), q);
  }
}

async function inProofs(ctx: FamilyContext, e: Endpoint, f: Family, bound: bigint | undefined, q: HistoryAsk): Promise<VerifiedHistory> {
  const read = (from: bigint, to: bigint) => f.history!(ctx, e, q.stateKey, q.key, from, to, q.scheme);
  if (bound === undefined || q.to - q.from < bound) return read(q.from, q.to);
  if (bound < 2n) throw new RpcError('lightprov_getHistory', -1, `${e.url} proves at most 1 block a call: a history of ${q.to - q.from + 1n} blocks takes proofs that share their seam block`);
  const plan = historyChunks(q.from, q.to, bound);
  const parts: VerifiedHistory[] = [];
  for (const [lo, hi] of plan) {
    parts.push(await read(lo, hi));
    ctx.progress?.({ direction: 'history', scheme: q.scheme, blocksPerProof: bound, verified: BigInt(parts.length), total: BigInt(plan.length) });
  }
  return joinHistories(parts, q.from, q.to, (n) => ctx.chain.headerAt(e, n));
}
