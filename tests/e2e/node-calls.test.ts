/**
 * Verified calls against lightprov-node's own chain: `--workload erc20` deploys a token (and a
 * Multicall3) at genesis and moves tokens between the workload accounts every block. The node is
 * a Clique chain: its headers keep Clique's difficulty (1 or 2) under Prague's rules, which a
 * verified call runs under only as a proof-of-authority chain's. A client anchored by the
 * genesis hash and the signers runs its calls so; `client.call`'s `balanceOf` equals the node's
 * own `eth_call` at every block, for every holder.
 */
import { LightClient, init } from '@lightprov/sdk';
import { Interface, getCreateAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { mine, rejection, rpc } from '../lib/util.js';

const BLOCKS = 4;
/** The node's forks: every one through Prague from genesis (geth's genesis config keys). */
const FORKS = { londonBlock: 0, shanghaiTime: 0, cancunTime: 0, pragueTime: 0 };
const token = getCreateAddress({ from: '0x' + 'de'.repeat(20), nonce: 0 });
const erc20 = new Interface(['function balanceOf(address) view returns (uint256)']);
const quantity = (n: number) => '0x' + n.toString(16);

let node: RunningNode;
let chainId: bigint;
/** Holders whose balances moved: the senders of the workload's first token transfers. */
let HOLDERS: string[];

beforeAll(async () => {
  await init();
  node = await startNode({ args: ['--workload', 'erc20', '--seed', '1', '--tx-per-block', '40'] });
  await mine(node.url, BLOCKS);
  chainId = BigInt((await rpc(node.url, 'eth_chainId', [])) as string);
  const senders = new Set<string>();
  for (let b = 1; b <= BLOCKS; b++) {
    const block = (await rpc(node.url, 'eth_getBlockByNumber', [quantity(b), true])) as { transactions: { from: string }[] };
    for (const t of block.transactions.slice(0, 2)) senders.add(t.from);
  }
  HOLDERS = [...senders];
}, 120_000);

afterAll(async () => {
  await node?.stop();
});

const balanceOf = (who: string) => ({ to: token, data: erc20.encodeFunctionData('balanceOf', [who]) });

describe('verified calls on lightprov-node (genesis + signers anchor)', () => {
  it("token balanceOf by client.call equals the node's eth_call at every block", async () => {
    const client = await LightClient.connect({ rpc: node.url, trust: { genesisHash: node.genesisHash, signers: [node.signer], chainId }, chainConfig: FORKS });
    const seen = new Set<string>();
    for (let b = 0; b <= BLOCKS; b++) {
      for (const h of HOLDERS) {
        const ours = await client.call(balanceOf(h), { block: b });
        const theirs = await rpc(node.url, 'eth_call', [balanceOf(h), quantity(b)]);
        expect(ours, `holder ${h} at block ${b}`).toBe(theirs);
        seen.add(ours);
      }
    }
    // The transfers moved tokens: the balances are not all one value.
    expect(HOLDERS.length).toBeGreaterThan(1);
    expect(seen.size).toBeGreaterThan(1);
  }, 120_000);

  it("runs under proof-of-authority rules by geth's clique key alone; without them the Clique headers are refused", async () => {
    const head = Number(await rpc(node.url, 'eth_blockNumber', []));
    const block = (await rpc(node.url, 'eth_getBlockByNumber', [quantity(head), false])) as { hash: string };
    // A checkpoint anchor names no signers: the chain's rules come from its config.
    const trust = { checkpoint: { number: head, hash: block.hash }, chainId };
    const withClique = await LightClient.connect({ rpc: node.url, trust, chainConfig: { ...FORKS, clique: { period: 0, epoch: 30000 } } });
    expect(await withClique.call(balanceOf(HOLDERS[0] as string))).toBe(await rpc(node.url, 'eth_call', [balanceOf(HOLDERS[0] as string), quantity(head)]));
    const without = await LightClient.connect({ rpc: node.url, trust, chainConfig: FORKS });
    expect(String(await rejection(without.call(balanceOf(HOLDERS[0] as string))))).toMatch(/difficulty 0/);
  }, 120_000);
});
