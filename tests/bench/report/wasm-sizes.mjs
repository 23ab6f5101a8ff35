#!/usr/bin/env node
// Sizes of the SDK's wasm modules (sdk/wasm/<module>, made by scripts/build): each proof
// family's, the one with every family, and what typical apps download — an MPT-only dapp (the
// MPT module), one that also follows headers (header + MPT), and a page that verifies every
// family (the loader's choice: the per-family modules or the one with all, whichever is
// smaller). Also the beacon light client's module, which is not in the one with every family
// (its BLS12-381 would put that module over its budget: measured with it, 265,412 B gzip
// against 216,950 B without) and which only apps that follow the beacon chain load, against
// the 60 kB; and the proof inspector's module (sdk/wasm/inspect, crates/inspect), which
// only pages that draw proofs load. Raw bytes and gzip -9 bytes, against the budgets.
// Usage: wasm-sizes.mjs [--json out]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const jsonAt = process.argv.indexOf('--json');
const jsonOut = jsonAt > 0 ? process.argv[jsonAt + 1] : undefined;
// The families of the module with every family (verifier-wasm's default features).
const FAMILIES = ['header', 'mpt', 'cole', 'lvmt', 'forkless', 'mbt', 'pos'];
// The sizes before the verifier was split per family (one module per feature set), raised once
// by what transaction proofs by block and index add (verifyTransactionProof: the
// TransactionProof decoder, the pair's checks, their errors with evidence; two error codes and
// the shared vectors' seven tamper classes in the registry the header code exports), measured
// at +2,557 B gzip on the MPT module (23,855 → 26,412) and +2,665 B on the one with every family
// (196,482 → 199,147), each rounded up to the next 100 B: from 24,600 and 197,000. The one with
// every family raised again by the ordered-trie root in the header module (a block's lists
// rebuilt against transactionsRoot/receiptsRoot in wasm, which made getLogs over 1,000 blocks
// about a fifth faster than the same root in JS): +2,205 B (199,147 → 201,352), rounded up. And
// by the forkless family (its verifier: paged-file openings, linear-hash buckets, history
// chains, with their errors and evidence; four error codes and 24 tamper classes in the
// registry; its history packing shared with COLE's): +14,353 B (201,352 → 215,705), rounded up.
// The MPT module carries the longer list of error codes (+61 B) and stays within its budget.
// Both raised by the beacon family, which is in neither module but whose eleven error codes
// every module carries (the code strings every rejection can name) and whose registry entry
// (17 tamper classes) the header code exports: the MPT module measured 26,629 B, the one with
// every family 216,950 B (+1,245 B), each rounded up to the next 100 B. The one with every
// family raised again by the mbt family (its verifier: values and absence by whole bucket,
// diffs of two trees, histories from a node set, with their errors and evidence; two error
// codes and 23 tamper classes in the registry): +17,746 B (216,950 → 234,696), rounded up.
// And by the POS-Tree family (its verifier: path, range, diff and history proofs over SHA-256
// nodes, the history proof's deduplicated node set and patches, their errors and evidence; six
// error codes and 21 tamper classes in the registry): +35,160 B (234,696 → 269,856), rounded up;
// its own module is 47,348 B. The MPT module carries its error codes too: 26,767 B, rounded up.
// The one with every family raised by the soundness fixes of a review (forkless presence
// reported at the block asked, MBT's reverify with the parameters the genesis header pins, the
// sync committee's participation decoded by the core, their errors): +588 B (269,856 →
// 270,444), rounded up.
// The EVM's module (revm over proven state, issue 30), loaded by a client's first call only: 350 kB
// (helios ships one 1.13 MB gzip module with revm, colibri 344 kB with evmone).
const BUDGET = { mptOnly: 26_800, allFamilies: 270_500, beacon: 60_000, evm: 350_000 };

function measure(module, name = 'lightprov_verifier_wasm_bg.wasm') {
  const file = path.join(root, 'sdk', 'wasm', module, name);
  if (!fs.existsSync(file)) throw new Error(`missing ${path.relative(root, file)}: run scripts/build`);
  const b = fs.readFileSync(file);
  return { raw: b.length, gzip: zlib.gzipSync(b, { level: 9 }).length };
}

const modules = Object.fromEntries([...FAMILIES, 'all', 'beacon', 'evm'].map((m) => [m, measure(m)]));
modules.inspect = measure('inspect', 'lightprov_inspect_bg.wasm');
const sum = (ms) => ms.reduce((a, m) => ({ raw: a.raw + modules[m].raw, gzip: a.gzip + modules[m].gzip }), { raw: 0, gzip: 0 });
const perFamily = sum(FAMILIES);
const allFamilies = modules.all.gzip < perFamily.gzip ? { ...modules.all, modules: ['all'] } : { ...perFamily, modules: FAMILIES };
const apps = [
  { name: 'MPT-only dapp (the MPT module)', modules: ['mpt'], ...modules.mpt, budget: BUDGET.mptOnly },
  { name: 'MPT dapp following headers (header + MPT)', modules: ['header', 'mpt'], ...sum(['header', 'mpt']) },
  { name: `every family (${allFamilies.modules.join(' + ')})`, ...allFamilies, budget: BUDGET.allFamilies },
  { name: 'beacon light client (the beacon module)', modules: ['beacon'], ...modules.beacon, budget: BUDGET.beacon },
  { name: 'MPT dapp on the beacon chain (beacon + header + MPT)', modules: ['beacon', 'header', 'mpt'], ...sum(['beacon', 'header', 'mpt']) },
  { name: 'verified contract calls (the EVM module)', modules: ['evm'], ...modules.evm, budget: BUDGET.evm },
  { name: 'a dapp calling contracts (header + EVM)', modules: ['header', 'evm'], ...sum(['header', 'evm']) },
];

const kB = (n) => (n / 1000).toFixed(1);
console.log('| module | raw bytes | gzip bytes |');
console.log('|--------|----------:|-----------:|');
for (const [m, r] of Object.entries(modules)) console.log(`| ${m} | ${r.raw} | ${r.gzip} |`);
console.log('\n| download | gzip kB | budget kB |');
console.log('|----------|--------:|----------:|');
for (const a of apps) {
  const verdict = a.budget === undefined ? '' : a.gzip <= a.budget ? ` (within ${kB(a.budget)})` : ` (OVER ${kB(a.budget)} by ${kB(a.gzip - a.budget)})`;
  console.log(`| ${a.name} | ${kB(a.gzip)} | ${a.budget === undefined ? '' : kB(a.budget)}${verdict} |`);
}
if (jsonOut) {
  const doc = {
    run: process.env.LIGHTPROV_BENCH_RUN ?? '',
    generator: 'tests/bench/report/wasm-sizes.mjs',
    build: 'cargo --profile wasm (opt-level 2, lightprov-amt 3, LTO, one codegen unit, panic = abort), wasm-bindgen --target web without name and producers sections, wasm-opt -Os',
    compression: 'gzip level 9',
    modules,
    apps,
  };
  fs.mkdirSync(path.dirname(path.resolve(jsonOut)), { recursive: true });
  fs.writeFileSync(jsonOut, JSON.stringify(doc, null, 2) + '\n');
  console.log(`figures written to ${jsonOut}`);
}
