#!/usr/bin/env node
// Provenance proofs: proof bytes and wasm verify time for a key's history over ranges of 2…128
// blocks — one COLE proof, one COLE* proof, or one MPT proof per block (the baseline) — on the
// proofs the engines benchmark wrote (target/bench/history-proofs.json, same state, same keys).
// Prints a table and the ratios; nothing is asserted.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { init } from '@lightprov/sdk';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const file = path.join(root, 'target', 'bench', 'history-proofs.json');
if (!fs.existsSync(file)) {
  console.log(`no ${path.relative(root, file)}: run the engines benchmark first (cargo bench -p lightprov-node --bench engines)`);
  process.exit(0);
}
await init();
// The SDK's own instance of the bindings (same module file), initialised by init().
const wasm = await import(path.join(root, 'sdk', 'wasm', 'lightprov_verifier_wasm.js'));

const bytes = (h) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const data = JSON.parse(fs.readFileSync(file, 'utf8'));
const ZERO = new Uint8Array(32);

const cases = data.cases.map((c) => {
  const lo = BigInt(c.fromBlock);
  const hi = BigInt(c.toBlock);
  const key = bytes(c.stateKey);
  const cole = (x, scheme) => {
    const h = bytes(x.root);
    // The header commits to both engines; the other engine's root is taken as zero here.
    const header = scheme === 'cole' ? wasm.coleHeaderRoot(h, ZERO) : wasm.coleHeaderRoot(ZERO, h);
    return { proof: bytes(x.proof), header, scheme };
  };
  return {
    range: c.range,
    key,
    lo,
    hi,
    cole: cole(c.cole, 'cole'),
    star: cole(c.coleStar, 'cole-star'),
    mpt: c.mpt.map((p) => ({ proof: bytes(p.proof), root: bytes(p.stateRoot) })),
  };
});

function verifyCole(c, x) {
  wasm.verifyColeHistory(x.header, x.scheme, ZERO, c.key, c.lo, c.hi, x.proof);
}
function verifyMpt(c) {
  for (const p of c.mpt) wasm.verifyAccountProof(p.proof, p.root);
}

/** Median µs per call over alternating rounds, after a warm-up. */
function time(fns, { rounds = 9, roundMs = 120 } = {}) {
  const sizes = fns.map((f) => {
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < 300) (f(n++), 0);
    return Math.max(5, Math.round((n / 300) * roundMs));
  });
  const samples = fns.map(() => []);
  for (let r = 0; r < rounds; r++) {
    fns.forEach((f, k) => {
      const t0 = performance.now();
      for (let i = 0; i < sizes[k]; i++) f(i);
      samples[k].push(((performance.now() - t0) * 1000) / sizes[k]);
    });
  }
  return samples.map((xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
}

const ranges = [...new Set(cases.map((c) => c.range))].sort((a, b) => a - b);
console.log(
  `\nProvenance proofs — ${data.workload} workload, ${data.blocks} blocks, ${data.opsPerBlock} ops/block; ` +
    `the ${cases.filter((c) => c.range === ranges[0]).length} keys written most in the last 128 blocks; ranges end at the head; Node ${process.version}, wasm, median of 9 rounds`,
);
console.log('| range | COLE bytes | COLE* bytes | MPT bytes (1 proof/block) | COLE µs | COLE* µs | MPT µs | MPT/COLE bytes | MPT/COLE time |');
console.log('|------:|-----------:|------------:|--------------------------:|--------:|---------:|-------:|---------------:|--------------:|');
const summary = {};
for (const range of ranges) {
  const cs = cases.filter((c) => c.range === range);
  const avg = (f) => cs.reduce((s, c) => s + f(c), 0) / cs.length;
  const coleB = avg((c) => c.cole.proof.length);
  const starB = avg((c) => c.star.proof.length);
  const mptB = avg((c) => c.mpt.reduce((s, p) => s + p.proof.length, 0));
  const [coleT, starT, mptT] = time([
    (i) => verifyCole(cs[i % cs.length], cs[i % cs.length].cole),
    (i) => verifyCole(cs[i % cs.length], cs[i % cs.length].star),
    (i) => verifyMpt(cs[i % cs.length]),
  ]);
  summary[range] = { coleB, mptB, coleT };
  const f = (x, d = 0) => x.toFixed(d);
  console.log(
    `| ${range} | ${f(coleB)} | ${f(starB)} | ${f(mptB)} | ${f(coleT, 1)} | ${f(starT, 1)} | ${f(mptT, 1)} | ${f(mptB / coleB, 1)}× | ${f(mptT / coleT, 1)}× |`,
  );
}
const last = summary[128];
if (last) {
  console.log(
    `128-block range: COLE proof ${last.coleB.toFixed(0)} B vs ${last.mptB.toFixed(0)} B for 128 MPT proofs (target: smaller); ` +
      `COLE verify ${(last.coleT / 1000).toFixed(3)} ms in wasm (target ≤ 1 ms)`,
  );
}
