#!/usr/bin/env node
// The beacon light client: lightprov's wasm (`@lightprov/sdk/beacon`) against the lodestar light
// client (`@lodestar/light-client`) on the same real mainnet objects (sync committee periods
// 862..867, tests/fixtures/beacon/real/raw/helios) in the same run: a bootstrap verified, one
// update verified against a committee already decompressed (cached) and against one that is not
// (cold: its 512 keys decompressed first), a sync through the six periods' updates, and the gzip
// size of what a page downloads for it. Both sides decode the SSZ bytes a beacon node serves in
// each timed run.
//
// Lodestar's BLS (`@chainsafe/bls`) is herumi's, compiled to wasm — what it runs in browsers and
// the comparison the figures are for; in Node it would pick blst's native addon (C, no browser
// can load it), which a child run of this script measures for reference
// (`LIGHTPROV_LODESTAR_BLS=blst-native`). Prints a table and the ratios; nothing is asserted.
// `--json <file>` also writes the figures.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

import { BeaconStore, loadBeacon } from '@lightprov/sdk/beacon';

const here = fileURLToPath(import.meta.url);
const root = path.join(path.dirname(here), '..', '..');
const jsonAt = process.argv.indexOf('--json');
const jsonOut = jsonAt > 0 ? process.argv[jsonAt + 1] : undefined;
const quick = process.env.LIGHTPROV_BENCH_MODE === 'quick';
const samples = Number(process.env.LIGHTPROV_BENCH_SAMPLES ?? (quick ? 5 : 30));
const native = process.env.LIGHTPROV_LODESTAR_BLS === 'blst-native';

// @chainsafe/bls takes blst's addon in Node when it loads: its implementation object (the one
// lodestar's modules import) gets herumi's members instead, as a browser would have.
const { default: bls } = await import('@chainsafe/bls');
if (!native) {
  const { getImplementation } = await import('@chainsafe/bls/getImplementation');
  Object.assign(bls, await getImplementation('herumi'));
}
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

/** Median of `n` timings of `f` (ms), after one warm-up run. */
function time(f, n = samples) {
  f();
  const t = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    f();
    t.push(performance.now() - s);
  }
  t.sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)];
}
const few = Math.max(3, Math.floor(samples / 3));

/** Lodestar's figures with the BLS chosen above. */
function lodestarFigures() {
  const committee867 = updatesV[last - 1].nextSyncCommittee;
  const fast867 = deserializeSyncCommittee(committee867);
  const opts = { allowForcedUpdates: true, updateHeadersOnForcedUpdate: true };
  return {
    // Its bootstrap decompresses the committee's keys.
    bootstrap: time(() => new LightclientSpec(config, opts, B.deserialize(bootstrapB))),
    cached: time(() => assertValidLightClientUpdate(config, fast867, U.deserialize(lastB))),
    cold: time(() => assertValidLightClientUpdate(config, deserializeSyncCommittee(committee867), U.deserialize(lastB)), few),
    sync: time(() => {
      // Its processing changes the objects it is given: decoded afresh each run.
      const spec = new LightclientSpec(config, opts, B.deserialize(bootstrapB));
      for (const u of updatesB) {
        const v = U.deserialize(u);
        spec.onUpdate(v.signatureSlot, v);
      }
    }, Math.max(2, Math.floor(samples / 10))),
  };
}

if (native) {
  // The child run: lodestar with blst's addon only, as JSON on stdout.
  process.stdout.write(JSON.stringify({ implementation: bls.implementation, ...lodestarFigures() }));
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

const ours = {
  // Ours decompresses a committee's keys when it first checks a signature (in `cold`).
  bootstrap: time(() => bootstrap().free()),
  cached: time(() => synced.validateUpdate(capella(lastB, slotOf(last)))),
  cold: time(() => {
    const s = BeaconStore.restore('mainnet', saved);
    s.validateUpdate(capella(lastB, slotOf(last)));
    s.free();
  }, few),
  sync: time(() => {
    const s = bootstrap();
    for (let i = 0; i <= last; i++) s.processUpdate(capella(updatesB[i], slotOf(i)));
    s.free();
  }, Math.max(2, Math.floor(samples / 10))),
};
const lodestar = lodestarFigures();
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
  cold: 'update, committee cold (512 keys decompressed)',
  sync: 'sync: bootstrap + 6 periods',
};
const rows = Object.keys(labels).map((k) => ({ key: k, label: labels[k], lightprovMs: ours[k], lodestarMs: lodestar[k], lodestarNativeMs: nativeFigures?.[k] ?? null }));
console.log(`lodestar's BLS: ${bls.implementation} (wasm, as in browsers); reference: ${nativeFigures ? nativeFigures.implementation + ' (native addon, Node only)' : 'blst-native unavailable'}`);
console.log('| step | lightprov wasm (ms) | lodestar, herumi (ms) | lodestar / lightprov | lodestar, blst native (ms) |');
console.log('|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.label} | ${r.lightprovMs.toFixed(2)} | ${r.lodestarMs.toFixed(2)} | ${(r.lodestarMs / r.lightprovMs).toFixed(2)}× | ${r.lodestarNativeMs === null ? '—' : r.lodestarNativeMs.toFixed(2)} |`);
}
console.log(`beacon module: ${(ourModule / 1000).toFixed(1)} kB gzip (budget 60 kB)` + (herumi ? `; herumi's BLS for browsers (bls-eth-wasm): ${(herumi / 1000).toFixed(1)} kB gzip` : ''));
const speed = lodestar.cached / ours.cached;
console.log(
  `targets: one update with a cached committee ${ours.cached.toFixed(1)} ms in wasm (≤ 15 ms: ${ours.cached <= 15 ? 'met' : `short by ${(ours.cached / 15).toFixed(2)}×`}); ` +
    `${speed.toFixed(2)}× lodestar's speed on it (≥ 3×: ${speed >= 3 ? 'met' : `short by ${(3 / speed).toFixed(2)}×`})`,
);
if (jsonOut) {
  fs.writeFileSync(
    jsonOut,
    JSON.stringify({ run: process.env.LIGHTPROV_BENCH_RUN ?? null, implementation: bls.implementation, samples, rows, moduleGzipBytes: ourModule, herumiGzipBytes: herumi }, null, 2),
  );
}
before.free();
synced.free();
