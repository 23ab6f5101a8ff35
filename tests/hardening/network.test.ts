/**
 * The SDK under a lying network (scripted nodes in front of an honest one). Numbers a node
 * chooses — its head, the block its proof is against, the number it gives a hash — never stop a
 * read: a node whose numbers the client cannot verify is skipped for the read, one whose numbers
 * contradict its own is marked faulty, the next node answers, and only when every node fails
 * does one error list each node's fault. The report counts the lies caught, the reads answered
 * by failover and the honest nodes wrongly marked (which must be 0).
 */
import { FailoverError, LightClient, NodeFaultError, type StateKey, init, stateKeys } from '@lightprov/sdk';
import { keccak256, toBeHex } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { type Script, scriptedFetch } from '../lib/scripted.js';
import { mine, rejection, rpc } from '../lib/util.js';
import { writeFigures } from './figures.js';

const KVSTORE = '0x' + 'cc'.repeat(20);
/** Far past maxHeaderGap, but a number a chain could reach. */
const FAR = '0x' + (10n ** 12n).toString(16);
/** Beyond 2^53: no chain is that long. */
const IMPOSSIBLE = '0xfffffffffffff0';
let node: RunningNode;
let head: bigint;

beforeAll(async () => {
  await init();
  node = await startNode({ args: ['--workload', 'kvstore', '--tx-per-block', '20', '--cole-l0-capacity', '48', '--cole-size-ratio', '3'] });
  await mine(node.url, 12);
  head = BigInt((await rpc(node.url, 'eth_blockNumber', [])) as string);
}, 120_000);
const tally = { scenarios: 0, liesCaught: 0, readsByFailover: 0, liarsMarked: 0, honestWronglyMarked: 0 };

afterAll(async () => {
  await node?.stop();
  writeFigures(
    'network',
    [
      `lying network: ${tally.scenarios} scenarios, ${tally.liesCaught} lies caught, ${tally.readsByFailover} reads answered by the next node, ${tally.liarsMarked} contradicting nodes marked faulty, ${tally.honestWronglyMarked} honest nodes wrongly marked`,
    ],
    tally,
  );
});

/** Counts a scenario: the honest node must never be marked faulty. */
function count(c: LightClient, outcome: { caught: number; byFailover?: number }): void {
  tally.scenarios += 1;
  tally.liesCaught += outcome.caught;
  tally.readsByFailover += outcome.byFailover ?? 0;
  const marked = c.faultyNodes().map((f) => f.url);
  tally.liarsMarked += marked.filter((u) => u !== node.url).length;
  tally.honestWronglyMarked += marked.filter((u) => u === node.url).length;
  expect(marked).not.toContain(node.url);
}

const record = (k: number): StateKey => stateKeys.storage(KVSTORE, keccak256(toBeHex(k, 8)));

/** Lies about the head and about the block its proofs are against: far ahead. */
const farAhead: Script = (method, _params, result) => {
  if (method === 'eth_blockNumber') return FAR;
  if (method === 'lightprov_getHistory' || method === 'lightprov_getLvmtProof') return { ...(result as object), block: FAR };
  return result;
};

/** Claims a head and proofs beyond 2^53. */
const impossibly: Script = (method, _params, result) => {
  if (method === 'eth_blockNumber') return IMPOSSIBLE;
  if (method === 'lightprov_getHistory') return { ...(result as object), block: IMPOSSIBLE };
  return result;
};

/** Claims its proofs are against a block after the head it reports itself. */
const pastItsHead: Script = (method, _params, result) => {
  if (method === 'lightprov_getHistory') return { ...(result as object), block: '0x' + (head + 5n).toString(16) };
  return result;
};

async function client(liars: Record<string, Script>, order: string[]) {
  const fetch = scriptedFetch(Object.fromEntries(Object.entries(liars).map(([url, script]) => [url, { target: node.url, script }])));
  return LightClient.connect({ rpc: order, trust: { genesisHash: node.genesisHash, signers: [node.signer] }, fetch });
}

describe('node-chosen numbers', () => {
  it('a node claiming a far head and proofs against a far block is skipped; the next node answers', async () => {
    const c = await client({ 'http://far.invalid/': farAhead }, ['http://far.invalid/', node.url]);
    const honest = await (await LightClient.connect({ rpc: node.url, trust: { genesisHash: node.genesisHash, signers: [node.signer] } })).getHistory(record(1), {
      fromBlock: 0n,
      toBlock: head,
      scheme: 'cole',
    });
    expect(await c.getHistory(record(1), { fromBlock: 0n, toBlock: head, scheme: 'cole' })).toEqual(honest);
    expect((await c.getHeader('latest')).number).toBeGreaterThanOrEqual(head);
    expect(await c.getBalance(node.accounts[2]!.address)).toBe(10n ** 24n);
    // Not provably lying (the client cannot verify that far), so not marked: skipped per read.
    expect(c.faultyNodes()).toEqual([]);
    count(c, { caught: 3, byFailover: 3 });
  });

  it('a node naming a block beyond 2^53 is marked faulty; the next node answers', async () => {
    const c = await client({ 'http://impossible.invalid/': impossibly }, ['http://impossible.invalid/', node.url]);
    expect((await c.getHistory(record(4), { fromBlock: 0n, toBlock: head, scheme: 'cole' })).length).toBeGreaterThan(0);
    const faulty = c.faultyNodes();
    expect(faulty.map((f) => f.url)).toEqual(['http://impossible.invalid/']);
    expect(faulty[0]?.error).toBeInstanceOf(NodeFaultError);
    expect(faulty[0]?.error.message).toMatch(/beyond 2\^53/);
    count(c, { caught: 1, byFailover: 1 });
  });

  it('a node whose proof is against a block after its own head is marked faulty', async () => {
    const c = await client({ 'http://past.invalid/': pastItsHead }, ['http://past.invalid/', node.url]);
    const points = await c.getHistory(record(2), { fromBlock: 0n, toBlock: head, scheme: 'cole-star' });
    expect(points.length).toBeGreaterThan(0);
    const faulty = c.faultyNodes();
    expect(faulty.map((f) => f.url)).toEqual(['http://past.invalid/']);
    expect(faulty[0]?.error).toBeInstanceOf(NodeFaultError);
    expect(faulty[0]?.error.message).toMatch(/after its own head/);
    count(c, { caught: 1, byFailover: 1 });
  });

  it('when every node fails, one error lists each node and its fault', async () => {
    const c = await client({ 'http://far.invalid/': farAhead, 'http://past.invalid/': pastItsHead }, ['http://far.invalid/', 'http://past.invalid/']);
    const e = await rejection(c.getHistory(record(3), { fromBlock: 0n, toBlock: head, scheme: 'cole' }));
    expect(e).toBeInstanceOf(FailoverError);
    const f = e as FailoverError;
    expect(f.faults.map((x) => x.url)).toEqual(['http://far.invalid/', 'http://past.invalid/']);
    expect(f.faults[1]?.error).toBeInstanceOf(NodeFaultError);
    expect(f.message).toMatch(/far\.invalid.*maxHeaderGap.*past\.invalid.*after its own head/);
    // The next read lists the node marked before, without asking it again.
    const again = (await rejection(c.getHistory(record(3), { fromBlock: 0n, toBlock: head, scheme: 'cole' }))) as FailoverError;
    expect(again.faults[1]?.error).toBe(f.faults[1]?.error);
    count(c, { caught: 2 });
  });
});
