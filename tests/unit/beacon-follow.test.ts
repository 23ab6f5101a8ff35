// Following the beacon chain over the Beacon API (`BeaconFollower`, what `LightClient`'s
// `trust: { beacon }` runs): bootstrap, `updates` in the API's chunked SSZ framing, finality and
// optimistic updates, from scripted beacon nodes that serve real mainnet data (periods
// 862..867); the store kept across restarts; failover past nodes that lie, fail or are behind;
// the head's age and STALE_HEAD; the weak-subjectivity bound; the participation of Altair's and
// Bellatrix's containers (the spec's minimal vectors). The execution side of `trust: { beacon }`
// runs against the node's simulated sync committee in tests/e2e.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { FailoverError, StaleHeadError, VerificationError } from '@lightprov/sdk';
import { BeaconFollower, type BeaconStorage, type BeaconTrust, forkOf, loadBeacon } from '@lightprov/sdk/beacon';
import { describe, expect, it } from 'vitest';

import { TRUSTED_ROOT, asFinalityUpdate, asOptimisticUpdate, ssz, steps } from './beacon-data.js';
import { VECTORS } from './load.js';

/** Capella's fork digest on mainnet: the context bytes of each `updates` chunk. */
const CAPELLA_DIGEST = Uint8Array.from([0xbb, 0xa4, 0xda, 0x96]);
const all = steps();
const PERIOD_UPDATES = all.slice(0, 6).map((s) => ssz(s.update)); // periods 862..867
const FINALITY = asFinalityUpdate(ssz((all[6] as { update: string }).update));
const OPTIMISTIC = asOptimisticUpdate(ssz((all[7] as { update: string }).update));
const NOW = (all[7] as { currentSlot: bigint }).currentSlot;

/** `updates` framing: per object `length(u64 LE) ‖ forkDigest(4) ‖ ssz`, the length counting digest and SSZ. */
function frame(objects: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(objects.reduce((n, o) => n + 12 + o.length, 0));
  const dv = new DataView(out.buffer);
  let at = 0;
  for (const o of objects) {
    dv.setBigUint64(at, BigInt(4 + o.length), true);
    out.set(CAPELLA_DIGEST, at + 8);
    out.set(o, at + 12);
    at += 12 + o.length;
  }
  return out;
}

interface Script {
  /** Change an answer before it is served (path, bytes). */
  tamper?: (path: string, body: Uint8Array) => Uint8Array;
  /** Serve `Eth-Consensus-Version` (a browser may not expose it). */
  versionHeader?: boolean;
  /** HTTP status for every request (a node that is down). */
  status?: number;
  /** Paths answered 404 (what the node does not have yet). */
  missing?: RegExp;
  /**
   * A node behind the chain: it has the periods' updates only up to 862 + `behind`, and its
   * finality and optimistic updates are that period's.
   */
  behind?: number;
}

/** A `fetch` serving beacon nodes at http://beacon-N, each by its script; logs the paths. */
function beacons(scripts: Script[], log: string[] = []): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const node = Number(url.hostname.replace('beacon-', ''));
    const script = scripts[node] ?? {};
    const p = url.pathname + url.search;
    log.push(`${node} ${p}`);
    expect(new Headers(init?.headers).get('accept')).toBe('application/octet-stream');
    if (script.status !== undefined) return new Response(JSON.stringify({ code: script.status, message: 'unavailable' }), { status: script.status });
    let body: Uint8Array | undefined;
    const m = /^\/eth\/v1\/beacon\/light_client\/(bootstrap\/(0x[0-9a-f]{64})|updates\?start_period=(\d+)&count=(\d+)|finality_update|optimistic_update)$/.exec(p);
    if (m?.[2] !== undefined) body = m[2] === TRUSTED_ROOT ? ssz('bootstrap') : undefined;
    else if (m?.[3] !== undefined) {
      const from = Number(m[3]) - 862;
      const has = PERIOD_UPDATES.slice(0, script.behind === undefined ? undefined : script.behind + 1);
      body = frame(has.slice(Math.max(from, 0), Math.max(from, 0) + Number(m[4])));
    } else if (m?.[1] === 'finality_update') body = script.behind === undefined ? FINALITY : asFinalityUpdate(PERIOD_UPDATES[script.behind] as Uint8Array);
    else if (m?.[1] === 'optimistic_update') body = script.behind === undefined ? OPTIMISTIC : asOptimisticUpdate(PERIOD_UPDATES[script.behind] as Uint8Array);
    if (script.missing?.test(p)) body = undefined;
    if (body === undefined) return new Response(JSON.stringify({ code: 404, message: 'not found' }), { status: 404 });
    body = script.tamper ? script.tamper(p, body) : body;
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
    if (script.versionHeader !== false && !p.includes('updates?')) headers['eth-consensus-version'] = 'capella';
    return new Response(body as unknown as BodyInit, { status: 200, headers });
  }) as typeof fetch;
}

/** A storage in memory, counting saves. */
function memory(): BeaconStorage & { bytes: Uint8Array | undefined; saves: number } {
  const m = {
    bytes: undefined as Uint8Array | undefined,
    saves: 0,
    async load() {
      return m.bytes;
    },
    async save(b: Uint8Array) {
      m.bytes = b.slice();
      m.saves += 1;
    },
  };
  return m;
}

const trust = (over: Partial<BeaconTrust> = {}): BeaconTrust => ({
  network: 'mainnet',
  checkpoint: TRUSTED_ROOT,
  urls: ['http://beacon-0'],
  storage: false,
  currentSlot: () => NOW,
  ...over,
});

const open = (t: BeaconTrust, f: typeof fetch) => BeaconFollower.open(t, 5000, f);

describe('BeaconFollower over scripted beacon nodes (real mainnet periods 862..867)', () => {
  it('bootstraps from the checkpoint, syncs the periods in one updates request, then the finality and optimistic updates', async () => {
    const log: string[] = [];
    const f = await open(trust(), beacons([{}], log));
    expect(log).toEqual([
      `0 /eth/v1/beacon/light_client/bootstrap/${TRUSTED_ROOT}`,
      '0 /eth/v1/beacon/light_client/updates?start_period=862&count=6',
      '0 /eth/v1/beacon/light_client/finality_update',
      '0 /eth/v1/beacon/light_client/optimistic_update',
    ]);
    const { head, finalized } = f.execution();
    expect(finalized.number).toBe(17923026n);
    expect(f.finalized().slot).toBe(7109344n);
    expect(f.optimistic().slot).toBe(7109431n);
    expect(head.slot).toBe(7109431n);
    expect(head.number).toBe(f.optimistic().execution?.blockNumber);
    // 510 of the 512 members signed the optimistic update (tests/fixtures/beacon/real/SOURCE.md).
    expect(f.participation()).toEqual({ signed: 510, size: 512 });
  });

  it('leaves an update signed after its clock for a later refresh, and does not mark the node for it', async () => {
    // LightClientOptimisticUpdate: offset(4) ‖ bits(64) ‖ signature(96) ‖ signature_slot (u64 LE).
    const signed = new DataView(OPTIMISTIC.buffer, OPTIMISTIC.byteOffset).getBigUint64(164, true);
    let clock = signed - 1n;
    const f = await open(trust({ currentSlot: () => clock, refreshMs: 0 }), beacons([{}]));
    expect(f.optimistic().slot).toBeLessThan(7109431n);
    expect(f.net.faultyNodes()).toEqual([]);
    clock = NOW;
    await f.refresh();
    expect(f.optimistic().slot).toBe(7109431n);
    expect(f.net.faultyNodes()).toEqual([]);
  });

  it('reads the fork from the bytes when the Eth-Consensus-Version header is not exposed', async () => {
    await loadBeacon();
    expect(forkOf('mainnet', 'update', PERIOD_UPDATES[0] as Uint8Array)).toBe('capella');
    expect(forkOf('mainnet', 'optimistic_update', OPTIMISTIC)).toBe('capella');
    expect(forkOf('mainnet', 'finality_update', OPTIMISTIC)).toBeUndefined();
    const f = await open(trust(), beacons([{ versionHeader: false }]));
    expect(f.finalized().slot).toBe(7109344n);
  });

  it('keeps the store: a restart asks for no bootstrap and syncs from the saved period', async () => {
    const storage = memory();
    // First run: the nodes have the six periods' updates only.
    const first = await open(trust({ storage }), beacons([{ missing: /(finality|optimistic)_update/ }]));
    expect(first.finalized().slot).toBe(7104096n);
    expect(storage.saves).toBe(1);
    const log: string[] = [];
    const f = await open(trust({ storage }), beacons([{}], log));
    expect(log.some((l) => l.includes('bootstrap'))).toBe(false);
    // Within the saved store's period: no updates at all, only the newest finality and optimistic ones.
    expect(log.map((l) => l.replace('0 /eth/v1/beacon/light_client/', ''))).toEqual(['finality_update', 'optimistic_update']);
    expect(f.finalized().slot).toBe(7109344n);
    // Bytes that no longer read back are dropped, and the store is made again from the checkpoint.
    storage.bytes = storage.bytes?.subarray(1);
    const again: string[] = [];
    await open(trust({ storage }), beacons([{}], again));
    expect(again[0]).toContain('bootstrap');
  });

  it('keeps the store in a file in Node, written whole', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lightprov-beacon-'));
    try {
      const file = path.join(dir, 'sub', 'store.bin');
      const a = await open(trust({ storage: file }), beacons([{}]));
      expect(fs.readFileSync(file)).toEqual(Buffer.from(a.save()));
      expect(fs.readdirSync(path.join(dir, 'sub'))).toEqual(['store.bin']);
      const log: string[] = [];
      await open(trust({ storage: file }), beacons([{}], log));
      expect(log.some((l) => l.includes('bootstrap'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('skips a node that is down and marks one whose update does not verify; the next honest node serves', async () => {
    const flipSignature = (p: string, b: Uint8Array) => {
      if (!p.includes('updates?')) return b;
      const out = b.slice();
      out[out.length - 20] = (out[out.length - 20] as number) ^ 1; // a byte of the last update's signature
      return out;
    };
    const f = await open(trust({ urls: ['http://beacon-0', 'http://beacon-1', 'http://beacon-2'] }), beacons([{ status: 503 }, { tamper: flipSignature }, {}]));
    expect(f.finalized().slot).toBe(7109344n);
    const faulty = f.net.faultyNodes();
    expect(faulty.map((x) => x.url)).toEqual(['http://beacon-1']);
    expect(faulty[0]?.error).toBeInstanceOf(VerificationError);
  });

  it("a node's lie is thrown when no honest node is left, with every node's fault", async () => {
    const wrongBootstrap = (p: string, b: Uint8Array) => (p.includes('bootstrap') ? Uint8Array.from(b, (x, i) => (i === 7 ? x ^ 1 : x)) : b);
    const one = await open(trust(), beacons([{ tamper: wrongBootstrap }])).catch((e: unknown) => e);
    expect(one).toBeInstanceOf(VerificationError);
    const two = await open(trust({ urls: ['http://beacon-0', 'http://beacon-1'] }), beacons([{ tamper: wrongBootstrap }, { status: 500 }])).catch((e: unknown) => e);
    expect(two).toBeInstanceOf(FailoverError);
    expect((two as FailoverError).message).toMatch(/beacon-0.*beacon-1/s);
  });

  it('a chunk framing that overruns the answer marks the node', async () => {
    const overrun = (p: string, b: Uint8Array) => {
      if (!p.includes('updates?')) return b;
      const out = b.slice();
      new DataView(out.buffer).setBigUint64(0, BigInt(out.length), true);
      return out;
    };
    const f = await open(trust({ urls: ['http://beacon-0', 'http://beacon-1'] }), beacons([{ tamper: overrun }, {}]));
    expect(f.net.faultyNodes()[0]?.error.message).toMatch(/past the end/);
  });

  it('a follower whose only node is behind opens, says how old its head is, and refuses reads of the head with STALE_HEAD', async () => {
    // The node has periods 862..864 and that period's finality and optimistic updates.
    const f = await open(trust(), beacons([{ behind: 2 }]));
    const head = f.head();
    expect(head.slot).toBeLessThan(7_094_353n);
    expect(f.age()).toEqual({ slots: NOW - head.slot, seconds: Number(NOW - head.slot) * 12 });
    const e = await f.current().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StaleHeadError);
    expect(e).toMatchObject({ code: 'STALE_HEAD', slot: head.slot, currentSlot: NOW, ageSeconds: Number(NOW - head.slot) * 12, maxAgeSeconds: 300 });
    expect((e as Error).message).toMatch(/^STALE_HEAD: .* behind the clock/);
    // The same node, its head within a bound the app chose: no error.
    const lax = await open(trust({ maxHeadAge: Number(NOW - head.slot) * 12 }), beacons([{ behind: 2 }]));
    expect((await lax.current()).head.slot).toBe(head.slot);
    // allowStaleCheckpoint lets an old checkpoint in, not an old head.
    const old = await open(trust({ allowStaleCheckpoint: true }), beacons([{ behind: 0 }]));
    await expect(old.current()).rejects.toBeInstanceOf(StaleHeadError);
  });

  it('a node that is behind is passed for the next one, for the periods and for the newest updates', async () => {
    const log: string[] = [];
    const f = await open(trust({ urls: ['http://beacon-0', 'http://beacon-1'] }), beacons([{ behind: 2 }, {}], log));
    expect(f.execution().head.slot).toBe(7109431n);
    expect(f.age().slots).toBe(1n);
    expect((await f.current()).head.slot).toBe(7109431n);
    expect(f.net.faultyNodes()).toEqual([]);
    // The periods the first node lacks and both newest updates came from the second node, each
    // after the first one's answer.
    expect(log.map((l) => l.replace('/eth/v1/beacon/light_client/', '')).slice(1)).toEqual([
      '0 updates?start_period=862&count=6',
      '0 updates?start_period=864&count=4',
      '1 updates?start_period=864&count=4',
      '0 finality_update',
      '1 finality_update',
      '0 optimistic_update',
      '1 optimistic_update',
    ]);
  });

  it('a synced store is no failure when a node marked faulty before is skipped and the honest one has no finality update', async () => {
    const flipSignature = (p: string, b: Uint8Array) => {
      if (!p.includes('updates?')) return b;
      const out = b.slice();
      out[out.length - 20] = (out[out.length - 20] as number) ^ 1;
      return out;
    };
    const f = await open(trust({ urls: ['http://beacon-0', 'http://beacon-1'], refreshMs: 0 }), beacons([{ tamper: flipSignature }, { missing: /finality_update/ }]));
    expect(f.net.faultyNodes().map((x) => x.url)).toEqual(['http://beacon-0']);
    expect(f.head().slot).toBe(7109431n);
    // And on every refresh after it.
    await f.refresh();
    expect((await f.current()).head.slot).toBe(7109431n);
  });

  it('refuses a checkpoint older than the weak-subjectivity bound unless allowed', async () => {
    const old = () => 7069376n + 14n * 24n * 300n + 1n; // 14 days of 12 s slots after the checkpoint
    const e = await open(trust({ currentSlot: old }), beacons([{}])).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RangeError);
    expect((e as Error).message).toMatch(/^trust\.beacon\.checkpoint: .*weak-subjectivity/);
    const f = await open(trust({ currentSlot: old, allowStaleCheckpoint: true }), beacons([{}]));
    expect(f.finalized().slot).toBe(7109344n);
  });

  it('argument errors name the field', async () => {
    const f = beacons([{}]);
    await expect(open(trust({ urls: [] }), f)).rejects.toThrow(/^trust\.beacon\.urls: /);
    await expect(open(trust({ checkpoint: '0x12' }), f)).rejects.toThrow(/^trust\.beacon\.checkpoint/);
    await expect(open(trust({ head: 'safe' as 'finalized' }), f)).rejects.toThrow(/^trust\.beacon\.head: /);
    await expect(open(trust({ storage: 42 as unknown as false }), f)).rejects.toThrow(/^trust\.beacon\.storage: /);
    await expect(open(trust({ network: 'mars' }), f)).rejects.toThrow(/^trust\.beacon\.network: /);
    await expect(open(trust({ minParticipation: 0 }), f)).rejects.toThrow(/^trust\.beacon\.minParticipation: /);
    await expect(open(trust({ minParticipation: 1.5 }), f)).rejects.toThrow(RangeError);
    await expect(open(trust({ minParticipation: '1/2' as unknown as number }), f)).rejects.toThrow(TypeError);
    await expect(open(trust({ maxHeadAge: -1 }), f)).rejects.toThrow(/^trust\.beacon\.maxHeadAge: /);
  });
});

describe("participation of Altair's and Bellatrix's containers (the spec's minimal light_client_sync case)", () => {
  it.each(['altair', 'bellatrix'])('%s: counted from the sync aggregate the core decoded', async (fork) => {
    const v = JSON.parse(fs.readFileSync(path.join(VECTORS, 'beacon', 'valid', `sync-${fork}.json`), 'utf8')) as {
      inputs: { network: BeaconTrust['network']; trustedBlockRoot: string; bootstrap: { ssz: string }; updates: { currentSlot: number; ssz: string }[] };
    };
    const { network, trustedBlockRoot, bootstrap, updates } = v.inputs;
    const first = updates[0] as { currentSlot: number; ssz: string }; // attested slot 40, signed at 41
    const update = Buffer.from(first.ssz.slice(2), 'hex');
    // These forks' containers have a fixed size, no offsets: LightClientUpdate is the attested
    // header (112), the next committee (32 × 48 + 48) and its branch (5 × 32), the finalized
    // header (112) and its branch (6 × 32), the sync aggregate (4 + 96), the signature slot (8);
    // LightClientOptimisticUpdate the header, the aggregate and the slot.
    const aggregate = 112 + 1584 + 160 + 112 + 192;
    const optimistic = Buffer.concat([update.subarray(0, 112), update.subarray(aggregate, aggregate + 108)]);
    const bits = update.subarray(aggregate, aggregate + 4).reduce((n, b) => n + b.toString(2).replaceAll('0', '').length, 0);
    const node = (async (input: RequestInfo | URL) => {
      const p = new URL(String(input)).pathname;
      const body = p.endsWith(`/bootstrap/${trustedBlockRoot}`) ? Buffer.from(bootstrap.ssz.slice(2), 'hex') : p.endsWith('/optimistic_update') ? optimistic : undefined;
      if (body === undefined) return new Response('{"code":404,"message":"not found"}', { status: 404 });
      return new Response(body, { status: 200, headers: { 'content-type': 'application/octet-stream', 'eth-consensus-version': fork } });
    }) as typeof fetch;
    const f = await open({ network, checkpoint: trustedBlockRoot, urls: ['http://beacon-0'], storage: false, currentSlot: () => BigInt(first.currentSlot) }, node);
    expect(f.optimistic().slot).toBe(40n);
    expect(bits).toBe(32);
    expect(f.participation()).toEqual({ signed: bits, size: 32 });
    // Every member signed: the header is followed (a minimal chain's clock, 6 s slots).
    expect(f.head().slot).toBe(40n);
    expect(f.age()).toEqual({ slots: 1n, seconds: 6 });
  });
});
