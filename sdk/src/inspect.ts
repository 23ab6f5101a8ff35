/**
 * Proof inspection: draw a proof as a generic tree (outlines) and tamper with honest proofs
 * (forgeries), for demo pages and for integrators' own tests. `@lightprov/sdk/inspect`; the main
 * entry never imports it.
 *
 * Each proof family's inspector is a room of its own (`inspect/<family>.ts`: its typed outline
 * functions and a {@link FamilyInspector} object), registered in {@link INSPECTORS}; the generic
 * {@link outlineHistory} and {@link forgeProof} dispatch through it, and {@link FORGERIES} is
 * read from it.
 *
 * Outlines and COLE/LVMT forgeries are computed by the inspector's own wasm module
 * (crates/inspect, built into `wasm/inspect/`), loaded on first use: every function here is
 * async and loads it if needed (`loadInspector()` loads it ahead). An outline never verifies
 * anything: a forged proof is drawn like an honest one, with every hash recomputed from what
 * the proof holds and `root.matches` false where the recomputed root differs from the header's.
 * Only bytes that do not decode are refused, with a `VerificationError('BAD_ENCODING')` as the
 * verifiers do.
 *
 * ```ts
 * import { forgeProof, outlineHistory } from '@lightprov/sdk/inspect';
 * const h = await client.getHistoryDetailed(key, { fromBlock: 1, toBlock: 64, scheme: 'cole' });
 * (await outlineHistory(h)).root.matches; // true for an honest proof
 * const f = await forgeProof({ family: h.scheme, kind: 'result-hidden', proof: historyProof(h).proof });
 * f.expectedCode; // 'INCOMPLETE_RANGE': what client.verifyHistoryProof(h, f.proof) throws
 * (await outlineHistory(h, f.proof)).root; // the forgery drawn against the same header
 * ```
 */
import type { AccountProofJson } from './families/mpt.js';
import { type HistoryScheme, type VerifiedHistory, provenBy } from './families/family.js';
import { cole } from './inspect/cole.js';
import { forkless } from './inspect/forkless.js';
import type { FamilyInspector, Forgery, ForgeryKind, ForgeryOption, ProofOutline } from './inspect/inspector.js';
import { lvmt } from './inspect/lvmt.js';
import { mbt } from './inspect/mbt.js';
import { mpt } from './inspect/mpt.js';
import { pos } from './inspect/pos.js';

export type { FamilyInspector, Forgery, ForgeryKind, ForgeryOption, ProofNode, ProofOutline, RootCheck } from './inspect/inspector.js';
export { loadInspector } from './inspect/inspector.js';
export { outlineColeProof } from './inspect/cole.js';
export { type ForklessOutlineArgs, outlineForklessProof } from './inspect/forkless.js';
export { outlineLvmtHistory, outlineLvmtProof } from './inspect/lvmt.js';
export { type MbtHistoryOutlineArgs, type MbtOutlineArgs, outlineMbtHistory, outlineMbtProof } from './inspect/mbt.js';
export { outlineMptProof } from './inspect/mpt.js';
export { type PosHistoryOutlineArgs, type PosOutlineArgs, outlinePosHistory, outlinePosProof } from './inspect/pos.js';

/** Every family's inspector (a room each, `inspect/<family>.ts`). Adding a family here is one line. */
export const INSPECTORS = [cole, lvmt, forkless, mbt, pos, mpt] as const;

/** Families the inspector draws and forges. */
export type InspectedFamily = (typeof INSPECTORS)[number]['family'];

/** Proof families `forgeProof` takes: a family, or one of its history schemes. */
export type ForgeFamily = InspectedFamily | HistoryScheme;

/** The inspector of a family or of a history scheme (`cole-star` → COLE's). */
export function inspectorFor(family: string): FamilyInspector {
  const i = INSPECTORS.find((x) => x.family === family || x.schemes.includes(family as HistoryScheme));
  if (!i) {
    const names = [...new Set(INSPECTORS.flatMap((x) => [x.family, ...x.schemes]))];
    throw new TypeError(`family: expected ${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`);
  }
  return i;
}

/** The tamper classes the inspector forges for each family (COLE* as COLE), with a label for a picker. */
export const FORGERIES = Object.fromEntries(INSPECTORS.map((i) => [i.family, i.forgeries])) as Record<InspectedFamily, readonly ForgeryOption[]>;

/**
 * Draws the proof behind a verified history (`historyProof(h)` of the main entry: COLE, LVMT
 * the one answer; MPT the `eth_getProof` answer for the range's last block; a history read in
 * several proofs, its last, against that proof's blocks), or `proof` in its
 * place — a proof for the same query against the same anchor header, a forgery say — by the
 * inspector of the history's scheme.
 */
export async function outlineHistory(h: VerifiedHistory, proof?: unknown): Promise<ProofOutline> {
  return inspectorFor(h.scheme).outlineHistory(provenBy(h), proof);
}

/**
 * Tampers with an honest proof (see {@link FORGERIES}) and says which code our verifier rejects
 * the result with (loading the inspector's module, or for MPT the MPT verifier's and the header
 * module's, if needed) — determined by running the verifier against the root the honest proof
 * recomputes (COLE, MPT), or by the LVMT check that catches it (each is tested against the
 * verifier). `family` is a family or a history scheme (`h.scheme`); `kind` is a tamper class of
 * the family's registry entry, and `expectedCode` is always one that class answers (its `code`
 * or `alt`): where the verifier would answer this proof's forgery with another code, or the class
 * does not fit the proof, it throws `RangeError` (e.g. `level-dropped` on a proof of one level,
 * `stale-tuple` without an older version's tuple, a kind that is not a class of the family).
 * Throws `VerificationError('BAD_ENCODING')` if the honest proof does not decode. What each
 * family's classes do is documented on its inspector (`inspect/<family>.ts`):
 *
 * - COLE (`proof`: wire bytes, COLE and COLE* alike): `value-changed`, `result-hidden`,
 *   `structure-dropped`.
 * - LVMT (`proof`: a proof or a history; `aux`: an older proof or history of the same key for
 *   `stale-tuple`): `value-changed`, `stale-tuple`, `level-dropped`.
 * - MBT (`proof`: wire bytes): `value-changed`, `entry-dropped`, `entries-swapped` (value
 *   proofs), `history-node-duplicated`, `history-nodes-reordered` (history proofs).
 * - MPT (`proof`: `eth_getProof` JSON, returned as a new object): `account-truncated`,
 *   `wrong-balance`, `account-flipped-byte-in-last-node`.
 * - POS-Tree (`proof`: wire bytes; a path or a history proof): `value-changed`,
 *   `truncated-path`, `extra-node` (paths); `history-node-repeated`, `history-node-unused`.
 */
export function forgeProof(args: { family: 'mpt'; kind: ForgeryKind; proof: AccountProofJson | unknown }): Promise<Forgery<AccountProofJson>>;
export function forgeProof(args: { family: 'cole' | 'cole-star' | 'lvmt' | 'forkless' | 'mbt' | 'pos'; kind: ForgeryKind; proof: Uint8Array | string; aux?: Uint8Array | string }): Promise<Forgery<Uint8Array>>;
export function forgeProof(args: { family: ForgeFamily; kind: ForgeryKind; proof: unknown; aux?: Uint8Array | string }): Promise<Forgery>;
export async function forgeProof(args: { family: ForgeFamily; kind: ForgeryKind; proof: unknown; aux?: Uint8Array | string }): Promise<Forgery> {
  const { kind, proof, aux } = args;
  return inspectorFor(args.family).forge({ kind, proof, ...(aux === undefined ? {} : { aux }) });
}
