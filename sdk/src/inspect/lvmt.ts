/**
 * The LVMT family's inspector room: LVMT proofs and histories drawn as their AMT levels and
 * Merkle tuples, and forged by the inspector's wasm module (crates/inspect, `lvmt.rs`).
 */
import { wasmCall } from '../errors.js';
import { type LvmtAnchor, lvmtRootsOf } from '../families/lvmt.js';
import { bytesArg } from '../hex.js';
import { type FamilyInspector, type ProofOutline, forgeBytes, historyArgs, inspector, parsed, proofBytes, u64Arg } from './inspector.js';

function anchorArgs(a: LvmtAnchor): [Uint8Array, Uint8Array, bigint] {
  return [bytesArg(a.lvmtRoot, 'lvmtRoot', 32), bytesArg(a.lvmtHistoryRoot, 'lvmtHistoryRoot', 32), u64Arg(a.number, 'anchor.number') + 1n];
}

/**
 * Draws an LVMT proof of a key's latest value or absence: one `level` per AMT level (its
 * commitment, the entry's six versions, the opening's D quotient points and, below the root,
 * the sub-AMT's `tuple` with its block-tree and history-tree paths), then the key's tuple
 * (`result`) or, for absence, the occupants of the path. `root` is `lvmtHistoryRoot`
 * recomputed through the key's tuple.
 */
export async function outlineLvmtProof(args: { proof: Uint8Array | string; stateKey: string | Uint8Array; anchor: LvmtAnchor }): Promise<ProofOutline> {
  const proof = proofBytes(args.proof);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const [aroot, hroot, blocks] = anchorArgs(args.anchor);
  const wasm = await inspector();
  return parsed(wasmCall(() => wasm.outlineLvmtProof(proof, key, aroot, hroot, blocks)));
}

/** Draws an LVMT history proof: the latest-version proof (a `structure`), then each listed version's tuple. */
export async function outlineLvmtHistory(args: {
  proof: Uint8Array | string;
  stateKey: string | Uint8Array;
  fromBlock: bigint | number;
  toBlock: bigint | number;
  anchor: LvmtAnchor;
}): Promise<ProofOutline> {
  const proof = proofBytes(args.proof);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const [aroot, hroot, blocks] = anchorArgs(args.anchor);
  const lo = u64Arg(args.fromBlock, 'fromBlock');
  const hi = u64Arg(args.toBlock, 'toBlock');
  const wasm = await inspector();
  return parsed(wasmCall(() => wasm.outlineLvmtHistory(proof, key, lo, hi, aroot, hroot, blocks)));
}

/**
 * LVMT's inspector. Forgeries (`proof`: a proof or a history, whose latest-version proof is
 * tampered with): `value-changed` (the last byte of the key's value flipped, or of an occupant's
 * for absence; not for an absence proof with no occupant), `stale-tuple` (the tuple of an older
 * version from `aux`: an LVMT history — or older presence proof — of the same key; a history
 * given as `proof` serves as its own), `level-dropped` (the last level; not for a proof of one
 * level).
 */
export const lvmt: FamilyInspector<'lvmt'> = {
  family: 'lvmt',
  schemes: ['lvmt'],
  forgeries: [
    { kind: 'value-changed', label: "Flip a byte of the key's value" },
    { kind: 'stale-tuple', label: "Present an older version's tuple" },
    { kind: 'level-dropped', label: 'Drop the last AMT level' },
  ],
  outlineHistory(h, proof) {
    return outlineLvmtHistory({
      ...historyArgs(h, proof),
      anchor: { ...lvmtRootsOf(h.anchor.extraData), number: h.anchor.number },
    });
  },
  forge: (args) => forgeBytes(args, (wasm, kind, proof, aux) => wasm.forgeLvmtProof(kind, proof, aux)),
};
