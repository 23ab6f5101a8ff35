/**
 * Histories over more blocks than one proof covers, through the SDK against lightprov-node:
 *  - a node that bounds `lightprov_getHistory` (`--max-history-range 8`): COLE, COLE*, LVMT, MBT
 *    and POS-Tree histories over the whole chain are read in proofs of 8 blocks that share their
 *    seam block, equal one eth_getProof per block; the bound is learned once per node (from
 *    `lightprov_status`, after the node refused a range) and shown in `onProgress` with the
 *    number of proofs; forkless, which no bound covers, stays one proof;
 *  - a node with no bound of its own past MBT's format bound (1,024 blocks a proof): MBT in two
 *    proofs, POS-Tree (4,096) in one, both equal to MPT;
 *  - lying nodes: one that answers a proof of the range shifted by a block (overlapping the proof
 *    before, or leaving the seam block out, where a change would hide), and one that advertises a
 *    bound of one block, are caught, and an honest node second answers.
 */
import { LightClient, type Progress, RpcError, type StateKey, type VerifiedHistory, historyProof, init, isVerificationError, stateKeys } from '@lightprov/sdk';
import type { HistoryScheme } from '@lightprov/sdk';
import { historyChunks } from '@lightprov/sdk/family';
import { keccak256, toBeHex } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { scriptedFetch } from '../lib/scripted.js';
import { mine, rejection, rpc } from '../lib/util.js';

const KVSTORE = '0x' + 'cc'.repeat(20);
const BOUND = 8n;
const BOUNDED_BLOCKS = 30;
/** Past MBT's 1,024 blocks a proof. */
const LONG_BLOCKS = 1030;
const CHUNKED: HistoryScheme[] = ['cole', 'cole-star', 'lvmt', 'mbt', 'pos'];

let bounded: RunningNode;
let long: RunningNode;

beforeAll(async () => {
  await init();
  [bounded, long] = await Promise.all([
    startNode({ args: ['--workload', 'kvstore', '--tx-per-block', '20', '--cole-l0-capacity', '48', '--cole-size-ratio', '3', '--max-history-range', String(BOUND)] }),
    startNode({ args: ['--engines', 'mpt,mbt,pos', '--workload', 'kvstore', '--tx-per-block', '2', '--max-history-range', '1000000'] }),
  ]);
  await Promise.all([mine(bounded.url, BOUNDED_BLOCKS), mine(long.url, LONG_BLOCKS)]);
}, 600_000);
afterAll(async () => {
  await Promise.all([bounded?.stop(), long?.stop()]);
});

const trust = (n: RunningNode) => ({ genesisHash: n.genesisHash, signers: [n.signer] });
const record = (k: number): StateKey => stateKeys.storage(KVSTORE, keccak256(toBeHex(k, 8)));

/** A `fetch` that counts the JSON-RPC methods it sends. */
function counting(): { fetch: typeof fetch; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  return {
    calls,
    fetch: async (input, init) => {
      const body = JSON.parse(String(init?.body)) as { method: string } | { method: string }[];
      for (const c of Array.isArray(body) ? body : [body]) calls.set(c.method, (calls.get(c.method) ?? 0) + 1);
      return fetch(input, init);
    },
  };
}

/** Records the workload moved between the first block and `head`, and one never written. */
async function keysOf(c: LightClient, head: bigint, n: number): Promise<StateKey[]> {
  const moved: StateKey[] = [];
  for (let k = 0; moved.length < n && k < 1000; k++) {
    const key = record(k);
    if ((await c.getStorageAt(KVSTORE, key.slot!, 1n)) !== (await c.getStorageAt(KVSTORE, key.slot!, head))) moved.push(key);
  }
  expect(moved.length).toBe(n);
  return [...moved, record(1_000_000)];
}

describe('a history longer than one proof covers', () => {
  it("is read in proofs of the node's bound that join, equal to one eth_getProof per block", async () => {
    const { fetch, calls } = counting();
    const progress: Progress[] = [];
    const c = await LightClient.connect({ rpc: bounded.url, trust: trust(bounded), fetch, onProgress: (p) => progress.push(p) });
    const head = (await c.getHeader()).number;
    const plan = historyChunks(0n, head, BOUND);
    expect(plan.length).toBeGreaterThan(3);
    const keys = await keysOf(c, head, 2);
    for (const key of keys) {
      const mpt = await c.getHistory(key, { fromBlock: 0n, toBlock: head, scheme: 'mpt' });
      for (const scheme of CHUNKED) {
        progress.length = 0;
        const h = await c.getHistoryDetailed(key, { fromBlock: 0n, toBlock: head, scheme });
        expect(h.points, `${scheme} history of ${key.stateKey}`).toEqual(mpt);
        expect(h.chunks?.map((p) => [p.fromBlock, p.toBlock])).toEqual(plan);
        expect([h.fromBlock, h.toBlock, h.anchor.number >= head]).toEqual([0n, head, true]);
        if (scheme === 'mbt') expect(h.blockRoots?.length).toBe(Number(head) + 1);
        if (scheme === 'pos') expect(h.anchors?.map((a) => a.number)).toEqual([...Array(Number(head) + 1).keys()].map(BigInt));
        expect(progress).toEqual(plan.map((_, i) => ({ direction: 'history', scheme, blocksPerProof: BOUND, verified: BigInt(i + 1), total: BigInt(plan.length) })));
        // Its proof is the last one's, and verifies in place; a byte flipped in it does not.
        const proof = historyProof(h).proof as string;
        c.verifyHistoryProof(h);
        const flipped = proof.slice(0, -2) + ((parseInt(proof.slice(-2), 16) ^ 1).toString(16).padStart(2, '0'));
        expect(() => c.verifyHistoryProof(h, flipped)).toThrow();
      }
    }
    // The bound was learned once: one refused call, one status, then proofs only.
    expect(calls.get('lightprov_status')).toBe(1);
    expect(calls.get('lightprov_getHistory')).toBe(1 + keys.length * CHUNKED.length * plan.length);
    // A range within the bound is one proof, as before.
    const one = await c.getHistoryDetailed(keys[0]!, { fromBlock: 3n, toBlock: 3n + BOUND - 1n, scheme: 'cole' });
    expect(one.chunks).toBeUndefined();
    // Forkless proofs are not bounded by range: one proof, equal to MPT too.
    const f = await c.getHistoryDetailed(keys[0]!, { fromBlock: 0n, toBlock: head, scheme: 'forkless' });
    expect(f.chunks).toBeUndefined();
    expect(f.points).toEqual(await c.getHistory(keys[0]!, { fromBlock: 0n, toBlock: head, scheme: 'mpt' }));
  });

  it("is read in proofs of the format's bound where the node sets none: MBT past 1,024 blocks, POS-Tree in one proof", async () => {
    const progress: Progress[] = [];
    const c = await LightClient.connect({ rpc: long.url, trust: trust(long), onProgress: (p) => progress.push(p) });
    const head = (await c.getHeader()).number;
    expect(head).toBeGreaterThan(1024n);
    const [key] = await keysOf(c, head, 1);
    const mpt = await c.getHistory(key!, { fromBlock: 0n, toBlock: head, scheme: 'mpt' });
    expect(mpt.length).toBeGreaterThan(1);
    const mbt = await c.getHistoryDetailed(key!, { fromBlock: 0n, toBlock: head, scheme: 'mbt' });
    expect(mbt.points).toEqual(mpt);
    expect(mbt.chunks?.map((p) => [p.fromBlock, p.toBlock])).toEqual([
      [0n, 1023n],
      [1023n, head],
    ]);
    expect(progress.filter((p) => p.direction === 'history').map((p) => [p.scheme, p.blocksPerProof, p.verified, p.total])).toEqual([
      ['mbt', 1024n, 1n, 2n],
      ['mbt', 1024n, 2n, 2n],
    ]);
    const pos = await c.getHistoryDetailed(key!, { fromBlock: 0n, toBlock: head, scheme: 'pos' });
    expect(pos.points).toEqual(mpt);
    expect(pos.chunks).toBeUndefined();
  });
});

describe('lying nodes on a history read in several proofs', () => {
  /** The honest answer of `lightprov_getHistory` for a range. */
  const answer = (key: StateKey, lo: bigint, hi: bigint, scheme: HistoryScheme) => rpc(bounded.url, 'lightprov_getHistory', [key.stateKey, '0x' + lo.toString(16), '0x' + hi.toString(16), scheme]);

  it('catches a proof of the range shifted by a block: overlapping the proof before, or leaving the seam block out', async () => {
    const probe = await LightClient.connect({ rpc: bounded.url, trust: trust(bounded) });
    const head = (await probe.getHeader()).number;
    const [key] = await keysOf(probe, head, 1);
    const plan = historyChunks(0n, head, BOUND);
    const [lo, hi] = plan[1]!;
    for (const scheme of CHUNKED) {
      const honest = await probe.getHistory(key!, { fromBlock: 0n, toBlock: head, scheme });
      for (const [lie, shift] of [
        ['overlapping', -1n],
        ['seam left out', 1n],
      ] as const) {
        const shifted = await answer(key!, lo + shift, hi + shift, scheme);
        const fetch = scriptedFetch({
          'http://liar.invalid/': { target: bounded.url, script: (method, params, result) => (method === 'lightprov_getHistory' && BigInt(params[1] as string) === lo ? shifted : result) },
        });
        const alone = await LightClient.connect({ rpc: 'http://liar.invalid/', trust: trust(bounded), fetch });
        const e = await rejection(alone.getHistory(key!, { fromBlock: 0n, toBlock: head, scheme }));
        expect(isVerificationError(e), `${scheme}, ${lie}: ${String(e)}`).toBe(true);
        if (scheme === 'mbt' || scheme === 'pos') expect((e as { code: string }).code, `${scheme}, ${lie}`).toBe(lie === 'overlapping' && scheme === 'mbt' ? 'INCOMPLETE_RANGE' : 'RANGE_MISMATCH');
        expect(alone.faultyNodes().map((f) => f.url)).toEqual(['http://liar.invalid/']);
        const both = await LightClient.connect({ rpc: ['http://liar.invalid/', bounded.url], trust: trust(bounded), fetch });
        expect(await both.getHistory(key!, { fromBlock: 0n, toBlock: head, scheme }), `${scheme}, ${lie}: the honest node's answer`).toEqual(honest);
      }
    }
  });

  it('a node that advertises a bound of one block cannot be read from, and the next node answers', async () => {
    const fetch = scriptedFetch({
      'http://one.invalid/': { target: bounded.url, script: (method, _params, result) => (method === 'lightprov_status' ? { ...(result as object), maxHistoryRange: 1 } : result) },
    });
    const alone = await LightClient.connect({ rpc: 'http://one.invalid/', trust: trust(bounded), fetch });
    const head = (await alone.getHeader()).number;
    const key = record(1);
    const e = await rejection(alone.getHistory(key, { fromBlock: 0n, toBlock: head, scheme: 'cole' }));
    expect(e).toBeInstanceOf(RpcError);
    expect(String(e)).toContain('proves at most 1 block a call');
    const both = await LightClient.connect({ rpc: ['http://one.invalid/', bounded.url], trust: trust(bounded), fetch });
    const h: VerifiedHistory = await both.getHistoryDetailed(key, { fromBlock: 0n, toBlock: head, scheme: 'cole' });
    expect(h.points).toEqual(await both.getHistory(key, { fromBlock: 0n, toBlock: head, scheme: 'mpt' }));
  });
});
