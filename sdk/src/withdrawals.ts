/**
 * A block's withdrawals (EIP-4895), verified: the node's list must rebuild the verified header's
 * `withdrawalsRoot`, the ordered trie of `RLP([index, validatorIndex, address, amount])`.
 */
import { RLP } from '@ethereumjs/rlp';

import { RpcError } from './errors.js';
import type { VerifiedHeader } from './header.js';
import { bigIntToMinimalBytes, bytesToHex, hexToBigInt, hexToBytes } from './hex.js';
import { requireListRoot } from './trie.js';

/** One withdrawal from the beacon chain, verified. */
export interface VerifiedWithdrawal {
  index: bigint;
  validatorIndex: bigint;
  address: string;
  /** In gwei. */
  amount: bigint;
}

/**
 * The withdrawals of a node's block object (`eth_getBlockByHash`) for the verified `header`,
 * checked against its `withdrawalsRoot` (the header wasm module must be loaded). `undefined` for
 * a block before Shanghai (no `withdrawalsRoot`).
 */
export function checkWithdrawals(url: string, header: VerifiedHeader, block: unknown): VerifiedWithdrawal[] | undefined {
  if (header.withdrawalsRoot === undefined) return undefined;
  const list = (block as { withdrawals?: unknown } | null)?.withdrawals;
  if (!Array.isArray(list)) throw new RpcError('eth_getBlockByHash', -1, `${url}: no withdrawals for block ${header.hash}`);
  const out = list.map((w, i): VerifiedWithdrawal => {
    const o = (typeof w === 'object' && w !== null ? w : {}) as Record<string, unknown>;
    const p = `withdrawals[${i}]`;
    return {
      index: hexToBigInt(o['index'], `${p}.index`, 'network', 64),
      validatorIndex: hexToBigInt(o['validatorIndex'], `${p}.validatorIndex`, 'network', 64),
      address: bytesToHex(hexToBytes(o['address'], `${p}.address`, 'network', 20)),
      amount: hexToBigInt(o['amount'], `${p}.amount`, 'network', 64),
    };
  });
  requireListRoot(out.map(withdrawalEncoding), header.withdrawalsRoot, 'withdrawals');
  return out;
}

/** A withdrawal's consensus encoding, `RLP([index, validatorIndex, address, amount])`. */
export function withdrawalEncoding(w: VerifiedWithdrawal): Uint8Array {
  return RLP.encode([bigIntToMinimalBytes(w.index), bigIntToMinimalBytes(w.validatorIndex), hexToBytes(w.address, 'address'), bigIntToMinimalBytes(w.amount)]);
}

/** A verified withdrawal as JSON-RPC answers it. */
export function withdrawalJson(w: VerifiedWithdrawal): Record<string, string> {
  const q = (n: bigint) => '0x' + n.toString(16);
  return { index: q(w.index), validatorIndex: q(w.validatorIndex), address: w.address, amount: q(w.amount) };
}
