#!/usr/bin/env node
// eth_getLogs over 1,000 blocks: the SDK's verified getLogs (every header of the range checked
// by hash chain and seal, each block whose verified logsBloom may match fetched whole with
// eth_getBlockReceipts and its receipts rebuilding receiptsRoot) against the node's unverified
// eth_getLogs answer, on the same lightprov-node, same filter, same run. Every block holds the
// node's own two signed transfers, each with a Transfer event, so every block matches the
// filter (the worst case: the bloom skips nothing). Numbers only; nothing is asserted.
// `--json <file>` also writes the figures as JSON.
//
// Environment: LIGHTPROV_BENCH_LOGS_BLOCKS (blocks in the range; 1000), LIGHTPROV_NODE_BIN.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { LightClient, init } from '@lightprov/sdk';

import { JSON_OUT } from './figures.mjs';
import { NODE_BIN, fillChain, rpc, startNode, stopNode } from './node.mjs';

const jsonOut = JSON_OUT;
const bin = NODE_BIN;
const BLOCKS = Number(process.env.LIGHTPROV_BENCH_LOGS_BLOCKS ?? 1000);
const ROUNDS = 5;
const TRANSFERS = 2;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lightprov-bench-logs-'));
const TRANSFER_LOG_ADDRESS = '0xfffffffffffffffffffffffffffffffffffffffe';
// keccak256("Transfer(address,address,uint256)")
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const start = (args) => startNode(bin, dataDir, ['--engines', 'mpt', '--transfers', String(TRANSFERS), ...args]);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

await init();
// 1. A chain of BLOCKS blocks after genesis, two transfers (two events) in each.
const fillSecs = await fillChain(start, BLOCKS);

// 2. No more blocks: both sides read the same range.
const node = await start(['--block-time', '3600s']);
const from = 1;
const to = BLOCKS;
const filter = { address: TRANSFER_LOG_ADDRESS, topics: [TRANSFER_TOPIC] };
const hex = (n) => '0x' + n.toString(16);
const [account] = await rpc(node.url, 'eth_accounts', []);
const selective = { address: TRANSFER_LOG_ADDRESS, topics: [TRANSFER_TOPIC, null, '0x' + account.slice(2).toLowerCase().padStart(64, '0')] };
const selectiveUnverifiedMs = [];
const selectiveWarmMs = [];
let selectiveLogs = 0;
let selectiveBlocks = 0;
const unverifiedMs = [];
const coldMs = [];
const warmMs = [];
let logs = 0;
for (let round = 0; round < ROUNDS; round++) {
  let s = performance.now();
  const raw = await rpc(node.url, 'eth_getLogs', [{ ...filter, fromBlock: hex(from), toBlock: hex(to) }]);
  unverifiedMs.push(performance.now() - s);
  // Cold: a new client, which verifies every header of the range from its trusted genesis.
  const client = await LightClient.connect({ rpc: [node.url], trust: { genesisHash: node.genesisHash, signers: [node.signer] } });
  s = performance.now();
  const verified = await client.getLogs({ ...filter, fromBlock: BigInt(from), toBlock: BigInt(to) });
  coldMs.push(performance.now() - s);
  // Warm: the same client again (headers already verified; receipts fetched and checked again).
  s = performance.now();
  await client.getLogs({ ...filter, fromBlock: BigInt(from), toBlock: BigInt(to) });
  warmMs.push(performance.now() - s);
  if (verified.length !== raw.length) throw new Error(`verified ${verified.length} logs, the node's eth_getLogs ${raw.length}`);
  logs = raw.length;
  // Selective: one account's incoming transfers (the node's transfers reach each of the ten dev
  // accounts in about a fifth of the blocks; the verified bloom skips the others).
  s = performance.now();
  const mineRaw = await rpc(node.url, 'eth_getLogs', [{ ...selective, fromBlock: hex(from), toBlock: hex(to) }]);
  selectiveUnverifiedMs.push(performance.now() - s);
  s = performance.now();
  const mine = await client.getLogs({ ...selective, fromBlock: BigInt(from), toBlock: BigInt(to) });
  selectiveWarmMs.push(performance.now() - s);
  if (mine.length !== mineRaw.length) throw new Error(`selective: verified ${mine.length} logs, the node's eth_getLogs ${mineRaw.length}`);
  selectiveLogs = mine.length;
  selectiveBlocks = new Set(mine.map((l) => l.blockNumber)).size;
}
await stopNode(node);
fs.rmSync(dataDir, { recursive: true, force: true });

const figures = {
  run: process.env.LIGHTPROV_BENCH_RUN ?? '',
  blocks: BLOCKS,
  transfersPerBlock: TRANSFERS,
  logs,
  rounds: ROUNDS,
  fillSecs,
  unverifiedMs: median(unverifiedMs),
  verifiedColdMs: median(coldMs),
  verifiedWarmMs: median(warmMs),
  ratioCold: median(coldMs) / median(unverifiedMs),
  selective: {
    logs: selectiveLogs,
    blocks: selectiveBlocks,
    unverifiedMs: median(selectiveUnverifiedMs),
    verifiedWarmMs: median(selectiveWarmMs),
    ratioWarm: median(selectiveWarmMs) / median(selectiveUnverifiedMs),
  },
  ratioWarm: median(warmMs) / median(unverifiedMs),
};
console.log(`getLogs over ${BLOCKS} blocks (${logs} Transfer events, every block matches), median of ${ROUNDS}:`);
console.log(`  node's eth_getLogs (unverified)        ${figures.unverifiedMs.toFixed(1)} ms`);
console.log(`  SDK getLogs, new client (verified)      ${figures.verifiedColdMs.toFixed(1)} ms  (${figures.ratioCold.toFixed(2)}× the unverified call)`);
console.log(`  SDK getLogs, headers already verified   ${figures.verifiedWarmMs.toFixed(1)} ms  (${figures.ratioWarm.toFixed(2)}×)`);
const sel = figures.selective;
console.log(`One account's incoming transfers (${sel.logs} events in ${sel.blocks} blocks; the verified bloom skips the rest):`);
console.log(`  node's eth_getLogs (unverified)        ${sel.unverifiedMs.toFixed(1)} ms`);
console.log(`  SDK getLogs, headers already verified   ${sel.verifiedWarmMs.toFixed(1)} ms  (${sel.ratioWarm.toFixed(2)}×)`);
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(figures, null, 2) + '\n');
