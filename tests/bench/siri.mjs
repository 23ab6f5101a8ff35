#!/usr/bin/env node
// SIRI proofs verified in wasm: for every dataset size of the SIRI benchmark
// (server-mock/benches/siri.rs, which wrote target/bench/siri-proofs.json), the one-key proofs of
// the same keys at the head — MPT (the eth_getProof account + storage proof, through the SDK's
// mpt module as the history bench does), MBT (SDK verifyMbtValue), POS-Tree and the Merkle
// B+-tree baseline (SDK verifyPosValue) — and a POS range proof and the 128-block history proofs
// of POS and MBT (SDK verifyPosRange, verifyPosHistory, verifyMbtHistory). Prints µs per verify
// and the ratio to MPT's; nothing is asserted. `--json <file>` also writes the figures as JSON.
import { init } from '@lightprov/sdk';
import { verifyMbtHistory, verifyMbtValue } from '@lightprov/sdk/mbt';
import { verifyPosHistory, verifyPosRange, verifyPosValue } from '@lightprov/sdk/pos';

import { provenance, writeFigures } from './figures.mjs';
import { loadModule, proofsFile, timeAlternating } from './wasm-timing.mjs';

const data = proofsFile('siri-proofs.json', 'SIRI benchmark', 'siri');
await init({ families: ['mbt', 'pos'] });
const mptWasm = await loadModule('mpt');
const bytes = (h) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const word = (h) => BigInt(h);

const STRUCTURES = [['mpt', 'MPT'], ['mbt', 'MBT'], ['pos', 'POS-Tree'], ['btree', 'Merkle B+-tree']];
const rows = [];
console.log(`\nSIRI one-key proofs verified in wasm (Node ${process.version}; median of 9 alternating rounds; the same keys at the head for every structure)`);
console.log('| N | structure | keys | proof bytes | verify µs | × MPT |');
console.log('|--:|-----------|-----:|------------:|----------:|------:|');
for (const size of data.sizes) {
  const s = size.structures;
  const one = {
    mpt: s.mpt.cases.map((c) => ({ proof: bytes(c.proof), root: bytes(s.mpt.root) })),
    mbt: s.mbt.cases.map((c) => ({ proof: bytes(c.proof), stateKey: c.stateKey, value: word(c.value) })),
    pos: s.pos.cases.map((c) => ({ proof: bytes(c.proof), stateKey: c.stateKey, value: word(c.value) })),
    btree: s.btree.cases.map((c) => ({ proof: bytes(c.proof), stateKey: c.stateKey, value: word(c.value) })),
  };
  const verify = {
    mpt: (c) => {
      if (!mptWasm.verifyAccountProof(c.proof, c.root)) throw new Error('MPT: the contract is absent');
    },
    mbt: (c) => verifyMbtValue({ proof: c.proof, stateKey: c.stateKey, mbtRoot: s.mbt.root, params: s.mbt.params, claimed: c.value }),
    pos: (c) => verifyPosValue({ proof: c.proof, stateKey: c.stateKey, posRoot: s.pos.root, value: c.value }),
    btree: (c) => verifyPosValue({ proof: c.proof, stateKey: c.stateKey, posRoot: s.btree.root, value: c.value }),
  };
  // Every proof is checked once before timing (MBT and POS against the value the bench wrote).
  for (const [k] of STRUCTURES) for (const c of one[k]) verify[k](c);
  const timed = timeAlternating(STRUCTURES.map(([k]) => (i) => verify[k](one[k][i % one[k].length])));
  const us = Object.fromEntries(STRUCTURES.map(([k], i) => [k, timed[i]]));
  const row = { n: size.n, keys: one.mpt.length, proofBytes: {}, verifyUs: us, ratioToMpt: {} };
  for (const [k, label] of STRUCTURES) {
    const b = one[k].reduce((a, c) => a + c.proof.length, 0) / one[k].length;
    row.proofBytes[k] = b;
    row.ratioToMpt[k] = us[k] / us.mpt;
    console.log(`| ${size.n} | ${label} | ${one[k].length} | ${b.toFixed(0)} | ${us[k].toFixed(1)} | ${(us[k] / us.mpt).toFixed(2)}× |`);
  }
  // The POS range and the 128-block histories: one proof each, verified, then timed.
  const range = s.pos.range;
  const ph = s.pos.history;
  const mh = s.mbt.history;
  const others = [
    () => {
      const got = verifyPosRange({ proof: bytes(range.proof), lo: range.lo, hi: range.hi, posRoot: range.root });
      if (got.length !== range.keys) throw new Error(`POS range: ${got.length} entries, expected ${range.keys}`);
    },
    () => verifyPosHistory({ proof: bytes(ph.proof), stateKey: ph.stateKey, fromBlock: ph.fromBlock, roots: ph.roots }),
    () => verifyMbtHistory({ proof: bytes(mh.proof), stateKey: mh.stateKey, fromBlock: mh.fromBlock, toBlock: mh.toBlock, roots: mh.roots, params: s.mbt.params }),
  ];
  for (const f of others) f();
  const [rangeUs, posHistUs, mbtHistUs] = timeAlternating(others, { rounds: 5, roundMs: 100, warmMs: 200 });
  row.range = { keys: range.keys, bytes: bytes(range.proof).length, verifyUs: rangeUs };
  row.history = {
    blocks: ph.roots.length,
    pos: { bytes: bytes(ph.proof).length, separateBytes: ph.separateBytes, verifyUs: posHistUs },
    mbt: { bytes: bytes(mh.proof).length, separateBytes: mh.separateBytes, verifyUs: mbtHistUs },
  };
  rows.push(row);
}
for (const r of rows) {
  const within = (k) => (r.ratioToMpt[k] <= 2 ? 'met' : 'short');
  console.log(
    `N = ${r.n}: one-key verify MBT ${r.ratioToMpt.mbt.toFixed(2)}× MPT's (target ≤ 2×: ${within('mbt')}), POS ${r.ratioToMpt.pos.toFixed(2)}× (${within('pos')}), B+-tree ${r.ratioToMpt.btree.toFixed(2)}×; ` +
      `POS range of ${r.range.keys} keys ${r.range.bytes} B in ${r.range.verifyUs.toFixed(1)} µs; ` +
      `${r.history.blocks}-block history: POS ${r.history.pos.bytes} B in ${r.history.pos.verifyUs.toFixed(0)} µs, MBT ${r.history.mbt.bytes} B in ${r.history.mbt.verifyUs.toFixed(0)} µs`,
  );
}
writeFigures({
  ...provenance('tests/bench/siri.mjs', data.run ?? ''),
  timing: 'median µs per verify of 9 alternating rounds after a warm-up; wasm in Node',
  rows,
});
