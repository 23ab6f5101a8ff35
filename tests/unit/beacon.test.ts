// The beacon light client through the SDK (`@lightprov/sdk/beacon`): its module loads only when
// asked for, real mainnet data (sync committee periods 862..867, tests/fixtures/beacon/real)
// syncs to the finalized execution block, and each argument check of the wrapper names its
// field. Its own file: vitest isolates files, so no module is loaded when it starts.
import { VerificationError, init } from '@lightprov/sdk';
import { type BeaconFork, BeaconStore, beaconNetworks, loadBeacon } from '@lightprov/sdk/beacon';
import { describe, expect, it } from 'vitest';

import { recordingLocate, verificationError } from '../lib/util.js';
import { type Step, TRUSTED_ROOT, asFinalityUpdate, asOptimisticUpdate, bootstrapArgs, capella, raw, ssz, steps } from './beacon-data.js';

describe('loading', () => {
  it('init() leaves the beacon module out; loadBeacon() loads it', async () => {
    const { asked, locate } = recordingLocate();
    await init({ locate });
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

  it('the head to follow: the newest header two thirds signed, not kept by save', async () => {
    await loadBeacon();
    const store = BeaconStore.bootstrap(bootstrapArgs());
    expect(store.followedHeader()).toEqual(store.finalizedHeader());
    expect(store.participation()).toBeUndefined();
    for (const s of steps().slice(0, 6)) store.processUpdate(capella(ssz(s.update), s.currentSlot));
    const last = steps()[7] as Step;
    store.processOptimisticUpdate(capella(asOptimisticUpdate(ssz(last.update)), last.currentSlot));
    // 510 of 512 signed the optimistic update (tests/fixtures/beacon/real/SOURCE.md).
    expect(store.participation()).toEqual({ signed: 510, size: 512 });
    expect(store.followedHeader()).toEqual(store.optimisticHeader());
    expect(store.followedHeader().slot).toBe(7109431n);
    // A restored store follows its finalized header until it takes an update.
    const restored = BeaconStore.restore('mainnet', store.save());
    expect(restored.optimisticHeader()).toEqual(store.optimisticHeader());
    expect(restored.followedHeader()).toEqual(restored.finalizedHeader());
    // More than 510 of 512 asked: the same update is not followed.
    const strict = BeaconStore.bootstrap(bootstrapArgs());
    strict.setMinParticipation(1);
    for (const s of steps().slice(0, 6)) strict.processUpdate(capella(ssz(s.update), s.currentSlot));
    const followed = strict.followedHeader();
    strict.processOptimisticUpdate(capella(asOptimisticUpdate(ssz(last.update)), last.currentSlot));
    expect(strict.optimisticHeader().slot).toBe(7109431n);
    expect(strict.followedHeader()).toEqual(followed);
    expect(() => strict.setMinParticipation(0)).toThrow(/^fraction: expected a share of the sync committee/);
    expect(() => strict.setMinParticipation(Number.NaN)).toThrow(RangeError);
    expect(() => strict.setMinParticipation('1' as never)).toThrow(TypeError);
    for (const s of [store, restored, strict]) s.free();
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
    // A fork schedule: one epoch per fork from altair to lastFork, never decreasing.
    const chain = (forkEpochs: unknown) => ({ preset: 'minimal' as const, genesisValidatorsRoot: TRUSTED_ROOT, lastFork: 'capella' as const, forkEpochs: forkEpochs as number[] });
    expect(() => BeaconStore.bootstrap({ ...bootstrapArgs(), network: chain(3) })).toThrow(/^network\.forkEpochs: expected an array/);
    expect(() => BeaconStore.bootstrap({ ...bootstrapArgs(), network: chain([0, -1, 3]) })).toThrow(/^network\.forkEpochs\[1\]: must not be negative/);
    for (const bad of [[0, 0], [0, 4, 3]]) {
      const e = (() => {
        try {
          BeaconStore.bootstrap({ ...bootstrapArgs(), network: chain(bad) });
        } catch (x) {
          return x as VerificationError;
        }
        throw new Error(`forkEpochs ${JSON.stringify(bad)} accepted`);
      })();
      expect([e.code, e.field]).toEqual(['BAD_ENCODING', 'network.forkEpochs']);
    }
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
