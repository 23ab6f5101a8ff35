#!/usr/bin/env node
// MPT proof verification speed: our wasm verifier vs @ethereumjs/mpt `verifyMerkleProof`, on the
// same real proofs (tests/vectors/mpt/sources), in one Node process, plus the wasm download sizes.
// Prints µs per proof for each, and the ratio. Numbers only; nothing is asserted. `--json <file>`
// also writes the figures as JSON.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

import { verifyMerkleProof } from '@ethereumjs/mpt';
import { init, verifyAccountProof, verifyMptProof } from '@lightprov/sdk';
import { keccak_256 } from '@noble/hashes/sha3.js';

import { JSON_OUT, provenance, writeFigures } from './figures.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCES = path.join(root, 'tests', 'vectors', 'mpt', 'sources');
const bytes = (h) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const pad32 = (k) => bytes('0x' + BigInt(k).toString(16).padStart(64, '0'));

await init({ families: ['mpt'] });

// Every trie proof in the sources: each account proof and each non-empty storage proof.
const proofs = [];
const accounts = [];
for (const f of fs.readdirSync(SOURCES).filter((x) => x.endsWith('.json')).sort()) {
  const s = JSON.parse(fs.readFileSync(path.join(SOURCES, f), 'utf8'));
  accounts.push({ name: f, json: s, root: s.stateRoot });
  proofs.push({ name: `${f} account`, root: bytes(s.stateRoot), key: keccak_256(bytes(s.address)), nodes: s.accountProof.map(bytes) });
  for (const sp of s.storageProof) {
    if (sp.proof.length === 0) continue;
    proofs.push({ name: `${f} slot`, root: bytes(s.storageHash), key: keccak_256(pad32(sp.key)), nodes: sp.proof.map(bytes) });
  }
}
// The value each proof proves, from the peer, so both sides check the same claim.
for (const p of proofs) p.value = await verifyMerkleProof(p.key, p.nodes, { root: p.root });

// Synchronous functions are called without `await` (an await costs a microtask turn).
function runner(fn, isAsync) {
  return async (count) => {
    const t0 = process.hrtime.bigint();
    if (isAsync) for (let i = 0; i < count; i++) await fn(i);
    else for (let i = 0; i < count; i++) fn(i);
    return Number(process.hrtime.bigint() - t0) / 1e3 / count;
  };
}

/**
 * Median µs per call of each contestant. Each is warmed up for about a second first (V8 tiers
 * wasm and JS up in the background), then rounds of the contestants alternate, so drift in the
 * machine's load hits all of them alike.
 */
async function race(contestants, { rounds = 15, roundMs = 150 } = {}) {
  const runs = contestants.map(([, fn, isAsync]) => runner(fn, isAsync));
  const sizes = [];
  for (const run of runs) {
    let n = 32;
    const t0 = Date.now();
    while (Date.now() - t0 < 1000) await run(n);
    const per = await run(n * 8);
    sizes.push(Math.max(50, Math.round((roundMs * 1000) / per)));
  }
  const samples = runs.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [k, run] of runs.entries()) samples[k].push(await run(sizes[k]));
  }
  return samples.map((xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
}

const [ours, peer, full] = await race([
  ['ours', (i) => {
    const p = proofs[i % proofs.length];
    verifyMptProof(p.root, p.key, p.nodes, p.value);
  }, false],
  ['peer', async (i) => {
    const p = proofs[i % proofs.length];
    await verifyMerkleProof(p.key, p.nodes, { root: p.root });
  }, true],
  ['full', (i) => {
    const a = accounts[i % accounts.length];
    verifyAccountProof(a.json, a.root);
  }, false],
]);

const avgNodes = proofs.reduce((s, p) => s + p.nodes.length, 0) / proofs.length;
const avgBytes = proofs.reduce((s, p) => s + p.nodes.reduce((t, n) => t + n.length, 0), 0) / proofs.length;
const gz = (f) => (fs.existsSync(f) ? zlib.gzipSync(fs.readFileSync(f), { level: 9 }).length : NaN);
const raw = (f) => (fs.existsSync(f) ? fs.statSync(f).size : NaN);
const mptWasm = path.join(root, 'sdk', 'wasm', 'mpt', 'lightprov_verifier_wasm_bg.wasm');
const headerWasm = path.join(root, 'sdk', 'wasm', 'header', 'lightprov_verifier_wasm_bg.wasm');

const f1 = (x) => x.toFixed(1).padStart(8);
console.log(`\nMPT proof verification — Node ${process.version}, ${proofs.length} real proofs (${avgNodes.toFixed(1)} nodes, ${avgBytes.toFixed(0)} B on average), median of 15 alternating rounds`);
console.log('| verifier                                     |    µs/proof |');
console.log('|----------------------------------------------|-------------|');
console.log(`| lightprov wasm  verifyMptProof               | ${f1(ours)}    |`);
console.log(`| @ethereumjs/mpt verifyMerkleProof            | ${f1(peer)}    |`);
console.log(`| lightprov wasm  verifyAccountProof (JSON in) | ${f1(full)}    |`);
console.log(`ratio: lightprov is ${(peer / ours).toFixed(1)}x faster than @ethereumjs/mpt on the same proofs (target >= 15x)`);
console.log(`\nwasm download (the SDK's modules):`);
console.log(`  MPT module          : ${raw(mptWasm)} B raw, ${gz(mptWasm)} B gzip (budget 26500 B gzip)`);
console.log(`  with headers (+hdr) : ${raw(mptWasm) + raw(headerWasm)} B raw, ${gz(mptWasm) + gz(headerWasm)} B gzip`);

if (JSON_OUT) {
  const peerVersion = JSON.parse(fs.readFileSync(path.join(root, 'node_modules', '@ethereumjs', 'mpt', 'package.json'), 'utf8')).version;
  const doc = {
    ...provenance('tests/bench/mpt.mjs'),
    proofs: proofs.length,
    avgNodes,
    avgBytes,
    timing: 'median µs per proof of 15 alternating rounds after a warm-up, one Node process',
    usPerProof: {
      lightprovVerifyMptProof: ours,
      ethereumjsVerifyMerkleProof: peer,
      lightprovVerifyAccountProofJson: full,
    },
    peer: `@ethereumjs/mpt ${peerVersion}`,
    speedup: peer / ours,
    wasm: {
      mptOnly: { raw: raw(mptWasm), gzip: gz(mptWasm) },
      withHeaders: { raw: raw(mptWasm) + raw(headerWasm), gzip: gz(mptWasm) + gz(headerWasm) },
    },
  };
  writeFigures(doc);
}
