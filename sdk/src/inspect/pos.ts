/**
 * The POS-Tree family's inspector room: path proofs drawn node by node (the child each node
 * routes the key to, the key's entry or where it would be) and history proofs as their node set
 * and one path through it per block, forged by the inspector's wasm module (crates/inspect,
 * `pos.rs`).
 */
import { wasmCall } from '../errors.js';
import { posRootOf, rootsArg } from '../families/pos.js';
import { bytesArg } from '../hex.js';
import { type FamilyInspector, type ProofOutline, forgeBytes, inspector, parsed, proofBytes, proofOf, u64Arg } from './inspector.js';

/** A POS-Tree path proof to draw (`lightprov_getPosProof`), against its block's `posRoot`. */
export interface PosOutlineArgs {
  proof: string | Uint8Array;
  stateKey: string | Uint8Array;
  posRoot: string | Uint8Array;
}

/** A POS-Tree history proof to draw, against the `posRoot` of each block from `fromBlock` on. */
export interface PosHistoryOutlineArgs {
  proof: string | Uint8Array;
  stateKey: string | Uint8Array;
  fromBlock: bigint | number;
  roots: readonly (string | Uint8Array)[];
}

/**
 * Draws a POS-Tree path proof: a `node` per inner node (the child the key routes to), the `leaf`
 * with the key's entry (or where it would sit) as a `result`. `root` compares the first node's
 * hash with `posRoot`.
 */
export async function outlinePosProof(args: PosOutlineArgs): Promise<ProofOutline> {
  const proof = proofBytes(args.proof);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const root = bytesArg(args.posRoot, 'posRoot', 32);
  const wasm = await inspector();
  return parsed(wasmCall(() => wasm.outlinePosProof(proof, key, root)));
}

/**
 * Draws a POS-Tree history proof: the node set (each item in full or as a patch of an earlier
 * one) and a `result` per block with its path through the set. `roots` holds a check per block
 * (the set holds its root); `root` is the last block's.
 */
export async function outlinePosHistory(args: PosHistoryOutlineArgs): Promise<ProofOutline> {
  const proof = proofBytes(args.proof);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const from = u64Arg(args.fromBlock, 'fromBlock');
  const roots = rootsArg(args.roots);
  const wasm = await inspector();
  return parsed(wasmCall(() => wasm.outlinePosHistory(proof, key, from, roots)));
}

/**
 * The POS-Tree inspector. Forgeries (`proof`: wire bytes): on a path proof `value-changed` (a
 * byte of the leaf's last value flipped), `truncated-path` (the leaf left out) and `extra-node`
 * (the leaf sent twice); on a history proof `history-node-repeated` (a node sent again) and
 * `history-node-unused` (a leaf no block's path uses added). A class of the other kind of proof
 * is a `RangeError`.
 */
export const pos: FamilyInspector<'pos'> = {
  family: 'pos',
  schemes: ['pos'],
  forgeries: [
    { kind: 'history-node-repeated', label: 'Send a node of the set twice' },
    { kind: 'history-node-unused', label: 'Add a node no path uses' },
    { kind: 'value-changed', label: "Flip a byte of the leaf's value" },
    { kind: 'truncated-path', label: 'Leave the leaf out' },
    { kind: 'extra-node', label: 'Send the leaf again after itself' },
  ],
  outlineHistory(h, proof) {
    const anchors = h.anchors ?? [h.anchor];
    return outlinePosHistory({
      proof: proofOf(h, proof) as Uint8Array | string,
      stateKey: h.stateKey,
      fromBlock: h.fromBlock,
      roots: anchors.map((a) => posRootOf(a.extraData)),
    });
  },
  forge: (args) => forgeBytes(args, (wasm, kind, proof) => wasm.forgePosProof(kind, proof)),
};
