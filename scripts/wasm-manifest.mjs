#!/usr/bin/env node
// Writes sdk/wasm/modules.js (and its .d.ts): the gzip size of each wasm module scripts/build
// made. The SDK's loader reads it to choose between one module per family and the module with
// every family, whichever is the smaller download for what a page asks for.
// Usage: node scripts/wasm-manifest.mjs header mpt cole lvmt all
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const wasmDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'sdk', 'wasm');
const sizes = {};
for (const m of process.argv.slice(2)) {
  const b = fs.readFileSync(path.join(wasmDir, m, 'lightprov_verifier_wasm_bg.wasm'));
  sizes[m] = zlib.gzipSync(b, { level: 9 }).length;
}
const head = '// Written by scripts/wasm-manifest.mjs (scripts/build): gzip bytes of each wasm module.\n';
fs.writeFileSync(path.join(wasmDir, 'modules.js'), `${head}export const GZIP_BYTES = ${JSON.stringify(sizes, null, 2)};\n`);
fs.writeFileSync(
  path.join(wasmDir, 'modules.d.ts'),
  `${head}export declare const GZIP_BYTES: { ${Object.keys(sizes).map((m) => `readonly ${m}: number;`).join(' ')} };\n`,
);
console.log(`build: wasm modules (gzip): ${Object.entries(sizes).map(([m, n]) => `${m} ${(n / 1000).toFixed(1)} kB`).join(', ')}`);
