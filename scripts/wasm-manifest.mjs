#!/usr/bin/env node
// Writes sdk/wasm/modules.js (and its .d.ts): the wasm modules scripts/build made — how to load
// each (literal paths, as bundlers need them), their types, the gzip size of each — and the
// core's error codes. The SDK's
// loader (sdk/src/init.ts) reads it, so a new module needs no line in the SDK: it is a feature of
// crates/verifier-wasm. The sizes let the loader choose between one module per family and the
// module with every family (`all`), whichever is the smaller download for what a page asks for.
// A family outside `all` (the verifier-wasm default features; `--in-all` lists them) is only
// ever loaded from its own module.
// Usage: node scripts/wasm-manifest.mjs --in-all header,mpt,cole,lvmt header mpt cole lvmt beacon all
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const wasmDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'sdk', 'wasm');
const GLUE = 'lightprov_verifier_wasm';
const args = process.argv.slice(2);
if (args[0] !== '--in-all' || args.length < 2) {
  console.error('wasm-manifest: expected --in-all <families of the `all` module, comma-separated> first');
  process.exit(2);
}
const inAll = args[1].split(',');
const modules = args.slice(2);
if (!modules.includes('all') || modules.length < 2) {
  console.error('wasm-manifest: expected the family modules and `all`');
  process.exit(2);
}
const unknown = inAll.filter((f) => !modules.includes(f) || f === 'all');
if (unknown.length > 0) {
  console.error(`wasm-manifest: --in-all names ${unknown.join(', ')}, which is not a family module`);
  process.exit(2);
}
for (const m of modules) {
  if (!/^[a-z][a-z0-9-]*$/.test(m)) {
    console.error(`wasm-manifest: \`${m}\` is not a module name (lowercase letters, digits, -)`);
    process.exit(2);
  }
}
const families = modules.filter((m) => m !== 'all');
const sizes = {};
for (const m of modules) {
  sizes[m] = zlib.gzipSync(fs.readFileSync(path.join(wasmDir, m, `${GLUE}_bg.wasm`)), { level: 9 }).length;
}
// The stable error codes, from the core itself (the header module carries the list), so the
// SDK's ERROR_CODES and its ErrorCode type never need a hand-written line.
const header = await import(path.join(wasmDir, 'header', `${GLUE}.js`));
header.initSync({ module: fs.readFileSync(path.join(wasmDir, 'header', `${GLUE}_bg.wasm`)) });
const codes = header.errorCodes().split(',');
if (codes.length === 0 || codes.some((c) => !/^[A-Z][A-Z0-9_]*$/.test(c))) {
  console.error(`wasm-manifest: the header module's errorCodes() is not a list of codes: ${codes.join(',')}`);
  process.exit(1);
}
const q = JSON.stringify;
const head = '// Written by scripts/wasm-manifest.mjs (scripts/build): the wasm modules of this build.\n';
const js = `${head}
/** gzip -9 bytes of each module. */
export const GZIP_BYTES = ${JSON.stringify(sizes, null, 2)};

/** Every family with a module of its own. */
export const WASM_FAMILIES = ${q(families)};

/** The families the module \`all\` carries too (what \`init()\` loads); the others only load by name. */
export const IN_ALL = ${q(inAll)};

/** The stable error codes of every family, in the core's order (lightprov_types::ErrorCode). */
export const ERROR_CODES = ${q(codes)};

/**
 * How to load each module: its JS glue (a dynamic import, so bundlers split it into its own
 * chunk) and its .wasm next to it (a \`new URL\` literal, so bundlers emit it as an asset).
 */
export const LOADERS = {
${modules.map((m) => `  ${q(m)}: { glue: () => import(${q(`./${m}/${GLUE}.js`)}), wasm: () => new URL(${q(`./${m}/${GLUE}_bg.wasm`)}, import.meta.url) },`).join('\n')}
};
`;
const ident = (m) => `Module_${m.replace(/-/g, '_')}`;
const dts = `${head}
${families.map((m) => `import type * as ${ident(m)} from ${q(`./${m}/${GLUE}.js`)};`).join('\n')}

/** The wasm modules' exports, one module per family. */
export interface WasmModules {
${families.map((m) => `  ${q(m)}: typeof ${ident(m)};`).join('\n')}
}

/** A family with its own wasm module. */
export type WasmFamily = keyof WasmModules;

/** A wasm module: one family's, or \`all\` (every family of {@link IN_ALL} in one). */
export type WasmModuleName = WasmFamily | 'all';

/** A module's loader. */
export interface WasmLoader {
  /** The module's JS glue. */
  glue: () => Promise<{ default: (o: { module_or_path: unknown }) => Promise<unknown> }>;
  /** The \`.wasm\` next to it. */
  wasm: () => URL;
}

/** gzip -9 bytes of each module. */
export declare const GZIP_BYTES: Readonly<Record<WasmModuleName, number>>;

/** Every family with a module of its own. */
export declare const WASM_FAMILIES: readonly WasmFamily[];

/** The families the module \`all\` carries too (what \`init()\` loads); the others only load by name. */
export declare const IN_ALL: readonly WasmFamily[];

/** The stable error codes of every family, in the core's order (lightprov_types::ErrorCode). */
export declare const ERROR_CODES: readonly [${codes.map((c) => q(c)).join(', ')}];

/** How to load each module. */
export declare const LOADERS: Readonly<Record<WasmModuleName, WasmLoader>>;
`;
fs.writeFileSync(path.join(wasmDir, 'modules.js'), js);
fs.writeFileSync(path.join(wasmDir, 'modules.d.ts'), dts);
console.log(`build: wasm modules (gzip): ${Object.entries(sizes).map(([m, n]) => `${m} ${(n / 1000).toFixed(1)} kB`).join(', ')}`);
