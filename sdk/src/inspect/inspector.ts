/**
 * What every family's inspector room (`inspect/<family>.ts`) shares: the outline and forgery
 * types, the {@link FamilyInspector} shape a room exports, the inspector's wasm module (loaded on
 * first use) and the argument helpers. `../inspect.ts` registers the rooms (`INSPECTORS`) and
 * dispatches through them; this module imports no room, so there is no cycle.
 */
import { type ErrorCode, wasmCall } from '../errors.js';
import type { HistoryScheme, VerifiedHistory } from '../families/family.js';
import type { AccountProofJson } from '../families/mpt.js';
import { historyProof } from '../families/index.js';
import { hexToBytes } from '../hex.js';
import { type WasmSource, read } from '../init.js';
import type * as InspectModule from '../../wasm/inspect/lightprov_inspect.js';

/** One node of a drawn proof. */
export interface ProofNode {
  kind: 'root' | 'structure' | 'level' | 'node' | 'leaf' | 'sibling' | 'result' | 'tuple' | 'digest';
  /** e.g. `run #2 (n = 96, height 4)`, `MB-tree node (3 children)`, `branch node`. */
  label: string;
  /** Full `0x`-hex of what this node hashes or commits to, recomputed from the proof (pages abbreviate it). */
  hash?: string;
  /** e.g. `block 17 → 0x5`, `versions [0,3,0,0,0,0]`, `nibble 0xa`. */
  detail?: string;
  /** Byte range `[from, to)` of the proof's wire encoding this node came from (as the decoder reports it). */
  range?: [number, number];
  children: ProofNode[];
}

/** A root recomputed from the proof beside the one the header holds. */
export interface RootCheck {
  label: string;
  /** `0x`-hex; empty if the proof's paths fit no tree (LVMT). */
  recomputed: string;
  expected: string;
  matches: boolean;
}

/** A proof drawn as a tree. */
export interface ProofOutline {
  family: 'cole' | 'cole-star' | 'forkless' | 'lvmt' | 'lvmt-history' | 'mbt' | 'mbt-history' | 'mpt' | 'pos' | 'pos-history';
  /** Size of the proof's wire encoding (for MPT: the packed form of docs/proofs.md). */
  bytes: number;
  tree: ProofNode;
  /**
   * What the proof recomputes and what the header says: `coleRoot` (COLE), `lvmtHistoryRoot`
   * through the key's tuple (LVMT; `lvmtRoot` only for an absence proof that carries no tuple,
   * since the root AMT's commitment is opened against, never recomputed), `stateRoot` (MPT),
   * `posRoot` (POS-Tree; of the range's last block for a history).
   */
  root: RootCheck;
  /**
   * Every comparison the outline made, `root` included: COLE `coleRoot`; LVMT `lvmtRoot`
   * (trivially equal) and the history root through each tuple; MPT the state root and each
   * slot's storage root against the claimed `storageHash`.
   */
  roots: RootCheck[];
}

/**
 * A tamper with an honest proof: a tamper class of the family's registry entry (`families()`,
 * `lightprov_types::FAMILIES`), the name its shared invalid vectors carry
 * (`tests/vectors/<family>/invalid/*-<class>.json`).
 */
export type ForgeryKind =
  | 'value-changed'
  | 'result-hidden'
  | 'structure-dropped'
  | 'stale-tuple'
  | 'level-dropped'
  | 'account-truncated'
  | 'wrong-balance'
  | 'account-flipped-byte-in-last-node'
  | 'link-dropped'
  | 'chain-cut'
  | 'link-block-shifted'
  | 'page-moved'
  | 'bucket-entry-dropped'
  | 'entry-dropped'
  | 'entries-swapped'
  | 'history-node-duplicated'
  | 'history-nodes-reordered'
  | 'truncated-path'
  | 'extra-node'
  | 'history-node-repeated'
  | 'history-node-unused';

/** A forged proof, what was done to it, and the code our verifier rejects it with. */
export interface Forgery<P = Uint8Array | AccountProofJson> {
  proof: P;
  description: string;
  expectedCode: ErrorCode;
}

/** One tamper class a family's inspector forges, with a label for a picker. */
export interface ForgeryOption {
  readonly kind: ForgeryKind;
  readonly label: string;
}

/**
 * A proof family's inspector: how its proofs are drawn and forged. One room each
 * (`inspect/<family>.ts`), registered in `INSPECTORS` (`inspect.ts`).
 */
export interface FamilyInspector<F extends string = string> {
  /** The family's registry name (`families()`, `READERS`). */
  readonly family: F;
  /** The history schemes it draws (COLE: `cole` and `cole-star`). */
  readonly schemes: readonly HistoryScheme[];
  /** The tamper classes it forges, in picker order. */
  readonly forgeries: readonly ForgeryOption[];
  /**
   * Draws the proof behind a verified history (`historyProof(h)`), or `proof` in its place: a
   * proof for the same query against the same anchor header (a forgery of it, say).
   */
  outlineHistory(h: VerifiedHistory, proof?: unknown): Promise<ProofOutline>;
  /** Tampers with an honest proof of the family (see `forgeProof`). */
  forge(args: { kind: ForgeryKind; proof: unknown; aux?: Uint8Array | string }): Promise<Forgery>;
}

type Inspector = typeof InspectModule & { default: (o: { module_or_path: unknown }) => Promise<unknown> };

let loading: Promise<Inspector> | undefined;

/**
 * Loads the inspector's wasm module (once; concurrent calls share the load). The functions of
 * this module call it themselves; call it ahead to download the module early. `source`: where
 * to get the `.wasm` instead of next to this module.
 */
export function loadInspector(source?: WasmSource): Promise<void> {
  return inspector(source).then(() => undefined);
}

/** The inspector's wasm module, loaded on first use. */
export function inspector(source?: WasmSource): Promise<Inspector> {
  loading ??= (async () => {
    // A literal path each, so bundlers split the glue into its own chunk and emit the .wasm.
    const glue = (await import('../../wasm/inspect/lightprov_inspect.js')) as Inspector;
    await glue.default({ module_or_path: source ?? (await read(new URL('../../wasm/inspect/lightprov_inspect_bg.wasm', import.meta.url))) });
    return glue;
  })().catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

export function u64Arg(v: bigint | number, field: string): bigint {
  if (typeof v === 'number' && !Number.isSafeInteger(v)) throw new RangeError(`${field}: not a safe integer`);
  const b = typeof v === 'number' ? BigInt(v) : v;
  if (typeof b !== 'bigint' || b < 0n || b >> 64n !== 0n) throw new RangeError(`${field}: expected a block number`);
  return b;
}

export const proofBytes = (p: Uint8Array | string): Uint8Array => (p instanceof Uint8Array ? p : hexToBytes(p, 'proof'));

export const parsed = (json: string): ProofOutline => JSON.parse(json) as ProofOutline;

/** The proof to draw for `h`: `proof` if given, else the one behind it. */
export const proofOf = (h: VerifiedHistory, proof?: unknown): unknown => proof ?? historyProof(h).proof;

/** The proof to draw for a history proven by one wire-format answer, with its key and range. */
export function historyArgs(h: VerifiedHistory, proof?: unknown) {
  return { proof: proofOf(h, proof) as Uint8Array | string, stateKey: h.stateKey, fromBlock: h.fromBlock, toBlock: h.toBlock };
}

/**
 * Forges a proof of wire bytes with the inspector's module (`forge` calls its family's export),
 * after checking the bytes are bytes.
 */
export async function forgeBytes(
  args: { kind: ForgeryKind; proof: unknown; aux?: Uint8Array | string },
  forge: (wasm: Inspector, kind: ForgeryKind, proof: Uint8Array, aux: Uint8Array | undefined) => unknown,
): Promise<Forgery<Uint8Array>> {
  if (!(args.proof instanceof Uint8Array) && typeof args.proof !== 'string') throw new TypeError('proof: expected bytes or 0x-hex');
  const proof = proofBytes(args.proof);
  const aux = args.aux === undefined ? undefined : proofBytes(args.aux);
  const wasm = await inspector();
  const out = wasmCall(() => forge(wasm, args.kind, proof, aux)) as Forgery<Uint8Array>;
  return { proof: out.proof, description: out.description, expectedCode: out.expectedCode };
}
