/**
 * Proof inspection: draw a proof as a generic tree (outlines) and tamper with honest proofs
 * (forgeries), for demo pages and for integrators' own tests.
 *
 * An outline never verifies anything: a forged proof is drawn like an honest one, with every
 * hash recomputed from what the proof holds and `root.matches` false where the recomputed root
 * differs from the header's. Only bytes that do not decode are refused, with a
 * `VerificationError('BAD_ENCODING')` as the verifiers do. COLE and LVMT outlines and
 * forgeries are computed in wasm; MPT ones here, with the wasm keccak256.
 *
 * ```ts
 * await init();
 * const o = outlineColeProof({ proof, stateKey, fromBlock, toBlock, coleRoot, siblingRoot, scheme: 'cole' });
 * o.root.matches; // true for an honest proof
 * const f = forgeProof({ family: 'cole', kind: 'drop-result', proof });
 * f.expectedCode; // 'INCOMPLETE_RANGE': what verifyColeHistory throws for f.proof
 * ```
 */
import { RLP } from '@ethereumjs/rlp';

import { type ErrorCode, isVerificationError, wasmCall } from './errors.js';
import type { ColeScheme } from './families/cole.js';
import { bytesArg, bytesToHex, hexToBytes } from './hex.js';
import { keccak256, wasmOf } from './init.js';
import type { LvmtAnchor } from './families/lvmt.js';
import { type AccountProofJson, encodeAccountProof, parseAccountProof, verifyAccountProof } from './families/mpt.js';

/** One node of a drawn proof. */
export interface ProofNode {
  kind: 'root' | 'structure' | 'level' | 'node' | 'leaf' | 'sibling' | 'result' | 'tuple' | 'digest';
  /** e.g. `run #2 (n = 96, height 4)`, `MB-tree node (3 children)`, `branch node`. */
  label: string;
  /** Full `0x`-hex of what this node hashes or commits to, recomputed from the proof (pages abbreviate it). */
  hash?: string;
  /** e.g. `block 17 → 0x5`, `versions [0,3,0,0,0,0]`, `nibble 0xa`. */
  detail?: string;
  /** Byte range `[from, to)` of the proof's wire encoding this node came from. */
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

/**
 * Draws a COLE provenance proof: one `structure` per searched structure (MB-tree of level 0 or
 * run) holding its partial Merkle tree (`node`, `leaf` for neighbours, `sibling` for pruned
 * subtrees, `result` for the key's versions in the range), one `digest` per structure after the
 * early stop. `root` compares the `coleRoot` recomputed from the proof's `H_state` and
 * `siblingRoot` with the header's.
 */
export function outlineColeProof(args: {
  proof: Uint8Array | string;
  stateKey: string | Uint8Array;
  fromBlock: bigint | number;
  toBlock: bigint | number;
  coleRoot: string | Uint8Array;
  siblingRoot: string | Uint8Array;
  scheme: ColeScheme;
}): ProofOutline {
  const proof = proofBytes(args.proof);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const root = bytesArg(args.coleRoot, 'coleRoot', 32);
  const sibling = bytesArg(args.siblingRoot, 'siblingRoot', 32);
  const lo = u64Arg(args.fromBlock, 'fromBlock');
  const hi = u64Arg(args.toBlock, 'toBlock');
  if (args.scheme !== 'cole' && args.scheme !== 'cole-star') throw new TypeError('scheme: expected cole or cole-star');
  const wasm = wasmOf('cole');
  return JSON.parse(wasmCall(() => wasm.outlineColeProof(proof, key, lo, hi, root, sibling, args.scheme))) as ProofOutline;
}

/**
 * Draws an LVMT proof of a key's latest value or absence: one `level` per AMT level (its
 * commitment, the entry's six versions, the opening's D quotient points and, below the root,
 * the sub-AMT's `tuple` with its block-tree and history-tree paths), then the key's tuple
 * (`result`) or, for absence, the occupants of the path. `root` is `lvmtHistoryRoot`
 * recomputed through the key's tuple.
 */
export function outlineLvmtProof(args: { proof: Uint8Array | string; stateKey: string | Uint8Array; anchor: LvmtAnchor }): ProofOutline {
  const proof = proofBytes(args.proof);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const [aroot, hroot, blocks] = anchorArgs(args.anchor);
  const wasm = wasmOf('lvmt');
  return JSON.parse(wasmCall(() => wasm.outlineLvmtProof(proof, key, aroot, hroot, blocks))) as ProofOutline;
}

/** Draws an LVMT history proof: the latest-version proof (a `structure`), then each listed version's tuple. */
export function outlineLvmtHistory(args: {
  proof: Uint8Array | string;
  stateKey: string | Uint8Array;
  fromBlock: bigint | number;
  toBlock: bigint | number;
  anchor: LvmtAnchor;
}): ProofOutline {
  const proof = proofBytes(args.proof);
  const key = bytesArg(args.stateKey, 'stateKey', 32);
  const [aroot, hroot, blocks] = anchorArgs(args.anchor);
  const lo = u64Arg(args.fromBlock, 'fromBlock');
  const hi = u64Arg(args.toBlock, 'toBlock');
  const wasm = wasmOf('lvmt');
  return JSON.parse(wasmCall(() => wasm.outlineLvmtHistory(proof, key, lo, hi, aroot, hroot, blocks))) as ProofOutline;
}

// ---------------------------------------------------------------------------------------------
// MPT

/** Wire bytes before the account nodes: version, address, balance, nonce, codeHash, storageHash. */
const ACCOUNT_FIELDS = 1 + 20 + 32 + 8 + 32 + 32;
const EMPTY_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

type Rlp = Uint8Array | Rlp[];

function keccak(b: Uint8Array): string {
  return bytesToHex(keccak256(b));
}

/** `0xabcd…1234`. */
function short(hex: string): string {
  return hex.length <= 14 ? hex : `${hex.slice(0, 6)}…${hex.slice(-4)}`;
}

function nibblesOf(b: Uint8Array): number[] {
  const out: number[] = [];
  for (const x of b) out.push(x >> 4, x & 15);
  return out;
}

const nibbleHex = (ns: readonly number[]): string => '0x' + ns.map((n) => n.toString(16)).join('');

/** A hex-prefix path: whether it ends in a leaf, and its nibbles (null if malformed). */
function hexPrefix(b: Uint8Array): { leaf: boolean; path: number[] } | null {
  const ns = nibblesOf(b);
  const flag = ns[0];
  if (flag === undefined || flag > 3) return null;
  const odd = (flag & 1) === 1;
  return { leaf: (flag & 2) === 2, path: ns.slice(odd ? 1 : 2) };
}

function bytesToBigInt(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}

interface Walked {
  /** The first node of the chain (each node holds the next). */
  head: ProofNode | null;
  /** Listed nodes after the end of the path. */
  extra: ProofNode[];
  /** Where the path ended: the stored value, `null` for absent, `undefined` if it broke off. */
  value: Uint8Array | null | undefined;
  /** The node the result hangs from. */
  last: ProofNode | null;
}

/** Follows `key` (nibbles) through listed nodes, as the verifier's walk does, without failing. */
function walkTrie(nodes: readonly Uint8Array[], ranges: readonly [number, number][], key: readonly number[], root: { label: string; hash: string }): Walked {
  const chain: ProofNode[] = [];
  const mismatched: ProofNode[] = [];
  if (nodes.length === 0 && root.hash === EMPTY_ROOT) {
    // `[]` proves the empty trie.
    return { head: null, extra: [], value: null, last: null };
  }
  let want: string | null = root.hash;
  let current: Rlp | undefined;
  let embedded = false;
  let pos = 0;
  let i = 0;
  let value: Uint8Array | null | undefined;
  const follow = (child: Rlp | undefined, n: ProofNode, via: string): boolean => {
    if (child === undefined || (child instanceof Uint8Array && child.length === 0)) {
      n.detail = `${via} → empty: the key is absent`;
      value = null;
      return false;
    }
    if (child instanceof Uint8Array) {
      const h = bytesToHex(child);
      n.detail = `${via} → ${short(h)}`;
      want = h;
      current = undefined;
      embedded = false;
      return true;
    }
    n.detail = `${via} → an embedded node`;
    current = child;
    embedded = true;
    return true;
  };
  for (;;) {
    let node: ProofNode;
    let decoded: Rlp;
    if (current === undefined) {
      const raw = nodes[i];
      if (raw === undefined) {
        chain.push({ kind: 'sibling', label: 'missing node (not in the proof)', ...(want ? { hash: want } : {}), children: [] });
        break;
      }
      const h = keccak(raw);
      const range = ranges[i];
      node = { kind: 'node', label: 'node', hash: h, ...(range ? { range } : {}), children: [] };
      i++;
      chain.push(node);
      if (want !== null && h !== want) mismatched.push(node);
      try {
        decoded = RLP.decode(raw) as Rlp;
      } catch {
        node.label = 'malformed node (not RLP)';
        break;
      }
    } else {
      decoded = current;
      node = { kind: 'node', label: 'node', children: [] };
      chain.push(node);
    }
    const where = embedded ? ' (embedded in its parent)' : '';
    if (!Array.isArray(decoded)) {
      node.label = 'malformed node (not a list)' + where;
      break;
    }
    if (decoded.length === 17) {
      node.label = 'branch node' + where;
      const nib = key[pos];
      if (nib === undefined) {
        const v = decoded[16];
        node.detail = 'the key ends here: the branch value';
        value = v instanceof Uint8Array && v.length > 0 ? v : null;
        break;
      }
      pos++;
      const occupied = decoded.slice(0, 16).filter((c) => !(c instanceof Uint8Array && c.length === 0)).length;
      if (!follow(decoded[nib], node, `nibble 0x${nib.toString(16)} (${occupied} of 16 slots taken)`)) break;
      continue;
    }
    if (decoded.length === 2) {
      const [p, second] = decoded;
      const hp = p instanceof Uint8Array ? hexPrefix(p) : null;
      if (hp === null) {
        node.label = 'malformed node (bad hex-prefix path)' + where;
        break;
      }
      const rest = key.slice(pos);
      if (hp.leaf) {
        node.kind = 'leaf';
        node.label = `leaf node, ${hp.path.length} nibbles${where}`;
        const same = rest.length === hp.path.length && rest.every((n, k) => n === hp.path[k]);
        node.detail = same ? `path ${short(nibbleHex(hp.path))}: the key's leaf` : `path ${short(nibbleHex(hp.path))}: another key's leaf (the key is absent)`;
        value = same && second instanceof Uint8Array ? second : null;
        break;
      }
      node.label = `extension node, ${hp.path.length} nibbles${where}`;
      const follows = hp.path.every((n, k) => rest[k] === n);
      if (!follows) {
        node.detail = `shared nibbles ${nibbleHex(hp.path)} diverge from the key: absent`;
        value = null;
        break;
      }
      pos += hp.path.length;
      if (!follow(second, node, `shared nibbles ${nibbleHex(hp.path)}`)) break;
      continue;
    }
    node.label = `malformed node (${decoded.length} items)` + where;
    break;
  }
  for (const n of mismatched) n.label += n === chain[0] ? ` — its hash ≠ the ${root.label}` : ' — its hash ≠ the reference its parent holds';
  const extra: ProofNode[] = [];
  for (; i < nodes.length; i++) {
    const raw = nodes[i] as Uint8Array;
    const range = ranges[i];
    extra.push({ kind: 'node', label: 'extra node (off the key’s path)', hash: keccak(raw), ...(range ? { range } : {}), children: [] });
  }
  for (let k = chain.length - 1; k > 0; k--) (chain[k - 1] as ProofNode).children.unshift(chain[k] as ProofNode);
  return { head: chain[0] ?? null, extra, value, last: chain[chain.length - 1] ?? null };
}

function rootOf(nodes: readonly Uint8Array[]): string {
  const first = nodes[0];
  return first ? keccak(first) : EMPTY_ROOT;
}

/** Wire ranges of a `Nodes` list starting at `at`; returns them and the end offset. */
function nodeRanges(nodes: readonly Uint8Array[], at: number): [[number, number][], number] {
  const out: [number, number][] = [];
  let pos = at + 2;
  for (const n of nodes) {
    out.push([pos + 4, pos + 4 + n.length]);
    pos += 4 + n.length;
  }
  return [out, pos];
}

/**
 * Draws an `eth_getProof` answer: the account's trie path (`branch`/`extension` nodes with the
 * nibble taken, the `leaf`, each with its keccak256), then each storage slot's path; the
 * account found is compared with the claimed fields. `root` compares keccak256 of the first
 * account node with the header's `stateRoot`; `roots` adds each slot's storage root against the
 * claimed `storageHash`.
 */
export function outlineMptProof(args: { proof: AccountProofJson | unknown; stateRoot: string | Uint8Array }): ProofOutline {
  const stateRoot = bytesToHex(bytesArg(args.stateRoot, 'stateRoot', 32));
  const p = parseAccountProof(args.proof);
  const wire = encodeAccountProof(p);
  const wasm = { keccak256 };
  const address = bytesToHex(p.address);
  const storageHash = bytesToHex(p.storageHash);
  const codeHash = bytesToHex(p.codeHash);

  const [accountRanges, afterAccount] = nodeRanges(p.accountProof, ACCOUNT_FIELDS);
  const path = wasm.keccak256(p.address);
  const w = walkTrie(p.accountProof, accountRanges, nibblesOf(path), { label: 'header’s stateRoot', hash: stateRoot });
  const claims: string[] = [];
  let result: ProofNode;
  if (w.value === undefined) {
    result = { kind: 'result', label: 'no answer: the path breaks off', children: [] };
  } else if (w.value === null) {
    const empty = p.nonce === 0n && p.balance === 0n;
    result = {
      kind: 'result',
      label: 'absent account',
      detail: empty ? 'the answer claims an empty account' : `the answer claims nonce ${p.nonce}, balance ${p.balance} ✗`,
      children: [],
    };
  } else {
    let fields: Rlp;
    try {
      fields = RLP.decode(w.value) as Rlp;
    } catch {
      fields = [];
    }
    const [nonce, balance, sroot, chash] = Array.isArray(fields) ? fields : [];
    if (nonce instanceof Uint8Array && balance instanceof Uint8Array && sroot instanceof Uint8Array && chash instanceof Uint8Array) {
      const n = bytesToBigInt(nonce);
      const b = bytesToBigInt(balance);
      const check = (what: string, leaf: string, claimed: string) => {
        if (leaf !== claimed) claims.push(`the answer claims ${what} ${claimed} ✗`);
      };
      check('nonce', String(n), String(p.nonce));
      check('balance', String(b), String(p.balance));
      check('storageHash', bytesToHex(sroot), storageHash);
      check('codeHash', bytesToHex(chash), codeHash);
      result = {
        kind: 'result',
        label: `account: nonce ${n}, balance ${b}`,
        detail: [`storageRoot ${short(bytesToHex(sroot))}, codeHash ${short(bytesToHex(chash))}`, ...(claims.length ? claims : ['= the answer'])].join('; '),
        children: [],
      };
    } else {
      result = { kind: 'result', label: 'the leaf holds no account (malformed)', children: [] };
    }
  }
  w.last?.children.push(result);
  const recomputed = rootOf(p.accountProof);
  const account: ProofNode = {
    kind: 'structure',
    label: `account trie: path keccak256(address) = ${short(bytesToHex(path))}`,
    hash: recomputed,
    detail: `${p.accountProof.length} node(s)`,
    range: [ACCOUNT_FIELDS, afterAccount],
    children: [...(w.head ? [w.head] : [result]), ...w.extra],
  };

  const roots: RootCheck[] = [{ label: 'stateRoot', recomputed, expected: stateRoot, matches: recomputed === stateRoot }];
  const storage: ProofNode[] = [];
  let at = afterAccount + 2;
  p.storageProof.forEach((s, k) => {
    const slot = bytesToHex(s.key);
    const start = at;
    const [ranges, end] = nodeRanges(s.proof, at + 64);
    at = end;
    const sw = walkTrie(s.proof, ranges, nibblesOf(wasm.keccak256(s.key)), { label: 'claimed storageHash', hash: storageHash });
    let stored: bigint | undefined;
    if (sw.value instanceof Uint8Array) {
      try {
        const d = RLP.decode(sw.value) as Rlp;
        stored = d instanceof Uint8Array ? bytesToBigInt(d) : undefined;
      } catch {
        stored = undefined;
      }
    } else if (sw.value === null) stored = 0n;
    const res: ProofNode = {
      kind: 'result',
      label: stored === undefined ? 'no value (the path breaks off or the leaf is malformed)' : sw.value === null ? 'absent slot (value 0)' : `value ${'0x' + stored.toString(16)}`,
      detail: stored === s.value ? '= the answer' : `the answer claims ${'0x' + s.value.toString(16)} ✗`,
      children: [],
    };
    sw.last?.children.push(res);
    const sroot = rootOf(s.proof);
    roots.push({ label: `storageHash (slot ${short(slot)})`, recomputed: sroot, expected: storageHash, matches: sroot === storageHash });
    storage.push({
      kind: 'structure',
      label: `storage slot ${short(slot)}: path keccak256(slot) = ${short(bytesToHex(wasm.keccak256(s.key)))}`,
      hash: sroot,
      detail: `storageProof[${k}], ${s.proof.length} node(s); its root must be the account's storageHash`,
      range: [start, end],
      children: [...(sw.head ? [sw.head] : [res]), ...sw.extra],
    });
  });

  const tree: ProofNode = {
    kind: 'root',
    label: `eth_getProof: account ${short(address)}, ${p.storageProof.length} storage slot(s)`,
    hash: recomputed,
    detail: 'each node must hash to the reference its parent holds for the key’s next nibble; the first to the state root',
    range: [0, wire.length],
    children: [account, ...storage],
  };
  const root = roots[0] as RootCheck;
  return { family: 'mpt', bytes: wire.length, tree, root, roots };
}

// ---------------------------------------------------------------------------------------------
// Forgeries

/** A tamper with an honest proof. */
export type ForgeryKind = 'flip-byte' | 'drop-result' | 'swap-structures' | 'wrong-value' | 'stale-tuple' | 'drop-level' | 'drop-node';

/** The tampers each family supports, with a label for a picker. */
export const FORGERIES: Record<'cole' | 'lvmt' | 'mpt', readonly { kind: ForgeryKind; label: string }[]> = {
  cole: [
    { kind: 'flip-byte', label: 'Flip a byte of a revealed value' },
    { kind: 'wrong-value', label: 'Change a revealed value' },
    { kind: 'drop-result', label: 'Hide a version behind its hash' },
    { kind: 'swap-structures', label: 'Swap two structures' },
  ],
  lvmt: [
    { kind: 'flip-byte', label: "Flip a byte of the key's value" },
    { kind: 'wrong-value', label: "Change the key's value" },
    { kind: 'stale-tuple', label: "Present an older version's tuple" },
    { kind: 'drop-level', label: 'Drop the last AMT level' },
  ],
  mpt: [
    { kind: 'drop-node', label: 'Drop the last trie node' },
    { kind: 'wrong-value', label: 'Claim a different balance' },
    { kind: 'flip-byte', label: 'Flip a byte inside a trie node' },
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
 * the result with — determined by running the verifier against the root the honest proof
 * recomputes (COLE, MPT), or by the LVMT check that catches it (each is unit-tested against the
 * verifier). Throws `RangeError` for a tamper that does not apply to this proof (e.g.
 * `swap-structures` with one structure, `stale-tuple` without an older version's tuple) and
 * `VerificationError('BAD_ENCODING')` if the honest proof does not decode.
 *
 * - COLE (`proof`: wire bytes, COLE and COLE* alike): `flip-byte` (the last byte of the first
 *   revealed version's value), `wrong-value` (that value + 1), `drop-result` (that version pruned
 *   to its hash — the root still matches), `swap-structures` (the first two searched).
 * - LVMT (`proof`: a proof or a history, whose latest-version proof is tampered with):
 *   `flip-byte`, `wrong-value` (the key's value, or an occupant's for absence), `stale-tuple`
 *   (the tuple of an older version from `aux`: an LVMT history — or older presence proof — of
 *   the same key; a history given as `proof` serves as its own), `drop-level` (the last level).
 * - MPT (`proof`: `eth_getProof` JSON, returned as a new object): `drop-node` (the last account
 *   node), `wrong-value` (balance + 1 ETH), `flip-byte` (a byte of a hash or value inside the
 *   last account node, so it still decodes).
 */
export function forgeProof(args: { family: 'mpt'; kind: ForgeryKind; proof: AccountProofJson | unknown }): Forgery<AccountProofJson>;
export function forgeProof(args: { family: 'cole' | 'cole-star' | 'lvmt'; kind: ForgeryKind; proof: Uint8Array | string; aux?: Uint8Array | string }): Forgery<Uint8Array>;
export function forgeProof(args: { family: ForgeFamily; kind: ForgeryKind; proof: unknown; aux?: Uint8Array | string }): Forgery;
export function forgeProof(args: { family: ForgeFamily; kind: ForgeryKind; proof: unknown; aux?: Uint8Array | string }): Forgery {
  const { family, kind } = args;
  if (family === 'mpt') return forgeMpt(kind, args.proof);
  if (family !== 'cole' && family !== 'cole-star' && family !== 'lvmt') throw new TypeError(`family: expected cole, cole-star, lvmt or mpt`);
  if (!(args.proof instanceof Uint8Array) && typeof args.proof !== 'string') throw new TypeError('proof: expected bytes or 0x-hex');
  const proof = proofBytes(args.proof);
  const out = wasmCall(() =>
    family === 'lvmt'
      ? wasmOf('lvmt').forgeLvmtProof(kind, proof, args.aux === undefined ? undefined : proofBytes(args.aux))
      : wasmOf('cole').forgeColeProof(kind, proof),
  ) as { proof: Uint8Array; description: string; expectedCode: ErrorCode };
  return { proof: out.proof, description: out.description, expectedCode: out.expectedCode };
}

function forgeMpt(kind: ForgeryKind, json: unknown): Forgery<AccountProofJson> {
  const honest = parseAccountProof(json);
  const root = rootOf(honest.accountProof);
  const forged = JSON.parse(JSON.stringify(json)) as { -readonly [K in keyof AccountProofJson]: AccountProofJson[K] } & { accountProof: string[] };
  let description: string;
  switch (kind) {
    case 'drop-node': {
      const n = forged.accountProof.length;
      if (n === 0) throw new RangeError('drop-node: the account proof has no node');
      forged.accountProof = forged.accountProof.slice(0, -1);
      description = `dropped the last of the ${n} account proof nodes`;
      break;
    }
    case 'wrong-value': {
      const raised = honest.balance + 10n ** 18n;
      forged.balance = '0x' + raised.toString(16);
      description = `claimed balance ${raised} instead of ${honest.balance} (+1 ETH)`;
      break;
    }
    case 'flip-byte': {
      const n = honest.accountProof.length;
      const last = honest.accountProof[n - 1];
      if (!last) throw new RangeError('flip-byte: the account proof has no node');
      const node = last.slice();
      const at = flipTarget(node);
      node[at] = (node[at] as number) ^ 0x01;
      forged.accountProof = [...forged.accountProof.slice(0, -1), bytesToHex(node)];
      description = `flipped byte ${at} of account node ${n - 1} (inside ${at === node.length - 1 ? 'its last item' : 'a child hash'})`;
      break;
    }
    default:
      throw new RangeError(`${kind}: not an MPT forgery (drop-node, wrong-value, flip-byte)`);
  }
  return { proof: forged, description, expectedCode: rejection(() => verifyAccountProof(forged, root)) };
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
