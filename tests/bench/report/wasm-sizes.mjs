#!/usr/bin/env node
// Sizes of the wasm verifier per feature set: the post-bindgen `_bg.wasm` of each build that
// scripts/bench made under target/bench-features/bound/<set>, and the SDK's own modules
// (sdk/wasm/<family>, one per proof family, and sdk/wasm/inspect, the proof inspector that only
// pages drawing proofs load). Raw bytes and gzip -9 bytes.
// Usage: node tests/bench/report/wasm-sizes.mjs --json out.json mpt header,clique …
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonOut = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
const sets = args.filter((_, i) => i !== jsonAt && i !== jsonAt + 1);
const FILE = 'lightprov_verifier_wasm_bg.wasm';

function measure(name, features, file) {
  if (!fs.existsSync(file)) throw new Error(`missing ${path.relative(root, file)}: run scripts/build and scripts/bench --report`);
  const b = fs.readFileSync(file);
  return { name, features, raw: b.length, gzip: zlib.gzipSync(b, { level: 9 }).length };
}

const rows = sets.map((s) => measure(s.split(',').join(' + '), s.split(','), path.join(root, 'target', 'bench-features', 'bound', s.replaceAll(',', '-'), FILE)));
for (const [family, features] of [
  ['header', ['header', 'clique']],
  ['mpt', ['mpt']],
  ['cole', ['cole']],
  ['lvmt', ['lvmt']],
]) {
  rows.push(measure(`SDK module ${family}`, features, path.join(root, 'sdk', 'wasm', family, FILE)));
}
rows.push(measure('SDK module inspect (lightprov-inspect)', ['inspect'], path.join(root, 'sdk', 'wasm', 'inspect', 'lightprov_inspect_bg.wasm')));

console.log('| feature set | raw bytes | gzip bytes |');
console.log('|-------------|----------:|-----------:|');
for (const r of rows) console.log(`| ${r.name} | ${r.raw} | ${r.gzip} |`);
if (jsonOut) {
  const doc = {
    run: process.env.LIGHTPROV_BENCH_RUN ?? '',
    generator: 'tests/bench/report/wasm-sizes.mjs',
    build: 'cargo --profile wasm (opt-level 3, LTO, one codegen unit, panic = abort), wasm-bindgen --target web without name and producers sections',
    compression: 'gzip level 9',
    sets: rows,
  };
  fs.mkdirSync(path.dirname(path.resolve(jsonOut)), { recursive: true });
  fs.writeFileSync(jsonOut, JSON.stringify(doc, null, 2) + '\n');
  console.log(`figures written to ${jsonOut}`);
}
