#!/usr/bin/env node
// The beacon light client: lightprov's wasm (`@lightprov/sdk/beacon`) against the lodestar light
// client (`@lodestar/light-client`) on the same real mainnet objects (sync committee periods
// 862..867, tests/fixtures/beacon/real/raw/helios) in the same run: a bootstrap verified, one
// update verified against a committee already decompressed (cached) and against one that is not
// (cold: its keys decompressed first), a sync through the six periods' updates, and the gzip size
// of what a page downloads for it. Every side decodes the SSZ bytes a beacon node serves in each
// timed run.
//
// The light client runs twice, with two BLS backends behind `@chainsafe/bls`'s implementation
// object (swapped between runs; lodestar's modules read it at every call): herumi's, compiled to
// wasm — what lodestar runs in browsers — and `@noble/curves`' bls12-381 (pure JavaScript,
// noble-bls.mjs), so that both peers do the very same checks as lodestar. In Node `@chainsafe/bls`
// would pick blst's native addon (C, no browser can load it), which a child run of this script
// measures for reference (`LIGHTPROV_LODESTAR_BLS=blst-native`).
//
// The machine is shared: a figure's samples taken back to back would each see one stretch of
// other load, and two figures measured a second apart could be ordered by the load rather than by
// the work (a cached update once measured slower than a cold one that way). So every figure is
// measured in LIGHTPROV_BENCH_ROUNDS rounds (at least 5), the sides interleaved within each round
// in a rotating order, and reported as the median of the rounds' medians with the lowest and
// highest round. Before timing, each side must accept the real update and refuse it with one
// participation bit flipped (the aggregate key changes, so the signature must fail): a side that
// skipped the check would be refused here rather than measured. Prints a table and the ratios;
// nothing is asserted about speed. `--json <file>` also writes the figures.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

import { BeaconStore, loadBeacon } from '@lightprov/sdk/beacon';

import { nobleBls } from './noble-bls.mjs';

const here = fileURLToPath(import.meta.url);
const root = path.join(path.dirname(here), '..', '..');
const jsonAt = process.argv.indexOf('--json');
const jsonOut = jsonAt > 0 ? process.argv[jsonAt + 1] : undefined;
const quick = process.env.LIGHTPROV_BENCH_MODE === 'quick';
const rounds = Math.max(5, Number(process.env.LIGHTPROV_BENCH_ROUNDS ?? 5));
const native = process.env.LIGHTPROV_LODESTAR_BLS === 'blst-native';
// Samples per round of each figure (their median is the round's figure).
const perRound = quick
  ? { bootstrap: 1, cached: 3, cold: 1, sync: 1 }
  : { bootstrap: 3, cached: 9, cold: 3, sync: 1 };

// @chainsafe/bls takes blst's addon in Node when it loads; its implementation object (the one
// lodestar's modules import) gets another backend's members when a side runs.
const { default: bls } = await import('@chainsafe/bls');
const { getImplementation } = await import('@chainsafe/bls/getImplementation');
const backends = native ? { 'blst-native': { ...bls } } : { herumi: await getImplementation('herumi'), noble: nobleBls };
const { createBeaconConfig } = await import('@lodestar/config');
const { genesisData, mainnetChainConfig } = await import('@lodestar/config/networks');
const { LightclientSpec } = await import('@lodestar/light-client/spec');
const { deserializeSyncCommittee } = await import('@lodestar/light-client/utils');
const { assertValidLightClientUpdate } = await import('@lodestar/light-client/validation');
const { ssz } = await import('@lodestar/types');

const raw = path.join(root, 'tests', 'fixtures', 'beacon', 'real', 'raw', 'helios');
const read = (f) => JSON.parse(fs.readFileSync(path.join(raw, f), 'utf8'));
const TRUSTED = '0x5afc212a7924789b2bc86acad3ab3a6ffb1f6e97253ea50bee7f4f51422c9275';
const U = ssz.capella.LightClientUpdate;
const B = ssz.capella.LightClientBootstrap;
// The SSZ bytes a beacon node serves, made from the Beacon API's JSON.
const bootstrapB = B.serialize(B.fromJson(read('bootstrap.json').data));
const updatesB = read('updates.json').map((u) => U.serialize(U.fromJson(u.data)));
const updatesV = updatesB.map((u) => U.deserialize(u));
const last = updatesB.length - 1; // the period-867 update, signed by the committee of 867
const lastB = updatesB[last];
const slotOf = (i) => updatesV[i].signatureSlot;
const config = createBeaconConfig(mainnetChainConfig, ssz.Root.fromJson(genesisData.mainnet.genesisValidatorsRoot));
// The same update with the first signer's participation bit cleared: its signature cannot verify.
const forgedB = (() => {
  const v = U.deserialize(lastB);
  const bits = v.syncAggregate.syncCommitteeBits;
  const i = bits.getTrueBitIndexes()[0];
  bits.set(i, false);
  return U.serialize(v);
})();

/** `f`'s wall time and the process's CPU time over it (ms). */
function once(f) {
  const c = process.cpuUsage();
  const s = performance.now();
  f();
  const wall = performance.now() - s;
  const d = process.cpuUsage(c);
  return { wall, cpu: (d.user + d.system) / 1000 };
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
/** Whether `f` throws. */
function throws(f) {
  try {
    f();
    return false;
  } catch {
    return true;
  }
}

/** Lodestar's light client with `backend`'s BLS: its figures' runs, and its verdicts. */
function lodestarSide(name, backend, slow = false) {
  const install = () => Object.assign(bls, backend);
  install();
  const committee867 = updatesV[last - 1].nextSyncCommittee;
  const fast867 = deserializeSyncCommittee(committee867);
  const opts = { allowForcedUpdates: true, updateHeadersOnForcedUpdate: true };
  const check = (bytes) => assertValidLightClientUpdate(config, fast867, U.deserialize(bytes));
  install();
  if (throws(() => check(lastB))) throw new Error(`${name}: the real update was refused`);
  if (!throws(() => check(forgedB))) throw new Error(`${name}: the forged update was accepted`);
  const wrap = (f) => () => {
    install();
    return f();
  };
  return {
    name,
    ops: {
      // Its bootstrap decompresses the committee's keys.
      bootstrap: wrap(() => new LightclientSpec(config, opts, B.deserialize(bootstrapB))),
      cached: wrap(() => check(lastB)),
      cold: wrap(() => assertValidLightClientUpdate(config, deserializeSyncCommittee(committee867), U.deserialize(lastB))),
      // With noble's BLS the sync (seven committees decompressed in JavaScript) takes about 15 s
      // a run: left out.
      sync: slow ? null : wrap(() => {
        // Its processing changes the objects it is given: decoded afresh each run.
        const spec = new LightclientSpec(config, opts, B.deserialize(bootstrapB));
        for (const u of updatesB) {
          const v = U.deserialize(u);
          spec.onUpdate(v.signatureSlot, v);
        }
      }),
    },
  };
}

/** The figures of `sides`: `rounds` rounds, the sides' order rotated each round. */
function measure(sides) {
  const ops = Object.keys(perRound);
  const figures = Object.fromEntries(sides.map((s) => [s.name, Object.fromEntries(ops.map((k) => [k, { wall: [], cpu: [] }]))]));
  // One untimed run of everything first: every side's code compiled and its caches made.
  for (const s of sides) for (const k of ops) s.ops[k]?.();
  for (let r = 0; r < rounds; r++) {
    for (const k of ops) {
      for (let j = 0; j < sides.length; j++) {
        const s = sides[(r + j) % sides.length];
        if (!s.ops[k]) continue;
        const samples = [];
        for (let i = 0; i < perRound[k]; i++) samples.push(once(s.ops[k]));
        figures[s.name][k].wall.push(median(samples.map((x) => x.wall)));
        figures[s.name][k].cpu.push(median(samples.map((x) => x.cpu)));
      }
    }
  }
  const summary = ({ wall, cpu }) =>
    wall.length === 0 ? null : { medianMs: median(wall), minMs: Math.min(...wall), maxMs: Math.max(...wall), roundsMs: wall, cpuMedianMs: median(cpu), cpuMinMs: Math.min(...cpu), cpuMaxMs: Math.max(...cpu) };
  return Object.fromEntries(sides.map((s) => [s.name, Object.fromEntries(ops.map((k) => [k, summary(figures[s.name][k])]))]));
}

if (native) {
  // The child run: lodestar with blst's addon only, as JSON on stdout.
  const side = lodestarSide('blst-native', backends['blst-native']);
  process.stdout.write(JSON.stringify(measure([side])['blst-native']));
  process.exit(0);
}

await loadBeacon();
const capella = (bytes, currentSlot) => ({ fork: 'capella', ssz: bytes, currentSlot });
const bootstrap = () => BeaconStore.bootstrap({ network: 'mainnet', trustedBlockRoot: TRUSTED, bootstrap: { fork: 'capella', ssz: bootstrapB } });
// Stores of ours: one through the period-866 update (it brings the committee of 867, not yet
// decompressed: saved, and restored for each cold run), one through all six (the committee of
// 867 current and decompressed: the cached runs).
const before = bootstrap();
for (let i = 0; i < last; i++) before.processUpdate(capella(updatesB[i], slotOf(i)));
const saved = before.save();
const synced = BeaconStore.restore('mainnet', saved);
synced.processUpdate(capella(lastB, slotOf(last)));
if (throws(() => synced.validateUpdate(capella(lastB, slotOf(last))))) throw new Error('lightprov: the real update was refused');
if (!throws(() => synced.validateUpdate(capella(forgedB, slotOf(last))))) throw new Error('lightprov: the forged update was accepted');

const ours = {
  name: 'lightprov',
  ops: {
    // Ours decompresses a committee's keys when it first checks a signature (in `cold`): the
    // aggregate key and the absent members' keys.
    bootstrap: () => bootstrap().free(),
    cached: () => synced.validateUpdate(capella(lastB, slotOf(last))),
    cold: () => {
      const s = BeaconStore.restore('mainnet', saved);
      s.validateUpdate(capella(lastB, slotOf(last)));
      s.free();
    },
    sync: () => {
      const s = bootstrap();
      for (let i = 0; i <= last; i++) s.processUpdate(capella(updatesB[i], slotOf(i)));
      s.free();
    },
  },
};
const sides = [ours, lodestarSide('herumi', backends.herumi), lodestarSide('noble', backends.noble, true)];
const loadBefore = os.loadavg()[0];
const figures = measure(sides);
const loadAfter = os.loadavg()[0];
const child = spawnSync(process.execPath, [here], { env: { ...process.env, LIGHTPROV_LODESTAR_BLS: 'blst-native' }, encoding: 'utf8' });
let nativeFigures = null;
try {
  nativeFigures = child.status === 0 ? JSON.parse(child.stdout) : null;
} catch {
  nativeFigures = null;
}

// What a page downloads for it: our beacon module, against the browser bundle of herumi's BLS
// (its wasm inlined) that lodestar's light client loads in browsers (lodestar's own JavaScript
// left out: a lower bound for lodestar).
const gz = (file) => zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
const ourModule = gz(path.join(root, 'sdk', 'wasm', 'beacon', 'lightprov_verifier_wasm_bg.wasm'));
let herumi = null;
try {
  const bundle = path.join(path.dirname(fileURLToPath(import.meta.resolve('bls-eth-wasm'))), '..', 'browser', 'bls.js');
  herumi = fs.existsSync(bundle) ? gz(bundle) : null;
} catch {
  herumi = null;
}

const labels = {
  bootstrap: 'bootstrap verified',
  cached: 'update, committee cached',
  cold: 'update, committee cold (keys decompressed)',
  sync: 'sync: bootstrap + 6 periods',
};
const rows = Object.keys(labels).map((k) => ({
  key: k,
  label: labels[k],
  lightprov: figures.lightprov[k],
  herumi: figures.herumi[k],
  noble: figures.noble[k],
  lodestarNative: nativeFigures?.[k] ?? null,
  // The medians, as earlier reports read them.
  lightprovMs: figures.lightprov[k].medianMs,
  lodestarMs: figures.herumi[k].medianMs,
  nobleMs: figures.noble[k]?.medianMs ?? null,
  lodestarNativeMs: nativeFigures?.[k]?.medianMs ?? null,
}));
const f2 = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));
const cell = (f) => (f ? `${f2(f.medianMs)} (${f2(f.minMs)}–${f2(f.maxMs)})` : '—');
const cpuCell = (f) => (f ? `${f2(f.cpuMedianMs)} (${f2(f.cpuMinMs)}–${f2(f.cpuMaxMs)})` : '—');
const ratio = (peer, ours, at = 'medianMs') => (peer ? `${(peer[at] / ours[at]).toFixed(2)}×` : '—');
console.log(
  `${rounds} rounds, sides interleaved; median of the rounds (lowest–highest round), ms. Load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)} on ${os.availableParallelism()} cores.`,
);
console.log('lodestar\'s light client with herumi\'s BLS (wasm, as in browsers) and with @noble/curves\' (pure JS); blst\'s native addon (Node only) for reference');
console.log('| step | lightprov wasm | lodestar, herumi | lodestar, noble | herumi / lightprov | noble / lightprov | lodestar, blst native |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.label} | ${cell(r.lightprov)} | ${cell(r.herumi)} | ${cell(r.noble)} | ${ratio(r.herumi, r.lightprov)} | ${ratio(r.noble, r.lightprov)} | ${r.lodestarNative ? cell(r.lodestarNative) : '—'} |`,
  );
}
// CPU time counts what the process ran, not the time it waited for a core another process had:
// on a busy machine it varies far less than the wall time (it includes V8's own threads: the
// garbage collector's and the compiler's).
console.log('The same runs in CPU time (the process\'s, ms):');
console.log('| step | lightprov wasm | lodestar, herumi | lodestar, noble | herumi / lightprov | noble / lightprov |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.label} | ${cpuCell(r.lightprov)} | ${cpuCell(r.herumi)} | ${cpuCell(r.noble)} | ${ratio(r.herumi, r.lightprov, 'cpuMedianMs')} | ${ratio(r.noble, r.lightprov, 'cpuMedianMs')} |`,
  );
}
console.log(`beacon module: ${(ourModule / 1000).toFixed(1)} kB gzip (budget 60 kB)` + (herumi ? `; herumi's BLS for browsers (bls-eth-wasm): ${(herumi / 1000).toFixed(1)} kB gzip` : ''));
const [cached, cold] = [rows[1], rows[2]];
const target = (name, got, want) => `${name} ${got.toFixed(2)}× (≥ ${want}×: ${got >= want ? 'met' : `short by ${(want / got).toFixed(2)}×`})`;
console.log(
  'targets: ' +
    [
      target("cached update vs lodestar's herumi", cached.herumi.medianMs / cached.lightprov.medianMs, 3),
      target("vs noble's", cached.noble.medianMs / cached.lightprov.medianMs, 2),
      target('cold update vs herumi', cold.herumi.medianMs / cold.lightprov.medianMs, 20),
    ].join('; '),
);
if (jsonOut) {
  fs.writeFileSync(
    jsonOut,
    JSON.stringify(
      { run: process.env.LIGHTPROV_BENCH_RUN ?? null, implementation: 'herumi', rounds, samplesPerRound: perRound, loadAverage: [loadBefore, loadAfter], rows, moduleGzipBytes: ourModule, herumiGzipBytes: herumi },
      null,
      2,
    ),
  );
}
before.free();
synced.free();
