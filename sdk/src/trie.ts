/**
 * The root of an ordered Merkle-Patricia trie — key `RLP(i)`, value item `i` — as Ethereum
 * commits a block's transactions (`transactionsRoot`), receipts and withdrawals. Built from the
 * items alone, to check a list against the root of a verified header.
 */
import { RLP } from '@ethereumjs/rlp';

import { VerificationError, wasmCall } from './errors.js';
import { bytesToHex } from './hex.js';
import { wasmOf } from './init.js';

type Node = Uint8Array | Node[];

const keccak = (b: Uint8Array): Uint8Array => wasmCall(() => wasmOf('mpt').keccak256(b));

/** `RLP(i)` as nibbles. */
function keyNibbles(i: number): number[] {
  const key = RLP.encode(i);
  const out: number[] = [];
  for (const b of key) out.push(b >> 4, b & 15);
  return out;
}

/** Hex-prefix encoding of a nibble path (Yellow Paper, appendix C). */
function hexPrefix(path: readonly number[], leaf: boolean): Uint8Array {
  const odd = path.length % 2;
  const out = new Uint8Array(1 + (path.length >> 1));
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let j = 0;
  if (odd) out[0]! |= path[j++]!;
  for (let k = 1; k < out.length; k++, j += 2) out[k] = (path[j]! << 4) | path[j + 1]!;
  return out;
}

/** How a parent refers to `node`: the node itself under 32 bytes of RLP, else its hash. */
function reference(node: Node): Node {
  const enc = RLP.encode(node);
  return enc.length < 32 ? node : keccak(enc);
}

/** The node over `items` (sorted by path, paths prefix-free), all sharing `path[..depth]`. */
function build(items: readonly { path: number[]; value: Uint8Array }[], depth: number): Node {
  const first = items[0]!;
  if (items.length === 1) return [hexPrefix(first.path.slice(depth), true), first.value];
  // The longest prefix every path shares from `depth` on.
  const last = items[items.length - 1]!;
  let common = 0;
  while (depth + common < first.path.length && first.path[depth + common] === last.path[depth + common]) common++;
  if (common > 0) return [hexPrefix(first.path.slice(depth, depth + common), false), reference(build(items, depth + common))];
  const branch: Node[] = Array.from({ length: 17 }, () => new Uint8Array(0));
  for (let nibble = 0; nibble < 16; nibble++) {
    const group = items.filter((it) => it.path[depth] === nibble);
    if (group.length > 0) branch[nibble] = reference(build(group, depth + 1));
  }
  // A path ending here would be the branch's value; RLP(i) keys are prefix-free, so none does.
  return branch;
}

/** The root of the ordered trie of `values` (32 bytes; the empty trie's root for none). */
export function orderedTrieRoot(values: readonly Uint8Array[]): Uint8Array {
  if (values.length === 0) return keccak(RLP.encode(new Uint8Array(0)));
  const items = values.map((value, i) => ({ path: keyNibbles(i), value }));
  items.sort((a, b) => {
    for (let k = 0; k < Math.min(a.path.length, b.path.length); k++) if (a.path[k] !== b.path[k]) return a.path[k]! - b.path[k]!;
    return a.path.length - b.path.length;
  });
  return keccak(RLP.encode(build(items, 0)));
}

/**
 * Checks that a block's list (its transactions or receipts, each in its consensus encoding)
 * builds the header's root for it; `ROOT_MISMATCH` naming the list otherwise.
 */
export function requireListRoot(values: readonly Uint8Array[], want: string, field: 'transactions' | 'receipts'): void {
  const root = bytesToHex(orderedTrieRoot(values));
  if (root !== want) {
    const name = field === 'transactions' ? 'transactionsRoot' : 'receiptsRoot';
    throw new VerificationError('ROOT_MISMATCH', `the node's ${values.length} ${field} build ${root}, not the header's ${name} ${want}`, { field, expected: want, found: root });
  }
}
