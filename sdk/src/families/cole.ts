/**
 * The COLE family in the SDK: a state key's complete history over a block range from one
 * provenance proof (`lightprov_getHistory` with `cole` or `cole-star`), checked against the
 * `coleRoot` of a verified header at or after the range's end.
 */
import { blockNumberArg } from '../args.js';
import { commitmentOf } from '../commitments.js';
import { wasmCall } from '../errors.js';
import { bytesArg, bytesToHex, hexToBytes } from '../hex.js';
import { type Version, changesFromVersions, readVersions } from '../history.js';
import { loadFamily, wasmOf } from '../init.js';
import type { VerifiedHeader } from '../header.js';
import { type Family, type FamilyContext, type VerifiedHistory, answerProof, historyAnswer } from './family.js';

/** A verified COLE history. */
export interface ColeHistory {
  /** Every version written in the range, oldest first. */
  versions: Version[];
  /** The version in force at the range's first block (`null`: never written by then). */
  atFrom: Version | null;
}

/** The COLE engines a history can be proven by. */
export type ColeScheme = 'cole' | 'cole-star';

/** A COLE provenance proof and what it is checked against (see {@link verifyColeHistory}). */
export interface ColeProofArgs {
  proof: string | Uint8Array;
  stateKey: string | Uint8Array;
  fromBlock: bigint | number;
  toBlock: bigint | number;
  coleRoot: string | Uint8Array;
  siblingRoot: string | Uint8Array;
  scheme: ColeScheme;
}

/**
 * Verifies a COLE provenance proof (as `lightprov_getHistory` returns it) for `stateKey` over
 * `fromBlock..=toBlock` against a verified header's `coleRoot`; `siblingRoot` is the other COLE
 * engine's `H_state` (the header commits to both). Synchronous after `await init()`.
 */
export function verifyColeHistory(args: ColeProofArgs): ColeHistory {
  const proof = args.proof instanceof Uint8Array ? args.proof : hexToBytes(args.proof, 'proof');
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const root = bytesArg(args.coleRoot, 'coleRoot', 32);
  const sibling = bytesArg(args.siblingRoot, 'siblingRoot', 32);
  const lo = blockNumberArg(args.fromBlock, 'fromBlock');
  const hi = blockNumberArg(args.toBlock, 'toBlock');
  if (args.scheme !== 'cole' && args.scheme !== 'cole-star') throw new TypeError(`scheme: expected cole or cole-star`);
  const wasm = wasmOf('cole');
  const out = wasmCall(() => wasm.verifyColeHistory(root, args.scheme, sibling, key, lo, hi, proof));
  return readVersions(out, 0);
}

/** The `coleRoot` held in a header's extraData (where: the core's commitment table). */
export function coleRootOf(extraData: string): string {
  return commitmentOf({ extraData }, 'coleRoot');
}


/**
 * Checks a COLE provenance proof for `stateKey` over `from..=to` against a verified header; `raw`
 * is the `lightprov_getHistory` answer that names the other engine's `siblingRoot`.
 */
function check(anchor: VerifiedHeader, raw: unknown, stateKey: string, from: bigint, to: bigint, scheme: ColeScheme, proof: unknown): ColeHistory {
  return verifyColeHistory({
    proof: proof as string | Uint8Array,
    stateKey,
    fromBlock: from,
    toBlock: to,
    coleRoot: coleRootOf(anchor.extraData),
    siblingRoot: bytesToHex(hexToBytes((raw as { siblingRoot?: unknown } | null)?.siblingRoot, 'siblingRoot', 'network', 32)),
    scheme,
  });
}

/** The COLE family's reader: fetch → verify → typed result. */
export const cole: Family = {
  name: 'cole',
  valueSchemes: [],
  historySchemes: ['cole', 'cole-star'],
  nodeBoundsHistory: true,
  describe: {
    cole: { label: 'COLE', what: 'one COLE provenance proof (Merkle range paths of L0 and the runs) against coleRoot' },
    'cole-star': { label: 'COLE*', what: 'one COLE* provenance proof (asynchronous merges) against coleRoot' },
  },
  async history(ctx: FamilyContext, e, stateKey, key, from, to, scheme): Promise<VerifiedHistory> {
    const colescheme = scheme as ColeScheme;
    await loadFamily('cole');
    const { raw, anchor, proof } = await historyAnswer(ctx, e, stateKey, from, to, colescheme);
    const t0 = performance.now();
    const h = check(anchor, raw, stateKey, from, to, colescheme, proof);
    const verifyMs = performance.now() - t0;
    const points = changesFromVersions(h, from);
    return { points, scheme, fromBlock: from, toBlock: to, anchor, proofBytes: proof.length, verifyMs, raw, stateKey, ...(key ? { key } : {}) };
  },
  historyProof(h) {
    return answerProof(h, cole.describe[h.scheme]?.label ?? h.scheme);
  },
  reverify(_ctx, h, proof) {
    check(h.anchor, h.raw, h.stateKey, h.fromBlock, h.toBlock, h.scheme as ColeScheme, proof);
  },
};
