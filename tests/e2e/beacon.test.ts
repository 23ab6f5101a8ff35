/**
 * The beacon light client through the SDK against `lightprov-node --consensus sync-committee`:
 * the node's simulated minimal-preset chain, served over the beacon light-client API as SSZ, is
 * followed by `BeaconStore` from a finalized checkpoint across a sync committee period (the
 * committee rotating), and the verified finalized and optimistic execution blocks are the ones
 * `eth_getBlockByNumber` returns. Bad requests get the API's errors; a restarted node serves
 * the same roots; below two thirds of the committee signing, the optimistic head moves and the
 * finalized one and the head to follow do not; a node without the flag says how to enable it.
 */
import { isVerificationError } from '@lightprov/sdk';
import { BeaconStore, type BeaconFork, loadBeacon } from '@lightprov/sdk/beacon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { mine, rpc, thrown } from '../lib/util.js';

const SSZ = 'application/octet-stream';
const ARGS = ['--engines', 'mpt', '--consensus', 'sync-committee', '--sync-participation', '30/32'];
let node: RunningNode;

beforeAll(async () => {
  await loadBeacon();
  node = await startNode({ args: ARGS });
  // Past slot 64: the chain is in its second sync committee period.
  await mine(node.url, 100);
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

async function json(path: string): Promise<{ status: number; body: any }> {
  const r = await fetch(new URL(path, node.url));
  return { status: r.status, body: await r.json() };
}

async function ssz(path: string): Promise<{ fork: BeaconFork; ssz: Uint8Array }> {
  const r = await fetch(new URL(path, node.url), { headers: { accept: SSZ } });
  expect(r.status, path).toBe(200);
  expect(r.headers.get('content-type')).toBe(SSZ);
  return { fork: r.headers.get('eth-consensus-version') as BeaconFork, ssz: new Uint8Array(await r.arrayBuffer()) };
}

/** The chunks of an `updates` answer: `length(u64 LE) ‖ fork digest(4) ‖ SSZ`, the length counting both. */
function chunks(body: Uint8Array): { digest: string; ssz: Uint8Array }[] {
  const out = [];
  let at = 0;
  while (at < body.length) {
    const len = Number(new DataView(body.buffer, body.byteOffset + at, 8).getBigUint64(0, true));
    const chunk = body.subarray(at + 8, at + 8 + len);
    out.push({ digest: Buffer.from(chunk.subarray(0, 4)).toString('hex'), ssz: chunk.subarray(4) });
    at += 8 + len;
  }
  return out;
}

interface Status {
  currentSlot: string;
  participation: number;
  committeeSize: number;
  finalized: { slot: string; root: string; blockNumber: string; blockHash: string };
  network: { preset: 'minimal'; genesisValidatorsRoot: string; lastFork: BeaconFork; forkDigest: string };
}

const status = async () => (await json('/lightprov/v1/beacon/status')).body as Status;

async function blockHash(n: bigint): Promise<string> {
  const b = (await rpc(node.url, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])) as { hash: string };
  return b.hash;
}

describe('the sync committee of lightprov-node', () => {
  it('serves its genesis, and a finalized checkpoint two epochs behind the head', async () => {
    const g = await json('/eth/v1/beacon/genesis');
    expect(g.status).toBe(200);
    expect(g.body.data.genesis_time).toBe('0');
    const s = await status();
    expect(g.body.data.genesis_validators_root).toBe(s.network.genesisValidatorsRoot);
    expect(s.network.lastFork).toBe('fulu');
    expect(s.participation).toBe(30);
    expect(s.committeeSize).toBe(32);
    const head = BigInt(s.currentSlot);
    const h = await json('/eth/v1/beacon/headers/finalized');
    const slot = BigInt(h.body.data.header.message.slot);
    expect(slot).toBe((head / 8n - 2n) * 8n);
    expect(h.body.data.root).toBe(s.finalized.root);
    const cp = await json('/eth/v1/beacon/states/head/finality_checkpoints');
    expect(cp.body.data.finalized.root).toBe(h.body.data.root);
  });

  it('is followed by BeaconStore from the finalized checkpoint across a period, to the execution blocks the node serves', async () => {
    const s = await status();
    const network = { preset: 'minimal' as const, genesisValidatorsRoot: s.network.genesisValidatorsRoot, lastFork: s.network.lastFork };
    const trustedBlockRoot = s.finalized.root;
    const bootstrap = await ssz(`/eth/v1/beacon/light_client/bootstrap/${trustedBlockRoot}`);
    expect(bootstrap.fork).toBe('fulu');
    const store = BeaconStore.bootstrap({ network, trustedBlockRoot, bootstrap });
    try {
      expect(store.finalizedHeader().beaconRoot).toBe(trustedBlockRoot);
      const startPeriod = store.finalizedHeader().slot / 64n;

      // Into the next period: the committee rotates.
      await mine(node.url, 64);
      const currentSlot = BigInt((await status()).currentSlot);
      const r = await fetch(new URL(`/eth/v1/beacon/light_client/updates?start_period=${startPeriod}&count=128`, node.url), { headers: { accept: SSZ } });
      expect(r.status).toBe(200);
      const updates = chunks(new Uint8Array(await r.arrayBuffer()));
      expect(updates.length).toBe(Number(currentSlot / 64n - startPeriod) + 1);
      for (const u of updates) {
        expect(u.digest).toBe(s.network.forkDigest.slice(2));
        store.processUpdate({ fork: 'fulu', ssz: u.ssz, currentSlot });
      }
      expect(store.finalizedHeader().slot / 64n).toBe(currentSlot / 64n);

      store.processFinalityUpdate({ ...(await ssz('/eth/v1/beacon/light_client/finality_update')), currentSlot });
      store.processOptimisticUpdate({ ...(await ssz('/eth/v1/beacon/light_client/optimistic_update')), currentSlot });

      const fin = store.finalizedHeader();
      expect(fin.slot).toBe((currentSlot / 8n - 2n) * 8n);
      expect(fin.execution?.blockNumber).toBe(fin.slot);
      expect(fin.execution?.blockHash).toBe(await blockHash(fin.execution!.blockNumber));
      const b = (await rpc(node.url, 'eth_getBlockByNumber', ['0x' + fin.slot.toString(16), false])) as { stateRoot: string };
      expect(fin.execution?.stateRoot).toBe(b.stateRoot);
      const opt = store.optimisticHeader();
      expect(opt.slot).toBe(currentSlot - 1n);
      expect(opt.execution?.blockHash).toBe(await blockHash(opt.slot));

      // A byte of the aggregate signature flipped is caught (the container's fixed part: the
      // attested header's offset, the participation bits, the signature).
      const u = (await ssz('/eth/v1/beacon/light_client/optimistic_update')).ssz.slice();
      const at = 4 + 4 + 10;
      u[at] = (u[at] as number) ^ 1;
      const e = thrown(() => store.processOptimisticUpdate({ fork: 'fulu', ssz: u, currentSlot }));
      expect(isVerificationError(e, 'BAD_SYNC_SIGNATURE'), String(e)).toBe(true);
    } finally {
      store.free();
    }
  });

  it('answers unknown roots with 404, bad parameters with 400 naming them, and non-SSZ accepts with 406', async () => {
    const zero = '0x' + '00'.repeat(32);
    const unknown = await fetch(new URL(`/eth/v1/beacon/light_client/bootstrap/${zero}`, node.url), { headers: { accept: SSZ } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { message: string }).message).toContain('block_root');
    for (const [q, name] of [
      ['count=1', 'start_period'],
      ['start_period=x&count=1', 'start_period'],
      ['start_period=0&count=-1', 'count'],
    ]) {
      const r = await fetch(new URL(`/eth/v1/beacon/light_client/updates?${q}`, node.url), { headers: { accept: SSZ } });
      expect(r.status, q).toBe(400);
      expect(((await r.json()) as { message: string }).message, q).toContain(name);
    }
    const j = await fetch(new URL('/eth/v1/beacon/light_client/finality_update', node.url), { headers: { accept: 'application/json' } });
    expect(j.status).toBe(406);
    expect((await json('/eth/v1/beacon/headers/999999')).status).toBe(404);
  });

  it('serves the same chain after a restart', async () => {
    const before = await status();
    const root = (await json(`/eth/v1/beacon/headers/${before.currentSlot}`)).body.data.root;
    await node.stop();
    node = await startNode({ dataDir: node.dataDir, args: ARGS });
    const after = await status();
    expect(after.currentSlot).toBe(before.currentSlot);
    expect(after.finalized).toEqual(before.finalized);
    expect(after.network).toEqual(before.network);
    expect((await json(`/eth/v1/beacon/headers/${before.currentSlot}`)).body.data.root).toBe(root);
  });

  it('below two thirds of the committee, moves the optimistic head and not the finalized one nor the head to follow', async () => {
    const low = await startNode({ args: ['--engines', 'mpt', '--consensus', 'sync-committee', '--sync-participation', '20'] });
    try {
      await mine(low.url, 40);
      const get = async (p: string) => fetch(new URL(p, low.url), { headers: { accept: SSZ } });
      const s = (await (await get('/lightprov/v1/beacon/status')).json()) as Status;
      expect(s.participation).toBe(20);
      const network = { preset: 'minimal' as const, genesisValidatorsRoot: s.network.genesisValidatorsRoot, lastFork: s.network.lastFork };
      const trustedBlockRoot = (await (await get('/eth/v1/beacon/headers/8')).json()).data.root as string;
      const boot = await get(`/eth/v1/beacon/light_client/bootstrap/${trustedBlockRoot}`);
      const store = BeaconStore.bootstrap({ network, trustedBlockRoot, bootstrap: { fork: 'fulu', ssz: new Uint8Array(await boot.arrayBuffer()) } });
      try {
        const currentSlot = BigInt(s.currentSlot);
        const fu = new Uint8Array(await (await get('/eth/v1/beacon/light_client/finality_update')).arrayBuffer());
        expect(store.processFinalityUpdate({ fork: 'fulu', ssz: fu, currentSlot })).toEqual({ applied: false, optimistic: true });
        expect(store.finalizedHeader().slot).toBe(8n);
        expect(store.optimisticHeader().slot).toBe(currentSlot - 1n);
        expect(store.optimisticHeader().execution?.blockHash).toBe(
          ((await rpc(low.url, 'eth_getBlockByNumber', ['0x' + (currentSlot - 1n).toString(16), false])) as { hash: string }).hash,
        );
        // The head to follow does not: 20 of 32 is below two thirds.
        expect(store.participation()).toEqual({ signed: 20, size: 32 });
        expect(store.followedHeader()).toEqual(store.finalizedHeader());
        // A store told to follow 60% of the committee (20 members, rounded up) follows it.
        const lax = BeaconStore.bootstrap({ network, trustedBlockRoot, bootstrap: { fork: 'fulu', ssz: new Uint8Array(await (await get(`/eth/v1/beacon/light_client/bootstrap/${trustedBlockRoot}`)).arrayBuffer()) } });
        try {
          lax.setMinParticipation(0.6);
          lax.processFinalityUpdate({ fork: 'fulu', ssz: fu, currentSlot });
          expect(lax.followedHeader()).toEqual(store.optimisticHeader());
        } finally {
          lax.free();
        }
      } finally {
        store.free();
      }
    } finally {
      await low.stop();
    }
  });

  it('is not served without --consensus sync-committee, and the node says how to enable it', async () => {
    const plain = await startNode({ args: ['--engines', 'mpt'] });
    try {
      const r = await fetch(new URL('/eth/v1/beacon/genesis', plain.url));
      expect(r.status).toBe(501);
      expect(((await r.json()) as { message: string }).message).toContain('--consensus sync-committee');
      // JSON-RPC is unchanged.
      expect(await rpc(plain.url, 'eth_blockNumber', [])).toBe('0x0');
    } finally {
      await plain.stop();
    }
  });
});
