/**
 * The shape every proof family takes in the SDK: a reader that fetches an answer from one node,
 * verifies it against a verified header, and returns a typed result. `LightClient` dispatches
 * `getValue` / `getHistory` by scheme to the family that answers it (see `families/index.ts`).
 */
import type { BlockTag } from '../args.js';
import type { HeaderChain } from '../chain.js';
import { RpcError, VerificationError } from '../errors.js';
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
   * The proof behind a history this family verified: the one answer COLE and LVMT histories
   * come from; for MPT, whose history is one `eth_getProof` answer per block, the answer for the
   * range's last block (the one checked against `anchor`).
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
