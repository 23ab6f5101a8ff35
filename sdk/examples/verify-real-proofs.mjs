#!/usr/bin/env node
// Verifies real `eth_getProof` answers from mainnet, Sepolia and Goerli (recorded in
// tests/vectors/mpt/sources) with @lightprov/sdk, and prints the balances they prove.
// Where the block header is recorded too, the chain of trust is: trusted block hash ->
// header (keccak256 of its RLP) -> state root -> account proof.
//
//   npm run demo            (builds first)
//   node sdk/examples/verify-real-proofs.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { init, isVerificationError, verifyAccountProof, verifyHeader } from '@lightprov/sdk';

const sources = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'tests', 'vectors', 'mpt', 'sources');
const headers = new Map();
for (const f of fs.readdirSync(path.join(sources, 'headers'))) {
  const { header } = JSON.parse(fs.readFileSync(path.join(sources, 'headers', f), 'utf8'));
  headers.set(header.hash.toLowerCase(), header);
}

await init();

const eth = (wei) => {
  const s = wei.toString().padStart(19, '0');
  return `${s.slice(0, -18)}.${s.slice(-18, -12)}`;
};
const rows = [];
for (const f of fs.readdirSync(sources).filter((x) => x.endsWith('.json')).sort()) {
  const src = JSON.parse(fs.readFileSync(path.join(sources, f), 'utf8'));
  let stateRoot = src.stateRoot;
  let anchor = 'state root as recorded';
  const header = src.blockHash ? headers.get(src.blockHash.toLowerCase()) : undefined;
  if (header) {
    const h = verifyHeader(header, src.blockHash); // throws unless keccak256(RLP(header)) == blockHash
    stateRoot = h.stateRoot;
    anchor = `block hash ${src.blockHash.slice(0, 10)}… (${h.layout} header)`;
  }
  const account = verifyAccountProof(src, stateRoot); // throws unless the proof checks out
  rows.push({
    chain: src.chain,
    block: src.blockNumber ?? '?',
    address: account.address,
    exists: account.exists ? 'yes' : 'no (proven absent)',
    'balance (ETH)': eth(account.balance),
    nonce: account.nonce.toString(),
    slots: account.storage.map((s) => `${s.key.slice(0, 8)}…=${s.value === 0n ? '0' : '0x' + s.value.toString(16).slice(0, 8) + '…'}`).join(' ') || '-',
    'trusted from': anchor,
  });
}
console.log(`Verified ${rows.length} real eth_getProof answers in WebAssembly:\n`);
console.table(rows);

// A node that lies is caught: inflate one balance and verify again.
const src = JSON.parse(fs.readFileSync(path.join(sources, 'mainnet-eoa-500000.json'), 'utf8'));
try {
  verifyAccountProof({ ...src, balance: '0x' + (BigInt(src.balance) * 2n).toString(16) }, src.stateRoot);
  console.log('a forged balance was accepted — this must never happen');
  process.exit(1);
} catch (e) {
  if (!isVerificationError(e)) throw e;
  console.log(`\nA doubled balance for ${src.address} is rejected: ${e.code} (${e.message})`);
}
