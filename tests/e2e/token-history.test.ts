/**
 * A token balance's verified history against lightprov-node's `--workload erc20` (OpenZeppelin's
 * ERC-20 deployed at genesis, tokens moved between the workload accounts every block):
 * `client.keys.erc20Balance` finds the balances mapping's slot by a verified probe, and the
 * history of that key by every provenance family equals `balanceOf` run by a verified call at
 * every block of the range. A given slot is taken as it is (no request): a wrong one draws that
 * slot's history, which is not the balance's. The probe refuses what it cannot tell, naming why.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { ExecutionError, LightClient, SlotProbeError, changesFromValues, historySchemes, init, stateKeys } from '@lightprov/sdk';
import { Interface, Wallet, getCreateAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { mine, rejection, rpc } from '../lib/util.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BLOCKS = 12;
/** The node's forks: every one through Prague from genesis. */
const FORKS = { londonBlock: 0, shanghaiTime: 0, cancunTime: 0, pragueTime: 0 };
const token = getCreateAddress({ from: '0x' + 'de'.repeat(20), nonce: 0 }).toLowerCase();
const multicall = getCreateAddress({ from: '0x' + 'de'.repeat(20), nonce: 1 }).toLowerCase();
/** Tokens each workload account holds at genesis (the node's TOKENS_EACH). */
const TOKENS_EACH = 1_000_000n;
const erc20 = new Interface(['function balanceOf(address) view returns (uint256)']);
const quantity = (n: number) => '0x' + n.toString(16);

let node: RunningNode;
let chainId: bigint;
/** Holders whose balances moved: the sender and the recipient of block 1's first token transfer. */
let HOLDERS: string[];
/** Requests the client sent. */
let requests = 0;

const connect = () =>
  LightClient.connect({
    rpc: node.url,
    trust: { genesisHash: node.genesisHash, signers: [node.signer], chainId },
    chainConfig: FORKS,
    fetch: (input, init) => {
      requests++;
      return fetch(input, init);
    },
  });

/** `balanceOf(holder)` at `block`, by a verified call. */
const verifiedBalance = async (client: LightClient, holder: string, block: number) =>
  BigInt(await client.call({ to: token, data: erc20.encodeFunctionData('balanceOf', [holder]) }, { block }));

beforeAll(async () => {
  await init();
  node = await startNode({ args: ['--workload', 'erc20', '--seed', '3', '--tx-per-block', '40'] });
  await mine(node.url, BLOCKS);
  chainId = BigInt((await rpc(node.url, 'eth_chainId', [])) as string);
  const block = (await rpc(node.url, 'eth_getBlockByNumber', [quantity(1), true])) as { transactions: { from: string; input: string }[] };
  const first = block.transactions[0];
  if (!first) throw new Error('block 1 holds no transaction');
  const to = new Interface(['function transfer(address,uint256)']).decodeFunctionData('transfer', first.input)[0] as string;
  HOLDERS = [first.from.toLowerCase(), to.toLowerCase()];
}, 120_000);

afterAll(async () => {
  await node?.stop();
});

describe('client.keys.erc20Balance', () => {
  it("finds the balances mapping's slot by a verified probe: OpenZeppelin's slot 0", async () => {
    const client = await connect();
    const head = await client.getHeader('latest');
    for (const holder of HOLDERS) {
      const key = await client.keys.erc20Balance(token, holder);
      expect(key.slotIndex).toBe(0n);
      expect([key.kind, key.address, key.token, key.owner]).toEqual(['storage', token, token, holder]);
      expect(key.slot).toBe(stateKeys.mapping(token, 0, holder).slot);
      expect(key.stateKey).toBe(stateKeys.storage(token, key.slot).stateKey);
      // The probe ran at the head: its balance is the verified call's, its call proved the token's slot.
      const probe = key.probe!;
      expect(probe.header.number).toBeGreaterThanOrEqual(head.number);
      expect(probe.balance).toBe(await verifiedBalance(client, holder, Number(probe.header.number)));
      expect(probe.candidates).toBe(32);
      expect(probe.call.rounds).toBeGreaterThanOrEqual(1);
      expect(probe.call.slots).toBeGreaterThanOrEqual(1);
      // What the call proved: the token's account with the holder's entry, the one balanceOf reads.
      expect(probe.call.proven.find((p) => p.address === token)?.slots).toContain(key.slot);
      expect(probe.call.proven.reduce((n, p) => n + p.slots.length, 0)).toBe(probe.call.slots);
    }
    // The derivation against the chain's own storage: at genesis every holder's entry holds the
    // minted amount (the token compiled by solc, its layout solc's).
    for (const holder of HOLDERS) expect(BigInt(await client.getStorageAt(token, stateKeys.mapping(token, 0, holder).slot!, 0n))).toBe(TOKENS_EACH);
    // A probe at a past block runs there.
    const past = await client.keys.erc20Balance(token, HOLDERS[0]!, { block: 2 });
    expect([past.slotIndex, past.probe?.header.number, past.probe?.balance]).toEqual([0n, 2n, await verifiedBalance(client, HOLDERS[0]!, 2)]);
  }, 120_000);

  it("draws the same history by every family, equal to the verified balanceOf at every block", async () => {
    const client = await connect();
    const schemes = historySchemes().map((s) => s.id);
    expect(schemes).toEqual(expect.arrayContaining(['cole', 'cole-star', 'lvmt', 'mbt', 'pos', 'forkless', 'mpt']));
    for (const holder of HOLDERS) {
      const key = await client.keys.erc20Balance(token, holder);
      // balanceOf by a verified call at each block: the changes are where it differs from the block before.
      const balances: bigint[] = [];
      for (let b = 0; b <= BLOCKS; b++) balances.push(await verifiedBalance(client, holder, b));
      const expected = changesFromValues(balances, 0n);
      expect(expected.length, `${holder}: ${balances.join(', ')}`).toBeGreaterThan(1);
      expect(expected[0]).toEqual({ block: 0n, value: TOKENS_EACH });
      for (const scheme of schemes) {
        const h = await client.getHistory(key, { fromBlock: 0, toBlock: BLOCKS, scheme });
        expect(h, `${scheme} ${holder}`).toEqual(expected);
        // A range from a block after a change: the value in force there, then the later changes.
        const from = Number(expected[1]!.block) + 1;
        expect(await client.getHistory(key, { fromBlock: from, toBlock: BLOCKS, scheme }), `${scheme} ${holder} from ${from}`).toEqual(changesFromValues(balances.slice(from), BigInt(from)));
      }
    }
  }, 300_000);

  it('takes a given slot as it is, without a request: a wrong one draws a history that is not the balance', async () => {
    const client = await connect();
    const holder = HOLDERS[0]!;
    const before = requests;
    const right = await client.keys.erc20Balance(token, holder, { slot: 0 });
    const wrong = await client.keys.erc20Balance(token, holder, { slot: 1 });
    expect(requests).toBe(before);
    expect([right.probe, wrong.probe]).toEqual([undefined, undefined]);
    expect(right.slot).toBe((await client.keys.erc20Balance(token, holder)).slot);
    // Slot 1 is OpenZeppelin's allowances mapping: its entry for the holder is a mapping's base,
    // never written. Its history is verified — of that slot — and is not the balance's.
    const balances: bigint[] = [];
    for (let b = 0; b <= BLOCKS; b++) balances.push(await verifiedBalance(client, holder, b));
    for (const scheme of ['cole', 'lvmt', 'mpt'] as const) {
      const h = await client.getHistory(wrong, { fromBlock: 0, toBlock: BLOCKS, scheme });
      expect(h).toEqual([{ block: 0n, value: 0n }]);
      expect(h).not.toEqual(changesFromValues(balances, 0n));
      expect(await client.getHistory(right, { fromBlock: 0, toBlock: BLOCKS, scheme })).toEqual(changesFromValues(balances, 0n));
    }
  }, 120_000);

  it('refuses what the probe cannot tell, naming the field', async () => {
    const client = await connect();
    // No tokens: every unwritten slot holds the same 0.
    const nobody = Wallet.createRandom().address;
    const zero = (await rejection(client.keys.erc20Balance(token, nobody))) as SlotProbeError;
    expect(zero).toBeInstanceOf(SlotProbeError);
    expect([zero.reason, zero.field, zero.balance]).toEqual(['zero-balance', 'options.slot', 0n]);
    // The slot a holder's probe found serves an owner with no tokens.
    const found = await client.keys.erc20Balance(token, HOLDERS[0]!);
    const given = await client.keys.erc20Balance(token, nobody, { slot: found.slotIndex });
    expect(await client.getHistory(given, { fromBlock: 0, toBlock: BLOCKS, scheme: 'cole' })).toEqual([{ block: 0n, value: 0n }]);
    // Multicall3 has no balanceOf: the verified call reverts, and its error is the call's.
    expect(await rejection(client.keys.erc20Balance(multicall, HOLDERS[0]!))).toBeInstanceOf(ExecutionError);
    // An account without code returns nothing: not an ERC-20.
    const eoa = (await rejection(client.keys.erc20Balance(HOLDERS[1]!, HOLDERS[0]!))) as SlotProbeError;
    expect([eoa.reason, eoa.field]).toEqual(['not-a-uint256', 'token']);
    expect(eoa.message).toMatch(/^token: balanceOf\(owner\) returned 0 bytes/);
    // The arguments.
    await expect(client.keys.erc20Balance(token, HOLDERS[0]!, { probeSlots: 0 })).rejects.toThrow(/^options\.probeSlots:/);
    await expect(client.keys.erc20Balance(token, HOLDERS[0]!, { slot: 0, block: 3 })).rejects.toThrow(/^options\.block: only for the probe/);
    await expect(client.keys.erc20Balance(token, HOLDERS[0]!, { slots: 0 } as never)).rejects.toThrow(/^options\.slots: unknown option/);
    await expect(client.keys.erc20Balance('0x12', HOLDERS[0]!)).rejects.toThrow(/^token: expected 20 bytes/);
    await expect(client.keys.erc20Balance(token, HOLDERS[0]!, { slot: -1 })).rejects.toThrow(/^options\.slot: out of range/);
  }, 120_000);

  it('the example in sdk/examples runs against the node', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'sdk', 'examples', 'token-history.mjs'), HOLDERS[0]!], {
      env: { ...process.env, LIGHTPROV_RPC: node.url, LIGHTPROV_GENESIS: node.genesisHash, LIGHTPROV_SIGNER: node.signer, LIGHTPROV_CHAIN_ID: String(chainId) },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/only slot 0's holds it/);
    expect(r.stdout).toMatch(/^forkless +\d+ points/m);
    expect(r.stdout).toMatch(/every family agrees, and the history ends at the verified balanceOf/);
  }, 150_000);
});
