#!/usr/bin/env node
// LVMT proofs in wasm (Node): our check (every level's AMT opening in one multi-Miller loop and
// one final exponentiation) against the same proof checked with one full pairing per factor —
// nothing prepared, nothing shared; D + 1 pairings per level — on the proofs
// target/bench/lvmt-proofs.json holds (crates/engine-lvmt/examples/lvmt_bench_proofs.rs, an
// INSECURE dev setup at D = 16). Ours comes from the SDK's LVMT module (sdk/wasm/lvmt); the separate check
// from a build with the `bench-baseline` feature (target/bench-wasm). Builds nothing: see
// scripts/bench. Exits non-zero if either check does not accept each proof with the expected
// result, or does not reject it with two quotients swapped. `--json <file>` also writes the
// figures as JSON. `--before <dir>` adds the A/B: the same proofs checked by the LVMT module built
// from the commit before the check moved to lightprov-field (arkworks' BN254; scripts/bench builds
// it into target/bench-baseline/lvmt-before-field), timed in the same rounds.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { JSON_OUT, provenance, writeFigures } from './figures.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const jsonOut = JSON_OUT;
const rel = (f) => path.relative(root, f);
const proofsFile = path.join(root, 'target', 'bench', 'lvmt-proofs.json');
const sdkDir = path.join(root, 'sdk', 'wasm', 'lvmt');
const baseDir = path.join(root, 'target', 'bench-wasm');
const beforeDir = process.argv.includes('--before') ? path.resolve(process.argv[process.argv.indexOf('--before') + 1] ?? '') : null;

function fail(msg) {
  console.error(`lvmt bench: ${msg}`);
  process.exit(1);
}
for (const f of [proofsFile, path.join(sdkDir, 'lightprov_verifier_wasm_bg.wasm'), path.join(baseDir, 'lightprov_verifier_wasm_bg.wasm')]) {
  if (!fs.existsSync(f)) fail(`missing ${rel(f)}: run scripts/build, then scripts/bench (which builds the baseline and the proofs)`);
}

/** One wasm-bindgen module, instantiated synchronously from its file. */
async function load(dir) {
  const m = await import(path.join(dir, 'lightprov_verifier_wasm.js'));
  m.initSync({ module: fs.readFileSync(path.join(dir, 'lightprov_verifier_wasm_bg.wasm')) });
  return m;
}
if (beforeDir && !fs.existsSync(path.join(beforeDir, 'lightprov_verifier_wasm_bg.wasm'))) fail(`--before ${rel(beforeDir)}: no lightprov_verifier_wasm_bg.wasm there`);
const ours = await load(sdkDir);
const base = await load(baseDir);
const before = beforeDir ? await load(beforeDir) : null;
if (typeof base.verifyLvmtProofSeparatePairings !== 'function') fail(`${rel(baseDir)} has no verifyLvmtProofSeparatePairings: not a bench-baseline build`);

const bytes = (h) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const data = JSON.parse(fs.readFileSync(proofsFile, 'utf8'));
const paramBytes = bytes(data.params);
if (paramBytes.length !== data.paramsBytes) fail('params length does not match paramsBytes');
const aroot = bytes(data.lvmtRoot);
const historyRoot = bytes(data.lvmtHistoryRoot);
const blocks = BigInt(data.blocks);

/** Median ms per call: warm-up calls first, then `runs` timed calls (at least `minRuns`, at most `maxRuns`, about `budgetMs` in all). */
function time(fn, { warm = 2, minRuns = 5, maxRuns = 200, budgetMs = 2000 } = {}) {
  let t0 = performance.now();
  for (let i = 0; i < warm; i++) fn();
  const per = (performance.now() - t0) / warm;
  const runs = Math.max(minRuns, Math.min(maxRuns, Math.round(budgetMs / Math.max(per, 1e-3))));
  const xs = [];
  for (let i = 0; i < runs; i++) {
    t0 = performance.now();
    fn();
    xs.push(performance.now() - t0);
  }
  xs.sort((a, b) => a - b);
  return { ms: xs[Math.floor(xs.length / 2)], runs };
}

// Parameters: decoded and validated (every G2 point on the curve and in the subgroup) once.
const paramsTime = time(() => new ours.LvmtParams(paramBytes).free(), { warm: 3, minRuns: 20, budgetMs: 1000 });
let pOurs;
let pBase;
let pBefore = null;
try {
  pOurs = new ours.LvmtParams(paramBytes);
  pBase = new base.LvmtParams(paramBytes);
  if (before) pBefore = new before.LvmtParams(paramBytes);
} catch (e) {
  fail(`the parameters are refused: ${e?.message ?? e}`);
}
if (pOurs.depth !== data.depth) fail(`params depth ${pOurs.depth}, expected ${data.depth}`);

/** Runs one verifier and checks it accepts the proof with the result the generator expects. */
function check(label, f, c) {
  let out;
  try {
    out = f();
  } catch (e) {
    fail(`${label} rejects "${c.name}": ${e?.message ?? e}`);
  }
  if (!(out instanceof Uint8Array) || out.length !== 49 || (out[0] === 1) !== c.present) {
    fail(`${label} gives the wrong result for "${c.name}" (expected ${c.present ? 'present' : 'absent'})`);
  }
}

const rows = [];
for (const c of data.cases) {
  const key = bytes(c.key);
  const proof = bytes(c.proof);
  if (proof.length !== c.proofBytes) fail(`"${c.name}": proof length does not match proofBytes`);
  const batched = () => ours.verifyLvmtProof(pOurs, aroot, historyRoot, blocks, key, proof);
  const separate = () => base.verifyLvmtProofSeparatePairings(pBase, aroot, historyRoot, blocks, key, proof);
  const sameBuild = () => base.verifyLvmtProof(pBase, aroot, historyRoot, blocks, key, proof);
  check('verifyLvmtProof', batched, c);
  check('verifyLvmtProofSeparatePairings', separate, c);
  check('verifyLvmtProof (baseline build)', sameBuild, c);
  const older = before ? () => before.verifyLvmtProof(pBefore, aroot, historyRoot, blocks, key, proof) : null;
  if (older) check('verifyLvmtProof (before lightprov-field)', older, c);
  // A false quotient must fail the pairing check both ways, or the bench may be timing a check
  // that accepts anything: level 0's quotients Q_1 and Q_2 swapped (they start at byte 84:
  // 0x01 depth key kind count, then six u64 versions).
  const forged = proof.slice();
  const q = (j) => forged.subarray(84 + 32 * j, 84 + 32 * (j + 1));
  const [q1, q2] = [q(0).slice(), q(1).slice()];
  if (Buffer.compare(q1, q2) === 0) fail(`"${c.name}": Q_1 = Q_2, cannot forge by swapping`);
  q(0).set(q2);
  q(1).set(q1);
  for (const [label, fn] of [
    ['verifyLvmtProof', () => ours.verifyLvmtProof(pOurs, aroot, historyRoot, blocks, key, forged)],
    ['verifyLvmtProofSeparatePairings', () => base.verifyLvmtProofSeparatePairings(pBase, aroot, historyRoot, blocks, key, forged)],
    ...(before ? [['verifyLvmtProof (before lightprov-field)', () => before.verifyLvmtProof(pBefore, aroot, historyRoot, blocks, key, forged)]] : []),
  ]) {
    let code = null;
    try {
      fn();
    } catch (e) {
      code = e?.code ?? String(e);
    }
    if (code !== 'PAIRING_CHECK_FAILED') fail(`${label} on "${c.name}" with two quotients swapped: ${code ?? 'accepted'}, expected PAIRING_CHECK_FAILED`);
  }
  const o = time(() => check('verifyLvmtProof', batched, c), { warm: 3, minRuns: 15 });
  const s = time(() => check('verifyLvmtProofSeparatePairings', separate, c), { warm: 1, minRuns: 5, budgetMs: 3000 });
  const sb = time(() => check('verifyLvmtProof (baseline build)', sameBuild, c), { warm: 3, minRuns: 15, budgetMs: 1000 });
  // The A/B: five rounds, ours and the module before lightprov-field alternating, so that a slow
  // spell of the machine falls on both; the median of each side's round medians, and their spread.
  let ab = null;
  if (older) {
    const rounds = { ours: [], before: [] };
    for (let r = 0; r < 5; r++) {
      rounds.ours.push(time(() => check('verifyLvmtProof', batched, c), { warm: 1, minRuns: 5, budgetMs: 400 }).ms);
      rounds.before.push(time(() => check('verifyLvmtProof (before lightprov-field)', older, c), { warm: 1, minRuns: 5, budgetMs: 400 }).ms);
    }
    const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    ab = { oursMs: med(rounds.ours), beforeMs: med(rounds.before), ours: rounds.ours, before: rounds.before };
  }
  rows.push({ c, o, s, sb, ab });
}

const f = (x, d = 1) => x.toFixed(d);
console.log(
  `\nLVMT proofs, wasm in Node ${process.version} — D = ${data.depth} (INSECURE dev setup), ${data.blocks} blocks; ` +
    `median ms per verify after warm-up (runs in brackets); separate = one full pairing per factor, D + 1 = ${data.depth + 1} per level`,
);
console.log('| case | levels | proof bytes | bytes/level | ours ms | separate ms | separate/ours |');
console.log('|------|-------:|------------:|------------:|--------:|------------:|--------------:|');
for (const { c, o, s } of rows) {
  console.log(
    `| ${c.name} | ${c.levels} | ${c.proofBytes} | ${f(c.proofBytes / c.levels, 0)} | ${f(o.ms, 2)} (${o.runs}) | ${f(s.ms, 1)} (${s.runs}) | ${f(s.ms / o.ms)}× |`,
  );
}
console.log(`level bytes (versions, quotients, and below the root the commitment and its tuple path): ${rows.map(({ c }) => `${c.name} [${c.levelBytes.join(', ')}]`).join('; ')}`);
console.log(
  `quotients at the identity per level (empty cosets of a sparse AMT: no Miller loop, either check): ` +
    rows.map(({ c }) => `${c.name} [${(c.identityQuotients ?? []).join(', ')}] of ${data.depth}`).join('; '),
);
if (before) {
  console.log(`A/B: the SDK's LVMT module against the one before its check moved to lightprov-field (arkworks' BN254), 5 rounds alternating, median of the rounds' medians (lowest–highest round):`);
  console.log('| case | levels | ours ms | before ms | before/ours |');
  console.log('|------|-------:|--------:|----------:|------------:|');
  const spread = (xs) => `${f(Math.min(...xs), 2)}–${f(Math.max(...xs), 2)}`;
  for (const { c, ab } of rows) {
    console.log(`| ${c.name} | ${c.levels} | ${f(ab.oursMs, 2)} (${spread(ab.ours)}) | ${f(ab.beforeMs, 2)} (${spread(ab.before)}) | ${f(ab.beforeMs / ab.oursMs, 2)}× |`);
  }
}
console.log(`same-build check (the batched verify in the baseline build): ${rows.map(({ c, sb }) => `${c.name} ${f(sb.ms, 2)} ms`).join('; ')}`);
console.log(`verifier parameters: ${data.paramsBytes} B (target ≤ 2048 B); decode + validate ${f(paramsTime.ms, 2)} ms (median of ${paramsTime.runs}), once per parameter set`);
const two = rows.find(({ c }) => c.levels === 2);
if (two) {
  const ratio = two.s.ms / two.o.ms;
  console.log(
    `2 levels: ours ${f(two.o.ms, 2)} ms (target ≤ 25 ms: ${two.o.ms <= 25 ? 'met' : 'MISSED'}), ` +
      `${f(ratio)}× faster than separate pairings (target ≥ 4×: ${ratio >= 4 ? 'met' : 'MISSED'})`,
  );
}
pOurs.free();
pBase.free();
pBefore?.free();
if (jsonOut) {
  const doc = {
    ...provenance('tests/bench/lvmt.mjs', data.run ?? ''),
    depth: data.depth,
    setup: data.setup,
    blocks: data.blocks,
    timing: 'median ms per verify after warm-up; wasm in Node',
    paramsBytes: data.paramsBytes,
    paramsDecodeMs: paramsTime.ms,
    ...(before ? { before: `the SDK's LVMT module before its check moved to lightprov-field (${rel(beforeDir)})` } : {}),
    cases: rows.map(({ c, o, s, sb, ab }) => ({
      name: c.name,
      levels: c.levels,
      present: c.present,
      proofBytes: c.proofBytes,
      levelBytes: c.levelBytes,
      identityQuotients: c.identityQuotients ?? [],
      oursMs: o.ms,
      oursRuns: o.runs,
      separateMs: s.ms,
      separateRuns: s.runs,
      sameBuildMs: sb.ms,
      ...(ab ? { abOursMs: ab.oursMs, abBeforeMs: ab.beforeMs, abOursRoundsMs: ab.ours, abBeforeRoundsMs: ab.before } : {}),
    })),
  };
  writeFigures(doc);
}
