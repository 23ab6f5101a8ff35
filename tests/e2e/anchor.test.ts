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

/** A fetch that counts the calls it makes. */
function counting(): { fetch: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    fetch: async (input, init) => {
      const body = JSON.parse(String(init?.body)) as { method?: string } | { method?: string }[];
      for (const c of Array.isArray(body) ? body : [body]) calls.push(String(c.method));
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

  it('trust.commitments names only commitments that exist', async () => {
    const e = await rejection(LightClient.connect({ rpc: node.url, trust: { genesisHash: node.genesisHash, signers: [node.signer], commitments: ['colRoot'] } }));
    expect(e).toBeInstanceOf(RangeError);
    expect(String(e)).toMatch(/^RangeError: trust\.commitments\[0\]: no header commitment is named "colRoot"/);
    expect(await rejection(LightClient.connect({ rpc: node.url, trust: { genesisHash: node.genesisHash, signers: [node.signer], commitments: 'coleRoot' as never } }))).toBeInstanceOf(TypeError);
  });
});
