/**
 * Verified histories through the SDK against lightprov-node: COLE, COLE*, LVMT and the MPT baseline
 * agree for random keys and ranges, and a node that tampers with a provenance proof is caught.
 */
import { LightClient, RpcError, type StateKey, historyProof, historySchemes, init, isVerificationError, stateKeys, verifyColeHistory } from '@lightprov/sdk';
import { forgeProof, inspectorFor, outlineHistory } from '@lightprov/sdk/inspect';
import { keccak256, toBeHex } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { mine, rejection, rpc } from '../lib/util.js';

const KVSTORE = '0x' + 'cc'.repeat(20);
const SMALL_COLE = ['--cole-l0-capacity', '48', '--cole-size-ratio', '3'];

let node: RunningNode;
let liar: RunningNode;

beforeAll(async () => {
  await init();
  const args = ['--workload', 'kvstore', '--tx-per-block', '40', ...SMALL_COLE];
  [node, liar] = await Promise.all([startNode({ args }), startNode({ args: [...args, '--dishonest', 'history-byte'] })]);
  await Promise.all([mine(node.url, 40), mine(liar.url, 5)]);
}, 120_000);
afterAll(async () => {
  await Promise.all([node?.stop(), liar?.stop()]);
});

const trust = (n: RunningNode) => ({ genesisHash: n.genesisHash, signers: [n.signer] });
const record = (k: number): StateKey => stateKeys.storage(KVSTORE, keccak256(toBeHex(k, 8)));

describe('getHistory against lightprov-node', () => {
  it('COLE, COLE* and one eth_getProof per block give the same history', async () => {
    const client = await LightClient.connect({ rpc: node.url, trust: trust(node) });
    // Records the workload moved: compare head and genesis values.
    const moved: StateKey[] = [];
    for (let k = 0; moved.length < 4 && k < 10_000; k++) {
      const key = record(k);
      const [a, b] = await Promise.all([client.getStorageAt(KVSTORE, key.slot!, 0n), client.getStorageAt(KVSTORE, key.slot!, 40n)]);
      if (a !== b) moved.push(key);
    }
    expect(moved.length).toBe(4);
    const keys = [...moved, record(20_000), client.keys.balance(node.accounts[2]!.address)];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (const key of keys) {
      for (let i = 0; i < 3; i++) {
        const fromBlock = BigInt(rand(36));
        const toBlock = fromBlock + BigInt(rand(40 - Number(fromBlock)));
        const q = { fromBlock, toBlock };
        const [cole, star, lvmt, mpt] = await Promise.all([
          client.getHistory(key, { ...q, scheme: 'cole' }),
          client.getHistory(key, { ...q, scheme: 'cole-star' }),
          client.getHistory(key, { ...q, scheme: 'lvmt' }),
          client.getHistory(key, { ...q, scheme: 'mpt' }),
        ]);
        expect(cole).toEqual(mpt);
        expect(star).toEqual(mpt);
        expect(lvmt).toEqual(mpt);
        expect(cole[0]!.block).toBe(fromBlock);
      }
    }
    // A long range with many changes, against the verified head.
    const all = await client.getHistoryDetailed(moved[0]!, { fromBlock: 0, scheme: 'cole' });
    expect(all.points.length).toBeGreaterThan(1);
    expect(all.anchor.number).toBeGreaterThanOrEqual(40n);
    expect(all.proofBytes).toBeGreaterThan(0);
  });

  it('verifyHistoryProof: every scheme\'s own proof verifies in place, its forgeries are rejected with the announced code', async () => {
    const client = await LightClient.connect({ rpc: node.url, trust: trust(node) });
    let key = record(0);
    for (let k = 0; k < 10_000; k++) {
      key = record(k);
      const [a, b] = await Promise.all([client.getStorageAt(KVSTORE, key.slot!, 0n), client.getStorageAt(KVSTORE, key.slot!, 40n)]);
      if (a !== b) break;
    }
    for (const { id: scheme } of historySchemes()) {
      const h = await client.getHistoryDetailed(key, { fromBlock: 10, toBlock: 40, scheme });
      expect(h.stateKey).toBe(key.stateKey);
      const { proof } = historyProof(h);
      client.verifyHistoryProof(h);
      client.verifyHistoryProof(h, proof);
      expect((await outlineHistory(h)).root.matches, scheme).toBe(true);
      let rejected = 0;
      for (const { kind } of inspectorFor(scheme).forgeries) {
        const f = await forgeProof({ family: scheme, kind, proof }).catch((e: unknown) => {
          expect(e, `${scheme} ${kind}`).toBeInstanceOf(RangeError); // a class that does not fit this proof
          return null;
        });
        if (!f) continue;
        let code = 'accepted';
        try {
          client.verifyHistoryProof(h, f.proof);
        } catch (e) {
          code = isVerificationError(e) ? e.code : String(e);
        }
        expect(code, `${scheme} ${kind}`).toBe(f.expectedCode);
        rejected++;
      }
      expect(rejected, scheme).toBeGreaterThan(0);
    }
    // A forged proof checked in place is no node's fault.
    expect(client.faultyNodes()).toEqual([]);
  });

  it('checks its arguments at the edge', async () => {
    const client = await LightClient.connect({ rpc: node.url, trust: trust(node) });
    const key = record(1);
    await expect(client.getHistory(key, { fromBlock: 5, toBlock: 2, scheme: 'cole' })).rejects.toThrow(RangeError);
    await expect(client.getHistory(key, { fromBlock: 0, toBlock: 2, scheme: 'amt' as never })).rejects.toThrow(TypeError);
    await expect(client.getHistory(key.stateKey, { fromBlock: 0, toBlock: 2, scheme: 'mpt' })).rejects.toThrow(TypeError);
    await expect(client.getHistory({ ...key, stateKey: '0x' + '11'.repeat(32) }, { fromBlock: 0, toBlock: 2, scheme: 'cole' })).rejects.toThrow(RangeError);
    // The node's range limit comes back as an RpcError with its code.
    const err = await rejection(rpc(node.url, 'lightprov_getHistory', [key.stateKey, '0x0', '0x10000', 'cole']));
    expect(err).toBeInstanceOf(RpcError);
  });

  it('rejects a tampered provenance proof from a lying node and returns nothing', async () => {
    const client = await LightClient.connect({ rpc: liar.url, trust: trust(liar) });
    const err = await rejection(client.getHistory(record(3), { fromBlock: 0, toBlock: 4, scheme: 'cole' }));
    expect(isVerificationError(err)).toBe(true);
    expect(client.faultyNodes().map((f) => f.url)).toEqual([liar.url]);
  });

  it('verifyColeHistory refuses a proof with any byte flipped, or checked as the other engine', async () => {
    const client = await LightClient.connect({ rpc: node.url, trust: trust(node) });
    const r = (await rpc(node.url, 'lightprov_getHistory', [record(3).stateKey, '0x0', '0x4', 'cole'])) as { proof: string; block: string; siblingRoot: string };
    const header = await client.getHeader(BigInt(r.block));
    const bytes = Uint8Array.from(Buffer.from(r.proof.slice(2), 'hex'));
    const args = { stateKey: record(3).stateKey, fromBlock: 0n, toBlock: 4n, coleRoot: header.extraData.slice(0, 66), siblingRoot: r.siblingRoot, scheme: 'cole' as const };
    expect(() => verifyColeHistory({ ...args, proof: bytes })).not.toThrow();
    const refused = (f: () => unknown) => rejection(Promise.resolve().then(f));
    for (let at = 0; at < bytes.length; at += Math.max(1, Math.floor(bytes.length / 50))) {
      const t = bytes.slice();
      t[at]! ^= 1;
      expect(isVerificationError(await refused(() => verifyColeHistory({ ...args, proof: t })))).toBe(true);
    }
    const other = await refused(() => verifyColeHistory({ ...args, proof: bytes, scheme: 'cole-star' }));
    expect(isVerificationError(other, 'ROOT_MISMATCH')).toBe(true);
  });
});
