/**
 * The mbt family's inspector room: Merkle Bucket Tree proofs drawn as the key's bucket and the
 * sibling levels of its path (a value at one block), or as the node set of a history, level by
 * level, with the bucket's versions; forged by the inspector's wasm module (crates/inspect,
 * `mbt.rs`).
 */
import { wasmCall } from '../errors.js';
import { bytesArg } from '../hex.js';
import { type FamilyInspector, type ProofOutline, forgeBytes, inspector, parsed, proofBytes, proofOf } from './inspector.js';

/** An mbt value proof to draw, and the `mbtRoot` of the block it is about. */
export interface MbtOutlineArgs {
  proof: string | Uint8Array;
  mbtRoot: string | Uint8Array;
}

/** An mbt history proof to draw, and the `mbtRoot` of every block of its range, in order. */
export interface MbtHistoryOutlineArgs {
  proof: string | Uint8Array;
  roots: readonly (string | Uint8Array)[];
}

/**
 * Draws an mbt value proof: the key's bucket as a `structure` (the key's entry a `result`, the
 * others `leaf`), then a `sibling` per inner level, the root's first. `root` compares the root
 * the proof recomputes with the block's `mbtRoot`.
 */
export async function outlineMbtProof(args: MbtOutlineArgs): Promise<ProofOutline> {
  const proof = proofBytes(args.proof);
  const root = bytesArg(args.mbtRoot, 'mbtRoot', 32);
  const wasm = await inspector();
  return parsed(wasmCall(() => wasm.outlineMbtProof(proof, root)));
}

/**
 * Draws an mbt history proof: a `structure` per inner level holding its distinct nodes, and the
 * bucket's distinct versions. `roots` has one check per block (its root found among the
 * proof's root-level nodes); `root` is the first that fails, else the last block's.
 */
export async function outlineMbtHistory(args: MbtHistoryOutlineArgs): Promise<ProofOutline> {
  const proof = proofBytes(args.proof);
  if (!Array.isArray(args.roots)) throw new TypeError('roots: expected an array of 32-byte roots');
  const roots = new Uint8Array(args.roots.length * 32);
  args.roots.forEach((r, i) => roots.set(bytesArg(r, `roots[${i}]`, 32), i * 32));
  const wasm = await inspector();
  return parsed(wasmCall(() => wasm.outlineMbtHistory(proof, roots)));
}

/**
 * The mbt inspector. Forgeries (`proof`: wire bytes): of a value proof `value-changed` (an
 * entry's value flipped), `entry-dropped` (the key's entry left out, to claim it absent),
 * `entries-swapped`; of a history proof `history-node-duplicated` and `history-nodes-reordered`
 * (in its smallest level of two nodes or more).
 */
export const mbt: FamilyInspector<'mbt'> = {
  family: 'mbt',
  schemes: ['mbt'],
  forgeries: [
    { kind: 'value-changed', label: "Flip a byte of a bucket entry's value" },
    { kind: 'entry-dropped', label: "Leave the key's entry out of its bucket" },
    { kind: 'entries-swapped', label: 'Swap two bucket entries' },
    { kind: 'history-node-duplicated', label: 'Repeat a node of the set' },
    { kind: 'history-nodes-reordered', label: 'Swap two nodes of a level' },
  ],
  outlineHistory(h, proof) {
    if (!h.blockRoots) throw new TypeError('history: an mbt history carries the root of every block of its range (blockRoots)');
    return outlineMbtHistory({ proof: proofOf(h, proof) as Uint8Array | string, roots: h.blockRoots });
  },
  forge: (args) => forgeBytes(args, (wasm, kind, proof) => wasm.forgeMbtProof(kind, proof)),
};
