/**
 * Forks do not convict honest nodes. Two nodes share a chain's first blocks, then seal branches
 * of their own (`--dishonest fork` stamps its blocks a second later, validly sealed). The client
 * follows Clique's rule: the branch with the greater total difficulty is the chain, a node on the
 * lighter branch is skipped for a read but never marked faulty, and when the other branch grows
 * heavier the client moves to it. The report counts forks survived and honest nodes wrongly
 * marked (which must be 0).
 */
import fs from 'node:fs';

import { FailoverError, LightClient, init } from '@lightprov/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode, tempDataDir } from '../lib/node-process.js';
import { mine, rejection, rpc } from '../lib/util.js';
import { writeFigures } from './figures.js';

const SHARED = 5;
let a: RunningNode;
let b: RunningNode;
const tally = { forks: 0, reorgs: 0, readsAcrossForks: 0, nodesWronglyMarked: 0 };

beforeAll(async () => {
  await init();
  const seed = await startNode({ args: ['--workload', 'transfer', '--tx-per-block', '5'] });
  await mine(seed.url, SHARED);
  await seed.stop();
  const copy = tempDataDir();
  fs.cpSync(seed.dataDir, copy, { recursive: true });
  a = await startNode({ dataDir: seed.dataDir, args: ['--workload', 'transfer', '--tx-per-block', '5'] });
  b = await startNode({ dataDir: copy, args: ['--workload', 'transfer', '--tx-per-block', '5', '--dishonest', 'fork'] });
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  writeFigures(
    'forks',
    [`forks: ${tally.forks} forks survived, ${tally.reorgs} moves to a heavier branch, ${tally.readsAcrossForks} reads answered across forks, ${tally.nodesWronglyMarked} honest nodes wrongly marked`],
    tally,
  );
});

/** A client of both nodes whose requests to `down` URLs fail, as if those nodes were unreachable. */
async function client(order: RunningNode[]) {
  const down = new Set<string>();
  const fetchFn: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (down.has(url)) throw new TypeError('fetch failed');
    return fetch(input, init);
  };
  const c = await LightClient.connect({ rpc: order.map((n) => n.url), trust: { genesisHash: a.genesisHash, signers: [a.signer] }, fetch: fetchFn });
  return { c, down };
}

const head = async (n: RunningNode) => BigInt((await rpc(n.url, 'eth_blockNumber', [])) as string);
const hashAt = async (n: RunningNode, x: bigint) => ((await rpc(n.url, 'eth_getBlockByNumber', ['0x' + x.toString(16), false])) as { hash: string }).hash;

describe('forks', () => {
  it('the heavier branch wins, the node on the lighter one is skipped and never marked, and the client follows a branch that grows heavier', async () => {
    await mine(a.url, 5); // a: SHARED + 5
    await mine(b.url, 3); // b: SHARED + 3, a branch of its own from block SHARED + 1
    expect(await hashAt(a, BigInt(SHARED))).toBe(await hashAt(b, BigInt(SHARED)));
    expect(await hashAt(a, BigInt(SHARED + 1))).not.toBe(await hashAt(b, BigInt(SHARED + 1)));
    tally.forks += 1;

    // b first: its (lighter) branch is all the client has seen.
    const { c, down } = await client([b, a]);
    expect((await c.getHeader('latest')).hash).toBe(await hashAt(b, await head(b)));
    // b unreachable: a's heavier branch replaces b's; a is not marked for disagreeing.
    down.add(b.url);
    const moved = await c.getHeader('latest');
    expect(moved.hash).toBe(await hashAt(a, await head(a)));
    expect(c.faultyNodes()).toEqual([]);
    // b back: it cannot serve the chain's blocks after the fork, so a answers; b is not marked.
    down.delete(b.url);
    expect(await c.getBalance(a.accounts[1]!.address)).toBeGreaterThan(0n);
    expect((await c.getHeader(BigInt(SHARED + 2))).hash).toBe(await hashAt(a, BigInt(SHARED + 2)));
    tally.readsAcrossForks += 2;
    expect(c.faultyNodes()).toEqual([]);
    // a unreachable: b alone cannot serve the heavier chain; the error names both, marks none.
    down.add(a.url);
    const e = await rejection(c.getBalance(a.accounts[1]!.address, BigInt(SHARED + 2)));
    expect(e).toBeInstanceOf(FailoverError);
    expect(c.faultyNodes()).toEqual([]);

    // b's branch grows heavier than a's: the client moves to it.
    await mine(b.url, 5); // b: SHARED + 8 > a: SHARED + 5
    const back = await c.getHeader('latest');
    expect(back.hash).toBe(await hashAt(b, await head(b)));
    expect(c.faultyNodes()).toEqual([]);
    tally.reorgs += 2;
    tally.nodesWronglyMarked += c.faultyNodes().length;
  });
});
