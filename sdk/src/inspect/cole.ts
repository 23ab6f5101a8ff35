/**
 * The COLE family's inspector room: COLE and COLE* provenance proofs drawn as their searched
 * structures, and forged by the inspector's wasm module (crates/inspect, `cole.rs`).
 */
import { wasmCall } from '../errors.js';
import { type ColeProofArgs, type ColeScheme, coleRootOf } from '../families/cole.js';
import { bytesArg } from '../hex.js';
import { type FamilyInspector, type ProofOutline, forgeBytes, historyArgs, inspector, parsed, proofBytes, u64Arg } from './inspector.js';

/**
 * Draws a COLE provenance proof: one `structure` per searched structure (MB-tree of level 0 or
 * run) holding its partial Merkle tree (`node`, `leaf` for neighbours, `sibling` for pruned
 * subtrees, `result` for the key's versions in the range), one `digest` per structure after the
 * early stop. `root` compares the `coleRoot` recomputed from the proof's `H_state` and
 * `siblingRoot` with the header's.
 */
export async function outlineColeProof(args: ColeProofArgs): Promise<ProofOutline> {
  const proof = proofBytes(args.proof);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const root = bytesArg(args.coleRoot, 'coleRoot', 32);
  const sibling = bytesArg(args.siblingRoot, 'siblingRoot', 32);
  const lo = u64Arg(args.fromBlock, 'fromBlock');
  const hi = u64Arg(args.toBlock, 'toBlock');
  if (args.scheme !== 'cole' && args.scheme !== 'cole-star') throw new TypeError('scheme: expected cole or cole-star');
  const wasm = await inspector();
  return parsed(wasmCall(() => wasm.outlineColeProof(proof, key, lo, hi, root, sibling, args.scheme)));
}

/**
 * COLE's inspector. Forgeries (`proof`: wire bytes, COLE and COLE* alike): `value-changed` (the
 * last byte of the first revealed version's value flipped), `result-hidden` (that version pruned
 * to its hash — the root still matches), `structure-dropped` (the last structure left out).
 */
export const cole: FamilyInspector<'cole'> = {
  family: 'cole',
  schemes: ['cole', 'cole-star'],
  forgeries: [
    { kind: 'value-changed', label: 'Flip a byte of a revealed value' },
    { kind: 'result-hidden', label: 'Hide a version behind its hash' },
    { kind: 'structure-dropped', label: 'Leave the last structure out' },
  ],
  outlineHistory(h, proof) {
    return outlineColeProof({
      ...historyArgs(h, proof),
      coleRoot: coleRootOf(h.anchor.extraData),
      siblingRoot: (h.raw as { siblingRoot?: string } | null)?.siblingRoot as string,
      scheme: h.scheme as ColeScheme,
    });
  },
  forge: (args) => forgeBytes(args, (wasm, kind, proof) => wasm.forgeColeProof(kind, proof)),
};
