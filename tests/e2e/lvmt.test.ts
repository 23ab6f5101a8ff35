/**
 * LVMT through the SDK against lightprov-node at D = 16: verified presence, absence and history;
 * parameters pinned by the genesis header; a node that tampers with LVMT proofs is caught; a
 * node keeping one proof shard answers for its keys only.
 */
import { LightClient, RpcError, init, isVerificationError, stateKeys } from '@lightprov/sdk';
import { Wallet, keccak256, toBeHex } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { mine, rejection, rpc } from '../lib/util.js';

const KVSTORE = '0x' + 'cc'.repeat(20);
const D16 = ['--lvmt-depth', '16', '--engines', 'mpt,lvmt', '--workload', 'kvstore', '--tx-per-block', '30'];

let node: RunningNode;
let liar: RunningNode;
let shard: RunningNode;

const trust = (n: RunningNode) => ({ genesisHash: n.genesisHash, signers: [n.signer] });
const record = (k: number) => stateKeys.storage(KVSTORE, keccak256(toBeHex(k, 8)));

beforeAll(async () => {
  await init();
  // The first D = 16 node may derive the tables (then cached); the others read them.
  node = await startNode({ args: D16, startTimeoutMs: 240_000 });
  [liar, shard] = await Promise.all([
    startNode({ args: [...D16, '--dishonest', 'lvmt-byte'], startTimeoutMs: 120_000 }),
    startNode({ args: ['--engines', 'mpt,lvmt', '--workload', 'kvstore', '--tx-per-block', '30', '--proof-shard', '1/2'] }),
  ]);
  await Promise.all([mine(node.url, 12), mine(liar.url, 2), mine(shard.url, 3)]);
}, 300_000);
afterAll(async () => {
  await Promise.all([node?.stop(), liar?.stop(), shard?.stop()]);
});

describe('LVMT against lightprov-node (D = 16)', () => {
  it('serves parameters the genesis header names, and says they are insecure', async () => {
    const p = (await rpc(node.url, 'lightprov_params', [])) as { lvmt: { depth: number; id: string; params: string; insecure: boolean; proofShard: string } };
    expect(p.lvmt.depth).toBe(16);
    expect(p.lvmt.insecure).toBe(true);
    expect(p.lvmt.proofShard).toBe('all');
    expect((p.lvmt.params.length - 2) / 2).toBe(1 + 64 * 17);
    const client = await LightClient.connect({ rpc: node.url, trust: trust(node) });
    expect((await client.getHeader(0n)).mixHash).toBe(p.lvmt.id);
  });

  it('proves presence with the value MPT proves, and absence of a key never written', async () => {
    const client = await LightClient.connect({ rpc: node.url, trust: trust(node) });
    const head = (await client.getHeader()).number;
    const dev = client.keys.balance(node.accounts[1]!.address);
    const v = await client.getValueDetailed(dev, { scheme: 'lvmt' });
    expect(v.present).toBe(true);
    expect(v.version).toBe(1n);
    expect(v.writtenAt).toBe(0n);
    expect(v.value).toBe(await client.getBalance(node.accounts[1]!.address, v.block));
    expect(v.block).toBeGreaterThanOrEqual(head);
    expect(v.proofBytes).toBeGreaterThan(500);
    // Workload records: LVMT and MPT agree at the head.
    for (let k = 0; k < 6; k++) {
      const key = record(k);
      const l = await client.getValueDetailed(key, { scheme: 'lvmt' });
      expect(l.value).toBe(await client.getValue(key, { scheme: 'mpt', block: l.block }));
    }
    const absent = await client.getValueDetailed('0x' + '5a'.repeat(32), { scheme: 'lvmt' });
    expect(absent.present).toBe(false);
    expect(absent.value).toBe(0n);
  });

  it('proves a past block by a one-block history, and the history grows with a transfer', async () => {
    const client = await LightClient.connect({ rpc: node.url, trust: trust(node) });
    const to = node.accounts[3]!.address;
    const key = client.keys.balance(to);
    const before = await client.getValueDetailed(key, { scheme: 'lvmt' });
    const wallet = new Wallet(node.accounts[0]!.key);
    const tx = await wallet.signTransaction({ to, value: 12345n, nonce: Number(await client.getTransactionCount(wallet.address)), gasLimit: 21000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1n, chainId: 1337n, type: 2 });
    await rpc(node.url, 'eth_sendRawTransaction', [tx]);
    await mine(node.url, 1);
    const after = await client.getValueDetailed(key, { scheme: 'lvmt' });
    expect(after.value).toBe(before.value + 12345n);
    expect(after.version).toBe(before.version! + 1n);
    const past = await client.getValueDetailed(key, { scheme: 'lvmt', block: before.block });
    expect(past.value).toBe(before.value);
    expect(past.block).toBe(before.block);
    const points = await client.getHistory(key, { fromBlock: 0, scheme: 'lvmt' });
    expect(points).toEqual(await client.getHistory(key, { fromBlock: 0, toBlock: after.anchor.number, scheme: 'mpt' }));
    expect(points.at(-1)).toEqual({ block: after.writtenAt, value: after.value });
  });

  it('refuses a node whose LVMT proofs are tampered with, and returns nothing', async () => {
    const client = await LightClient.connect({ rpc: liar.url, trust: trust(liar) });
    const err = await rejection(client.getValue(client.keys.balance(liar.accounts[1]!.address), { scheme: 'lvmt' }));
    expect(isVerificationError(err)).toBe(true);
    expect(client.faultyNodes().map((f) => f.url)).toEqual([liar.url]);
    const fresh = await LightClient.connect({ rpc: liar.url, trust: trust(liar) });
    expect(isVerificationError(await rejection(fresh.getHistory('0x' + '77'.repeat(32), { fromBlock: 0, scheme: 'lvmt' })))).toBe(true);
  });

  it('refuses parameters other than the pinned ones', async () => {
    const client = await LightClient.connect({ rpc: node.url, trust: trust(node), lvmtParamsId: '0x' + '00'.repeat(31) + '01' });
    const err = await rejection(client.getValue(client.keys.balance(node.accounts[1]!.address), { scheme: 'lvmt' }));
    expect(isVerificationError(err)).toBe(true);
  });

  it('a proof-shard node proves the keys of its shard and refuses the others with -32006', async () => {
    const client = await LightClient.connect({ rpc: shard.url, trust: trust(shard) });
    let served = 0;
    let refused = 0;
    for (let k = 0; k < 12; k++) {
      const key = record(k);
      try {
        const v = await client.getValue(key, { scheme: 'lvmt' });
        expect(v).toBe(await client.getValue(key, { scheme: 'mpt' }));
        served++;
      } catch (e) {
        expect(e).toBeInstanceOf(RpcError);
        expect((e as RpcError).code).toBe(-32006);
        refused++;
      }
    }
    expect(served).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
