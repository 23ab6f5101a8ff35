#!/usr/bin/env node
// eth_getProof latency of lightprov-node under 20 concurrent clients on loopback.
// Fills a chain with the kvstore workload, restarts the node with block production off, then
// 20 clients ask for proofs of random records at random past blocks. Prints p50/p99 and
// throughput. Numbers only; nothing is asserted. `--json <file>` also writes the figures as JSON.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { keccak_256 } from '@noble/hashes/sha3.js';

import { provenance, writeFigures } from './figures.mjs';
import { NODE_BIN, fillChain, rpc, startNode, stopNode } from './node.mjs';

const bin = NODE_BIN;
const BLOCKS = Number(process.env.LIGHTPROV_BENCH_RPC_BLOCKS ?? 200);
const CLIENTS = 20;
const PER_CLIENT = Number(process.env.LIGHTPROV_BENCH_RPC_REQUESTS ?? 150);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lightprov-bench-'));
const workload = ['--workload', 'kvstore', '--tx-per-block', '100', '--seed', '1'];

const start = (args) => startNode(bin, dataDir, [...workload, ...args]);

// 1. Fill the chain.
const fillSecs = await fillChain(start, BLOCKS);

// 2. Serve proofs to 20 concurrent clients.
const node = await start(['--block-time', '0']);
const head = Number(await rpc(node.url, 'eth_blockNumber', []));
const KV = '0x' + 'cc'.repeat(20);
const slot = (k) => '0x' + Buffer.from(keccak_256(Buffer.from(BigInt(k).toString(16).padStart(16, '0'), 'hex'))).toString('hex');
let seed = 12345;
const rand = (n) => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed % n;
};
for (let i = 0; i < 50; i++) await rpc(node.url, 'eth_getProof', [KV, [slot(rand(10000))], '0x' + rand(head + 1).toString(16)]);
const latencies = [];
const started = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: CLIENTS }, async () => {
    for (let i = 0; i < PER_CLIENT; i++) {
      const params = [KV, [slot(rand(10000))], '0x' + rand(head + 1).toString(16)];
      const s = process.hrtime.bigint();
      await rpc(node.url, 'eth_getProof', params);
      latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
    }
  }),
);
const wall = Number(process.hrtime.bigint() - started) / 1e9;
await stopNode(node);
fs.rmSync(dataDir, { recursive: true, force: true });

latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
console.log(`\neth_getProof on lightprov-node (${bin.includes(`${path.sep}debug${path.sep}`) ? "dev" : "release"} build), ${head} blocks of the kvstore workload (filled in ${fillSecs.toFixed(1)} s)`);
console.log(`${CLIENTS} concurrent clients on loopback, ${latencies.length} requests: one storage slot of a random record at a random past block`);
console.log('| p50 ms | p99 ms | max ms | requests/s |');
console.log('|-------:|-------:|-------:|-----------:|');
console.log(`| ${pct(0.5).toFixed(2)} | ${pct(0.99).toFixed(2)} | ${latencies.at(-1).toFixed(2)} | ${(latencies.length / wall).toFixed(0)} |`);
writeFigures({
  ...provenance('tests/bench/rpc.mjs'),
  blocks: head,
  workload: 'kvstore, 100 tx per block, seed 1',
  fillSecs,
  clients: CLIENTS,
  requests: latencies.length,
  latencyMs: { p50: pct(0.5), p99: pct(0.99), max: latencies.at(-1) },
  requestsPerS: latencies.length / wall,
});
