#!/usr/bin/env node
// Provenance proofs: proof bytes and wasm verify time for a key's history over ranges of 2…128
// blocks — one COLE proof, one COLE* proof, one LVMT history proof (SDK verifyLvmtHistory), or
// one forkless LiveDB history proof (the key's chain head and links), or one MPT proof per
// block (the baseline) — on the proofs the engines benchmark wrote
// (target/bench/history-proofs.json, same state, same keys). Prints a table and the ratios;
// nothing is asserted. `--json <file>` also writes the figures as JSON.
import { init, LvmtParams, verifyLvmtHistory } from '@lightprov/sdk';
import { verifyForklessHistory } from '@lightprov/sdk/forkless';

import { provenance, writeFigures } from './figures.mjs';
import { loadModule, proofsFile, timeAlternating } from './wasm-timing.mjs';

const data = proofsFile('history-proofs.json', 'engines benchmark', 'engines');
await init({ families: ['lvmt', 'forkless'] });
const coleWasm = await loadModule('cole');
const mptWasm = await loadModule('mpt');

const bytes = (h) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const ZERO = new Uint8Array(32);
// LVMT (when the engines benchmark ran it): the parameters, decoded and validated once, and the
// anchor — the head's lvmtRoot and lvmtHistoryRoot.
const lvmt = data.lvmt
  ? {
      params: LvmtParams.shipped(data.lvmt.params),
      anchor: { lvmtRoot: data.lvmt.lvmtRoot, lvmtHistoryRoot: data.lvmt.lvmtHistoryRoot, number: BigInt(data.lvmt.head) },
    }
  : null;

const cases = data.cases.map((c) => {
  const lo = BigInt(c.fromBlock);
  const hi = BigInt(c.toBlock);
  const key = bytes(c.stateKey);
  const cole = (x, scheme) => {
    const h = bytes(x.root);
    // The header commits to both engines; the other engine's root is taken as zero here.
    const header = scheme === 'cole' ? coleWasm.coleHeaderRoot(h, ZERO) : coleWasm.coleHeaderRoot(ZERO, h);
    return { proof: bytes(x.proof), header, scheme };
  };
  return {
    range: c.range,
    key,
    lo,
    hi,
    cole: cole(c.cole, 'cole'),
    star: cole(c.coleStar, 'cole-star'),
    lvmt: c.lvmt ? bytes(c.lvmt.proof) : null,
    forkless: c.forkless ? { proof: bytes(c.forkless.proof), root: c.forkless.root, key: c.forkless.key } : null,
    mpt: c.mpt.map((p) => ({ proof: bytes(p.proof), root: bytes(p.stateRoot) })),
  };
});

function verifyCole(c, x) {
  coleWasm.verifyColeHistory(x.header, x.scheme, ZERO, c.key, c.lo, c.hi, x.proof);
}
function verifyMpt(c) {
  for (const p of c.mpt) mptWasm.verifyAccountProof(p.proof, p.root);
}
function verifyLvmt(c) {
  verifyLvmtHistory({ params: lvmt.params, anchor: lvmt.anchor, stateKey: c.key, fromBlock: c.lo, toBlock: c.hi, proof: c.lvmt });
}
function verifyForkless(c) {
  verifyForklessHistory({ proof: c.forkless.proof, key: c.forkless.key, forklessRoot: c.forkless.root, fromBlock: c.lo, toBlock: c.hi });
}
const withLvmt = lvmt !== null && cases.every((c) => c.lvmt);
const withForkless = cases.every((c) => c.forkless);
// Every proof is checked once before timing (a timed verify that throws would time nothing).
for (const c of cases) {
  verifyCole(c, c.cole);
  verifyCole(c, c.star);
  verifyMpt(c);
  if (withLvmt) verifyLvmt(c);
  if (withForkless) verifyForkless(c);
}

const ranges = [...new Set(cases.map((c) => c.range))].sort((a, b) => a - b);
const keyCount = cases.filter((c) => c.range === ranges[0]).length;
console.log(
  `\nProvenance proofs — ${data.workload} workload, ${data.blocks} blocks, ${data.opsPerBlock} ops/block; ` +
    `the ${keyCount} keys written most in the last 128 blocks; ranges end at the head; Node ${process.version}, wasm, median of 9 rounds` +
    (withLvmt ? `; LVMT at D = ${data.lvmt.depth} (INSECURE dev setup), verified with the SDK's verifyLvmtHistory` : ''),
);
const lv = (a, b) => (withLvmt ? a : b);
const fk = (a, b) => (withForkless ? a : b);
console.log(`| range | COLE bytes | COLE* bytes |${lv(' LVMT bytes |', '')}${fk(' Forkless bytes |', '')} MPT bytes (1 proof/block) | COLE µs | COLE* µs |${lv(' LVMT µs |', '')}${fk(' Forkless µs |', '')} MPT µs | MPT/COLE bytes | MPT/COLE time |`);
console.log(`|------:|-----------:|------------:|${lv('-----------:|', '')}${fk('---------------:|', '')}--------------------------:|--------:|---------:|${lv('--------:|', '')}${fk('------------:|', '')}-------:|---------------:|--------------:|`);
const summary = {};
const rows = [];
for (const range of ranges) {
  const cs = cases.filter((c) => c.range === range);
  const avg = (f) => cs.reduce((s, c) => s + f(c), 0) / cs.length;
  const coleB = avg((c) => c.cole.proof.length);
  const starB = avg((c) => c.star.proof.length);
  const lvmtB = withLvmt ? avg((c) => c.lvmt.length) : NaN;
  const forkB = withForkless ? avg((c) => c.forkless.proof.length) : NaN;
  const mptB = avg((c) => c.mpt.reduce((s, p) => s + p.proof.length, 0));
  const contestants = [
    (i) => verifyCole(cs[i % cs.length], cs[i % cs.length].cole),
    (i) => verifyCole(cs[i % cs.length], cs[i % cs.length].star),
    (i) => verifyMpt(cs[i % cs.length]),
  ];
  contestants.push(withLvmt ? (i) => verifyLvmt(cs[i % cs.length]) : null);
  contestants.push(withForkless ? (i) => verifyForkless(cs[i % cs.length]) : null);
  const timed = timeAlternating(contestants.filter((f) => f !== null));
  const [coleT, starT, mptT] = timed;
  const lvmtT = withLvmt ? timed[3] : NaN;
  const forkT = withForkless ? timed[withLvmt ? 4 : 3] : NaN;
  summary[range] = { coleB, mptB, coleT, forkB, forkT };
  rows.push({
    range,
    keys: cs.length,
    bytes: { cole: coleB, coleStar: starB, lvmt: withLvmt ? lvmtB : null, forkless: withForkless ? forkB : null, mpt: mptB },
    verifyUs: { cole: coleT, coleStar: starT, lvmt: withLvmt ? lvmtT : null, forkless: withForkless ? forkT : null, mpt: mptT },
  });
  const f = (x, d = 0) => x.toFixed(d);
  console.log(
    `| ${range} | ${f(coleB)} | ${f(starB)} |${lv(` ${f(lvmtB)} |`, '')}${fk(` ${f(forkB)} |`, '')} ${f(mptB)} | ${f(coleT, 1)} | ${f(starT, 1)} |${lv(` ${f(lvmtT, 1)} |`, '')}${fk(` ${f(forkT, 1)} |`, '')} ${f(mptT, 1)} | ${f(mptB / coleB, 1)}× | ${f(mptT / coleT, 1)}× |`,
  );
}
const last = summary[128];
if (last) {
  console.log(
    `128-block range: COLE proof ${last.coleB.toFixed(0)} B vs ${last.mptB.toFixed(0)} B for 128 MPT proofs (target: smaller); ` +
      `COLE verify ${(last.coleT / 1000).toFixed(3)} ms in wasm (target ≤ 1 ms)`,
  );
  if (withForkless) {
    console.log(
      `128-block range: forkless proof ${last.forkB.toFixed(0)} B = ${(last.forkB / last.coleB).toFixed(2)}× COLE's (target ≤ 1×); ` +
        `forkless verify ${(last.forkT / 1000).toFixed(3)} ms in wasm`,
    );
  }
}
writeFigures({
  ...provenance('tests/bench/history.mjs', data.run ?? ''),
  workload: data.workload,
  blocks: data.blocks,
  opsPerBlock: data.opsPerBlock,
  seed: data.seed ?? null,
  keys: keyCount,
  timing: 'median µs per verify of 9 alternating rounds after a warm-up; wasm in Node',
  lvmt: withLvmt ? { depth: data.lvmt.depth, paramsBytes: data.lvmt.paramsBytes, setup: data.lvmt.setup } : null,
  rows,
});
