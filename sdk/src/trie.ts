/**
 * The root of an ordered Merkle-Patricia trie — key `RLP(i)`, value item `i` — as Ethereum
 * commits a block's transactions (`transactionsRoot`), receipts and withdrawals. Built from the
 * items alone, to check a list against the root of a verified header.
 */
import { VerificationError, wasmCall } from './errors.js';
import { bytesToHex } from './hex.js';
import { wasmOf } from './init.js';

/**
 * The root of the ordered trie of `values` (32 bytes; the empty trie's root for none), built in
 * the header wasm module (which must be loaded) from the items in one buffer.
 */
export function orderedTrieRoot(values: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const v of values) total += v.length;
  const all = new Uint8Array(total);
  const lengths = new Uint32Array(values.length);
  let at = 0;
  values.forEach((v, i) => {
    all.set(v, at);
    at += v.length;
    lengths[i] = v.length;
  });
  return wasmCall(() => wasmOf('header').orderedTrieRoot(all, lengths));
}

/**
 * Checks that a block's list (its transactions, receipts or withdrawals, each in its consensus encoding)
 * builds the header's root for it; `ROOT_MISMATCH` naming the list otherwise.
 */
export function requireListRoot(values: readonly Uint8Array[], want: string, field: 'transactions' | 'receipts' | 'withdrawals'): void {
  const root = bytesToHex(orderedTrieRoot(values));
  if (root !== want) {
    const name = `${field.slice(0, -1)}sRoot`;
    throw new VerificationError('ROOT_MISMATCH', `the node's ${values.length} ${field} build ${root}, not the header's ${name} ${want}`, { field, expected: want, found: root });
  }
}
