/**
 * The SDK against geth, a real execution client: everything it verifies, compared field by field
 * with geth's plain answers for the same request. geth --dev has no seal on its headers, so the
 * trust anchor is a checkpoint: its head's hash, taken from geth as a user takes one from a
 * source they trust; every block up to it is verified back from it by hash links.
 */
import { type Eip1193Provider, LightClient, RpcError, init } from '@lightprov/sdk';
import { solidityPackedKeccak256, zeroPadValue } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { differences } from '../lib/compare.js';
import { type RunningGeth, checkpointOf, devSend, startGeth } from '../lib/geth.js';
import { CHAIN_ID, DEV_BLOB_SCHEDULE, type GethChain, buildChain, iface } from '../lib/geth-chain.js';
import { withoutMethods } from '../lib/scripted.js';
import { rejection, rpc } from '../lib/util.js';

let g: RunningGeth;
let chain: GethChain;
let client: LightClient;
let eip: Eip1193Provider;
let cp: { number: bigint; hash: string };
const q = (n: bigint | number) => '0x' + n.toString(16);
const geth = (method: string, params: unknown[]) => rpc(g.url, method, params);
/** Cases compared, by method: the report's count. */
const compared: Record<string, number> = {};
const count = (method: string, n = 1) => (compared[method] = (compared[method] ?? 0) + n);

beforeAll(async () => {
  await init();
  g = await startGeth();
  chain = await buildChain(g);
  cp = await checkpointOf(g.url);
  client = await LightClient.connect({ rpc: g.url, trust: { checkpoint: cp, chainId: CHAIN_ID }, blobSchedule: DEV_BLOB_SCHEDULE });
  eip = client.asEip1193();
}, 120_000);

afterAll(async () => {
  await g?.stop();
  const total = Object.values(compared).reduce((a, b) => a + b, 0);
  console.log(`geth comparisons: ${Object.keys(compared).length} methods, ${total} cases: ${JSON.stringify(compared)}`);
});

/** The same request to the SDK's provider and to geth; the answers must be equal field by field. */
async function same(method: string, params: unknown[], ignore: readonly string[] = []): Promise<unknown> {
  const [ours, theirs] = await Promise.all([eip.request({ method, params }), geth(method, params)]);
  const diff = differences(ours, theirs).filter((d) => !ignore.some((i) => d.startsWith(i)));
  expect(diff, `${method}(${JSON.stringify(params).slice(0, 120)})`).toEqual([]);
  count(method);
  return ours;
}

describe('state, verified by eth_getProof, equals geth', () => {
  it('balances, nonces, code, storage and proofs of EOAs, contracts, delegated and absent accounts, at past blocks', async () => {
    const absent = '0x' + 'de'.repeat(20);
    const accounts = [g.dev, chain.sender.address, chain.delegator.address, ...Object.values(chain.contracts), absent];
    const blocks = [...new Set([1n, ...chain.storeHistory.map((s) => s.block), chain.head / 2n, cp.number])].sort((a, b) => Number(a - b));
    // Store's slot 0 (value), its mapping (slot 1) at keys 1, 2, 3, 7, and a slot never written.
    const mapSlot = (k: bigint) => solidityPackedKeccak256(['uint256', 'uint256'], [k, 1n]);
    const slots = ['0x0', mapSlot(1n), mapSlot(2n), mapSlot(3n), mapSlot(7n), '0x' + '99'.repeat(32)];
    // The Token's balance of the sender (OpenZeppelin ERC-20: balances at slot 0).
    const tokenSlot = solidityPackedKeccak256(['bytes32', 'uint256'], [zeroPadValue(chain.sender.address, 32), 0n]);
    for (const b of blocks) {
      for (const a of accounts) {
        await same('eth_getBalance', [a, q(b)]);
        await same('eth_getTransactionCount', [a, q(b)]);
        await same('eth_getCode', [a, q(b)]);
        await same('eth_getProof', [a, a === chain.contracts.Store ? slots : a === chain.contracts.Token ? [tokenSlot] : [], q(b)]);
      }
      for (const s of slots) await same('eth_getStorageAt', [chain.contracts.Store, s, q(b)]);
      await same('eth_getStorageAt', [chain.contracts.Token, tokenSlot, q(b)]);
      await same('eth_getStorageAt', [chain.delegator.address, mapSlot(7n), q(b)]);
    }
    // By tag and by EIP-1898 hash: 'latest' is the checkpoint.
    await same('eth_getBalance', [chain.sender.address, { blockHash: cp.hash }]);
    expect(await eip.request({ method: 'eth_getBalance', params: [chain.sender.address, 'latest'] })).toBe(await geth('eth_getBalance', [chain.sender.address, q(cp.number)]));
    // The delegated EOA's code is the EIP-7702 designator 0xef0100 ‖ Store.
    expect(await eip.request({ method: 'eth_getCode', params: [chain.delegator.address, q(cp.number)] })).toBe('0xef0100' + chain.contracts.Store.slice(2).toLowerCase());
    // The values read back through the LightClient API too.
    const store = await client.getAccount(chain.contracts.Store, [mapSlot(1n)], cp.number);
    expect(store.storage[0]?.value).toBe(111n);
  }, 120_000);
});

describe('blocks, transactions and receipts equal geth', () => {
  it('every block, by number and by hash, with hashes and with transaction objects', async () => {
    for (let n = 0n; n <= cp.number; n++) {
      const b = (await same('eth_getBlockByNumber', [q(n), false])) as { hash: string };
      await same('eth_getBlockByHash', [b.hash, true]);
    }
  }, 120_000);

  it('every transaction and receipt (types 0 to 4, a creation, a revert, blobs)', async () => {
    const kinds = Object.values(chain.txs).flat();
    for (let n = 1n; n <= cp.number; n++) {
      const b = (await geth('eth_getBlockByNumber', [q(n), false])) as { transactions: string[] };
      for (const h of b.transactions) {
        await same('eth_getTransactionByHash', [h]);
        await same('eth_getTransactionReceipt', [h]);
        kinds.splice(kinds.indexOf(h), 1);
      }
    }
    expect(kinds, 'transactions the chain holds').toEqual([]);
    const types = await Promise.all(Object.values(chain.txs).flat().map(async (h) => ((await geth('eth_getTransactionByHash', [h])) as { type: string }).type));
    expect(new Set(types)).toEqual(new Set(['0x0', '0x1', '0x2', '0x3', '0x4']));
    // Without the chain's blob schedule the blob gas price is not known, so not answered.
    const bare = await LightClient.connect({ rpc: g.url, trust: { checkpoint: cp } });
    const r = (await bare.asEip1193().request({ method: 'eth_getTransactionReceipt', params: [chain.txs.blob] })) as Record<string, unknown>;
    expect([r['blobGasUsed'], 'blobGasPrice' in r]).toEqual(['0x40000', false]);
    expect(await eip.request({ method: 'eth_getTransactionByHash', params: ['0x' + '42'.repeat(32)] })).toBeNull();
    expect(await eip.request({ method: 'eth_getTransactionReceipt', params: ['0x' + '42'.repeat(32)] })).toBeNull();
  }, 120_000);
});

describe('logs, transaction proofs and the raw paths against geth', () => {
  it(`eth_getLogs over the whole chain (thousands of Emitter events) equals geth's, by range, address, topics and block hash`, async () => {
    const all = (await same('eth_getLogs', [{ fromBlock: '0x0', toBlock: q(cp.number) }])) as { address: string; blockHash: string }[];
    const emitted = all.filter((l) => l.address === chain.contracts.Emitter.toLowerCase());
    expect(emitted.length).toBe(chain.events + 1);
    await same('eth_getLogs', [{ fromBlock: '0x1', toBlock: q(cp.number), address: chain.contracts.Emitter }]);
    const ping = iface('Emitter').getEvent('Ping')!.topicHash;
    const batch3 = zeroPadValue('0x03', 32);
    const third = (await same('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [ping, batch3] }])) as unknown[];
    expect(third.length).toBe(chain.events / chain.txs.emits.length);
    await same('eth_getLogs', [{ fromBlock: '0x0', toBlock: q(cp.number), address: [chain.contracts.Store, chain.contracts.Token], topics: [[iface('Store').getEvent('Set')!.topicHash, iface('Token').getEvent('Transfer')!.topicHash]] }]);
    await same('eth_getLogs', [{ blockHash: emitted[0]!.blockHash }]);
    // Nothing matches: verified empty through the blooms.
    expect(await same('eth_getLogs', [{ fromBlock: '0x0', toBlock: q(cp.number), topics: ['0x' + '77'.repeat(32)] }])).toEqual([]);
    // The LightClient API gives the same logs.
    const mine = await client.getLogs({ fromBlock: 0n, toBlock: cp.number, address: chain.contracts.Emitter, topics: [ping] });
    expect(mine.length).toBe(chain.events);
  }, 120_000);

  it('getTransactionProof: every index of every block, from the block lists (geth has no lightprov_getTransactionProof), equals geth', async () => {
    let cases = 0;
    for (let n = 0n; n <= cp.number; n++) {
      const b = (await geth('eth_getBlockByNumber', [q(n), true])) as { transactions: Record<string, unknown>[] };
      for (const [i, t] of b.transactions.entries()) {
        const p = await client.getTransactionProof(n, i);
        expect(p?.transaction.hash).toBe(t['hash']);
        const r = (await geth('eth_getTransactionReceipt', [t['hash']])) as Record<string, unknown>;
        expect([p?.receipt.status, q(p!.receipt.gasUsed), q(p!.receipt.cumulativeGasUsed), p?.receipt.contractAddress, p?.receipt.logs.length]).toEqual([
          Number(r['status']),
          r['gasUsed'],
          r['cumulativeGasUsed'],
          r['contractAddress'],
          (r['logs'] as unknown[]).length,
        ]);
        if (p?.receipt.blobGasUsed !== undefined) expect([q(p.receipt.blobGasUsed), q(p.receipt.blobGasPrice!)]).toEqual([r['blobGasUsed'], r['blobGasPrice']]);
        for (const f of Object.keys(p!.transaction.fields)) expect(p!.transaction.fields[f], f).toEqual(t[f]);
        cases++;
      }
      // Past the block's last transaction: proven absent (the whole list rebuilds the root).
      expect(await client.getTransactionProof(n, b.transactions.length)).toBeUndefined();
      cases++;
    }
    count('getTransactionProof', cases);
  }, 120_000);

  it("reads geth's raw forms (debug_getRawBlock, debug_getRawReceipts, eth_getRawTransactionByBlockHashAndIndex), and falls back when a node lacks them", async () => {
    const calls = new Map<string, number>();
    const counted = await LightClient.connect({ rpc: g.url, trust: { checkpoint: cp }, fetch: withoutMethods([], calls) });
    const logs = await counted.getLogs({ fromBlock: 0n, toBlock: cp.number });
    const busy = logs[0]!.blockNumber;
    await counted.asEip1193().request({ method: 'eth_getBlockByNumber', params: [q(busy), false] });
    expect([calls.get('debug_getRawReceipts'), calls.get('debug_getRawBlock'), calls.get('eth_getBlockReceipts')]).toEqual([expect.any(Number), expect.any(Number), undefined]);
    expect(calls.get('eth_getRawTransactionByBlockHashAndIndex')).toBeGreaterThan(0);
    // Without the raw forms: the JSON objects, checked against the same roots, give the same answers.
    const bare = await LightClient.connect({
      rpc: g.url,
      trust: { checkpoint: cp, chainId: CHAIN_ID },
      blobSchedule: DEV_BLOB_SCHEDULE,
      fetch: withoutMethods(['debug_getRawReceipts', 'debug_getRawBlock', 'eth_getRawTransactionByBlockHashAndIndex', 'eth_getBlockTransactionCountByHash']),
    });
    expect(await bare.getLogs({ fromBlock: 0n, toBlock: cp.number })).toEqual(logs);
    for (let n = 0n; n <= cp.number; n++) {
      const b = (await geth('eth_getBlockByNumber', [q(n), false])) as { hash: string };
      expect(differences(await bare.asEip1193().request({ method: 'eth_getBlockByHash', params: [b.hash, false] }), b)).toEqual([]);
      count('eth_getBlockByHash');
    }
  }, 120_000);
});

describe('geth without the debug namespace', () => {
  it('getLogs, blocks, receipts and transaction proofs read the JSON forms and equal geth', async () => {
    const plain = await startGeth({ apis: ['eth', 'net', 'web3', 'dev'] });
    try {
      const small = await buildChain(plain, { emits: 3, perEmit: 50 });
      expect(String(await rejection(rpc(plain.url, 'debug_getRawBlock', ['latest'])))).toMatch(/does not exist/);
      const top = await checkpointOf(plain.url);
      const c = await LightClient.connect({ rpc: plain.url, trust: { checkpoint: top, chainId: CHAIN_ID }, blobSchedule: DEV_BLOB_SCHEDULE });
      const p = c.asEip1193();
      const filter = { fromBlock: '0x0', toBlock: q(top.number) };
      expect(differences(await p.request({ method: 'eth_getLogs', params: [filter] }), await rpc(plain.url, 'eth_getLogs', [filter]))).toEqual([]);
      expect((await c.getLogs({ fromBlock: 0n, toBlock: top.number, address: small.contracts.Emitter })).length).toBe(small.events + 1);
      for (const h of [small.txs.blob, small.txs.setCode, ...small.txs.emits]) {
        expect(differences(await p.request({ method: 'eth_getTransactionReceipt', params: [h] }), await rpc(plain.url, 'eth_getTransactionReceipt', [h]))).toEqual([]);
        const t = (await rpc(plain.url, 'eth_getTransactionByHash', [h])) as { blockNumber: string; transactionIndex: string };
        expect((await c.getTransactionProof(BigInt(t.blockNumber), Number(t.transactionIndex)))?.transaction.hash).toBe(h);
      }
      for (let n = 0n; n <= top.number; n++) {
        const params = [q(n), true];
        expect(differences(await p.request({ method: 'eth_getBlockByNumber', params }), await rpc(plain.url, 'eth_getBlockByNumber', params))).toEqual([]);
      }
      count('without debug_', Number(top.number) + 1 + 1 + 2 * (2 + small.txs.emits.length));
    } finally {
      await plain.stop();
    }
  }, 120_000);
});

describe('the checkpoint anchor on a chain without seals', () => {
  it('verifies back from the checkpoint, not past it until the app adds a newer one; a wrong checkpoint is refused', async () => {
    // geth moves on: a block after the checkpoint.
    await devSend(g, { to: '0x' + 'ab'.repeat(20), value: '0x1' });
    const next = cp.number + 1n;
    const c = await LightClient.connect({ rpc: g.url, trust: { checkpoint: cp } });
    expect((await c.getHeader('latest')).hash).toBe(cp.hash);
    expect((await c.getHeader(0n)).number).toBe(0n);
    const past = await rejection(c.getHeader(next));
    expect(past).toBeInstanceOf(RangeError);
    expect(String(past)).toMatch(/no header after it carries a proof of consensus.*client\.addCheckpoint/);
    // Through the provider too: no block is answered past the verified head.
    const viaEip = await rejection(c.asEip1193().request({ method: 'eth_getBlockByNumber', params: [q(next), false] }));
    expect([(viaEip as { code?: number }).code, String(viaEip)]).toEqual([-32602, expect.stringMatching(/addCheckpoint/)]);
    // A newer checkpoint from the trusted source: the blocks between are verified by hash links.
    const newer = await checkpointOf(g.url);
    expect((await c.addCheckpoint(newer)).hash).toBe(newer.hash);
    expect((await c.getHeader('latest')).number).toBe(newer.number);
    expect(await c.getBalance('0x' + 'ab'.repeat(20), newer.number)).toBe(1n);
    // A checkpoint that contradicts the verified chain is the caller's error (the node is not
    // marked faulty); an unknown hash is no block.
    expect(String(await rejection(c.addCheckpoint({ number: 1n, hash: cp.hash })))).toMatch(/RangeError: checkpoint: .* is block \d+, not 1/);
    const block2 = (await geth('eth_getBlockByNumber', ['0x2', false])) as { hash: string };
    expect((await c.addCheckpoint({ number: 2n, hash: block2.hash })).hash).toBe(block2.hash);
    expect(await rejection(c.addCheckpoint({ number: newer.number + 5n, hash: '0x' + '11'.repeat(32) }))).toBeInstanceOf(RpcError);
    expect(c.faultyNodes()).toEqual([]);
    expect((await c.getHeader('latest')).number).toBe(newer.number);
  });
});
