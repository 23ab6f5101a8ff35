/**
 * The POS-Tree through the SDK against lightprov-node: a value at any past block (against that
 * block's posRoot), a key range, the changes between two blocks and a history, each equal to
 * what MPT proves; a node that answers for another block is caught.
 */
import { LightClient, RpcError, type StateKey, init, isVerificationError, stateKeys } from '@lightprov/sdk';
import { keccak256, toBeHex } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { mine, rejection, rpc } from '../lib/util.js';

const KVSTORE = '0x' + 'cc'.repeat(20);
const HEAD = 20n;

let node: RunningNode;
let client: LightClient;

const record = (k: number): StateKey => stateKeys.storage(KVSTORE, keccak256(toBeHex(k, 8)));

beforeAll(async () => {
  await init();
  node = await startNode({ args: ['--engines', 'mpt,pos', '--workload', 'kvstore', '--tx-per-block', '30'] });
  await mine(node.url, Number(HEAD));
  client = await LightClient.connect({ rpc: node.url, trust: { genesisHash: node.genesisHash, signers: [node.signer] } });
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

/** Records the workload moved between blocks 0 and HEAD. */
async function moved(n: number): Promise<StateKey[]> {
  const out: StateKey[] = [];
  for (let k = 0; out.length < n && k < 10_000; k++) {
    const key = record(k);
    const [a, b] = await Promise.all([client.getStorageAt(KVSTORE, key.slot!, 5n), client.getStorageAt(KVSTORE, key.slot!, HEAD)]);
    if (a !== b) out.push(key);
  }
  return out;
}

describe('POS-Tree against lightprov-node', () => {
  it('proves a value at the head and at past blocks, each against its own block, as MPT does', async () => {
    const keys = [...(await moved(3)), record(50_000), client.keys.balance(node.accounts[1]!.address)];
    for (const key of keys) {
      for (const block of [0n, 5n, 12n, HEAD]) {
        const v = await client.getValueDetailed(key, { scheme: 'pos', block });
        expect(v.block).toBe(block);
        expect(v.anchor.number).toBe(block);
        expect(v.value, `${key.stateKey} at ${block}`).toBe(await client.getValue(key, { scheme: 'mpt', block }));
        expect(v.present).toBe(v.value !== 0n);
      }
    }
  });

  it('proves a key range complete, and the changes between two blocks', async () => {
    const entries = await client.getRange('0x' + '00'.repeat(32), '0x' + '3f'.repeat(32), { block: 12n });
    expect(entries.length).toBeGreaterThan(0);
    for (let i = 1; i < entries.length; i++) expect(BigInt(entries[i]!.key) > BigInt(entries[i - 1]!.key)).toBe(true);
    for (const e of entries.slice(0, 5)) {
      expect(await client.getValue(e.key, { scheme: 'pos', block: 12n })).toBe(e.value);
    }
    const changes = await client.getDiff(5n, HEAD, { scheme: 'pos' });
    expect(changes.length).toBeGreaterThan(0);
    for (const key of await moved(3)) {
      const c = changes.find((x) => x.stateKey === key.stateKey);
      expect(c, key.stateKey).toBeDefined();
      const [a, b] = [await client.getValue(key, { scheme: 'mpt', block: 5n }), await client.getValue(key, { scheme: 'mpt', block: HEAD })];
      expect(c!.old ?? 0n).toBe(a);
      expect(c!.new ?? 0n).toBe(b);
    }
    expect(await client.getDiff(7n, 7n, { scheme: 'pos' })).toEqual([]);
    await expect(client.getDiff(9n, 3n, { scheme: 'pos' })).rejects.toThrow(RangeError);
    await expect(client.getRange('0x' + '11'.repeat(32), '0x' + '10'.repeat(32))).rejects.toThrow(RangeError);
    await expect(client.getDiff(1n, 2n, { scheme: 'amt' as never })).rejects.toThrow(TypeError);
    await expect(client.getDiff(1n, 2n)).rejects.toThrow(TypeError); // two schemes answer diffs: name one
  });

  it('proves a history equal to one eth_getProof per block, and re-verifies it', async () => {
    const [key] = await moved(1);
    const h = await client.getHistoryDetailed(key!, { fromBlock: 3, toBlock: 15, scheme: 'pos' });
    expect(h.points).toEqual(await client.getHistory(key!, { fromBlock: 3, toBlock: 15, scheme: 'mpt' }));
    expect(h.anchors?.length).toBe(13);
    client.verifyHistoryProof(h);
  });

  it('rejects an answer proven against another block than asked', async () => {
    const key = client.keys.balance(node.accounts[1]!.address);
    const wrong = (await rpc(node.url, 'lightprov_getPosProof', [key.stateKey, '0x3'])) as { proof: string };
    const right = (await rpc(node.url, 'lightprov_getPosProof', [key.stateKey, '0x4'])) as { proof: string };
    expect(wrong.proof).not.toBe(right.proof);
    const { verifyPosValue, posRootOf } = await import('@lightprov/sdk/pos');
    const header4 = await client.getHeader(4n);
    const e = (() => {
      try {
        verifyPosValue({ proof: wrong.proof, stateKey: key.stateKey, posRoot: posRootOf(header4.extraData) });
      } catch (err) {
        return err;
      }
      return null;
    })();
    expect(isVerificationError(e, 'ROOT_MISMATCH'), String(e)).toBe(true);
  });

  it('the node refuses malformed calls naming the argument', async () => {
    const err = (await rejection(rpc(node.url, 'lightprov_getPosDiff', ['0x5', '0x99']))) as RpcError;
    expect(err).toBeInstanceOf(RpcError);
    expect(err.message).toMatch(/toBlock/);
    const bad = (await rejection(rpc(node.url, 'lightprov_getPosRange', ['0x' + '22'.repeat(32), '0x' + '11'.repeat(32)]))) as RpcError;
    expect(bad.message).toMatch(/hi/);
  });
});
