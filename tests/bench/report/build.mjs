#!/usr/bin/env node
// The benchmark report: reads the figure files one `scripts/bench --report` run wrote (all with
// the same run id, or it stops), writes <out>/figures.json (every plotted number, the raw
// figures, the machine, versions, sizes and seeds), then — from figures.json as read back from
// disk — draws the plots in headless Chromium (PNG), writes <out>/index.html, takes
// <out>/screenshot.png of it, and runs check.mjs (drawn values against figures.json).
//
//   node tests/bench/report/build.mjs --raw target/bench/report --out bench-report [--wall SECONDS]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { COLORS, charts } from './charts.mjs';
import { checkReport } from './check.mjs';
import { chartJs, renderCharts, screenshot, withBrowser } from './render.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const rawDir = path.resolve(arg('--raw', path.join(root, 'target', 'bench', 'report')));
const out = path.resolve(arg('--out', path.join(root, 'bench-report')));
const wall = Number(arg('--wall', NaN));

/** The fields `keys` of `o`, in that order (the figures copy a run's numbers as they are). */
function pick(o, ...keys) {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}

function fail(msg) {
  console.error(`report: ${msg}`);
  process.exit(1);
}

// ---------------------------------------------------------------- the run's figure files
const FILES = {
  mpt: 'mpt.json',
  engines: 'engines.json',
  history: 'history.json',
  lvmt: 'lvmt.json',
  lvmtCommit: 'lvmt-commit.json',
  wasmSizes: 'wasm-sizes.json',
  rpc: 'rpc.json',
  blockStore: 'blockstore.json',
  logs: 'logs.json',
  siri: 'siri.json',
  siriWasm: 'siri-wasm.json',
};
const raw = {};
for (const [k, f] of Object.entries(FILES)) {
  const file = path.join(rawDir, f);
  if (!fs.existsSync(file)) fail(`missing ${f}: run \`bash scripts/bench --report\` (it writes every file of one run)`);
  raw[k] = JSON.parse(fs.readFileSync(file, 'utf8'));
}
const optional = (f) => (fs.existsSync(path.join(rawDir, f)) ? JSON.parse(fs.readFileSync(path.join(rawDir, f), 'utf8')) : {});
const steps = optional('steps.json');
// The beacon light client against lodestar (tests/bench/beacon.mjs), when the run made it.
const beacon = fs.existsSync(path.join(rawDir, 'beacon.json')) ? optional('beacon.json') : null;
if (beacon && beacon.run !== (process.env.LIGHTPROV_BENCH_RUN || optional('run.json').run || raw.engines.run)) {
  fail(`beacon.json is from another run (${beacon.run || '(none)'})`);
}
// Verified contract calls against the ethereumjs path (tests/bench/calls.bench.ts), when the run made them.
const calls = fs.existsSync(path.join(rawDir, 'calls.json')) ? optional('calls.json') : null;
if (calls && calls.run !== (process.env.LIGHTPROV_BENCH_RUN || optional('run.json').run || raw.engines.run)) {
  fail(`calls.json is from another run (${calls.run || '(none)'})`);
}
// The node's blocks before the EVM and with it (tests/bench/node-blocks.mjs), when the run made them.
const nodeBlocks = fs.existsSync(path.join(rawDir, 'node-blocks.json')) ? optional('node-blocks.json') : null;
if (nodeBlocks && nodeBlocks.run !== (process.env.LIGHTPROV_BENCH_RUN || optional('run.json').run || raw.engines.run)) {
  fail(`node-blocks.json is from another run (${nodeBlocks.run || '(none)'})`);
}
const runInfo = optional('run.json');
// One run only: every file, and the proof files the wasm benches read, carry the same run id.
const run = process.env.LIGHTPROV_BENCH_RUN || runInfo.run || raw.engines.run;
const runs = [
  ...Object.entries(raw).map(([k, d]) => [FILES[k], d.run]),
  ['history-proofs.json (read by history.mjs)', raw.history.proofsRun],
  ['lvmt-proofs.json (read by lvmt.mjs)', raw.lvmt.proofsRun],
  ['siri-proofs.json (read by siri.mjs)', raw.siriWasm.proofsRun],
];
const strays = runs.filter(([, r]) => r !== run);
if (!run || strays.length) {
  fail(`figures from more than one run (expected run id ${run || '(none)'}): ${strays.map(([f, r]) => `${f} has ${r || '(none)'}`).join(', ')}`);
}

// ---------------------------------------------------------------- machine and versions
const sh = (cmd, args) => {
  try {
    return execFileSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
};
const osRelease = fs.existsSync('/etc/os-release') ? /PRETTY_NAME="?([^"\n]*)"?/.exec(fs.readFileSync('/etc/os-release', 'utf8'))?.[1] : null;
const cpus = os.cpus();
const machine = {
  cpu: cpus[0]?.model?.trim() ?? 'unknown',
  cores: cpus.length,
  ramBytes: os.totalmem(),
  os: osRelease ?? `${os.type()} ${os.release()}`,
  kernel: `${os.type()} ${os.release()}`,
  arch: os.arch(),
  loadAverage: os.loadavg().map((x) => Number(x.toFixed(2))),
};
const pkgVersion = (name) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
};
const workspaceVersion = /\[workspace\.package\][^[]*?version\s*=\s*"([^"]+)"/s.exec(fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8'))?.[1] ?? null;
const versions = {
  lightprov: workspaceVersion,
  rustc: sh('rustc', ['--version']),
  cargo: sh('cargo', ['--version']),
  wasmBindgen: sh('wasm-bindgen', ['--version']),
  node: process.version,
  chartJs: chartJs().version,
  playwrightCore: pkgVersion('playwright-core'),
  ethereumjsMpt: pkgVersion('@ethereumjs/mpt'),
  chromium: null, // filled in once the browser is up
};
const commit = sh('git', ['rev-parse', 'HEAD']);
const porcelain = sh('git', ['status', '--porcelain']);
const git = { commit, dirty: porcelain === null ? null : porcelain.length > 0 };

// ---------------------------------------------------------------- the plotted figures
const ENGINE = { 'mpt (fjall)': 'MPT (fjall)', 'mpt (redb)': 'MPT (redb)', cole: 'COLE', 'cole*': 'COLE*', lvmt: 'LVMT (fjall)', forkless: 'Forkless (LiveDB + ArchiveDB)' };
const WORKLOAD = { kvstore: 'kvstore (YCSB A: half reads, half writes)', smallbank: 'SmallBank' };
const e = raw.engines;
const largest = Math.max(...e.engines.map((x) => x.blocks));
const atLargest = e.engines.filter((x) => x.blocks === largest);

const storage = { workloads: {} };
const commitLatency = { workloads: {} };
for (const w of atLargest) {
  storage.workloads[w.workload] = {
    title: WORKLOAD[w.workload] ?? w.workload,
    blocks: w.blocks,
    series: w.rows.map((r) => ({ label: ENGINE[r.engine] ?? r.engine, kind: r.storageKind, points: r.storage })),
  };
  commitLatency.workloads[w.workload] = {
    title: WORKLOAD[w.workload] ?? w.workload,
    blocks: w.blocks,
    // Engines that commit to disk (every engine since LVMT persists on fjall).
    boxes: w.rows.filter((r) => r.storageKind === 'disk').map((r) => ({ label: ENGINE[r.engine] ?? r.engine, ...r.commitMs })),
  };
}
const mixNames = e.mixes.mixes.map((m) => m.mix);
const mixEngines = [...new Set(e.mixes.rows.map((r) => r.engine))];
const throughput = {
  blocks: e.mixes.blocks,
  opsPerBlock: e.mixes.opsPerBlock,
  mixes: mixNames,
  readFractions: e.mixes.mixes.map((m) => m.readFraction),
  repeat: e.mixes.repeat ?? 1,
  series: mixEngines.map((name) => {
    const row = (m) => e.mixes.rows.find((r) => r.engine === name && r.mix === m);
    return {
      label: ENGINE[name] ?? name,
      // The median of the interleaved runs, and their spread.
      values: mixNames.map((m) => row(m).opsPerS),
      min: mixNames.map((m) => row(m).minOpsPerS ?? row(m).opsPerS),
      max: mixNames.map((m) => row(m).maxOpsPerS ?? row(m).opsPerS),
    };
  }),
  ratios: e.mixes.ratios ?? [],
};
const h = raw.history;
const scheme = [['cole', 'COLE'], ['coleStar', 'COLE*'], ['lvmt', 'LVMT'], ['forkless', 'Forkless'], ['mpt', 'MPT (one proof per block)']].filter(([k]) => h.rows.every((r) => r.bytes[k] !== null && r.bytes[k] !== undefined));
const provenance = {
  workload: h.workload.toLowerCase(),
  blocks: h.blocks,
  keys: h.keys,
  lvmtDepth: h.lvmt?.depth ?? null,
  ranges: h.rows.map((r) => r.range),
  bytes: scheme.map(([k, label]) => ({ label, values: h.rows.map((r) => r.bytes[k]) })),
  verifyUs: scheme.map(([k, label]) => ({ label, values: h.rows.map((r) => r.verifyUs[k]) })),
};
const fp = e.forklessPages;
const forklessPages = fp
  ? { records: fp.records, updates: fp.updates, rounds: fp.rounds, fanout: fp.fanout, rows: fp.rows.map((r) => ({ label: String(r.pageSize), pageSize: r.pageSize, us: r.recomputeUs })) }
  : null;
const l = raw.lvmt;
const lvmtVerify = {
  ...pick(l, 'depth', 'paramsBytes', 'paramsDecodeMs'),
  cases: l.cases.map((c) => ({
    label: `${c.name} (${c.levels} level${c.levels === 1 ? '' : 's'})`,
    ...pick(c, 'levels', 'proofBytes', 'oursMs', 'separateMs'),
    // The A/B against the module before lightprov-field, when the run made it (not in quick mode).
    ...(c.abBeforeMs === undefined ? {} : { abOursMs: c.abOursMs, abBeforeMs: c.abBeforeMs }),
  })),
};
const m = raw.mpt;
const mptVerify = {
  ...pick(m, 'proofs', 'avgNodes', 'avgBytes', 'speedup'),
  bars: [
    { label: 'lightprov wasm verifyMptProof', us: m.usPerProof.lightprovVerifyMptProof, color: COLORS.COLE },
    { label: `${m.peer} verifyMerkleProof`, us: m.usPerProof.ethereumjsVerifyMerkleProof, color: '#7f7f7f' },
    { label: 'lightprov verifyAccountProof (JSON, storage too)', us: m.usPerProof.lightprovVerifyAccountProofJson, color: '#aec7e8' },
  ],
};
const wasmSizes = {
  modules: Object.entries(raw.wasmSizes.modules).map(([label, s]) => ({ label, raw: s.raw, gzip: s.gzip })),
  apps: raw.wasmSizes.apps.map((a) => ({ label: a.name, modules: a.modules, gzip: a.gzip, budget: a.budget ?? null })),
};
const c = raw.lvmtCommit;
const lvmtCommit = {
  ...pick(c, 'depth', 'blocks', 'writes', 'keys'),
  rows: c.rows.map((r) => ({ label: r.proofs, writesPerS: r.writesPerS, blockP50Ms: r.blockP50Ms })),
};
const bs = raw.blockStore;
const blockStore = {
  ...pick(bs, 'blocks', 'txsPerBlock', 'group', 'memtableKiB'),
  rows: bs.layouts.map((r) => ({
    label: r.name,
    ...pick(r, 'layout', 'userBytes'),
    wa: r.writeAmplification,
    waNoJournal: r.writeAmplificationNoJournal,
    ...pick(r, 'tablesRewritten', 'bytesRewritten', 'blocksPerS', 'commitP99Ms', 'readReceiptsP50Us', 'readBlockP50Us', 'readTxP50Us'),
  })),
  ratios: bs.ratios,
};
const engines = {
  workloads: e.engines.map((w) => ({
    workload: w.workload,
    blocks: w.blocks,
    rows: w.rows.map((r) => ({
      label: ENGINE[r.engine] ?? r.engine,
      kind: r.storageKind,
      updates: r.updates,
      writesPerS: r.writesPerS,
      p50: r.commitMs.median,
      p99: r.commitMs.p99,
      max: r.commitMs.max,
      bytes: r.bytes,
      bytesPerUpdate: r.bytesPerUpdate,
    })),
  })),
};

// SIRI (issue 17): the four structures against the dataset size, the deduplication study, and
// the wasm verify times of their one-key proofs.
const sr = raw.siri;
const siriLabels = Object.fromEntries(sr.structures.map((x) => [x.id, x.label]));
const siriRow = (id, n) => sr.rows.find((r) => r.structure === id && r.n === n);
const siriSeries = (field) => sr.structures.map((x) => ({ label: x.label, id: x.id, values: sr.sizes.map((n) => siriRow(x.id, n)[field]) }));
const siriLargest = Math.max(...sr.sizes);
const dedupIds = [...new Set(sr.dedup.map((d) => d.structure))];
const overlaps = [...new Set(sr.dedup.map((d) => d.overlap))].sort((a, b) => a - b);
const dedupAt = (id, o) => sr.dedup.find((d) => d.structure === id && d.n === siriLargest && d.overlap === o);
const siri = {
  sizes: sr.sizes,
  batch: sr.batch,
  reads: sr.reads,
  writeBatches: sr.writeBatches,
  mixBatches: sr.mixBatches,
  historyBlocks: sr.historyBlocks,
  historyWrites: sr.historyWrites,
  rangeKeys: sr.rangeKeys,
  readsPerS: siriSeries('readsPerS'),
  writesPerS: siriSeries('writesPerS'),
  readHeavyOpsPerS: siriSeries('readHeavyOpsPerS'),
  updateHeavyOpsPerS: siriSeries('updateHeavyOpsPerS'),
  pathNodes: siriSeries('pathNodes'),
  proofBytes: siriSeries('proofBytes'),
  diffUs: siriSeries('diffUs'),
  diskBytes: siriSeries('diskBytes'),
  historyBytes: siriSeries('historyBytes'),
  separateBytes: siriSeries('separateBytes'),
  rangeBytes: siriSeries('rangeBytes'),
  dedup: {
    n: siriLargest,
    overlaps,
    predicted: overlaps.map((o) => dedupAt(dedupIds[0], o).predicted),
    eta: dedupIds.map((id) => ({ label: siriLabels[id], id, values: overlaps.map((o) => dedupAt(id, o).eta) })),
    nodeSharing: dedupIds.map((id) => ({ label: siriLabels[id], id, values: overlaps.map((o) => dedupAt(id, o).nodeSharing) })),
  },
  targets: sr.targets,
  wasm: raw.siriWasm.rows,
};

// ---------------------------------------------------------------- headline (ratios of this run only)
const mb = (b) => `${(b / 1e6).toFixed(b < 1e7 ? 2 : 1)} MB`;
const kb = (b) => `${(b / 1e3).toFixed(1)} kB`;
const x = (a, b) => `${(a / b).toFixed(1)}×`;
const headline = [];
{
  const kv = engines.workloads.find((w) => w.workload === 'kvstore' && w.blocks === largest);
  const sb = engines.workloads.find((w) => w.workload === 'smallbank' && w.blocks === largest);
  const row = (w, label) => w?.rows.find((r) => r.label === label);
  if (kv) {
    const [mpt, cole, star, lv] = ['MPT (fjall)', 'COLE', 'COLE*', ENGINE.lvmt].map((k) => row(kv, k));
    headline.push({
      figure: `Storage after ${largest} blocks, kvstore`,
      value: `MPT (fjall) ${mb(mpt.bytes)} · COLE ${mb(cole.bytes)} (${((100 * cole.bytes) / mpt.bytes).toFixed(1)} % of MPT) · COLE* ${mb(star.bytes)} · LVMT ${mb(lv.bytes)}`,
      paper: 'Fig. 8/9',
    });
    headline.push({
      figure: `Commit latency, kvstore (${largest} blocks)`,
      value: `max: COLE ${cole.max.toFixed(1)} ms vs COLE* ${star.max.toFixed(1)} ms (${x(cole.max, star.max)}); median: MPT ${mpt.p50.toFixed(2)}, COLE ${cole.p50.toFixed(2)}, COLE* ${star.p50.toFixed(2)} ms`,
      paper: 'COLE Fig. 11',
    });
  }
  if (sb) {
    const [mpt, cole] = ['MPT (fjall)', 'COLE'].map((k) => row(sb, k));
    headline.push({
      figure: `Storage after ${largest} blocks, SmallBank`,
      value: `MPT (fjall) ${mb(mpt.bytes)} · COLE ${mb(cole.bytes)} (${((100 * cole.bytes) / mpt.bytes).toFixed(1)} % of MPT)`,
      paper: 'Fig. 8/9',
    });
  }
  const tp = (label) => throughput.series.find((s) => s.label === label)?.values;
  const [tm, tc, ts] = ['MPT (fjall)', 'COLE', 'COLE*'].map(tp);
  // With repeated runs: the median of the per-round ratios and their spread.
  const spread = (engine) =>
    mixNames.map((m) => {
      const r = throughput.ratios.find((q) => q.engine === engine && q.mix === m);
      return r ? `${r.median.toFixed(1)}× (${r.min.toFixed(1)}–${r.max.toFixed(1)})` : undefined;
    });
  if (tm && tc && ts) {
    const [sc, ss] = [spread('cole'), spread('cole*')];
    const repeated = throughput.repeat > 1 && [...sc, ...ss].every((v) => v !== undefined);
    headline.push({
      figure: `Throughput (${throughput.blocks} blocks; read-only / read-write / write-only${repeated ? `; median of ${throughput.repeat} interleaved runs (min–max)` : ''})`,
      value: repeated
        ? `COLE ${sc.join(' / ')} and COLE* ${ss.join(' / ')} MPT (fjall)'s ops/s`
        : `COLE ${mixNames.map((_, i) => x(tc[i], tm[i])).join(' / ')} and COLE* ${mixNames.map((_, i) => x(ts[i], tm[i])).join(' / ')} MPT (fjall)'s ops/s`,
      paper: 'COLE Fig. 10',
    });
  }
  const last = provenance.ranges.length - 1;
  const pv = (arr, label) => arr.find((s) => s.label.startsWith(label))?.values[last];
  const r = provenance.ranges[last];
  headline.push({
    figure: `History of a key over ${r} blocks`,
    value:
      `COLE ${pv(provenance.bytes, 'COLE').toFixed(0)} B, ${pv(provenance.verifyUs, 'COLE').toFixed(1)} µs · ` +
      (pv(provenance.bytes, 'LVMT') === undefined ? '' : `LVMT ${pv(provenance.bytes, 'LVMT').toFixed(0)} B, ${(pv(provenance.verifyUs, 'LVMT') / 1000).toFixed(1)} ms · `) +
      `MPT (${r} proofs) ${pv(provenance.bytes, 'MPT').toFixed(0)} B, ${pv(provenance.verifyUs, 'MPT').toFixed(1)} µs`,
    paper: 'COLE Fig. 13',
  });
  headline.push({
    figure: `LVMT proof verify (D = ${lvmtVerify.depth}, wasm)`,
    value: `${lvmtVerify.cases.map((cs) => `${cs.label}: ${cs.oursMs.toFixed(1)} ms`).join(' · ')}; params ${lvmtVerify.paramsBytes} B`,
    paper: 'LVMT',
  });
  headline.push({
    figure: 'MPT proof verify',
    value: `lightprov ${mptVerify.bars[0].us.toFixed(1)} µs vs @ethereumjs/mpt ${mptVerify.bars[1].us.toFixed(1)} µs (${x(mptVerify.bars[1].us, mptVerify.bars[0].us)} faster)`,
    paper: '—',
  });
  const [hashKeyed, lsm] = [blockStore.rows[0], blockStore.rows[blockStore.rows.length - 1]];
  headline.push({
    figure: `Block store, ${blockStore.blocks} blocks: Block-LSM vs geth's hash-keyed layout`,
    value: `write amplification ${lsm.wa.toFixed(2)} vs ${hashKeyed.wa.toFixed(2)} (${x(hashKeyed.wa, lsm.wa)} lower; without the journal ${lsm.waNoJournal.toFixed(2)} vs ${hashKeyed.waNoJournal.toFixed(2)}) · ${x(lsm.blocksPerS, hashKeyed.blocksPerS)} the blocks/s · receipts read p50 ${lsm.readReceiptsP50Us.toFixed(1)} vs ${hashKeyed.readReceiptsP50Us.toFixed(1)} µs`,
    paper: 'Block-LSM: WA ≈2 vs 5.1–9.2; +23–183 % throughput',
  });
  headline.push({
    figure: `getLogs over ${raw.logs.blocks} blocks, verified`,
    value: `${raw.logs.verifiedWarmMs.toFixed(0)} ms with headers verified (${raw.logs.ratioWarm.toFixed(1)}× the node's unverified ${raw.logs.unverifiedMs.toFixed(0)} ms); ${raw.logs.verifiedColdMs.toFixed(0)} ms from a new client (${raw.logs.ratioCold.toFixed(1)}×)`,
    paper: '—',
  });
  const fk = e.forkless;
  if (fk) {
    headline.push({
      figure: `Forkless vs MPT after ${fk.blocks} blocks, kvstore`,
      value:
        `head state: LiveDB ${mb(fk.liveBytes)} vs MPT ${mb(fk.mptHeadBytes)} (${fk.headRatio.toFixed(1)}× smaller; target ≥ 20×) · ` +
        `archive: ArchiveDB ${mb(fk.archiveBytes)} vs MPT archive ${mb(fk.mptArchiveBytes)} (${fk.archiveRatio.toFixed(1)}× smaller; target ≥ 10×) · ` +
        `blocks/s ${fk.throughputRatio.toFixed(2)}× MPT's (target ≥ 5×) · archive written in the background: ${fk.archiveInline.ratio.toFixed(2)}× the writes/s of writing it inline`,
      paper: 'Forkless Table 1: 53× (live), 31–121× (archive); Fig. 6: ≈10× throughput',
    });
  }
  const fb = pv(provenance.bytes, 'Forkless');
  if (fb !== undefined) {
    headline.push({
      figure: `Forkless history proof over ${r} blocks`,
      value: `${fb.toFixed(0)} B (${(fb / pv(provenance.bytes, 'COLE')).toFixed(2)}× COLE's; target ≤ 1×), ${pv(provenance.verifyUs, 'Forkless').toFixed(1)} µs in wasm`,
      paper: '— (the paper has no proofs)',
    });
  }
  if (forklessPages) {
    const best = forklessPages.rows.reduce((a, b) => (b.us < a.us ? b : a));
    headline.push({
      figure: `LiveDB root recompute vs page size (${forklessPages.records} records, ${forklessPages.updates} changed)`,
      value: `${forklessPages.rows.map((q) => `${q.pageSize} B ${q.us.toFixed(0)} µs`).join(' · ')}; fastest ${best.pageSize} B`,
      paper: 'Forkless Fig. 8 (4 KiB best on their disk)',
    });
  }
  {
    const n = siriLargest;
    const [pos, bt, mbt] = ['pos', 'btree', 'mbt'].map((id) => siriRow(id, n));
    const heights = siri.pathNodes.find((x) => x.id === 'mbt').values;
    const first = siriRow('mbt', Math.min(...siri.sizes));
    headline.push({
      figure: `SIRI reads and writes at ${n} keys: POS-Tree vs the Merkle B+-tree`,
      value: `reads ${x(pos.readsPerS, bt.readsPerS)} (target ≥ 0.95×), writes ${x(pos.writesPerS, bt.writesPerS)}; path ${pos.pathNodes.toFixed(1)} vs ${bt.pathNodes.toFixed(1)} nodes, MPT ${siriRow('mpt', n).pathNodes.toFixed(1)}`,
      paper: 'Fig. 6: POS reads 0.95–1.06×, writes 1.04–1.9× the baseline',
    });
    headline.push({
      figure: `SIRI MBT (${1 << mbt.params.bucketBits} buckets) from ${Math.min(...siri.sizes)} to ${n} keys`,
      value: `height ${heights.map((h) => h.toFixed(0)).join(' / ')} nodes; writes/s ${(mbt.writesPerS / first.writesPerS).toFixed(2)}×, reads/s ${(mbt.readsPerS / first.readsPerS).toFixed(2)}× the smallest size's (N/B ${(Math.min(...siri.sizes) / (1 << mbt.params.bucketBits)).toFixed(1)} → ${(n / (1 << mbt.params.bucketBits)).toFixed(1)})`,
      paper: 'Fig. 6/9: MBT height constant, throughput falls 30× as N/B grows',
    });
    const half = siri.dedup.overlaps.indexOf(50);
    if (half >= 0) {
      const eta = (id) => siri.dedup.eta.find((e) => e.id === id)?.values[half];
      headline.push({
        figure: `SIRI η of two versions differing by α = 0.5 (${siri.dedup.n} keys)`,
        value: `POS ${eta('pos').toFixed(3)}, B+-tree ${eta('btree').toFixed(3)}, MBT ${eta('mbt').toFixed(3)} vs ½ − α/2 = ${siri.dedup.predicted[half].toFixed(3)}`,
        paper: '§4.2.2: η(POS) ≈ η(MBT) ≈ ½ − α/2',
      });
    }
    headline.push({
      figure: `SIRI ${siri.historyBlocks}-block history of a key (${n} keys)`,
      value: `POS ${pos.historyBytes} B = ${((100 * pos.historyBytes) / pos.separateBytes).toFixed(1)} % of ${siri.historyBlocks} separate proofs (target ≤ 25 %); MBT ${((100 * mbt.historyBytes) / mbt.separateBytes).toFixed(1)} %`,
      paper: '— (the paper has no proofs)',
    });
    const w = siri.wasm.find((r) => r.n === n);
    if (w) {
      headline.push({
        figure: `SIRI one-key verify in wasm (${n} keys)`,
        value: `MPT ${w.verifyUs.mpt.toFixed(1)} µs · MBT ${w.verifyUs.mbt.toFixed(1)} µs (${w.ratioToMpt.mbt.toFixed(2)}×) · POS ${w.verifyUs.pos.toFixed(1)} µs (${w.ratioToMpt.pos.toFixed(2)}×); target within 2× of MPT`,
        paper: '—',
      });
    }
  }
  if (calls) {
    const [one, many] = calls.calls;
    headline.push({
      figure: 'Verified contract calls (geth, loopback)',
      value: `balanceOf: ${one.requests} round trips, ${(one.bytes / 1000).toFixed(1)} kB, wasm ${one.computeMs.toFixed(2)} ms (${one.speedup.toFixed(0)}× @ethereumjs/mpt + vm), ${one.endToEndMs.toFixed(1)} ms end to end · ${many.reads}-read multicall: wasm ${many.computeMs.toFixed(2)} ms (${many.speedup.toFixed(0)}×) · EVM module ${kb(calls.evmGzip)} gzip`,
      paper: 'colibri: balanceOf 51 ms in wasm (another machine); targets ≤ 3 round trips, ≤ 3 ms, ≥ 10×, ≤ 350 kB',
    });
  }
  if (nodeBlocks) {
    headline.push({
      figure: 'lightprov-node executing transactions (release, 100 per block)',
      value: nodeBlocks.rows
        .map((r) => `${r.workload}, ${r.engines}: ${r.after.blocksPerSecond.median.toFixed(0)} blocks/s, ${r.after.cpuMsPerBlock.median.toFixed(1)} ms CPU a block (${r.cpuRatio.toFixed(2)}× the node before the EVM)`)
        .join(' · '),
      paper: '—',
    });
  }
  if (beacon) {
    const row = (k) => beacon.rows.find((q) => q.key === k);
    const [cached, cold, sync] = [row('cached'), row('cold'), row('sync')];
    headline.push({
      figure: 'Beacon light client: one update verified (real mainnet, wasm)',
      value:
        `${cached.lightprovMs.toFixed(1)} ms with the committee cached (target ≤ 15 ms), ${x(cached.lodestarMs, cached.lightprovMs)} lodestar's ${cached.lodestarMs.toFixed(1)} ms with herumi (target ≥ 3×) · ` +
        `cold committee ${cold.lightprovMs.toFixed(1)} vs ${cold.lodestarMs.toFixed(1)} ms (${x(cold.lodestarMs, cold.lightprovMs)}) · sync of 6 periods ${sync.lightprovMs.toFixed(0)} vs ${sync.lodestarMs.toFixed(0)} ms · module ${kb(beacon.moduleGzipBytes)} gzip`,
      paper: '— (helios, lodestar: the peers)',
    });
  }
  const [mptOnly, , every] = wasmSizes.apps;
  headline.push({
    figure: 'wasm verifier download, gzip',
    value: `MPT-only dapp ${kb(mptOnly.gzip)} · every family ${kb(every.gzip)} · per module: ${wasmSizes.modules.map((m) => `${m.label} ${kb(m.gzip)}`).join(', ')}`,
    paper: '—',
  });
}

const figures = {
  schema: 'lightprov-bench-report/1',
  run,
  mode: runInfo.mode ?? process.env.LIGHTPROV_BENCH_MODE ?? 'custom',
  date: new Date().toISOString(),
  wallSecs: Number.isFinite(wall) ? wall : null,
  steps,
  machine,
  versions,
  git,
  parameters: {
    seed: e.seed,
    opsPerBlock: e.opsPerBlock,
    blocks: largest,
    sizes: e.sizes,
    storageSamples: e.samples,
    mixBlocks: e.mixes.blocks,
    cole: e.cole,
    lvmt: { depth: e.lvmt.depth, setup: e.lvmt.setup, proofs: e.lvmt.proofs, storage: e.lvmt.storage },
    lvmtVerifyDepth: l.depth,
    lvmtCommit: { depth: c.depth, blocks: c.blocks, writes: c.writes, keys: c.keys },
    provenance: { keys: h.keys, ranges: provenance.ranges, blocks: h.blocks },
    rpc: { blocks: raw.rpc.blocks, clients: raw.rpc.clients, requests: raw.rpc.requests },
    blockStore: { blocks: bs.blocks, txsPerBlock: bs.txsPerBlock, group: bs.group, memtableKiB: bs.memtableKiB },
    logs: { blocks: raw.logs.blocks, transfersPerBlock: raw.logs.transfersPerBlock },
    siri: { sizes: sr.sizes, batch: sr.batch, seed: sr.seed, build: sr.build, btree: sr.btree },
  },
  figures: { storage, throughput, commitLatency, provenance, lvmtVerify, mptVerify, wasmSizes, lvmtCommit, engines, rpc: raw.rpc, blockStore, logs: raw.logs, forklessPages, siri, beacon, calls, nodeBlocks },
  headline,
  raw,
};

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const figuresFile = path.join(out, 'figures.json');

// ---------------------------------------------------------------- HTML
function esc(s) {
  return String(s).replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]);
}

function headlineMd(fig) {
  const lines = [
    `| figure (one run: ${fig.mode} mode, ${fig.date.slice(0, 10)}) | result | paper |`,
    '|---|---|---|',
    ...fig.headline.map((r) => `| ${r.figure} | ${r.value} | ${r.paper} |`),
  ];
  return lines.join('\n') + '\n';
}

function table(head, rows) {
  return `<table><thead><tr>${head.map((x) => `<th>${esc(x)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((x) => `<td>${esc(x)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

const n0 = (v) => (v === null || v === undefined ? '—' : Math.round(v).toLocaleString('en-US'));
const n1 = (v) => (v === null || v === undefined ? '—' : v.toFixed(1));
const n2 = (v) => (v === null || v === undefined ? '—' : v.toFixed(2));
const n3 = (v) => (v === null || v === undefined ? '—' : v.toFixed(3));

/** The data table under each plot: the numbers it was drawn from. */
function dataTable(fig, id) {
  const f = fig.figures;
  if (id.startsWith('storage-')) {
    const w = f.storage.workloads[id.slice(8)];
    const blocks = w.series[0].points.map((p) => p.block);
    return table(['block', ...w.series.map((s) => `${s.label} (bytes)`)], blocks.map((b, i) => [b, ...w.series.map((s) => n0(s.points[i]?.bytes))]));
  }
  if (id === 'throughput') {
    const cell = (s, i) => (f.throughput.repeat > 1 ? `${n0(s.values[i])} (${n0(s.min[i])}–${n0(s.max[i])})` : n0(s.values[i]));
    return table(
      ['engine', ...f.throughput.mixes.map((m) => `${m} (ops/s${f.throughput.repeat > 1 ? `, median of ${f.throughput.repeat} (min–max)` : ''})`)],
      f.throughput.series.map((s) => [s.label, ...s.values.map((_, i) => cell(s, i))]),
    );
  }
  if (id.startsWith('latency-')) {
    const w = f.commitLatency.workloads[id.slice(8)];
    return table(['engine', 'min ms', 'q1 ms', 'median ms', 'q3 ms', 'p99 ms', 'max ms', 'mean ms'], w.boxes.map((b) => [b.label, n2(b.min), n2(b.q1), n2(b.median), n2(b.q3), n2(b.p99), n1(b.max), n2(b.mean)]));
  }
  if (id.startsWith('provenance-')) {
    const bytes = id.endsWith('bytes');
    const s = bytes ? f.provenance.bytes : f.provenance.verifyUs;
    return table(['range (blocks)', ...s.map((x) => `${x.label} (${bytes ? 'bytes' : 'µs'})`)], f.provenance.ranges.map((r, i) => [r, ...s.map((x) => (bytes ? n0(x.values[i]) : n1(x.values[i])))]));
  }
  if (id === 'lvmt-verify') {
    const ab = f.lvmtVerify.cases.every((cs) => cs.abBeforeMs !== undefined);
    return table(
      ['proof', 'levels', 'bytes', 'batched ms', 'separate ms', 'speed-up', ...(ab ? ['A/B: ours ms', 'before lightprov-field ms', '×'] : [])],
      f.lvmtVerify.cases.map((cs) => [cs.label, cs.levels, cs.proofBytes, n2(cs.oursMs), n1(cs.separateMs), `${(cs.separateMs / cs.oursMs).toFixed(1)}×`, ...(ab ? [n2(cs.abOursMs), n2(cs.abBeforeMs), `${(cs.abBeforeMs / cs.abOursMs).toFixed(2)}×`] : [])]),
    );
  }
  if (id === 'mpt-verify') return table(['verifier', 'µs per proof'], f.mptVerify.bars.map((b) => [b.label, n1(b.us)]));
  if (id === 'wasm-sizes') {
    return (
      table(['module', 'raw bytes', 'gzip bytes'], f.wasmSizes.modules.map((s) => [s.label, n0(s.raw), n0(s.gzip)])) +
      table(['download', 'gzip bytes', 'budget'], f.wasmSizes.apps.map((a) => [a.label, n0(a.gzip), a.budget === null ? '' : n0(a.budget)]))
    );
  }
  if (id === 'siri-dedup') {
    const d = f.siri.dedup;
    return table(
      ['overlap %', 'α', ...d.eta.map((x) => `${x.label} η`), ...d.nodeSharing.map((x) => `${x.label} node sharing`), '½ − α/2 (paper)'],
      d.overlaps.map((o, i) => [o, (1 - o / 100).toFixed(2), ...d.eta.map((x) => n3(x.values[i])), ...d.nodeSharing.map((x) => n3(x.values[i])), n3(d.predicted[i])]),
    );
  }
  if (id.startsWith('siri-')) {
    const s = f.siri;
    const rows = s.sizes.flatMap((n, i) =>
      s.readsPerS.map((x) => {
        const get = (field) => s[field].find((y) => y.id === x.id).values[i];
        const hist = get('historyBytes');
        return [n, x.label, n0(get('readsPerS')), n0(get('writesPerS')), n0(get('readHeavyOpsPerS')), n0(get('updateHeavyOpsPerS')), n2(get('pathNodes')), n0(get('proofBytes')), n0(get('diffUs')), n0(get('diskBytes')), hist === null ? '—' : `${n0(hist)} (${((100 * hist) / get('separateBytes')).toFixed(1)} %)`, n0(get('separateBytes'))];
      }),
    );
    const wasm = s.wasm.flatMap((r) => ['mpt', 'mbt', 'pos', 'btree'].map((k) => [r.n, s.readsPerS.find((x) => x.id === k)?.label ?? k, n0(r.proofBytes[k]), n1(r.verifyUs[k]), `${r.ratioToMpt[k].toFixed(2)}×`]));
    return (
      table(['keys', 'structure', 'reads/s', 'writes/s', 'read-heavy ops/s', 'update-heavy ops/s', 'path nodes', 'one-key proof B', 'diff µs', 'disk bytes', `${s.historyBlocks}-block history B (% of separate)`, `${s.historyBlocks} separate proofs B`], rows) +
      table(['keys', 'structure', 'one-key proof B', 'wasm verify µs', '× MPT'], wasm)
    );
  }
  if (id === 'lvmt-commit') return table(['openings kept', 'writes/s', 'block p50 ms'], f.lvmtCommit.rows.map((r) => [r.label, n0(r.writesPerS), n2(r.blockP50Ms)]));
  if (id === 'block-store') {
    return table(
      ['layout', 'write amplification', 'without the journal', 'tables rewritten', 'MiB rewritten', 'blocks/s', 'commit p99 ms', 'receipts p50 µs', 'block p50 µs', 'tx lookup p50 µs'],
      f.blockStore.rows.map((r) => [r.label, n2(r.wa), n2(r.waNoJournal), n0(r.tablesRewritten), n1(r.bytesRewritten / 2 ** 20), n0(r.blocksPerS), n2(r.commitP99Ms), n1(r.readReceiptsP50Us), n1(r.readBlockP50Us), n1(r.readTxP50Us)]),
    );
  }
  return '';
}

const CAPTIONS = {
  storage: (fig) =>
    `Bytes on disk (allocated blocks) after each block height, every engine fed the same writes (seed ${fig.parameters.seed}, ${fig.parameters.opsPerBlock} ops per block, one synced commit per block). ` +
    `LVMT persists on fjall like the others: its line is bytes on disk too. LVMT D = ${fig.parameters.lvmt.depth}.`,
  throughput: (fig) =>
    `Operations per second (reads + writes) on the kvstore records, each engine fresh from the same genesis for each mix: read-only (read fraction 1), read-write (0.5, the node's kvstore workload), write-only (0). Reads are served by the engine at the head; writes are one synced commit per block. ${fig.figures.throughput.blocks} blocks of ${fig.figures.throughput.opsPerBlock} ops.`,
  latency: () =>
    'Distribution of per-block commit time (apply and sync one block) over every block of the storage run. COLE merges levels inside the commit that fills one; COLE* merges in the background, which is what the maximum shows. LVMT applies the block in memory and writes one synced batch.',
  provenance: (fig) =>
    `One proof of a key's whole history over the last N blocks: COLE and COLE* (one proof from the head), LVMT (SDK verifyLvmtHistory, D = ${fig.figures.provenance.lvmtDepth}), against MPT, which needs one proof per block. Mean over the ${fig.figures.provenance.keys} keys written most; verify time is the median of alternating rounds in wasm (Node).`,
  'lvmt-verify': () =>
    'LVMT presence and absence proofs verified in wasm: the SDK\'s batched check (one multi-Miller loop and one final exponentiation) against the same proof checked with one full pairing per factor (D + 1 per level). Median after warm-up.',
  'mpt-verify': () => 'The same real eth_getProof trie proofs checked by lightprov\'s wasm verifier and by @ethereumjs/mpt in one Node process, alternating rounds.',
  'wasm-sizes': () => 'The SDK\'s wasm modules, raw and gzip -9: one per proof family and one with every family, and what an app downloads (the loader takes the smaller of the per-family modules and the one with all).',
  'lvmt-commit': () => 'The same LVMT writes committed while keeping every opening current, a 1/16 proof shard, or only commitments (no proofs served). In memory.',
  'block-store': (fig) => {
    const b = fig.figures.blockStore;
    return `The node's block store on fjall, the same ${b.blocks} blocks of ${b.txsPerBlock} transfers (typed transactions and receipts with an event each) in every layout, one synced batch per block: geth's hash-keyed schema, then Block-LSM built up as the paper's breakdown does (group prefix; + tables aligned to groups of ${b.group} blocks; + the transaction index in its own keyspace). Write amplification = bytes the process sent to the device (/proc/self/io write_bytes − cancelled_write_bytes) over the bytes of keys and values stored; "without the journal" subtracts the journal files' bytes. Memtables and tables ${b.memtableKiB} KiB in every keyspace.`;
  },
  'siri-dedup': (fig) => {
    const d = fig.figures.siri.dedup;
    return `Two versions of the same ${d.n} keys: the head, and the head with a contiguous key range of α·N records (in key order) given new values, as the paper's §4.2.2 analysis assumes; η = 1 − bytes(P₁ ∪ P₂) / (bytes(P₁) + bytes(P₂)) over the stored nodes of each version (§4.2.1), node sharing the same over node counts (§5.4.2; in the table). The dashed line is the paper's prediction ½ − α/2. MBT places keys in buckets by a hash of the key, so a contiguous key range touches most buckets: the paper's N₀ = α·B assumes otherwise.`;
  },
  siri: (fig) => {
    const s = fig.figures.siri;
    return `MPT, MBT (MbtParams::DEFAULT: 4096 buckets, fanout 16), POS-Tree (content-defined splits, about 16 entries a node) and the Merkle B+-tree baseline (the same engine, fixed splits of 16 entries), on fjall, fed the same keys and operations: the dataset loaded in 10 blocks, then ${s.reads} gets at the head (reads/s) and ${s.writeBatches} blocks of ${s.batch} updates (writes/s); the read-heavy (95 % reads) and update-heavy (50 %) mixes run ${s.mixBatches} batches of ${s.batch} operations, one block a batch. Path length = nodes from the root to the key's leaf (MPT: the key's storage trie). Diff = the diff proof of the versions before and after a block of ${s.batch} updates (MPT has none). History = one proof of a key over ${s.historyBlocks} blocks of ${s.historyWrites} updates against ${s.historyBlocks} one-key proofs. Wasm: one-key proofs of the same keys verified by the SDK in Node.`;
  },
};

function caption(fig, id) {
  const key = Object.keys(CAPTIONS).find((k) => id === k || id.startsWith(`${k}-`)) ?? id;
  return CAPTIONS[key]?.(fig) ?? '';
}

function page(fig, specs) {
  const mc = fig.machine;
  const v = fig.versions;
  const p = fig.parameters;
  const stepsRow = Object.entries(fig.steps ?? {}).map(([k, s]) => `${k} ${s} s`).join(', ');
  const engineTables = fig.figures.engines.workloads
    .map((w) => `<h3>${esc(WORKLOAD[w.workload] ?? w.workload)}, ${w.blocks} blocks</h3>` +
      table(['engine', 'state updates', 'writes/s', 'commit p50 ms', 'p99 ms', 'max ms', 'bytes', 'bytes / update'], w.rows.map((r) => [
        r.label, n0(r.updates), n0(r.writesPerS), n2(r.p50), n2(r.p99), n1(r.max), `${n0(r.bytes)}${r.kind === 'disk' ? '' : ' (not on disk)'}`, n1(r.bytesPerUpdate),
      ])))
    .join('\n');
  const rpc = fig.figures.rpc;
  const sections = specs
    .map((s) => `<section id="${esc(s.id)}">
  <h2>${esc(s.title)} <span class="paper">${esc(s.paper)}</span></h2>
  <img src="${esc(s.id)}.png" alt="${esc(s.config.options.plugins.title.text)}" width="900" height="500">
  <p class="caption">${caption(fig, s.id)}</p>
  <details><summary>The numbers this plot is drawn from (figures.json)</summary>${dataTable(fig, s.id)}</details>
</section>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>lightprov benchmark report — ${esc(fig.date.slice(0, 10))}</title>
<style>
  body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a1a1a; margin: 0; background: #f6f7f9; }
  main { max-width: 960px; margin: 0 auto; padding: 24px 30px 60px; background: #fff; }
  h1 { font-size: 26px; margin: 8px 0 4px; }
  h2 { font-size: 19px; margin: 34px 0 8px; border-top: 1px solid #e3e5e8; padding-top: 18px; }
  h3 { font-size: 16px; margin: 18px 0 6px; }
  .paper { font-size: 13px; font-weight: normal; color: #666; margin-left: 8px; }
  .sub { color: #555; margin: 0 0 12px; }
  img { max-width: 100%; height: auto; display: block; border: 1px solid #e3e5e8; }
  .caption { color: #333; font-size: 14px; }
  table { border-collapse: collapse; margin: 8px 0 12px; font-size: 13.5px; }
  th, td { border: 1px solid #d9dce0; padding: 3px 8px; text-align: right; vertical-align: top; }
  th { background: #f0f2f4; }
  td:first-child, th:first-child { text-align: left; }
  table.headline td, table.headline th, table.kv td { text-align: left; }
  details { font-size: 13.5px; margin-bottom: 6px; }
  summary { cursor: pointer; color: #1f5fa8; }
  code { background: #f0f2f4; padding: 1px 4px; border-radius: 3px; }
  .warn { background: #fff6e0; border: 1px solid #f0d48a; padding: 8px 12px; border-radius: 4px; }
  nav a { margin-right: 10px; font-size: 14px; }
</style>
</head>
<body><main>
<h1>lightprov benchmark report</h1>
<p class="sub">Every figure below was measured in one run (<code>${esc(fig.run)}</code>, ${esc(fig.mode)} mode) on the machine described here, side by side; ratios compare numbers of this run only. Generated ${esc(fig.date)} by <code>bash scripts/bench --report${fig.mode === 'quick' ? ' --quick' : ''}</code>. Raw numbers: <a href="figures.json">figures.json</a> (every plot is drawn from it).</p>
${fig.mode === 'quick' ? '<p class="warn"><b>Quick mode</b>: small sizes for a smoke run; shapes, not the papers\' scale. See docs/benchmarks.md for the full and larger runs.</p>' : ''}
<nav>${specs.map((s) => `<a href="#${esc(s.id)}">${esc(s.title)}</a>`).join(' ')}</nav>

<h2>Headline</h2>
${table(['figure', 'this run', 'paper'], fig.headline.map((r) => [r.figure, r.value, r.paper])).replace('<table>', '<table class="headline">')}

<h2>Machine, versions, sizes, seeds</h2>
${table(['', ''], [
    ['CPU', `${mc.cpu} — ${mc.cores} cores (${mc.arch})`],
    ['memory', `${(mc.ramBytes / 2 ** 30).toFixed(1)} GiB`],
    ['OS', `${mc.os}; ${mc.kernel}`],
    ['load average at report time', mc.loadAverage.join(' / ') + ' (the machine may be shared: numbers vary between runs)'],
    ['lightprov', `${v.lightprov ?? '?'} at commit ${fig.git.commit ?? '?'}${fig.git.dirty ? ' (with uncommitted changes)' : ''}`],
    ['Rust', `${v.rustc ?? '?'}; ${v.cargo ?? '?'}; ${fig.mode === 'quick' ? 'test-profile builds (dependencies optimised): shapes, not speeds' : 'release builds'} (wasm: --profile wasm, wasm-opt -Os); ${v.wasmBindgen ?? ''}`],
    ['Node', v.node],
    ['plots', `Chart.js ${v.chartJs} in Chromium ${v.chromium} (playwright-core ${v.playwrightCore})`],
    ['peer', `@ethereumjs/mpt ${v.ethereumjsMpt}`],
    ['workloads', `seed ${p.seed}; ${p.opsPerBlock} ops per block; ${p.blocks} blocks (sizes run: ${p.sizes.join(', ')}; storage sampled ${p.storageSamples}×); mixes ${p.mixBlocks} blocks each`],
    ['COLE / COLE*', `T = ${p.cole.sizeRatio}, m = ${p.cole.fanout}, ε = ${p.cole.epsilon}, B = ${p.cole.l0Capacity} entries`],
    ['LVMT', `D = ${p.lvmt.depth} in the engines run, D = ${p.lvmtVerifyDepth} for the verify-per-level proofs, D = ${p.lvmtCommit.depth} in the commit run; ${p.lvmt.setup}; every opening kept`],
    ['provenance', `${p.provenance.keys} keys × ranges ${p.provenance.ranges.join(', ')} from the kvstore state at ${p.provenance.blocks} blocks`],
    ['wall time', `${fig.wallSecs ?? '?'} s for the benchmarks${stepsRow ? ` (${stepsRow})` : ''}`],
  ]).replace('<table>', '<table class="kv">').replace('<thead><tr><th></th><th></th></tr></thead>', '')}

${sections}

<h2 id="tables">Engines: every size run</h2>
<p class="caption">Writes/s count state updates; commit = apply and sync one block. COLE/COLE*: T = ${p.cole.sizeRatio}, m = ${p.cole.fanout}, ε = ${p.cole.epsilon}, B = ${p.cole.l0Capacity}.</p>
${engineTables}

<h2 id="rpc">JSON-RPC: eth_getProof on lightprov-node</h2>
${table(['blocks', 'clients', 'requests', 'p50 ms', 'p99 ms', 'max ms', 'requests/s'], [[rpc.blocks, rpc.clients, rpc.requests, n2(rpc.latencyMs.p50), n2(rpc.latencyMs.p99), n2(rpc.latencyMs.max), n0(rpc.requestsPerS)]])}
<p class="caption">${esc(rpc.workload)}; ${rpc.clients} concurrent clients on loopback asking for one storage slot of a random record at a random past block.</p>

<h2 id="logs">getLogs over ${fig.figures.logs.blocks} blocks: verified against the node's answer</h2>
${table(['call', 'ms (median of ' + fig.figures.logs.rounds + ')', '× the unverified call'], [
    ["node's eth_getLogs (unverified)", n1(fig.figures.logs.unverifiedMs), '1'],
    ['SDK getLogs, new client (every header of the range verified)', n1(fig.figures.logs.verifiedColdMs), n2(fig.figures.logs.ratioCold)],
    ['SDK getLogs, headers already verified', n1(fig.figures.logs.verifiedWarmMs), n2(fig.figures.logs.ratioWarm)],
    [`one account's incoming transfers (${fig.figures.logs.selective.logs} events in ${fig.figures.logs.selective.blocks} blocks): node's eth_getLogs`, n1(fig.figures.logs.selective.unverifiedMs), '1'],
    ["one account's incoming transfers: SDK getLogs, headers already verified", n1(fig.figures.logs.selective.verifiedWarmMs), n2(fig.figures.logs.selective.ratioWarm)],
  ])}
<p class="caption">lightprov-node (MPT engine only), ${fig.figures.logs.transfersPerBlock} signed transfers a block, each with a Transfer event; the filter is the event's topic, so every block's bloom matches and every block's receipts and transactions are read (${fig.figures.logs.logs} logs): the worst case for the verified call; then a filter that matches one account's incoming transfers, where the verified bloom skips most blocks. The SDK reads the raw receipts and block (debug_getRawReceipts, debug_getRawBlock) in batches of 100 blocks.</p>

${
  fig.figures.calls
    ? `<h2 id="calls">Verified contract calls against geth: the SDK's wasm against @ethereumjs/mpt + @ethereumjs/vm</h2>
${table(
  ['call', 'round trips', 'bytes', 'accounts', 'slots', 'wasm compute ms', 'end-to-end ms', 'ethereumjs ms', '×'],
  fig.figures.calls.calls.map((q) => [q.name, String(q.requests), String(q.bytes), String(q.accounts), String(q.slots), n2(q.computeMs), n2(q.endToEndMs), n2(q.ethereumjsMs), n2(q.speedup)]),
)}
${table(['target', 'measured', 'met'], fig.figures.calls.targets.map((t) => [t.target, t.value, t.met ? 'yes' : 'no']))}
<p class="caption">${esc(fig.figures.calls.node)}; medians of ${fig.figures.calls.samples} calls after ${fig.figures.calls.warmup} warm-up calls. Ours: proofs checked and the call run by revm in the evm module (wasm compute), the node's access list only a hint. Theirs, as @lodestar/prover does it, over the same proven state: each account and storage proof by @ethereumjs/mpt, the code against its hash, the state put into an @ethereumjs/vm, the call run there.</p>`
    : ''
}
${
  fig.figures.nodeBlocks
    ? `<h2 id="node-blocks">lightprov-node sealing blocks: before the EVM and with it</h2>
${table(
  ['workload', 'engines', 'CPU ms/block before', 'CPU ms/block with the EVM', '×', 'blocks/s before', 'blocks/s with the EVM'],
  fig.figures.nodeBlocks.rows.map((r) => {
    const spread = (f) => `${n1(f.median)} (${n1(f.min)}–${n1(f.max)})`;
    return [r.workload, r.engines, spread(r.before.cpuMsPerBlock), spread(r.after.cpuMsPerBlock), n2(r.cpuRatio), spread(r.before.blocksPerSecond), spread(r.after.blocksPerSecond)];
  }),
)}
<p class="caption">Release builds. Before: the node at the commit before the EVM came, applying the workloads' writes directly; with the EVM: each of the ${fig.figures.nodeBlocks.opsPerBlock} operations a block a signed transaction executed by revm. Blocks sealed back to back by <code>evm_mine</code> (${fig.figures.nodeBlocks.blocks} timed after ${fig.figures.nodeBlocks.warmup} warm-up blocks, a fresh data directory each run); CPU is the node process's user + system time; the median of ${fig.figures.nodeBlocks.rounds} rounds, the sides alternating (lowest–highest in brackets).</p>
`
    : ''
}
${
  fig.figures.beacon
    ? `<h2 id="beacon">Beacon light client: lightprov's wasm against lodestar on real mainnet updates</h2>
${table(
  ['step', 'lightprov wasm (ms)', 'lodestar, herumi wasm (ms)', 'lodestar, @noble/curves (ms)', 'herumi / lightprov', 'noble / lightprov', 'lodestar, blst native addon (ms)'],
  fig.figures.beacon.rows.map((q) => {
    const spread = (f) => (f ? `${n2(f.medianMs)} (${n2(f.minMs)}–${n2(f.maxMs)})` : '—');
    return [q.label, spread(q.lightprov), spread(q.herumi), spread(q.noble), n2(q.lodestarMs / q.lightprovMs), q.nobleMs === null ? '—' : n2(q.nobleMs / q.lightprovMs), spread(q.lodestarNative)];
  }),
)}
<p class="caption">Sync committee periods 862..867 (Capella, 512 keys); the median of ${fig.figures.beacon.rounds} rounds, the sides interleaved in each (lowest–highest round in brackets). Every side decodes the SSZ a beacon node serves in each run. lodestar's light client verifies with herumi's BLS compiled to wasm, as in browsers, and with @noble/curves' bls12-381 (pure JavaScript) in its place; blst's native addon (Node only) for reference. Ours decompresses a committee's keys at its first signature check (the cold row), lodestar's at bootstrap. The beacon module is ${kb(fig.figures.beacon.moduleGzipBytes)} gzip${fig.figures.beacon.herumiGzipBytes ? `; herumi's BLS for browsers (bls-eth-wasm) ${kb(fig.figures.beacon.herumiGzipBytes)}` : ''}.</p>
`
    : ''
}
<h2>Reproduce</h2>
<p><code>npm run bench -- --report</code> (setup, build, then this run; about 15 minutes on 2 cores) or <code>bash scripts/bench --report --quick</code> (small sizes). Larger runs: see docs/benchmarks.md.</p>
</main></body>
</html>
`;
}

// ---------------------------------------------------------------- plots, page, screenshot, check
await withBrowser(async (context, chromiumVersion) => {
  figures.versions.chromium = chromiumVersion;
  fs.writeFileSync(figuresFile, JSON.stringify(figures, null, 2) + '\n');
  // Everything below is drawn from the file as written.
  const fig = JSON.parse(fs.readFileSync(figuresFile, 'utf8'));
  const specs = charts(fig);
  const rendered = await renderCharts(context, specs, out);
  fs.writeFileSync(path.join(out, 'rendered.json'), JSON.stringify({ run: fig.run, charts: rendered }, null, 2) + '\n');
  fs.writeFileSync(path.join(out, 'index.html'), page(fig, specs));
  fs.writeFileSync(path.join(out, 'headline.md'), headlineMd(fig));
  const shot = await screenshot(context, path.join(out, 'index.html'), path.join(out, 'screenshot.png'));
  if (shot.broken.length || shot.errors.length) fail(`the page does not render: broken images ${shot.broken.join(', ')}; ${shot.errors.join('; ')}`);
  console.log(`report: ${specs.length} plots, page ${shot.size.width}×${shot.size.height} px at 1280 px wide (screenshot.png)`);
});

const result = checkReport(out);
const rel = path.relative(process.cwd(), out) || '.';
console.log(`report: ${path.join(rel, 'index.html')} (figures.json, ${charts(figures).length} PNG plots, screenshot.png)`);
for (const f of result.failures) console.log(`report check: FAIL ${f}`);
console.log(`report check: ${result.passed} passed, ${result.failed} failed`);
if (result.failed) process.exit(1);
