/**
 * Transactions and receipts of real mainnet blocks (Frontier to Cancun: legacy, EIP-2930,
 * EIP-1559 and blob transactions; pre-Byzantium `root` receipts; an empty block), encoded from
 * their JSON-RPC objects, rebuild each header's `transactionsRoot` and `receiptsRoot`, and each
 * transaction hashes to its `hash`. Source and licence of each file: tests/vectors/blocks/README.md.
 */
import fs from 'node:fs';
import path from 'node:path';

import { bytesToHex, encodeReceipt, encodeTransaction, init, isVerificationError, orderedTrieRoot, transactionSender, verifyHeader } from '@lightprov/sdk';
import { keccak256 } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';

import { VECTORS } from './load.js';

beforeAll(() => init());

const DIR = path.join(VECTORS, 'blocks');
const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();

interface Fixture {
  block: Record<string, unknown> & { hash: string; transactionsRoot: string; receiptsRoot: string; transactions: Record<string, unknown>[] };
  receipts: Record<string, unknown>[];
}

describe('real blocks: transactions and receipts rebuild the header roots', () => {
  it('has the ten blocks', () => expect(files.length).toBe(10));
  for (const f of files) {
    it(f, () => {
      const { block, receipts } = JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')) as Fixture;
      // The header itself is the block's (its hash covers both roots).
      expect(verifyHeader(block, block.hash).hash).toBe(block.hash);
      const txs = block.transactions.map((t, i) => encodeTransaction(t, `transactions[${i}]`));
      txs.forEach((raw, i) => expect(keccak256(raw), `transactions[${i}].hash`).toBe(block.transactions[i]!['hash']));
      // Every sender (EIP-155, Homestead v = 27/28, typed) is recovered from the signature.
      block.transactions.forEach((t, i) => expect(transactionSender(t), `transactions[${i}].from`).toBe(String(t['from']).toLowerCase()));
      expect(bytesToHex(orderedTrieRoot(txs))).toBe(block.transactionsRoot);
      const rs = receipts.map((r, i) => encodeReceipt(r, `receipts[${i}]`));
      expect(bytesToHex(orderedTrieRoot(rs))).toBe(block.receiptsRoot);
    });
  }

  it("a high-s signature (allowed before Homestead) recovers its signer, as its low-s twin does", () => {
    const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const hex = (v: bigint) => '0x' + v.toString(16);
    for (const f of files) {
      const { block } = JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')) as Fixture;
      for (const t of block.transactions.slice(0, 3)) {
        // The same signature with s' = n − s and the other parity: valid for the same key.
        const s = N - BigInt(t['s'] as string);
        const typed = t['type'] !== undefined && t['type'] !== '0x0';
        const v = BigInt(t['v'] as string);
        const flipped = typed
          ? { ...t, s: hex(s), yParity: hex(1n - BigInt((t['yParity'] ?? t['v']) as string)), v: hex(1n - v) }
          : { ...t, s: hex(s), v: hex(v >= 35n ? (v % 2n === 1n ? v + 1n : v - 1n) : v === 27n ? 28n : 27n) };
        expect(transactionSender(flipped), `${f} ${t['hash']}`).toBe(String(t['from']).toLowerCase());
      }
    }
  });

  it('a missing field is BAD_ENCODING naming it', () => {
    const { block } = JSON.parse(fs.readFileSync(path.join(DIR, 'mainnet-21854576.json'), 'utf8')) as Fixture;
    const blob = block.transactions.find((t) => t['type'] === '0x3')!;
    const e = (() => {
      try {
        encodeTransaction({ ...blob, maxFeePerBlobGas: undefined });
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(isVerificationError(e, 'BAD_ENCODING') && (e as { field?: string }).field).toBe('transaction.maxFeePerBlobGas');
  });
});
