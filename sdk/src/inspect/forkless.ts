/**
 * The forkless family's inspector room: LiveDB proofs drawn as the files they open (the key's
 * record in the reverse table, or the index bucket proving it has none; the value or chain-head
 * page with its sibling levels) and the key's history chain, and forged by the inspector's wasm
 * module (crates/inspect, `forkless.rs`).
 */
import { wasmCall } from '../errors.js';
import { type ForklessKeyArg, forklessRootOf } from '../families/forkless.js';
import { bytesArg } from '../hex.js';
import { type FamilyInspector, type ProofOutline, forgeBytes, inspector, parsed, proofBytes, proofOf, u64Arg } from './inspector.js';

/** A forkless proof to draw: of a value, or of a history when `fromBlock`/`toBlock` are given. */
export interface ForklessOutlineArgs {
  proof: string | Uint8Array;
  key: ForklessKeyArg;
  forklessRoot: string | Uint8Array;
  fromBlock?: bigint | number;
  toBlock?: bigint | number;
}

/**
 * Draws a forkless LiveDB proof: a `structure` per opened file (its page as a `leaf` naming the
 * record, a `sibling` per tree level), the bucket's entries for an absent key, the history chain
 * (`result` for changes in the range) and the ten listed tree roots as a `digest`. `root`
 * compares the state root recomputed from the listed tree roots with the header's
 * `forklessRoot`; `roots` adds each opened file's recomputed tree root and the chain head.
 */
export async function outlineForklessProof(args: ForklessOutlineArgs): Promise<ProofOutline> {
  const proof = proofBytes(args.proof);
  const root = bytesArg(args.forklessRoot, 'forklessRoot', 32);
  const k = args.key;
  if (k.kind !== 'balance' && k.kind !== 'nonce' && k.kind !== 'storage') throw new TypeError('key.kind: expected balance, nonce or storage');
  const address = bytesArg(k.address, 'key.address', 20);
  const slot = k.kind === 'storage' ? bytesArg(k.slot ?? '', 'key.slot', 32) : new Uint8Array(0);
  const ranged = args.fromBlock !== undefined || args.toBlock !== undefined;
  const lo = ranged ? u64Arg(args.fromBlock ?? 0, 'fromBlock') : 0n;
  const hi = ranged ? u64Arg(args.toBlock ?? 0, 'toBlock') : 0n;
  const wasm = await inspector();
  return parsed(wasmCall(() => wasm.outlineForklessProof(proof, k.kind, address, slot, ranged, lo, hi, root)));
}

/**
 * The forkless inspector. Forgeries (`proof`: wire bytes): `value-changed` (a value proof's
 * opened record altered), `link-dropped`, `link-block-shifted`, `chain-cut` (the links resumed
 * after the change in force at the range's start — the chain still reaches the head),
 * `page-moved` (the same page claimed at another position) and `bucket-entry-dropped` (absence
 * proofs).
 */
export const forkless: FamilyInspector<'forkless'> = {
  family: 'forkless',
  schemes: ['forkless'],
  forgeries: [
    { kind: 'link-dropped', label: 'Leave a change out of the chain' },
    { kind: 'chain-cut', label: 'Resume the chain after the value in force' },
    { kind: 'link-block-shifted', label: 'Move a change to another block' },
    { kind: 'page-moved', label: 'Open the same page at another position' },
    { kind: 'value-changed', label: 'Flip a byte of the opened value' },
    { kind: 'bucket-entry-dropped', label: 'Leave an entry out of the bucket' },
  ],
  outlineHistory(h, proof) {
    if (!h.key) throw new TypeError('history: a forkless history carries its key');
    return outlineForklessProof({
      proof: proofOf(h, proof) as Uint8Array | string,
      key: h.key,
      forklessRoot: forklessRootOf(h.anchor.extraData),
      fromBlock: h.fromBlock,
      toBlock: h.toBlock,
    });
  },
  forge: (args) => forgeBytes(args, (wasm, kind, proof) => wasm.forgeForklessProof(kind, proof)),
};
