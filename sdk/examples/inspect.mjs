#!/usr/bin/env node
// Draws a real eth_getProof answer (mainnet block 500000, from tests/vectors) with the proof
// inspector: the account's trie path node by node, each with its keccak256 and its byte range
// in the packed wire form, and the state root recomputed beside the header's. Then forges a
// COLE proof from the shared vectors and shows the code the verifier rejects it with.
//
//   node sdk/examples/inspect.mjs          (after `bash scripts/build`)
import { readFileSync } from 'node:fs';

import { init, verifyColeHistory, VerificationError } from '@lightprov/sdk';
import { forgeProof, loadInspector, outlineColeProof, outlineMptProof } from '@lightprov/sdk/inspect';

const vector = (file) => JSON.parse(readFileSync(new URL(`../../tests/vectors/${file}`, import.meta.url), 'utf8'));

await loadInspector(); // optional: every function loads the inspector's module on first use
const mpt = vector('mpt/valid/account-mainnet-eoa-500000.json');
const o = await outlineMptProof({ proof: mpt.inputs.proof, stateRoot: mpt.inputs.stateRoot });
const draw = (n, depth = 0) => {
  const hash = n.hash ? ` ${n.hash.slice(0, 10)}…` : '';
  console.log(`${'  '.repeat(depth)}${n.kind}: ${n.label}${hash}${n.range ? ` [${n.range[0]}, ${n.range[1]})` : ''}${n.detail ? ` — ${n.detail}` : ''}`);
  for (const c of n.children) draw(c, depth + 1);
};
draw(o.tree);
console.log(`${o.root.label}: recomputed ${o.root.recomputed}, header ${o.root.expected}, matches: ${o.root.matches}`);

const cole = vector('cole/valid/cole-key1-0-159.json').inputs;
const args = { stateKey: cole.stateKey, fromBlock: BigInt(cole.fromBlock), toBlock: BigInt(cole.toBlock), coleRoot: cole.coleRoot, siblingRoot: cole.siblingRoot, scheme: cole.scheme };
const honest = await outlineColeProof({ ...args, proof: cole.proof });
console.log(`\nCOLE: ${honest.tree.label}; ${honest.tree.children.length} structures; coleRoot matches: ${honest.root.matches}`);
const f = await forgeProof({ family: 'cole', kind: 'result-hidden', proof: cole.proof });
await init({ families: ['cole'] });
try {
  verifyColeHistory({ ...args, proof: f.proof });
  console.log('forgery accepted?!');
  process.exitCode = 1;
} catch (e) {
  if (!(e instanceof VerificationError)) throw e;
  console.log(`forged (${f.description}): the verifier says ${e.code}, as announced (${f.expectedCode})`);
}
