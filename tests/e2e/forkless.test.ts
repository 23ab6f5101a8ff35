/**
 * The forkless LiveDB through the SDK against lightprov-node: values and histories verified
 * against forklessRoot agree with MPT's at the head and at past blocks; a key never written is
 * proven absent; a key written to zero is present with the value zero; a node that tampers with
 * a forkless proof is caught and failed over; the StateKey is required.
 */
import { LightClient, NodeFaultError, init, isVerificationError, stateKeys } from '@lightprov/sdk';
import { Wallet, keccak256, toBeHex } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { scriptedFetch } from '../lib/scripted.js';
import { mine, rejection, rpc } from '../lib/util.js';

const KVSTORE = '0x' + 'cc'.repeat(20);
let node: RunningNode;

const trust = () => ({ genesisHash: node.genesisHash, signers: [node.signer] });
const record = (k: number) => stateKeys.storage(KVSTORE, keccak256(toBeHex(k, 8)));

beforeAll(async () => {
  await init();
  node = await startNode({ args: ['--engines', 'mpt,forkless', '--workload', 'kvstore', '--tx-per-block', '30', '--forkless-page-size', '1024'] });
  await mine(node.url, 12);
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

describe('forkless against lightprov-node', () => {
  it('reports its engine with live and archive bytes and its parameters', async () => {
    // The LiveDB files are flushed every 64 blocks (the journal covers the blocks between).
    await mine(node.url, 64);
    const s = (await rpc(node.url, 'lightprov_status', [])) as { engines: { name: string; liveBytes?: number; archiveBytes?: number; params?: { pageSize: number } }[] };
    const f = s.engines.find((e) => e.name === 'forkless');
    expect(f?.params?.pageSize).toBe(1024);
    expect(f?.liveBytes).toBeGreaterThan(0);
    expect(f?.archiveBytes).toBeGreaterThan(0);
  });

  it('proves values MPT proves, at the head and at past blocks, and absence of a key never written', async () => {
    const client = await LightClient.connect({ rpc: node.url, trust: trust() });
    const head = (await client.getHeader()).number;
    const dev = client.keys.balance(node.accounts[1]!.address);
    const v = await client.getValueDetailed(dev, { scheme: 'forkless' });
    expect(v.scheme).toBe('forkless');
    expect(v.present).toBe(true);
    expect(v.block).toBeGreaterThanOrEqual(head);
    expect(v.value).toBe(await client.getBalance(node.accounts[1]!.address, v.block));
    for (let k = 0; k < 6; k++) {
      const key = record(k);
      for (const block of [3n, 7n, head]) {
        expect(await client.getValue(key, { scheme: 'forkless', block }), `record ${k} at ${block}`).toBe(await client.getValue(key, { scheme: 'mpt', block }));
      }
    }
    const never = await client.getValueDetailed(client.keys.balance('0x' + '5a'.repeat(20)), { scheme: 'forkless' });
    expect(never.present).toBe(false);
    expect(never.value).toBe(0n);
  });

  it('reports presence at the block asked: a key first written later has no record there', async () => {
    const client = await LightClient.connect({ rpc: node.url, trust: trust() });
    // A fresh account's balance, first written by a transfer to it.
    const fresh = '0x' + '7e'.repeat(20);
    const wallet = new Wallet(node.accounts[0]!.key);
    const tx = await wallet.signTransaction({ to: fresh, value: 12345n, nonce: Number(await client.getTransactionCount(wallet.address)), gasLimit: 21000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1n, chainId: 1337n, type: 2 });
    const hash = await rpc(node.url, 'eth_sendRawTransaction', [tx]);
    await mine(node.url, 2);
    const key = client.keys.balance(fresh);
    const head = (await client.getHeader()).number;
    const written = BigInt(((await rpc(node.url, 'eth_getTransactionReceipt', [hash])) as { blockNumber: string }).blockNumber);
    expect(written).toBeLessThan(head);
    expect(await client.getBalance(fresh, written - 1n)).toBe(0n);
    expect(await client.getBalance(fresh, written)).toBe(12345n);
    const now = await client.getValueDetailed(key, { scheme: 'forkless', block: head });
    expect([now.present, now.value], 'at the head').toEqual([true, 12345n]);
    for (const block of [0n, written - 1n]) {
      const v = await client.getValueDetailed(key, { scheme: 'forkless', block });
      expect([v.block, v.present, v.value, v.writtenAt], `at block ${block}, before the transfer`).toEqual([block, false, 0n, undefined]);
    }
    const at = await client.getValueDetailed(key, { scheme: 'forkless', block: written });
    expect([at.block, at.present, at.value, at.writtenAt], `at block ${written}`).toEqual([written, true, 12345n, written]);
  });

  it('proves complete histories that equal MPT\'s block by block', async () => {
    const client = await LightClient.connect({ rpc: node.url, trust: trust() });
    for (const k of [0, 1, 2]) {
      const q = { fromBlock: 1, toBlock: 10 };
      const f = await client.getHistoryDetailed(record(k), { ...q, scheme: 'forkless' });
      const m = await client.getHistory(record(k), { ...q, scheme: 'mpt' });
      expect(f.points).toEqual(m);
      expect(f.proofBytes).toBeGreaterThan(0);
    }
  });

  it('needs the StateKey: a bare state key is a TypeError naming key', async () => {
    const client = await LightClient.connect({ rpc: node.url, trust: trust() });
    const e = await rejection(client.getValue(record(0).stateKey, { scheme: 'forkless' }));
    expect(e).toBeInstanceOf(TypeError);
    expect(String(e)).toContain('key');
  });

  it('catches a node that flips a byte of a forkless proof, and fails over to an honest one', async () => {
    const flip = (hex: string) => hex.slice(0, -2) + ((parseInt(hex.slice(-2), 16) ^ 1).toString(16).padStart(2, '0'));
    const fetch = scriptedFetch({
      'http://liar.invalid/': {
        target: node.url,
        script: (method, _params, result) =>
          method === 'lightprov_getForklessProof' ? { ...(result as { proof: string }), proof: flip((result as { proof: string }).proof) } : result,
      },
    });
    const alone = await LightClient.connect({ rpc: 'http://liar.invalid/', trust: trust(), fetch });
    const e = await rejection(alone.getValue(record(1), { scheme: 'forkless' }));
    expect(isVerificationError(e) || e instanceof NodeFaultError, String(e)).toBe(true);
    const both = await LightClient.connect({ rpc: ['http://liar.invalid/', node.url], trust: trust(), fetch });
    expect(await both.getValue(record(1), { scheme: 'forkless' })).toBe(await both.getValue(record(1), { scheme: 'mpt' }));
  });
});
