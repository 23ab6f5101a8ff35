#!/usr/bin/env node
// The pairing-friendly curve crates that exist, in wasm32 under Node, on the operations our
// verifiers spend their time in (tests/bench/curves: one module with all of them, built by
// scripts/bench or by hand, see docs/benchmarks.md): a base-field multiplication, an Fp12
// multiplication, a pairing check e(a, b) = e(c, d) (one multi-Miller loop of two pairs and one
// final exponentiation), hash to G2 with the Ethereum tag, a G2 subgroup check; for BLS12-381
// zkcrypto's bls12_381 (the beacon module's), arkworks 0.5 and 0.6 and blst (C, a reference
// point, when built with it), for BN254 arkworks 0.5 (LVMT's) and 0.6 and substrate-bn.
//
// LIGHTPROV_BENCH_ROUNDS rounds (at least 5); in each, every operation once, in an order rotated
// every round; a figure is the median of the rounds (lowest–highest round), in the process's CPU
// time (the wall time, in the JSON, also counts the time other processes held the core). Each
// timed call runs enough iterations for about 20 ms. A call whose checks do not all hold is
// refused.
//
//   node tests/bench/curves.mjs [DIR] [--json FILE]   DIR: the bound module (default target/bench-curves/web)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dirArg = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : undefined;
const dir = dirArg ?? path.join(root, 'target', 'bench-curves', 'web');
const jsonAt = process.argv.indexOf('--json');
const jsonOut = jsonAt > 0 ? process.argv[jsonAt + 1] : undefined;
const rounds = Math.max(5, Number(process.env.LIGHTPROV_BENCH_ROUNDS ?? 5));
const glue = await import(pathToFileURL(path.join(dir, 'lightprov_bench_curves.js')).href);
glue.initSync({ module: fs.readFileSync(path.join(dir, 'lightprov_bench_curves_bg.wasm')) });
glue.setup();
const ops = glue.ops().split('\n');

/** One call's wall time and the process's CPU time over it (ms). */
const timed = (op, n) => {
  const c = process.cpuUsage();
  const s = performance.now();
  const held = glue.run(op, n);
  const wall = performance.now() - s;
  const d = process.cpuUsage(c);
  if (held !== n) throw new Error(`${op}: ${held} of ${n} checks held`);
  return { wall, cpu: (d.user + d.system) / 1000 };
};
const call = (op, n) => timed(op, n).wall;
// Iterations per call: about 20 ms each (after one call to compile and warm up).
const iters = {};
for (const op of ops) {
  call(op, 1);
  const one = Math.max(call(op, 1), 0.001);
  iters[op] = Math.max(1, Math.round(20 / one));
  if (op.endsWith('_mul')) iters[op] = Math.max(iters[op], Math.round(20 / (call(op, 1000) / 1000)));
}
const per = Object.fromEntries(ops.map((op) => [op, []]));
const perWall = Object.fromEntries(ops.map((op) => [op, []]));
for (let r = 0; r < rounds; r++) {
  for (let j = 0; j < ops.length; j++) {
    const op = ops[(r * 7 + j) % ops.length];
    const t = timed(op, iters[op]);
    per[op].push((t.cpu / iters[op]) * 1000); // µs
    perWall[op].push((t.wall / iters[op]) * 1000);
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fig = Object.fromEntries(
  ops.map((op) => [op, { medianUs: median(per[op]), minUs: Math.min(...per[op]), maxUs: Math.max(...per[op]), wallMedianUs: median(perWall[op]), iterations: iters[op] }]),
);
const fmt = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(us >= 10 ? 1 : 3)} µs`);
const cell = (f) => (f ? `${fmt(f.medianUs)} (${fmt(f.minUs)}–${fmt(f.maxUs)})` : '—');
// CPU time: on a shared machine the wall time also counts the time another process held the core.
console.log(`CPU time per operation; ${rounds} rounds, median of the rounds (lowest–highest). Load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores; ${process.version}.`);
for (const curve of ['bls12-381', 'bn254']) {
  const crates = [...new Set(ops.filter((o) => o.startsWith(curve + ' ')).map((o) => o.split(' ')[1]))];
  const kinds = [...new Set(ops.filter((o) => o.startsWith(curve + ' ')).map((o) => o.split(' ')[2]))];
  console.log(`\n${curve}`);
  console.log(`| op | ${crates.join(' | ')} |`);
  console.log(`|---|${crates.map(() => '---').join('|')}|`);
  for (const k of kinds) console.log(`| ${k} | ${crates.map((c) => cell(fig[`${curve} ${c} ${k}`])).join(' | ')} |`);
}
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ rounds, node: process.version, figures: fig }, null, 2));
