/**
 * `getTransactionProof(block, index)` over real mainnet blocks served by a fake node (checkpoint
 * anchor = the block itself) whose `lightprov_getTransactionProof` proofs come from an
 * independent trie (@ethereumjs/mpt): every index of a block returns its transaction and receipt
 * as the block's JSON-RPC objects describe them, an index past the end (and any index of the
 * empty block) is proven absent, and a node that lies in the proof or beside it is caught with
 * the check's own code and marked faulty.
 */
import fs from 'node:fs';
import path from 'node:path';

import { createMPT, createMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { LightClient, bytesToHex, decodeReceipt, decodeTransaction, encodeReceipt, encodeTransaction, init, isVerificationError } from '@lightprov/sdk';
import { beforeAll, describe, expect, it } from 'vitest';

import { rejection } from '../lib/util.js';
import { VECTORS } from './load.js';

beforeAll(() => init());

type Json = Record<string, unknown>;
interface Fixture {
  block: Json & { hash: string; number: string; transactions: Json[] };
  receipts: (Json & { logs: Json[] })[];
}
const load = (f: string): Fixture => JSON.parse(fs.readFileSync(path.join(VECTORS, 'blocks', f), 'utf8')) as Fixture;

/** The honest `lightprov_getTransactionProof` answers of a block, by index. */
async function prover(fx: Fixture): Promise<(index: bigint) => Promise<Json>> {
  const lists = [fx.block.transactions.map((t, i) => encodeTransaction(t, `transactions[${i}]`)), fx.receipts.map((r, i) => encodeReceipt(r, `receipts[${i}]`))];
  const tries = await Promise.all(
    lists.map(async (items) => {
      const trie = await createMPT();
      for (const [i, v] of items.entries()) await trie.put(RLP.encode(i), v);
      return trie;
    }),
  );
  return async (index) => {
    const key = RLP.encode(index);
    // Hashed nodes only: a node under 32 bytes sits inside its parent.
    const proofs = await Promise.all(tries.map(async (t) => (await createMerkleProof(t, key)).filter((n, k) => k === 0 || n.length >= 32).map(bytesToHex)));
    const at = (items: Uint8Array[]) => (index < BigInt(items.length) ? bytesToHex(items[Number(index)]!) : null);
    return {
      blockNumber: fx.block.number,
      blockHash: fx.block.hash,
      index: '0x' + index.toString(16),
      transaction: at(lists[0]!),
      receipt: at(lists[1]!),
      transactionProof: proofs[0],
      receiptProof: proofs[1],
    };
  };
}

/** Rewrites one answer (the asked block's hash and index come with it); `undefined` keeps it. */
type Lie = (answer: Json, index: bigint) => Json | Promise<Json> | undefined;

/** A node serving `fx`'s header and its transaction proofs, after `lie`. */
async function node(fx: Fixture, lie?: Lie): Promise<typeof fetch> {
  const prove = await prover(fx);
  const b = fx.block;
  const header = { ...b, transactions: b.transactions.map((t) => t['hash']) };
  return async (_input, init) => {
    const body = JSON.parse(String(init?.body)) as { id: number; method: string; params: unknown[] } | { id: number; method: string; params: unknown[] }[];
    const answer = async (c: { id: number; method: string; params: unknown[] }) => {
      let result: unknown = null;
      if (c.method === 'eth_getBlockByHash' && c.params[0] === b.hash) result = header;
      else if (c.method === 'eth_getBlockByNumber' && BigInt(c.params[0] as string) === BigInt(b.number)) result = header;
      else if (c.method === 'eth_blockNumber') result = b.number;
      else if (c.method === 'lightprov_getTransactionProof' && c.params[0] === b.hash) {
        const index = BigInt(c.params[1] as string);
        const honest = await prove(index);
        result = (await lie?.(honest, index)) ?? honest;
      }
      return { jsonrpc: '2.0', id: c.id, result };
    };
    const out = Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body);
    return new Response(JSON.stringify(out), { headers: { 'content-type': 'application/json' } });
  };
}

const connect = async (fx: Fixture, lie?: Lie) =>
  LightClient.connect({ rpc: 'http://fixture.invalid/', trust: { checkpoint: { number: BigInt(fx.block.number), hash: fx.block.hash } }, fetch: await node(fx, lie) });

const small = load('mainnet-19432673.json');
const large = load('mainnet-22196189.json');
const old = load('mainnet-1150000.json');
const empty = load('mainnet-1755634.json');
const big = (v: unknown) => BigInt(v as string);

describe('getTransactionProof over real blocks', () => {
  for (const fx of [small, old]) {
    it(`every index of block ${big(fx.block.number)} proves its transaction and receipt`, async () => {
      const c = await connect(fx);
      const n = big(fx.block.number);
      for (const [i, t] of fx.block.transactions.entries()) {
        const got = await c.getTransactionProof(n, i);
        const want = fx.receipts[i]!;
        expect(got, `#${i}`).toBeDefined();
        const { transaction: tx, receipt: r, header } = got!;
        expect(header.hash).toBe(fx.block.hash);
        expect([tx.hash, tx.transactionIndex, tx.blockNumber, tx.from]).toEqual([t['hash'], i, n, String(t['from']).toLowerCase()]);
        for (const f of ['nonce', 'value', 'gas']) expect(big(tx.fields[f]), f).toBe(big(t[f]));
        expect(tx.fields['input']).toBe(t['input']);
        expect(tx.effectiveGasPrice).toBe(big(want['effectiveGasPrice'] ?? t['gasPrice']));
        expect([r.transactionHash, r.transactionIndex, r.cumulativeGasUsed, r.gasUsed]).toEqual([t['hash'], i, big(want['cumulativeGasUsed']), big(want['gasUsed'])]);
        expect([r.status, r.root]).toEqual(want['root'] ? [undefined, want['root']] : [Number(big(want['status'])), undefined]);
        expect([r.to, r.contractAddress]).toEqual([want['to'] ?? null, want['contractAddress'] ?? null]);
        expect(r.logs.map((l) => [l.address, l.topics, l.data, l.transactionHash, l.blockNumber])).toEqual(want.logs.map((l) => [l['address'], l['topics'], l['data'], t['hash'], n]));
        expect('logIndex' in (r.logs[0] ?? {})).toBe(false);
      }
    });
  }

  it('an index past the end, and any index of the empty block, is proven absent', async () => {
    for (const [fx, indices] of [
      [small, [11, 12, 127, 128, 2n ** 64n - 1n]],
      [empty, [0, 1, 1000]],
    ] as const) {
      const c = await connect(fx);
      for (const i of indices) expect(await c.getTransactionProof(big(fx.block.number), i), `${i}`).toBeUndefined();
    }
  });

  it('decodeTransaction and decodeReceipt invert the encoders on every real block', () => {
    for (const f of fs.readdirSync(path.join(VECTORS, 'blocks')).filter((x) => x.endsWith('.json'))) {
      const fx = load(f);
      for (const t of fx.block.transactions) {
        const enc = encodeTransaction(t);
        expect(encodeTransaction(decodeTransaction(enc))).toEqual(enc);
      }
      for (const r of fx.receipts) {
        const enc = encodeReceipt(r);
        expect(encodeReceipt(decodeReceipt(enc))).toEqual(enc);
      }
    }
    // EIP-7702 (no real block here holds one): the authorization list round-trips too.
    const auth = { chainId: '0x1', address: '0x' + '22'.repeat(20), nonce: '0x7', yParity: '0x1', r: '0x' + '33'.repeat(32), s: '0x' + '44'.repeat(32) };
    const t4 = { type: '0x4', chainId: '0x1', nonce: '0x2', maxPriorityFeePerGas: '0x3', maxFeePerGas: '0x4', gas: '0x5208', to: '0x' + '11'.repeat(20), value: '0x0', input: '0x', accessList: [], authorizationList: [auth], yParity: '0x0', r: '0x' + '55'.repeat(32), s: '0x' + '66'.repeat(32) };
    const enc4 = encodeTransaction(t4);
    expect(decodeTransaction(enc4)).toEqual({ ...t4, v: '0x0' });
    // A non-canonical integer (a leading zero in the nonce) is not the one encoding.
    const t = encodeTransaction(small.block.transactions.find((x) => x['type'] === '0x2')!);
    const items = RLP.decode(t.subarray(1)) as unknown[];
    items[1] = Uint8Array.of(0, ...(items[1] as Uint8Array));
    const e = (() => {
      try {
        decodeTransaction(Uint8Array.of(2, ...RLP.encode(items as Uint8Array[])));
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(isVerificationError(e, 'BAD_ENCODING') && (e as { field?: string }).field).toBe('transaction');
  });

  const other = prover(large);
  const mine = prover(small);
  const lies: [string, Lie, string, string][] = [
    ['a receipt proof from another block', async (a, i) => ({ ...a, receiptProof: (await (await other)(i))['receiptProof'] }), 'ROOT_MISMATCH', 'receiptProof[0]'],
    ['the last node of the transaction proof dropped', (a) => ({ ...a, transactionProof: (a['transactionProof'] as string[]).slice(0, -1) }), 'TRUNCATED_PROOF', 'transactionProof'],
    ['the proofs of another index', async (a, i) => ({ ...(await (await mine)(i === 3n ? 4n : i)), index: a['index'] }), 'KEY_MISMATCH', 'transactionProof[2]'],
    ['an answer for another index', async (a, i) => (i === 3n ? await (await mine)(4n) : a), 'KEY_MISMATCH', 'index'],
    ['a trailing node', (a) => ({ ...a, receiptProof: [...(a['receiptProof'] as string[]), (a['receiptProof'] as string[])[0]!] }), 'DUPLICATE_NODE', 'receiptProof[3]'],
    ['the transaction of another index beside an honest proof', async (a, i) => ({ ...a, transaction: (await (await mine)(i + 1n))['transaction'] }), 'VALUE_MISMATCH', 'transaction'],
    ['a receipt hidden beside an honest proof', (a) => ({ ...a, receipt: null }), 'VALUE_MISMATCH', 'receipt'],
    ['the proof of another block named', (a) => ({ ...a, blockHash: large.block.hash }), 'VALUE_MISMATCH', 'blockHash'],
    ['more nodes than an index key has', (a) => ({ ...a, transactionProof: Array(20).fill('0xc0') }), 'BAD_ENCODING', 'transactionProof'],
  ];
  for (const [what, lie, code, field] of lies) {
    it(`catches ${what}`, async () => {
      const c = await connect(small, lie);
      const e = await rejection(c.getTransactionProof(big(small.block.number), 3));
      expect(isVerificationError(e, code as never) && (e as { field?: string }).field, String(e)).toBe(field);
      expect(c.faultyNodes().map((f) => f.url)).toEqual(['http://fixture.invalid/']);
    });
  }

  it('refuses a bad index before asking', async () => {
    const c = await connect(small);
    await expect(c.getTransactionProof(big(small.block.number), -1)).rejects.toThrow(RangeError);
    await expect(c.getTransactionProof(big(small.block.number), 2n ** 64n)).rejects.toThrow(RangeError);
    await expect(c.getTransactionProof(big(small.block.number), '3' as never)).rejects.toThrow(TypeError);
  });
});
