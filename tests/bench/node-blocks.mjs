#!/usr/bin/env node
// lightprov-node's blocks per second executing transactions, against the same node before it ran
// the EVM (an A/B on the same workloads): each side starts on a fresh data directory with block
// production on demand (`--block-time 0`), seals warm-up blocks, then `evm_mine` seals blocks back
// to back. The figure is the node process's CPU time per block (user + system, all its threads,
// from /proc), which a shared machine disturbs less than the wall clock; blocks/s by the wall clock
// is printed beside it. The sides alternate in every round. Numbers only; nothing is asserted.
//
//   node tests/bench/node-blocks.mjs --before BIN [--after BIN] [--json FILE]
//
// --before is the node built from the commit before the EVM came (scripts/bench builds it);
// --after defaults to the release build. LIGHTPROV_BENCH_NODE_ROUNDS (5) rounds,
// LIGHTPROV_BENCH_NODE_BLOCKS (60) blocks timed in each, LIGHTPROV_BENCH_NODE_WARMUP (5).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { provenance, writeFigures } from './figures.mjs';
import { NODE_BIN, rpc, startNode, stopNode } from './node.mjs';

const flag = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const before = flag('--before');
const after = flag('--after') ?? NODE_BIN;
if (!before) {
  console.error('node-blocks: --before BIN is required (the node built before the EVM; scripts/bench builds it)');
  process.exit(2);
}
for (const [name, bin] of [['--before', before], ['--after', after]]) {
  if (!fs.existsSync(bin)) {
    console.error(`node-blocks: ${name} ${bin} does not exist`);
    process.exit(2);
  }
}
const positive = (name, fallback) => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) {
    console.error(`node-blocks: ${name} must be a positive integer, not ${process.env[name]}`);
    process.exit(2);
  }
  return v;
};
const ROUNDS = positive('LIGHTPROV_BENCH_NODE_ROUNDS', 5);
const BLOCKS = positive('LIGHTPROV_BENCH_NODE_BLOCKS', 60);
const WARMUP = positive('LIGHTPROV_BENCH_NODE_WARMUP', 5);
const OPS = 100;
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** CPU seconds (user + system, all threads) the process has used so far. */
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces: the fields after it start past its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** One side's run: CPU ms per block and blocks/s over BLOCKS blocks after WARMUP. */
async function run(bin, workload, engines) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lightprov-bench-blocks-'));
  const node = await startNode(bin, dataDir, ['--block-time', '0', '--workload', workload, '--tx-per-block', String(OPS), '--seed', '1', '--engines', engines]);
  try {
    for (let i = 0; i < WARMUP; i++) await rpc(node.url, 'evm_mine', []);
    const cpu0 = cpuSeconds(node.pid);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < BLOCKS; i++) await rpc(node.url, 'evm_mine', []);
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = cpuSeconds(node.pid) - cpu0;
    const head = Number(await rpc(node.url, 'eth_blockNumber', []));
    if (head !== WARMUP + BLOCKS) throw new Error(`${bin}: head ${head} after ${WARMUP + BLOCKS} evm_mine calls`);
    return { cpuMsPerBlock: (cpu * 1000) / BLOCKS, blocksPerSecond: BLOCKS / wall };
  } finally {
    await stopNode(node);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });

const ALL = 'mpt,cole,cole-star,lvmt,mbt,pos,forkless';
const CASES = [
  { workload: 'kvstore', engines: 'mpt' },
  { workload: 'transfer', engines: 'mpt' },
  { workload: 'kvstore', engines: ALL },
  { workload: 'transfer', engines: ALL },
];
const rows = [];
for (const c of CASES) {
  const sides = { before: [], after: [] };
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which side goes first, so that a slow spell of the machine falls on both.
    const order = r % 2 ? ['after', 'before'] : ['before', 'after'];
    for (const side of order) sides[side].push(await run(side === 'before' ? before : after, c.workload, c.engines));
  }
  const cpu = (side) => spread(sides[side].map((s) => s.cpuMsPerBlock));
  const bps = (side) => spread(sides[side].map((s) => s.blocksPerSecond));
  const row = {
    workload: c.workload,
    engines: c.engines === ALL ? 'all seven' : c.engines,
    before: { cpuMsPerBlock: cpu('before'), blocksPerSecond: bps('before') },
    after: { cpuMsPerBlock: cpu('after'), blocksPerSecond: bps('after') },
  };
  row.cpuRatio = row.after.cpuMsPerBlock.median / row.before.cpuMsPerBlock.median;
  row.executionCpuMs = row.after.cpuMsPerBlock.median - row.before.cpuMsPerBlock.median;
  rows.push(row);
  console.error(`node-blocks: ${c.workload}, engines ${row.engines}: done`);
}

const fmt = (s, d = 1) => `${s.median.toFixed(d)} [${s.min.toFixed(d)}–${s.max.toFixed(d)}]`;
console.log(`\nlightprov-node sealing blocks of ${OPS} workload operations: before the EVM (writes applied directly) vs each operation a signed transaction executed by revm`);
console.log(`medians of ${ROUNDS} rounds [lowest–highest], sides alternating; ${BLOCKS} blocks timed after ${WARMUP} warm-up blocks, fresh data directory each run`);
console.log('| workload | engines | CPU ms/block before | CPU ms/block with the EVM | × | blocks/s before | blocks/s with the EVM |');
console.log('|---|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.workload} | ${r.engines} | ${fmt(r.before.cpuMsPerBlock)} | ${fmt(r.after.cpuMsPerBlock)} | ${r.cpuRatio.toFixed(2)} | ${fmt(r.before.blocksPerSecond)} | ${fmt(r.after.blocksPerSecond)} |`);
}
writeFigures({ ...provenance('tests/bench/node-blocks.mjs'), opsPerBlock: OPS, rounds: ROUNDS, blocks: BLOCKS, warmup: WARMUP, rows });
