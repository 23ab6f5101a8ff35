// The beacon light client through the SDK (`@lightprov/sdk/beacon`): its module loads only when
// asked for, real mainnet data (sync committee periods 862..867, tests/fixtures/beacon/real)
// syncs to the finalized execution block, and each argument check of the wrapper names its
// field. Its own file: vitest isolates files, so no module is loaded when it starts.
import fs from 'node:fs';
import path from 'node:path';

import { VerificationError, type WasmModuleName, init } from '@lightprov/sdk';
import { type BeaconFork, BeaconStore, beaconNetworks, loadBeacon } from '@lightprov/sdk/beacon';
import { describe, expect, it } from 'vitest';

import { VECTORS } from './load.js';

const REAL = path.join(VECTORS, '..', 'fixtures', 'beacon', 'real');
const CASE = path.join(REAL, 'sync', 'helios_capella_periods_862_867');
const TRUSTED_ROOT = '0x5afc212a7924789b2bc86acad3ab3a6ffb1f6e97253ea50bee7f4f51422c9275';

/** Snappy's raw (block) format, as the spec's `*.ssz_snappy` files hold it. */
function unsnappy(src: Uint8Array): Uint8Array {
  let at = 0;
  let len = 0;
  for (let shift = 0; ; shift += 7) {
    const b = src[at++] as number;
    len |= (b & 0x7f) << shift;
    if (b < 0x80) break;
  }
  const out = new Uint8Array(len);
  let n = 0;
  const le = (k: number) => {
    let v = 0;
    for (let j = 0; j < k; j++) v |= (src[at + j] as number) << (8 * j);
    at += k;
    return v >>> 0;
  };
  while (at < src.length) {
    const tag = src[at++] as number;
    const kind = tag & 3;
    if (kind === 0) {
      let l = tag >> 2;
      if (l >= 60) l = le(l - 59);
      l += 1;
      out.set(src.subarray(at, at + l), n);
      at += l;
      n += l;
      continue;
    }
    let l: number;
    let off: number;
    if (kind === 1) {
      l = ((tag >> 2) & 7) + 4;
      off = ((tag >> 5) << 8) | (src[at++] as number);
    } else {
      l = (tag >> 2) + 1;
      off = le(kind === 2 ? 2 : 4);
    }
    for (let j = 0; j < l; j++, n++) out[n] = out[n - off] as number;
  }
  if (n !== len) throw new Error(`snappy: ${n} bytes, expected ${len}`);
  return out;
}

const ssz = (file: string) => unsnappy(fs.readFileSync(path.join(CASE, `${file}.ssz_snappy`)));

/** The case's steps: each update file, its current slot and the headers the spec computed. */
interface Step {
  update: string;
  currentSlot: bigint;
  finalized: { slot: bigint; beaconRoot: string; executionRoot: string };
  optimistic: { slot: bigint; beaconRoot: string; executionRoot: string };
}
function steps(): Step[] {
  const text = fs.readFileSync(path.join(CASE, 'steps.yaml'), 'utf8');
  return text
    .split('- process_update:')
    .slice(1)
    .map((s) => {
      const header = (name: string) => {
        const m = new RegExp(`${name}:\\s+slot: (\\d+)\\s+beacon_root: '(0x[0-9a-f]{64})'\\s+execution_root: '(0x[0-9a-f]{64})'`).exec(s);
        if (!m) throw new Error(`steps.yaml: no ${name}`);
        return { slot: BigInt(m[1] as string), beaconRoot: m[2] as string, executionRoot: m[3] as string };
      };
      return {
        update: (/update:\s+(update_0x[0-9a-f]{64}_[a-z]{2})/.exec(s) as RegExpExecArray)[1] as string,
        currentSlot: BigInt((/current_slot: (\d+)/.exec(s) as RegExpExecArray)[1] as string),
        finalized: header('finalized_header'),
        optimistic: header('optimistic_header'),
      };
    });
}

const u32 = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset + at, 4).getUint32(0, true);

/**
 * The `LightClientFinalityUpdate` / `LightClientOptimisticUpdate` a Capella mainnet
 * `LightClientUpdate` was built from (the case stores those two as updates, as the spec's
 * process_light_client_finality_update builds them): the same fields without the next sync
 * committee (512 keys and the aggregate, 24,624 bytes) and its branch (5 × 32).
 */
function asFinalityUpdate(u: Uint8Array): Uint8Array {
  const fixed = 4 + 24_624 + 160; // attested offset, next committee, its branch
  const finalizedAt = u32(u, fixed);
  const rest = u.subarray(fixed + 4, fixed + 4 + 192 + 160 + 8); // finality branch, aggregate, signature slot
  const attested = u.subarray(u32(u, 0), finalizedAt);
  const finalized = u.subarray(finalizedAt);
  const head = 8 + rest.length;
  const out = new Uint8Array(head + attested.length + finalized.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, head, true);
  dv.setUint32(4, head + attested.length, true);
  out.set(rest, 8);
  out.set(attested, head);
  out.set(finalized, head + attested.length);
  return out;
}
function asOptimisticUpdate(u: Uint8Array): Uint8Array {
  const fixed = 4 + 24_624 + 160;
  const aggregateAndSlot = u.subarray(fixed + 4 + 192, fixed + 4 + 192 + 160 + 8);
  const attested = u.subarray(u32(u, 0), u32(u, fixed));
  const head = 4 + aggregateAndSlot.length;
  const out = new Uint8Array(head + attested.length);
  new DataView(out.buffer).setUint32(0, head, true);
  out.set(aggregateAndSlot, 4);
  out.set(attested, head);
  return out;
}

const raw = (file: string) => JSON.parse(fs.readFileSync(path.join(REAL, 'raw', 'helios', file), 'utf8')) as { data: Record<string, { beacon: { slot: string }; execution: Record<string, string> }> };
const capella = (bytes: Uint8Array, currentSlot?: bigint) => ({ fork: 'capella' as BeaconFork, ssz: bytes, ...(currentSlot === undefined ? {} : { currentSlot }) });
const bootstrapArgs = () => ({ network: 'mainnet', trustedBlockRoot: TRUSTED_ROOT, bootstrap: capella(ssz('bootstrap')) });

function verificationError(f: () => unknown): VerificationError {
  try {
    f();
  } catch (e) {
    if (e instanceof VerificationError) return e;
    throw e;
  }
  throw new Error('accepted');
}

describe('loading', () => {
  it('init() leaves the beacon module out; loadBeacon() loads it', async () => {
    const asked: WasmModuleName[] = [];
    await init({ locate: (m) => (asked.push(m), undefined) });
    expect(asked.length).toBeGreaterThan(0);
    expect(asked).not.toContain('beacon');
    expect(() => beaconNetworks()).toThrow(/init\(\{ families: \['beacon'\] \}\)/);
    await loadBeacon();
    expect(asked).toContain('beacon');
  });

  it('names the public networks from the core', () => {
    expect(beaconNetworks()).toEqual(['mainnet', 'sepolia', 'holesky', 'hoodi']);
  });
});

describe('real mainnet data (periods 862..867)', () => {
  it('syncs from the trusted root through six periods, a finality and an optimistic update, to the finalized execution block', async () => {
    await loadBeacon();
    const all = steps();
    expect(all.map((s) => s.update.slice(-2))).toEqual(['sf', 'sf', 'sf', 'sf', 'sf', 'sf', 'xf', 'xx']);
    const store = BeaconStore.bootstrap(bootstrapArgs());
    const boot = store.finalizedHeader();
    expect(boot.beaconRoot).toBe(TRUSTED_ROOT);
    expect(boot.slot).toBe(7069376n);
    expect(store.optimisticHeader()).toEqual(boot);
    for (const [k, s] of all.entries()) {
      const u = ssz(s.update);
      const progress =
        k < 6
          ? store.processUpdate(capella(u, s.currentSlot))
          : k === 6
            ? store.processFinalityUpdate(capella(asFinalityUpdate(u), s.currentSlot))
            : store.processOptimisticUpdate(capella(asOptimisticUpdate(u), s.currentSlot));
      expect(progress.applied || progress.optimistic, s.update).toBe(true);
      for (const [h, want] of [
        [store.finalizedHeader(), s.finalized],
        [store.optimisticHeader(), s.optimistic],
      ] as const) {
        expect({ slot: h.slot, beaconRoot: h.beaconRoot, executionRoot: h.execution?.root }, s.update).toEqual(want);
      }
    }
    // The finalized header is the finality update's, with its execution block as the Beacon
    // API's JSON gives it; the optimistic one is the optimistic update's.
    const fin = raw('finality.json').data['finalized_header'];
    const f = store.finalizedHeader();
    expect(f.slot).toBe(BigInt(fin?.beacon.slot ?? -1));
    expect(f.execution).toMatchObject({ blockNumber: BigInt(fin?.execution['block_number'] ?? -1), blockHash: fin?.execution['block_hash'], stateRoot: fin?.execution['state_root'] });
    expect(f.execution?.blockNumber).toBe(17923026n);
    const opt = raw('optimistic.json').data['attested_header'];
    expect(store.optimisticHeader().slot).toBe(BigInt(opt?.beacon.slot ?? -1));
    expect(store.optimisticHeader().execution?.blockNumber).toBe(BigInt(opt?.execution['block_number'] ?? -1));
    store.free();
  });

  it('validateUpdate checks without applying, and a saved store restores and follows the chain as the one it was saved from', async () => {
    await loadBeacon();
    const all = steps();
    const a = BeaconStore.bootstrap(bootstrapArgs());
    const first = all[0] as Step;
    a.validateUpdate(capella(ssz(first.update), first.currentSlot));
    expect(a.finalizedHeader().slot).toBe(7069376n);
    a.processUpdate(capella(ssz(first.update), first.currentSlot));
    const saved = a.save();
    const b = BeaconStore.restore('mainnet', saved);
    expect(b.finalizedHeader()).toEqual(a.finalizedHeader());
    expect(b.optimisticHeader()).toEqual(a.optimisticHeader());
    for (const s of all.slice(1, 6)) {
      a.processUpdate(capella(ssz(s.update), s.currentSlot));
      b.processUpdate(capella(ssz(s.update), s.currentSlot));
    }
    expect(b.finalizedHeader()).toEqual(a.finalizedHeader());
    expect(b.save()).toEqual(a.save());
    // Saved bytes cut short, or restored for another network, are refused: on Sepolia, Deneb is
    // in force at these slots, and the Capella execution header no longer matches its branch.
    expect(verificationError(() => BeaconStore.restore('mainnet', saved.subarray(0, saved.length - 1))).code).toBe('BAD_ENCODING');
    const other = verificationError(() => BeaconStore.restore('sepolia', saved));
    expect([other.code, other.field]).toEqual(['EXECUTION_BRANCH_MISMATCH', 'store.finalized_header.execution_branch']);
    a.free();
    b.free();
  });

  it('the slot of the network clock comes from the core: mainnet genesis 1606824023, 12 s slots', async () => {
    await loadBeacon();
    const store = BeaconStore.bootstrap(bootstrapArgs());
    expect(store.slotAt(1606824023 + 120)).toBe(10n);
    expect(store.slotAt(0n)).toBe(0n);
    expect(store.slotAt()).toBeGreaterThan(7_000_000n);
    store.free();
  });

  it("rejections are VerificationErrors with the core's code and field", async () => {
    await loadBeacon();
    const other = '0x' + TRUSTED_ROOT.slice(2, 65) + (TRUSTED_ROOT.endsWith('5') ? '4' : '5');
    const e = verificationError(() => BeaconStore.bootstrap({ ...bootstrapArgs(), trustedBlockRoot: other }));
    expect([e.code, e.field]).toEqual(['CHECKPOINT_MISMATCH', 'bootstrap.header.beacon']);
    expect(verificationError(() => BeaconStore.bootstrap({ ...bootstrapArgs(), bootstrap: { fork: 'phase0' as BeaconFork, ssz: ssz('bootstrap') } })).field).toBe('fork');
    const store = BeaconStore.bootstrap(bootstrapArgs());
    const s = steps()[1] as Step; // period 863: the store has no committee for it yet
    expect(verificationError(() => store.processUpdate(capella(ssz(s.update), s.currentSlot))).code).toBe('PERIOD_MISMATCH');
    const first = steps()[0] as Step;
    // A current slot before the signature slot.
    expect(verificationError(() => store.processUpdate(capella(ssz(first.update), 7061719n))).code).toBe('SLOT_ORDER');
    store.free();
  });
});

describe('argument checks name the field', () => {
  it('network: a known name or a minimal chain', async () => {
    await loadBeacon();
    expect(() => BeaconStore.bootstrap({ ...bootstrapArgs(), network: 'mainet' })).toThrow(new RangeError('network: expected mainnet, sepolia, holesky, hoodi or a minimal chain, got "mainet"'));
    expect(() => BeaconStore.bootstrap({ ...bootstrapArgs(), network: 1 as unknown as string })).toThrow(TypeError);
    expect(() => BeaconStore.bootstrap({ ...bootstrapArgs(), network: { preset: 'mainnet' } as never })).toThrow(/^network\.preset: expected 'minimal'/);
    expect(() => BeaconStore.bootstrap({ ...bootstrapArgs(), network: { preset: 'minimal', genesisValidatorsRoot: TRUSTED_ROOT } as never })).toThrow(new TypeError('network.lastFork: expected a fork name (altair … fulu)'));
    expect(() => BeaconStore.bootstrap({ ...bootstrapArgs(), network: { preset: 'minimal', genesisValidatorsRoot: '0x00', lastFork: 'capella' } })).toThrow(RangeError);
    expect(() => BeaconStore.bootstrap({ ...bootstrapArgs(), network: { preset: 'minimal', genesisValidatorsRoot: '0x00', lastFork: 'capella' } })).toThrow(/^network\.genesisValidatorsRoot/);
  });

  it('the arguments object, trustedBlockRoot and bootstrap', async () => {
    await loadBeacon();
    expect(() => BeaconStore.bootstrap(undefined as never)).toThrow(new TypeError('args: expected { network, trustedBlockRoot, bootstrap }'));
    expect(() => BeaconStore.bootstrap({ ...bootstrapArgs(), trustedBlockRoot: new Uint8Array(31) })).toThrow(new RangeError('trustedBlockRoot: expected 32 bytes, got 31'));
    expect(() => BeaconStore.bootstrap({ ...bootstrapArgs(), bootstrap: 'x' as never })).toThrow(new TypeError('bootstrap: expected { fork, ssz }'));
    expect(() => BeaconStore.bootstrap({ ...bootstrapArgs(), bootstrap: { ssz: '0x' } as never })).toThrow(new TypeError('bootstrap.fork: expected a fork name (altair … fulu)'));
    expect(() => BeaconStore.bootstrap({ ...bootstrapArgs(), bootstrap: { fork: 'capella', ssz: 7 } as never })).toThrow(new TypeError('bootstrap.ssz: expected bytes or 0x-hex'));
    // Hex that is not hex came from a node: BAD_ENCODING, naming the field.
    const e = verificationError(() => BeaconStore.bootstrap({ ...bootstrapArgs(), bootstrap: { fork: 'capella', ssz: '0xzz' } }));
    expect([e.code, e.field]).toEqual(['BAD_ENCODING', 'bootstrap.ssz']);
  });

  it('updates, slots and saved bytes', async () => {
    await loadBeacon();
    const store = BeaconStore.bootstrap(bootstrapArgs());
    const u = ssz((steps()[0] as Step).update);
    expect(() => store.processUpdate(null as never)).toThrow(new TypeError('update: expected { fork, ssz }'));
    expect(() => store.processFinalityUpdate({ fork: 'capella', ssz: u, currentSlot: -1 })).toThrow(new RangeError('update.currentSlot: must not be negative'));
    expect(() => store.processOptimisticUpdate({ fork: 'capella', ssz: u, currentSlot: 1.5 })).toThrow(new RangeError('update.currentSlot: not a safe integer'));
    expect(() => store.validateUpdate({ fork: 'capella', ssz: u, currentSlot: '7061720' as never })).toThrow(new TypeError('update.currentSlot: expected a slot (bigint or number)'));
    expect(() => store.forceUpdate(2n ** 64n)).toThrow(new RangeError('currentSlot: out of range (at most 2^64 - 1)'));
    expect(() => store.slotAt(-5)).toThrow(new RangeError('unixSeconds: must not be negative'));
    expect(() => BeaconStore.restore('mainnet', [1, 2] as never)).toThrow(new TypeError('saved: expected the Uint8Array save() returned'));
    expect(store.forceUpdate(7061720n)).toBe(false);
    store.free();
  });
});
