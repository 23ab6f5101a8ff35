/**
 * The proof families. Two lists that a test keeps equal:
 *
 * - {@link families}: the registry as the Rust core defines it (`lightprov_types::FAMILIES`) —
 *   each family's name, the header commitments it is checked against, the codes its verifier
 *   can answer, and the tamper classes the shared vectors and the demo's forgery mode draw
 *   from. Read from the wasm module; needs `await init()`.
 * - {@link READERS}: the SDK's reader of each family that proves state (fetch → verify → typed
 *   result), one file each in this folder. Adding a family here is one line.
 */
import type { ErrorCode } from '../errors.js';
import { wasmOf } from '../init.js';
import { cole } from './cole.js';
import { forkless } from './forkless.js';
import { type DiffScheme, type Family, type HistoryProof, type HistoryScheme, type RangeScheme, type ValueScheme, type VerifiedHistory, provenBy } from './family.js';
import { lvmt } from './lvmt.js';
import { mbt } from './mbt.js';
import { mpt } from './mpt.js';
import { pos } from './pos.js';

/** The SDK's family readers (the MPT baseline last, as pages list the schemes). */
export const READERS: readonly Family[] = [cole, lvmt, forkless, mbt, pos, mpt];

/** Every scheme a history can be proven by, with its family and how to name it. */
export function historySchemes(): { id: HistoryScheme; family: string; label: string; what: string }[] {
  return READERS.flatMap((f) =>
    f.historySchemes.map((id) => ({ id, family: f.name, label: f.describe[id]?.label ?? id, what: f.describe[id]?.what ?? '' })),
  );
}

/** The reader that answers values by `scheme`. */
export function valueReader(scheme: unknown): Family {
  const f = READERS.find((r) => r.valueSchemes.includes(scheme as ValueScheme));
  if (!f) throw new TypeError(`scheme: expected ${READERS.flatMap((r) => r.valueSchemes).map((s) => `'${s}'`).join(' or ')}, got ${String(scheme)}`);
  return f;
}

/** The reader that answers histories by `scheme`. */
export function historyReader(scheme: unknown): Family {
  const f = READERS.find((r) => r.historySchemes.includes(scheme as HistoryScheme));
  if (!f) throw new TypeError(`scheme: expected ${READERS.flatMap((r) => r.historySchemes).map((s) => `'${s}'`).join(', ')}, got ${String(scheme)}`);
  return f;
}

/**
 * The reader of `schemes` (`kind`: `range` or `diff`) that answers `scheme`; without a scheme,
 * the one reader that answers any (a TypeError names `scheme` when several do).
 */
function pick<S extends string>(kind: 'range' | 'diff', of: (f: Family) => readonly S[] | undefined, scheme: unknown): Family {
  const all = READERS.flatMap((r) => of(r) ?? []);
  if (scheme === undefined && all.length === 1) scheme = all[0];
  const f = READERS.find((r) => (of(r) ?? []).includes(scheme as S));
  if (!f) throw new TypeError(`scheme: expected ${all.map((s) => `'${s}'`).join(' or ')} (the schemes that prove a ${kind}), got ${String(scheme)}`);
  return f;
}

/** The reader that answers key ranges by `scheme` (default: the only one). */
export function rangeReader(scheme: unknown): Family {
  return pick<RangeScheme>('range', (f) => f.rangeSchemes, scheme);
}

/** The reader that answers the changes between two blocks by `scheme` (default: the only one). */
export function diffReader(scheme: unknown): Family {
  return pick<DiffScheme>('diff', (f) => f.diffSchemes, scheme);
}

/**
 * The proof behind a verified history (`Family.historyProof`): COLE, LVMT the one answer; MPT
 * the `eth_getProof` answer for the range's last block. A history read in several proofs (a
 * range longer than one covers): its last proof, of `h.chunks`' last history.
 */
export function historyProof(h: VerifiedHistory): HistoryProof {
  const f = historyReader(h.scheme);
  if (!f.historyProof) throw new TypeError(`scheme: the ${f.name} family names no proof of a history`);
  return f.historyProof(provenBy(h));
}

/** One way of breaking an honest proof, and the code that rejects it. */
export interface TamperClass {
  readonly name: string;
  readonly code: ErrorCode;
  /** The code answered instead in an edge case of the class, if any. */
  readonly alt?: ErrorCode;
  readonly about: string;
}

/** One proof family. */
export interface FamilyInfo {
  readonly name: string;
  readonly about: string;
  /** Names of the header commitments it is checked against (see `headerCommitments()`). */
  readonly commitments: readonly string[];
  /** The most blocks one history proof of its format covers (absent: no bound). */
  readonly maxHistoryBlocks?: number;
  readonly codes: readonly ErrorCode[];
  readonly tampers: readonly TamperClass[];
}

let list: readonly FamilyInfo[] | undefined;

/** Every registered proof family. */
export function families(): readonly FamilyInfo[] {
  list ??= Object.freeze(wasmOf('header').families() as FamilyInfo[]);
  return list;
}

/** The most blocks one history proof of the family `name` covers (`undefined`: no bound). */
export function maxHistoryBlocksOf(name: string): bigint | undefined {
  const n = families().find((f) => f.name === name)?.maxHistoryBlocks;
  return n === undefined ? undefined : BigInt(n);
}

/** The header commitments the family `name`'s proofs are checked against. */
export function commitmentsOf(name: string): readonly string[] {
  return families().find((f) => f.name === name)?.commitments ?? [];
}
