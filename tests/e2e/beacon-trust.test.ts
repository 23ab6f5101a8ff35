/**
 * `LightClient` with `trust: { beacon }` against `lightprov-node --consensus sync-committee`: the
 * client trusts only a finalized beacon block root, follows the node's simulated sync committee
 * over the beacon light-client API, and reads state at the execution block the committee signed
 * — the head moves as the chain grows, `finalized` is the beacon chain's finalized block, older
 * blocks come by hash links, and a beacon node that lies is marked faulty while an honest one
 * serves. A head older than maxHeadAge is refused (STALE_HEAD); one member's signature moves
 * the protocol's optimistic header, never the client's head.
 */
import { LightClient, StaleHeadError, isVerificationError } from '@lightprov/sdk';
import type { BeaconTrust } from '@lightprov/sdk/beacon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { mine, rpc } from '../lib/util.js';

let node: RunningNode;
let network: { preset: 'minimal'; genesisValidatorsRoot: string; lastFork: 'fulu' };
let checkpoint: string;

interface Status {
  currentSlot: string;
  finalized: { blockNumber: string; blockHash: string };
  optimistic?: { blockNumber: string; blockHash: string };
}
const status = async (): Promise<Status> => (await (await fetch(new URL('/lightprov/v1/beacon/status', node.url))).json()) as Status;
const slot = async () => BigInt((await status()).currentSlot);

beforeAll(async () => {
  node = await startNode({ args: ['--engines', 'mpt', '--consensus', 'sync-committee'] });
  await mine(node.url, 40);
  const g = (await (await fetch(new URL('/eth/v1/beacon/genesis', node.url))).json()) as { data: { genesis_validators_root: string } };
  network = { preset: 'minimal', genesisValidatorsRoot: g.data.genesis_validators_root, lastFork: 'fulu' };
  // The test's trusted root: the node's finalized header now (an app would get it elsewhere).
  const h = (await (await fetch(new URL('/eth/v1/beacon/headers/finalized', node.url))).json()) as { data: { root: string } };
  checkpoint = h.data.root;
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

/** The client's clock: the node's current slot when last asked ({@link tick}). */
let current = 0n;
const clock = () => current;
const tick = async () => {
  current = await slot();
};

/** A client trusting the checkpoint, following the node's committee at the node's slot. */
async function connect(over: Partial<BeaconTrust> = {}): Promise<LightClient> {
  await tick();
  const beacon: BeaconTrust = { network, checkpoint, urls: [node.url], storage: false, refreshMs: 0, currentSlot: clock, ...over };
  return LightClient.connect({ rpc: node.url, trust: { beacon } });
}

describe('trust: { beacon } against the simulated sync committee', () => {
  it('verifies calls at the block the committee signed: a transfer estimated as the node estimates it, a call to an account without code', async () => {
    await tick();
    const beacon: BeaconTrust = { network, checkpoint, urls: [node.url], storage: false, refreshMs: 0, currentSlot: clock };
    const client = await LightClient.connect({ rpc: node.url, trust: { beacon, chainId: 1337n }, chainConfig: { londonBlock: 0 } });
    const head = await client.getHeader('latest');
    const [from, to] = [node.accounts[0]!.address, node.accounts[1]!.address];
    const tx = { from, to, value: '0x1' };
    const at = '0x' + head.number.toString(16);
    expect(await client.estimateGas(tx, { block: head.number })).toBe(BigInt((await rpc(node.url, 'eth_estimateGas', [tx, at])) as string));
    const called = await client.callDetailed({ to, data: '0x12345678' });
    expect(called.output).toBe('0x');
    // Pinned to the head the committee signed (or a newer one it signed since).
    expect(called.header.number).toBeGreaterThanOrEqual(head.number);
  });

  it("reads state at the block the committee signed, and 'finalized' is the beacon chain's finalized block", async () => {
    const client = await connect();
    const head = await client.getHeader('latest');
    const b = await client.beacon();
    expect(b?.head.execution?.blockHash).toBe(head.hash);
    // 30 of 32 signed: the head is the protocol's optimistic header, a slot behind the clock.
    expect(b?.head).toEqual(b?.optimistic);
    expect(b?.age).toEqual({ slots: 1n, seconds: 6 });
    const onNode = (await rpc(node.url, 'eth_getBlockByNumber', ['0x' + head.number.toString(16), false])) as { hash: string };
    expect(onNode.hash).toBe(head.hash);
    // The node's default: 30 of its 32 members sign.
    expect(b?.participation).toEqual({ signed: 30, size: 32 });
    const fin = await client.getHeader('finalized');
    expect(fin.hash).toBe(b?.finalized.execution?.blockHash);
    expect(fin.number).toBeLessThan(head.number);
    const who = node.accounts[0]?.address as string;
    const want = BigInt((await rpc(node.url, 'eth_getBalance', [who, '0x' + head.number.toString(16)])) as string);
    expect(await client.getBalance(who)).toBe(want);
    // Through EIP-1193 (what ethers and viem use): the head and a balance, verified the same way.
    const eip = client.asEip1193();
    const eipHead = BigInt((await eip.request({ method: 'eth_blockNumber' })) as string);
    expect(eipHead).toBeGreaterThanOrEqual(head.number);
    const atHead = (await eip.request({ method: 'eth_getBalance', params: [who, '0x' + head.number.toString(16)] })) as string;
    expect(BigInt(atHead)).toBe(want);
    // An older block, by the hash links back from the verified head.
    expect((await client.getHeader(1n)).hash).toBe(((await rpc(node.url, 'eth_getBlockByNumber', ['0x1', false])) as { hash: string }).hash);
  });

  it('follows the head as the chain grows, across a sync committee period', async () => {
    const client = await connect();
    const before = (await client.getHeader('latest')).number;
    await mine(node.url, 80); // past the next period's first slot
    await tick();
    const after = await client.getHeader('latest');
    expect(after.number).toBeGreaterThan(before + 70n);
    const onNode = (await rpc(node.url, 'eth_getBlockByNumber', ['0x' + after.number.toString(16), false])) as { hash: string };
    expect(onNode.hash).toBe(after.hash);
    expect(client.faultyNodes()).toEqual([]);
  });

  it("'finalized' follows the beacon chain's finality with head: 'finalized'", async () => {
    const client = await connect({ head: 'finalized' });
    const latest = await client.getHeader('latest');
    const b = await client.beacon();
    expect(latest.hash).toBe(b?.finalized.execution?.blockHash);
  });

  it('a head older than maxHeadAge: reads of latest, safe and finalized throw STALE_HEAD; blocks by number still read', async () => {
    // The client's clock 100 slots (600 s) past the node's: whatever the node serves is old.
    const client = await connect({ currentSlot: () => current + 100n });
    const b = await client.beacon();
    expect(b?.age.slots).toBe(current + 100n - (b?.head.slot ?? 0n));
    expect(b?.age.seconds).toBe(Number(b?.age.slots) * 6);
    for (const tag of ['latest', 'safe', 'finalized'] as const) {
      const e = await client.getHeader(tag).catch((x: unknown) => x);
      expect(e, tag).toBeInstanceOf(StaleHeadError);
      expect(e).toMatchObject({ code: 'STALE_HEAD', slot: b?.head.slot, maxAgeSeconds: 300 });
    }
    expect((await client.getHeader(1n)).number).toBe(1n);
    // The same clock with a bound the app chose: the head reads.
    const lax = await connect({ currentSlot: () => current + 100n, maxHeadAge: 3600 });
    expect((await lax.getHeader('latest')).hash).toBe((await lax.beacon())?.head.execution?.blockHash);
  });

  it("one member of 32 signing moves the protocol's optimistic header, not the client's head or anchor, unless minParticipation allows it", async () => {
    const one = await startNode({ args: ['--engines', 'mpt', '--consensus', 'sync-committee', '--sync-participation', '1'] });
    try {
      await mine(one.url, 40);
      const get = async <T>(p: string): Promise<T> => (await (await fetch(new URL(p, one.url))).json()) as T;
      const g = await get<{ data: { genesis_validators_root: string } }>('/eth/v1/beacon/genesis');
      const root = (await get<{ data: { root: string } }>('/eth/v1/beacon/headers/finalized')).data.root;
      const now = BigInt((await get<Status>('/lightprov/v1/beacon/status')).currentSlot);
      const beacon: BeaconTrust = {
        network: { preset: 'minimal', genesisValidatorsRoot: g.data.genesis_validators_root, lastFork: 'fulu' },
        checkpoint: root,
        urls: [one.url],
        storage: false,
        refreshMs: 0,
        currentSlot: () => now,
      };
      const client = await LightClient.connect({ rpc: one.url, trust: { beacon } });
      const b = await client.beacon();
      expect(b?.participation).toEqual({ signed: 1, size: 32 });
      // The store (the specification's) took the header one member signed as its optimistic one.
      expect(b?.optimistic.slot).toBe(now - 1n);
      // The client's head is still the checkpoint, and so is what latest reads.
      expect(b?.head).toEqual(b?.finalized);
      expect(b?.head.beaconRoot).toBe(root);
      const latest = await client.getHeader('latest');
      expect(latest.hash).toBe(b?.finalized.execution?.blockHash);
      expect(latest.hash).not.toBe(b?.optimistic.execution?.blockHash);
      // An app that lowers the bar to one member follows that member's header.
      const lax = await LightClient.connect({ rpc: one.url, trust: { beacon: { ...beacon, minParticipation: 1 / 32 } } });
      expect((await lax.getHeader('latest')).hash).toBe(b?.optimistic.execution?.blockHash);
    } finally {
      await one.stop();
    }
  });

  it('a beacon node whose updates do not verify is marked faulty; the honest one serves', async () => {
    // A proxy of the node's beacon API that flips a byte of every SSZ answer's signature area.
    const liar: typeof fetch = async (input, init) => {
      const url = String(input);
      const real = await fetch(url.replace('http://liar.invalid', node.url), init);
      if (!url.startsWith('http://liar.invalid') || !real.ok) return real;
      const body = new Uint8Array(await real.arrayBuffer());
      body[body.length - 20] = (body[body.length - 20] as number) ^ 1;
      return new Response(body, { status: 200, headers: real.headers });
    };
    await tick();
    const beacon: BeaconTrust = { network, checkpoint, urls: ['http://liar.invalid', node.url], storage: false, refreshMs: 0, currentSlot: clock };
    const client = await LightClient.connect({ rpc: node.url, trust: { beacon }, fetch: liar });
    await client.getHeader('latest');
    const b = await client.beacon();
    expect(b?.faultyNodes.map((f) => f.url)).toEqual(['http://liar.invalid']);
    expect(isVerificationError(b?.faultyNodes[0]?.error)).toBe(true);
  });
});
