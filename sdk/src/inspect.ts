/**
 * Proof inspection: draw a proof as a generic tree (outlines) and tamper with honest proofs
 * (forgeries), for demo pages and for integrators' own tests. `@lightprov/sdk/inspect`; the main
 * entry never imports it.
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
 * import { forgeProof, outlineColeProof } from '@lightprov/sdk/inspect';
 * const o = await outlineColeProof({ proof, stateKey, fromBlock, toBlock, coleRoot, siblingRoot, scheme: 'cole' });
 * o.root.matches; // true for an honest proof
 * const f = await forgeProof({ family: 'cole', kind: 'result-hidden', proof });
 * f.expectedCode; // 'INCOMPLETE_RANGE': what verifyColeHistory throws for f.proof
 * ```
 */
import { RLP } from '@ethereumjs/rlp';

import { type ErrorCode, isVerificationError, wasmCall } from './errors.js';
import type { ColeScheme } from './families/cole.js';
import { families } from './families/index.js';
import type { LvmtAnchor } from './families/lvmt.js';
import { type AccountProofJson, encodeAccountProof, parseAccountProof, verifyAccountProof } from './families/mpt.js';
import { bytesArg, bytesToHex, hexToBytes } from './hex.js';
import { type WasmSource, keccak256, loadFamily, read } from './init.js';
import type * as InspectModule from '../wasm/inspect/lightprov_inspect.js';

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
  family: 'cole' | 'cole-star' | 'lvmt' | 'lvmt-history' | 'mpt';
  /** Size of the proof's wire encoding (for MPT: the packed form of docs/proofs.md). */
  bytes: number;
  tree: ProofNode;
  /**
   * What the proof recomputes and what the header says: `coleRoot` (COLE), `lvmtHistoryRoot`
   * through the key's tuple (LVMT; `lvmtRoot` only for an absence proof that carries no tuple,
   * since the root AMT's commitment is opened against, never recomputed), `stateRoot` (MPT).
   */
  root: RootCheck;
  /**
   * Every comparison the outline made, `root` included: COLE `coleRoot`; LVMT `lvmtRoot`
   * (trivially equal) and the history root through each tuple; MPT the state root and each
   * slot's storage root against the claimed `storageHash`.
   */
  roots: RootCheck[];
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

function inspector(source?: WasmSource): Promise<Inspector> {
  loading ??= (async () => {
    // A literal path each, so bundlers split the glue into its own chunk and emit the .wasm.
    const glue = (await import('../wasm/inspect/lightprov_inspect.js')) as Inspector;
    await glue.default({ module_or_path: source ?? (await read(new URL('../wasm/inspect/lightprov_inspect_bg.wasm', import.meta.url))) });
    return glue;
  })().catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

function u64Arg(v: bigint | number, field: string): bigint {
  if (typeof v === 'number' && !Number.isSafeInteger(v)) throw new RangeError(`${field}: not a safe integer`);
  const b = typeof v === 'number' ? BigInt(v) : v;
  if (typeof b !== 'bigint' || b < 0n || b >> 64n !== 0n) throw new RangeError(`${field}: expected a block number`);
  return b;
}

const proofBytes = (p: Uint8Array | string): Uint8Array => (p instanceof Uint8Array ? p : hexToBytes(p, 'proof'));

function anchorArgs(a: LvmtAnchor): [Uint8Array, Uint8Array, bigint] {
  return [bytesArg(a.lvmtRoot, 'lvmtRoot', 32), bytesArg(a.lvmtHistoryRoot, 'lvmtHistoryRoot', 32), u64Arg(a.number, 'anchor.number') + 1n];
}

const parsed = (json: string): ProofOutline => JSON.parse(json) as ProofOutline;

/**
 * Draws a COLE provenance proof: one `structure` per searched structure (MB-tree of level 0 or
 * run) holding its partial Merkle tree (`node`, `leaf` for neighbours, `sibling` for pruned
 * subtrees, `result` for the key's versions in the range), one `digest` per structure after the
 * early stop. `root` compares the `coleRoot` recomputed from the proof's `H_state` and
 * `siblingRoot` with the header's.
 */
export async function outlineColeProof(args: {
  proof: Uint8Array | string;
  stateKey: string | Uint8Array;
  fromBlock: bigint | number;
  toBlock: bigint | number;
  coleRoot: string | Uint8Array;
  siblingRoot: string | Uint8Array;
  scheme: ColeScheme;
}): Promise<ProofOutline> {
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
 * Draws an `eth_getProof` answer: the account's trie path (`branch`/`extension` nodes with the
 * nibble taken, the `leaf`, each with its keccak256), then each storage slot's path; the
 * account found is compared with the claimed fields. `root` compares keccak256 of the first
 * account node with the header's `stateRoot`; `roots` adds each slot's storage root against the
 * claimed `storageHash`. Ranges are in the packed wire form (`encodeAccountProof`).
 */
export async function outlineMptProof(args: { proof: AccountProofJson | unknown; stateRoot: string | Uint8Array }): Promise<ProofOutline> {
  const stateRoot = bytesArg(args.stateRoot, 'stateRoot', 32);
  const wire = encodeAccountProof(parseAccountProof(args.proof));
  const wasm = await inspector();
  return parsed(wasmCall(() => wasm.outlineMptProof(wire, stateRoot)));
}

// ---------------------------------------------------------------------------------------------
// Forgeries

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
  | 'account-flipped-byte-in-last-node';

/** The tamper classes the inspector forges for each family (COLE* as COLE), with a label for a picker. */
export const FORGERIES: Record<'cole' | 'lvmt' | 'mpt', readonly { kind: ForgeryKind; label: string }[]> = {
  cole: [
    { kind: 'value-changed', label: 'Flip a byte of a revealed value' },
    { kind: 'result-hidden', label: 'Hide a version behind its hash' },
    { kind: 'structure-dropped', label: 'Leave the last structure out' },
  ],
  lvmt: [
    { kind: 'value-changed', label: "Flip a byte of the key's value" },
    { kind: 'stale-tuple', label: "Present an older version's tuple" },
    { kind: 'level-dropped', label: 'Drop the last AMT level' },
  ],
  mpt: [
    { kind: 'account-truncated', label: 'Drop the last trie node' },
    { kind: 'wrong-balance', label: 'Claim a different balance' },
    { kind: 'account-flipped-byte-in-last-node', label: 'Flip a byte inside the last trie node' },
  ],
};

/** A forged proof, what was done to it, and the code our verifier rejects it with. */
export interface Forgery<P = Uint8Array | AccountProofJson> {
  proof: P;
  description: string;
  expectedCode: ErrorCode;
}

/** Proof families `forgeProof` takes. */
export type ForgeFamily = 'cole' | 'cole-star' | 'lvmt' | 'mpt';

/**
 * Tampers with an honest proof (see {@link FORGERIES}) and says which code our verifier rejects
 * the result with (loading the inspector's module, or for MPT the MPT verifier's and the header
 * module's, if needed) — determined by running the verifier against the root the honest proof
 * recomputes (COLE, MPT), or by the LVMT check that catches it (each is tested against the
 * verifier). `kind` is a tamper class of the family's registry entry, and `expectedCode` is
 * always one that class answers (its `code` or `alt`): where the verifier would answer this
 * proof's forgery with another code, or the class does not fit the proof, it throws
 * `RangeError` (e.g. `level-dropped` on a proof of one level, `stale-tuple` without an older
 * version's tuple, a kind that is not a class of the family). Throws
 * `VerificationError('BAD_ENCODING')` if the honest proof does not decode.
 *
 * - COLE (`proof`: wire bytes, COLE and COLE* alike): `value-changed` (the last byte of the
 *   first revealed version's value flipped), `result-hidden` (that version pruned to its hash —
 *   the root still matches), `structure-dropped` (the last structure left out).
 * - LVMT (`proof`: a proof or a history, whose latest-version proof is tampered with):
 *   `value-changed` (the last byte of the key's value flipped, or of an occupant's for absence;
 *   not for an absence proof with no occupant), `stale-tuple` (the tuple of an older version
 *   from `aux`: an LVMT history — or older presence proof — of the same key; a history given as
 *   `proof` serves as its own), `level-dropped` (the last level; not for a proof of one level).
 * - MPT (`proof`: `eth_getProof` JSON, returned as a new object): `account-truncated` (the last
 *   account node dropped), `wrong-balance` (balance + 1 ETH), `account-flipped-byte-in-last-node`
 *   (a byte of a hash or value inside the last account node flipped, so it still decodes; not
 *   for a one-node proof, whose only node is the root).
 */
export function forgeProof(args: { family: 'mpt'; kind: ForgeryKind; proof: AccountProofJson | unknown }): Promise<Forgery<AccountProofJson>>;
export function forgeProof(args: { family: 'cole' | 'cole-star' | 'lvmt'; kind: ForgeryKind; proof: Uint8Array | string; aux?: Uint8Array | string }): Promise<Forgery<Uint8Array>>;
export function forgeProof(args: { family: ForgeFamily; kind: ForgeryKind; proof: unknown; aux?: Uint8Array | string }): Promise<Forgery>;
export async function forgeProof(args: { family: ForgeFamily; kind: ForgeryKind; proof: unknown; aux?: Uint8Array | string }): Promise<Forgery> {
  const { family, kind } = args;
  if (family === 'mpt') {
    // Tampered as JSON here; the code comes from the MPT verifier and the class from the
    // registry (their modules loaded on demand).
    await Promise.all([loadFamily('mpt'), loadFamily('header')]);
    return forgeMpt(kind, args.proof);
  }
  if (family !== 'cole' && family !== 'cole-star' && family !== 'lvmt') throw new TypeError(`family: expected cole, cole-star, lvmt or mpt`);
  if (!(args.proof instanceof Uint8Array) && typeof args.proof !== 'string') throw new TypeError('proof: expected bytes or 0x-hex');
  const proof = proofBytes(args.proof);
  const aux = args.aux === undefined ? undefined : proofBytes(args.aux);
  const wasm = await inspector();
  const out = wasmCall(() => (family === 'lvmt' ? wasm.forgeLvmtProof(kind, proof, aux) : wasm.forgeColeProof(kind, proof))) as {
    proof: Uint8Array;
    description: string;
    expectedCode: ErrorCode;
  };
  return { proof: out.proof, description: out.description, expectedCode: out.expectedCode };
}

type Rlp = Uint8Array | Rlp[];

const EMPTY_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

function forgeMpt(kind: ForgeryKind, json: unknown): Forgery<AccountProofJson> {
  const offered = FORGERIES.mpt.map((f) => f.kind);
  const tamper = families()
    .find((f) => f.name === 'mpt')
    ?.tampers.find((t) => t.name === kind);
  if (!tamper || !offered.includes(kind)) throw new RangeError(`${String(kind)}: not an MPT forgery (${offered.join(', ')})`);
  const honest = parseAccountProof(json);
  const first = honest.accountProof[0];
  const root = first ? bytesToHex(keccak256(first)) : EMPTY_ROOT;
  const forged = JSON.parse(JSON.stringify(json)) as { -readonly [K in keyof AccountProofJson]: AccountProofJson[K] } & { accountProof: string[] };
  let description: string;
  switch (kind) {
    case 'account-truncated': {
      const n = forged.accountProof.length;
      if (n === 0) throw new RangeError('account-truncated: the account proof has no node');
      forged.accountProof = forged.accountProof.slice(0, -1);
      description = `dropped the last of the ${n} account proof nodes`;
      break;
    }
    case 'wrong-balance': {
      const raised = honest.balance + 10n ** 18n;
      forged.balance = '0x' + raised.toString(16);
      description = `claimed balance ${raised} instead of ${honest.balance} (+1 ETH)`;
      break;
    }
    default: {
      // account-flipped-byte-in-last-node: the last node is checked against the reference its
      // parent holds, so a proof of one node (the root) has no such node.
      const n = honest.accountProof.length;
      const last = honest.accountProof[n - 1];
      if (!last || n < 2) throw new RangeError(`${kind}: the account proof has ${n} node${n === 1 ? '' : 's'}, its last node is the root`);
      const node = last.slice();
      const at = flipTarget(node);
      node[at] = (node[at] as number) ^ 0x01;
      forged.accountProof = [...forged.accountProof.slice(0, -1), bytesToHex(node)];
      description = `flipped byte ${at} of account node ${n - 1} (inside ${at === node.length - 1 ? 'its last item' : 'a child hash'})`;
      break;
    }
  }
  const expectedCode = rejection(() => verifyAccountProof(forged, root));
  if (expectedCode !== tamper.code && expectedCode !== tamper.alt) {
    throw new RangeError(`${kind}: the verifier answers this proof's forgery with ${expectedCode}, not the class's ${tamper.code}${tamper.alt ? ` or ${tamper.alt}` : ''}`);
  }
  return { proof: forged, description, expectedCode };
}

/** A byte of a node whose flip keeps it decodable: the last byte of a branch's first hash child, else the last byte. */
function flipTarget(node: Uint8Array): number {
  let items: Rlp;
  try {
    items = RLP.decode(node) as Rlp;
  } catch {
    return node.length - 1;
  }
  if (Array.isArray(items) && items.length === 17) {
    const child = items.find((c): c is Uint8Array => c instanceof Uint8Array && c.length === 32);
    if (child) {
      const hex = bytesToHex(node);
      const at = hex.indexOf('a0' + bytesToHex(child).slice(2), 2);
      if (at > 0 && at % 2 === 0) return (at - 2) / 2 + 32;
    }
  }
  return node.length - 1;
}

function rejection(f: () => unknown): ErrorCode {
  try {
    f();
  } catch (e) {
    if (isVerificationError(e)) return e.code;
    throw e;
  }
  throw new RangeError('the verifier accepts this tamper of this proof');
}
