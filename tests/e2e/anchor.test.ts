/**
 * COLE and LVMT roots are read only from chains that commit to them: the anchor says which
 * commitments the chain carries (read from a trusted genesis header in lightprov's layout, or
 * given as `trust.commitments`), and a query of a family whose roots the chain does not carry is
 * refused with UNSUPPORTED_SCHEME before any request — a checkpoint on a chain whose block
 * builders choose `extraData` never turns extraData bytes into a trusted root.
 */
import { LightClient, init, isVerificationError, stateKeys } from '@lightprov/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { mine, rejection, rpc } from '../lib/util.js';

let node: RunningNode;

beforeAll(async () => {
  await init();
  // COLE and COLE*, no LVMT: the genesis carries coleRoot, and zero lvmtRoot and mixHash.
  node = await startNode({ args: ['--engines', 'mpt,cole,cole-star', '--workload', 'transfer', '--tx-per-block', '5'] });
  await mine(node.url, 6);
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

/** A fetch that records the calls it makes, and the HTTP requests (a batch is one). */
function counting(): { fetch: typeof fetch; calls: string[]; requests: number[] } {
  const calls: string[] = [];
  const requests: number[] = [];
  return {
    calls,
    requests,
    fetch: async (input, init) => {
      const body = JSON.parse(String(init?.body)) as { method?: string } | { method?: string }[];
      for (const c of Array.isArray(body) ? body : [body]) calls.push(String(c.method));
      requests.push(Array.isArray(body) ? body.length : 1);
      return fetch(input, init);
    },
  };
}

const key = () => stateKeys.balance(node.accounts[1]!.address);

describe('which commitments a chain carries', () => {
  it('a genesis anchor reads them from the genesis header: COLE yes, LVMT no — refused before any request', async () => {
    const { fetch, calls } = counting();
    const c = await LightClient.connect({ rpc: node.url, trust: { genesisHash: node.genesisHash, signers: [node.signer] }, fetch });
    expect((await c.getHistory(key(), { fromBlock: 0, toBlock: 3, scheme: 'cole' })).length).toBeGreaterThan(0);
    const before = calls.length;
    for (const q of [() => c.getValue(key(), { scheme: 'lvmt' }), () => c.getHistory(key(), { fromBlock: 0, toBlock: 3, scheme: 'lvmt' })]) {
      const e = await rejection(q());
      expect(isVerificationError(e, 'UNSUPPORTED_SCHEME'), String(e)).toBe(true);
      expect((e as Error).message).toContain(`lvmt: the chain of genesisHash ${node.genesisHash} does not commit to lvmtRoot, lvmtHistoryRoot, lvmtParamsId`);
    }
    expect(calls.length).toBe(before);
    expect(c.faultyNodes()).toEqual([]);
  });

  it('a checkpoint anchor carries only stateRoot unless trust.commitments says more', async () => {
    const cp = (await rpc(node.url, 'eth_getBlockByNumber', ['0x2', false])) as { hash: string };
    const checkpoint = { number: 2n, hash: cp.hash };
    const { fetch, calls } = counting();
    const plain = await LightClient.connect({ rpc: node.url, trust: { checkpoint, signers: [node.signer] }, fetch });
    const before = calls.length;
    const e = await rejection(plain.getHistory(key(), { fromBlock: 0, toBlock: 4, scheme: 'cole-star' }));
    expect(isVerificationError(e, 'UNSUPPORTED_SCHEME'), String(e)).toBe(true);
    expect((e as Error).message).toContain(`the chain of checkpoint.hash ${cp.hash} does not commit to coleRoot`);
    expect(calls.length).toBe(before);
    // MPT needs only stateRoot.
    expect(await plain.getBalance(node.accounts[1]!.address, 4n)).toBeGreaterThan(0n);
    const declared = await LightClient.connect({ rpc: node.url, trust: { checkpoint, signers: [node.signer], commitments: ['coleRoot'] } });
    expect(await declared.getHistory(key(), { fromBlock: 0, toBlock: 4, scheme: 'cole-star' })).toEqual(
      await declared.getHistory(key(), { fromBlock: 0, toBlock: 4, scheme: 'mpt' }),
    );
  });

  it("a checkpoint's backward walk is fetched in batches and reports its progress", async () => {
    await mine(node.url, 250);
    const head = (await rpc(node.url, 'eth_getBlockByNumber', ['latest', false])) as { hash: string; number: string };
    const { fetch, calls, requests } = counting();
    const seen: { verified: bigint; total: bigint; direction: string }[] = [];
    const c = await LightClient.connect({
      rpc: node.url,
      trust: { checkpoint: { number: BigInt(head.number), hash: head.hash } },
      fetch,
      batchSize: 100,
      onProgress: (p) => seen.push(p),
    });
    const [callsBefore, requestsBefore] = [calls.length, requests.length];
    const genesis = await c.getHeader(0n);
    expect(genesis.hash).toBe(node.genesisHash);
    const total = BigInt(head.number);
    // Every header below the checkpoint is fetched once, in batches of 100 (not a request each).
    expect(calls.slice(callsBefore).filter((m) => m === 'eth_getBlockByNumber').length).toBe(Number(total));
    expect(requests.length - requestsBefore).toBeLessThanOrEqual(Math.ceil(Number(total) / 100) + 1);
    expect(seen.map((p) => p.direction)).toEqual(seen.map(() => 'backward'));
    expect(seen.at(-1)).toEqual({ direction: 'backward', verified: total, total });
    expect(seen.length).toBe(Math.ceil(Number(total) / 100));
    // The cap: a walk longer than maxHeaderGap is refused before any request.
    const capped = await LightClient.connect({ rpc: node.url, trust: { checkpoint: { number: BigInt(head.number), hash: head.hash } }, maxHeaderGap: 10 });
    await expect(capped.getHeader(0n)).rejects.toThrow(/more than maxHeaderGap headers before the verified/);
  });

  it('trust.commitments names only commitments that exist', async () => {
    const e = await rejection(LightClient.connect({ rpc: node.url, trust: { genesisHash: node.genesisHash, signers: [node.signer], commitments: ['colRoot'] } }));
    expect(e).toBeInstanceOf(RangeError);
    expect(String(e)).toMatch(/^RangeError: trust\.commitments\[0\]: no header commitment is named "colRoot"/);
    expect(await rejection(LightClient.connect({ rpc: node.url, trust: { genesisHash: node.genesisHash, signers: [node.signer], commitments: 'coleRoot' as never } }))).toBeInstanceOf(TypeError);
  });
});
