/**
 * The SDK against geth, a real execution client: everything it verifies, compared field by field
 * with geth's plain answers for the same request. geth --dev has no seal on its headers, so the
 * trust anchor is a checkpoint: its head's hash, taken from geth as a user takes one from a
 * source they trust; every block up to it is verified back from it by hash links.
 */
import { type Eip1193Provider, LightClient, init } from '@lightprov/sdk';
import { solidityPackedKeccak256, zeroPadValue } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { differences } from '../lib/compare.js';
import { type RunningGeth, checkpointOf, startGeth } from '../lib/geth.js';
import { CHAIN_ID, DEV_BLOB_SCHEDULE, type GethChain, buildChain } from '../lib/geth-chain.js';
import { rpc } from '../lib/util.js';

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
    expect(await eip.request({ method: 'eth_getTransactionByHash', params: ['0x' + '42'.repeat(32)] })).toBeNull();
    expect(await eip.request({ method: 'eth_getTransactionReceipt', params: ['0x' + '42'.repeat(32)] })).toBeNull();
  }, 120_000);
});
