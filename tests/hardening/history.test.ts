/**
 * Long histories: `getHistory` over more blocks than one proof covers, against lightprov-node,
 * equal to one verified eth_getProof per block. In the full run the node sets no bound of its
 * own and the chain runs past the POS-Tree format's 4,096 blocks a proof, so MBT (1,024) and
 * POS-Tree histories of the whole chain are each several proofs that must join; the quick run
 * (`npm test`) cuts a shorter chain by the node's `--max-history-range`. The proofs each
 * history took, the blocks a proof covered and the time are the figures.
 */
import { LightClient, type Progress, type StateKey, init, stateKeys } from '@lightprov/sdk';
import type { HistoryScheme } from '@lightprov/sdk';
import { keccak256, toBeHex } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { sized, writeFigures } from './figures.js';

const KVSTORE = '0x' + 'cc'.repeat(20);
/** Past POS-Tree's 4,096 blocks a proof in the full run. */
const BLOCKS = sized(300, 4200);
/** The node's bound: none in the full run (the formats' bounds cut the range). */
const NODE_BOUND = sized(100, 1_000_000);
const SCHEMES: HistoryScheme[] = ['mbt', 'pos'];

let node: RunningNode;
const lines: string[] = [];
const figures: Record<string, unknown>[] = [];

/** `n` blocks, `evm_mine` in batches of 100. */
async function mineMany(url: string, n: number): Promise<void> {
  for (let done = 0; done < n; done += 100) {
    const batch = Array.from({ length: Math.min(100, n - done) }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'evm_mine', params: [] }));
    const answers = (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) })).json()) as { error?: unknown }[];
    expect(answers.filter((a) => a.error !== undefined)).toEqual([]);
  }
}

beforeAll(async () => {
  await init();
  node = await startNode({ args: ['--engines', 'mpt,mbt,pos', '--workload', 'kvstore', '--tx-per-block', '2', '--max-history-range', String(NODE_BOUND)] });
  await mineMany(node.url, BLOCKS);
}, 600_000);
afterAll(async () => {
  await node?.stop();
  writeFigures('history', lines, { blocks: BLOCKS, nodeBound: NODE_BOUND, histories: figures });
});

describe('histories longer than one proof covers', () => {
  it('MBT and POS-Tree histories of the whole chain join and equal one eth_getProof per block', async () => {
    const progress: Progress[] = [];
    const c = await LightClient.connect({ rpc: node.url, trust: { genesisHash: node.genesisHash, signers: [node.signer] }, onProgress: (p) => progress.push(p) });
    const head = (await c.getHeader()).number;
    expect(head).toBe(BigInt(BLOCKS));
    // Records the workload moved (two writes a block: some of the first thousand move), and one never written.
    const keys: StateKey[] = [];
    for (let k = 0; keys.length < 2 && k < 1000; k++) {
      const key = stateKeys.storage(KVSTORE, keccak256(toBeHex(k, 8)));
      if ((await c.getStorageAt(KVSTORE, key.slot!, 0n)) !== (await c.getStorageAt(KVSTORE, key.slot!, head))) keys.push(key);
    }
    expect(keys.length).toBe(2);
    keys.push(stateKeys.storage(KVSTORE, keccak256(toBeHex(1_000_000, 8))));
    for (const key of keys) {
      const t0 = performance.now();
      const mpt = await c.getHistory(key, { fromBlock: 0n, toBlock: head, scheme: 'mpt' });
      const mptMs = performance.now() - t0;
      for (const scheme of SCHEMES) {
        progress.length = 0;
        const t1 = performance.now();
        const h = await c.getHistoryDetailed(key, { fromBlock: 0n, toBlock: head, scheme });
        const ms = performance.now() - t1;
        expect(h.points, `${scheme} history of ${key.stateKey} over 0..${head}`).toEqual(mpt);
        const steps = progress.flatMap((p) => (p.direction === 'history' ? [p] : []));
        const proofs = h.chunks?.length ?? 1;
        const perProof = steps[0]?.blocksPerProof ?? head + 1n;
        expect(proofs, `${scheme}: proofs`).toBeGreaterThan(1);
        expect(steps.map((p) => p.verified)).toEqual([...Array(proofs).keys()].map((i) => BigInt(i + 1)));
        expect(perProof).toBe(sized(BigInt(NODE_BOUND), scheme === 'mbt' ? 1024n : 4096n));
        figures.push({ scheme, stateKey: key.stateKey, blocks: Number(head) + 1, points: h.points.length, proofs, blocksPerProof: Number(perProof), proofBytes: h.proofBytes, ms: Math.round(ms), mptMs: Math.round(mptMs) });
      }
    }
    for (const scheme of SCHEMES) {
      const f = figures.filter((x) => x['scheme'] === scheme);
      const ms = f.map((x) => x['ms'] as number);
      lines.push(
        `long history ${scheme}: ${f.length} keys over ${Number(head) + 1} blocks, each in ${String(f[0]?.['proofs'])} proofs of ≤ ${String(f[0]?.['blocksPerProof'])} blocks that join; ` +
          `equal to ${Number(head) + 1} eth_getProof answers; ${Math.min(...ms)}–${Math.max(...ms)} ms a history (MPT ${Math.round(Math.max(...f.map((x) => x['mptMs'] as number)))} ms)`,
      );
    }
  }, 600_000);
});
