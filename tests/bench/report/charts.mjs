// The report's plots as Chart.js configurations, drawn from figures.json alone (build.mjs reads the
// file back from disk before calling `charts`). Every value is plotted in the unit figures.json
// holds it in (bytes, ops/s, µs, ms); tick labels are only formatted (`_format`, applied in the
// page by render.mjs). check.mjs compares what was drawn with figures.json without this file.

/** One colour per engine or scheme, the same in every plot. */
export const COLORS = {
  'MPT (fjall)': '#d62728',
  'MPT (redb)': '#ff7f0e',
  MPT: '#d62728',
  COLE: '#1f77b4',
  'COLE*': '#2ca02c',
  LVMT: '#9467bd',
  Forkless: '#8c564b',
  MBT: '#e377c2',
  'POS-Tree': '#17becf',
  'Merkle B+-tree': '#7f7f7f',
  '½ − α/2 (paper)': '#000000',
};

const color = (label) => COLORS[label] ?? COLORS[label.replace(/ \(.*$/, '')] ?? '#555';

/** `hex` mixed with white (`t` = share of white), opaque. */
function tint(hex, t) {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `#${c.map((x) => Math.round(x + (255 - x) * t).toString(16).padStart(2, '0')).join('')}`;
}

/** The powers of ten around [lo, hi], for log axes (bars need a base below the smallest). */
function decades(values) {
  const xs = values.filter((v) => Number.isFinite(v) && v > 0);
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return { min: 10 ** Math.floor(Math.log10(lo)), max: 10 ** Math.ceil(Math.log10(hi) + 1e-9) };
}

function axis(title, extra = {}) {
  return { title: { display: true, text: title, font: { size: 14, weight: 'bold' } }, ...extra };
}

function logAxis(title, format, values, extra = {}) {
  return axis(title, { type: 'logarithmic', ...decades(values), ticks: { _format: format }, ...extra });
}

function base(type, title, subtitle, data, scales, extra = {}) {
  const { plugins = {}, ...rest } = extra;
  return {
    type,
    data,
    options: {
      animation: false,
      responsive: false,
      devicePixelRatio: 2,
      plugins: {
        title: { display: true, text: title, font: { size: 17, weight: 'bold' } },
        subtitle: { display: Boolean(subtitle), text: subtitle, font: { size: 13 }, padding: { bottom: 8 } },
        legend: { position: 'bottom', labels: { font: { size: 13 } } },
        tooltip: { enabled: false },
        ...plugins,
      },
      scales,
      ...rest,
    },
  };
}

function storageChart(fig, workload, paperFig) {
  const w = fig.figures.storage.workloads[workload];
  const datasets = w.series.map((s) => ({
    label: s.label,
    data: s.points.map((p) => ({ x: p.block, y: p.bytes })),
    borderColor: color(s.label),
    backgroundColor: color(s.label),
    borderDash: s.kind === 'memory-estimate' ? [6, 4] : [],
    pointRadius: 2.5,
    borderWidth: 2,
  }));
  const all = w.series.flatMap((s) => s.points.map((p) => p.bytes));
  return {
    id: `storage-${workload}`,
    paper: paperFig,
    title: `Storage size vs block height — ${w.title}`,
    config: base(
      'line',
      `Storage size vs block height — ${w.title}`,
      `${w.blocks} blocks × ${fig.parameters.opsPerBlock} ops, seed ${fig.parameters.seed}; bytes on disk (allocated blocks)`,
      { datasets },
      {
        x: axis('block height (blocks)', { type: 'linear', min: 0, max: w.blocks }),
        y: logAxis('storage size (bytes, log scale)', 'bytes', all),
      },
    ),
  };
}

function throughputChart(fig) {
  const t = fig.figures.throughput;
  const datasets = t.series.map((s) => ({
    label: s.label,
    data: s.values,
    backgroundColor: color(s.label),
    borderColor: color(s.label),
  }));
  return {
    id: 'throughput',
    paper: 'COLE Fig. 10',
    title: 'Throughput vs workload',
    config: base(
      'bar',
      'Throughput vs workload — kvstore records',
      `${t.blocks} blocks × ${t.opsPerBlock} ops from genesis per engine and mix; reads served by the engine at the head; one synced commit per block`,
      { labels: t.mixes, datasets },
      {
        x: axis('workload (read / write mix)'),
        y: logAxis('throughput (operations/s, log scale)', 'count', t.series.flatMap((s) => s.values)),
      },
    ),
  };
}

function latencyChart(fig, workload) {
  const w = fig.figures.commitLatency.workloads[workload];
  const labels = w.boxes.map((b) => b.label);
  const values = w.boxes.flatMap((b) => [b.min, b.max]);
  const datasets = [
    {
      type: 'bar',
      label: 'min – max',
      data: w.boxes.map((b) => [b.min, b.max]),
      backgroundColor: '#333',
      grouped: false,
      barPercentage: 0.05,
      maxBarThickness: 3,
      categoryPercentage: 1,
      order: 3,
    },
    {
      type: 'bar',
      label: 'quartiles (q1 – q3)',
      data: w.boxes.map((b) => [b.q1, b.q3]),
      backgroundColor: w.boxes.map((b) => tint(color(b.label), 0.6)),
      borderColor: w.boxes.map((b) => color(b.label)),
      borderWidth: 2,
      borderSkipped: false,
      grouped: false,
      barPercentage: 0.45,
      categoryPercentage: 1,
      order: 2,
    },
    {
      type: 'line',
      label: 'median',
      data: w.boxes.map((b) => b.median),
      showLine: false,
      pointStyle: 'line',
      pointRadius: 34,
      pointBorderWidth: 3,
      borderColor: '#000',
      backgroundColor: '#000',
      order: 1,
    },
    {
      type: 'line',
      label: '99th percentile',
      data: w.boxes.map((b) => b.p99),
      showLine: false,
      pointStyle: 'rectRot',
      pointRadius: 6,
      borderColor: '#000',
      backgroundColor: '#fff',
      pointBorderWidth: 2,
      order: 0,
    },
  ];
  return {
    id: `latency-${workload}`,
    paper: 'COLE Fig. 11',
    title: `Commit latency per block — ${w.title}`,
    config: base(
      'bar',
      `Commit latency per block — ${w.title}`,
      `${w.blocks} blocks; box: quartiles, black bar: median, diamond: 99th percentile, whiskers: min and max`,
      { labels, datasets },
      {
        x: axis('engine'),
        y: logAxis('commit latency per block (ms, log scale)', 'ms', values),
      },
      { plugins: { legend: { position: 'bottom', reverse: true, labels: { font: { size: 13 } } } } },
    ),
  };
}

function provenanceChart(fig, what) {
  const p = fig.figures.provenance;
  const series = what === 'bytes' ? p.bytes : p.verifyUs;
  const datasets = series.map((s) => ({
    label: s.label,
    data: s.values,
    borderColor: color(s.label),
    backgroundColor: color(s.label),
    pointRadius: 4,
    borderWidth: 2,
  }));
  const bytes = what === 'bytes';
  return {
    id: `provenance-${what}`,
    paper: 'COLE Fig. 13',
    title: bytes ? 'Provenance proof size vs range' : 'Provenance proof verify time vs range',
    config: base(
      'line',
      bytes ? 'Provenance proof size vs range' : 'Provenance proof verification time (wasm) vs range',
      `${p.workload}, ${p.blocks} blocks; mean over the ${p.keys} keys written most; MPT = one proof per block of the range; LVMT D = ${p.lvmtDepth}`,
      { labels: p.ranges.map(String), datasets },
      {
        x: axis('range (blocks, ending at the head)'),
        y: bytes
          ? logAxis('proof size (bytes, log scale)', 'bytes', series.flatMap((s) => s.values))
          : logAxis('verify time (µs per history, log scale)', 'us', series.flatMap((s) => s.values)),
      },
    ),
  };
}

function lvmtVerifyChart(fig) {
  const l = fig.figures.lvmtVerify;
  const datasets = [
    { label: 'batched check (SDK wasm)', data: l.cases.map((c) => c.oursMs), backgroundColor: COLORS.LVMT },
    { label: 'one pairing per factor (baseline)', data: l.cases.map((c) => c.separateMs), backgroundColor: '#c5b0d5' },
  ];
  return {
    id: 'lvmt-verify',
    paper: 'LVMT verify cost per level',
    title: 'LVMT proof verification per level',
    config: base(
      'bar',
      'LVMT proof verification time by proof levels (wasm)',
      `D = ${l.depth} (INSECURE dev setup); params ${l.paramsBytes} B, decoded and validated once in ${l.paramsDecodeMs.toFixed(1)} ms`,
      { labels: l.cases.map((c) => c.label), datasets },
      {
        x: axis('proof'),
        y: axis('verify time (ms per proof)', { beginAtZero: true }),
      },
    ),
  };
}

function mptVerifyChart(fig) {
  const m = fig.figures.mptVerify;
  return {
    id: 'mpt-verify',
    paper: 'MPT verify vs @ethereumjs/mpt',
    title: 'MPT proof verification',
    config: base(
      'bar',
      'MPT proof verification: lightprov wasm vs @ethereumjs/mpt',
      `${m.proofs} real eth_getProof proofs (${m.avgNodes.toFixed(1)} nodes, ${m.avgBytes.toFixed(0)} B on average); median of 15 alternating rounds; Node ${fig.versions.node}`,
      {
        labels: m.bars.map((b) => b.label),
        datasets: [{ label: 'µs per proof', data: m.bars.map((b) => b.us), backgroundColor: m.bars.map((b) => b.color) }],
      },
      {
        x: axis('verify time (µs per proof)', { beginAtZero: true }),
        y: axis('verifier (function)'),
      },
      { indexAxis: 'y' },
    ),
  };
}

function wasmChart(fig) {
  const s = fig.figures.wasmSizes.modules;
  return {
    id: 'wasm-sizes',
    paper: 'wasm module sizes',
    title: 'wasm module sizes',
    config: base(
      'bar',
      'wasm modules of the SDK: one per proof family, every family in one, the inspector',
      'bound by wasm-bindgen, --profile wasm (LTO, opt-level 2, lightprov-amt 3), wasm-opt -Os; gzip level 9',
      {
        labels: s.map((x) => x.label),
        datasets: [
          { label: 'raw', data: s.map((x) => x.raw), backgroundColor: '#9ecae1' },
          { label: 'gzip -9', data: s.map((x) => x.gzip), backgroundColor: '#3182bd' },
        ],
      },
      {
        x: axis('size (bytes; ticks in kB = 1000 B)', { beginAtZero: true, ticks: { _format: 'bytes' } }),
        y: axis('module'),
      },
      { indexAxis: 'y' },
    ),
  };
}

function lvmtCommitChart(fig) {
  const c = fig.figures.lvmtCommit;
  return {
    id: 'lvmt-commit',
    paper: 'LVMT proof maintenance cost',
    title: 'LVMT commit throughput by proof maintenance',
    config: base(
      'bar',
      'LVMT commit throughput by proof maintenance (in memory)',
      `D = ${c.depth} (INSECURE dev setup); ${c.writes} writes in ${c.blocks} blocks over ${c.keys} keys`,
      {
        labels: c.rows.map((r) => r.label),
        datasets: [{ label: 'writes/s', data: c.rows.map((r) => r.writesPerS), backgroundColor: COLORS.LVMT }],
      },
      {
        x: axis('openings kept current'),
        y: axis('commit throughput (writes/s)', { beginAtZero: true, ticks: { _format: 'count' } }),
      },
    ),
  };
}

function blockStoreChart(fig) {
  const b = fig.figures.blockStore;
  return {
    id: 'block-store',
    paper: 'Block-LSM Fig. 6/8',
    title: 'Block store: write amplification by layout',
    config: base(
      'bar',
      'Block store write amplification: hash-keyed vs Block-LSM, step by step',
      `${b.blocks} blocks of ${b.txsPerBlock} transfers; memtables and tables ${b.memtableKiB} KiB`,
      {
        labels: b.rows.map((r) => r.label),
        datasets: [
          { label: 'with the journal', data: b.rows.map((r) => r.wa), backgroundColor: COLORS.COLE },
          { label: 'without the journal', data: b.rows.map((r) => r.waNoJournal), backgroundColor: '#aec7e8' },
        ],
      },
      {
        x: axis('block store layout'),
        y: axis('write amplification (device bytes / stored bytes)', { beginAtZero: true }),
      },
    ),
  };
}

function forklessPagesChart(fig) {
  const f = fig.figures.forklessPages;
  return {
    id: 'forkless-pages',
    paper: 'Forkless Fig. 8',
    title: 'LiveDB root recompute time vs page size',
    config: base(
      'line',
      'LiveDB root recompute time vs page size',
      `a balance file of ${f.records} records; ${f.updates} random records changed, then the lazy rehash; fanout ${f.fanout}; median of ${f.rounds} rounds`,
      {
        labels: f.rows.map((r) => r.label),
        datasets: [{ label: 'recompute µs', data: f.rows.map((r) => r.us), borderColor: COLORS.Forkless, backgroundColor: COLORS.Forkless, pointRadius: 4, borderWidth: 2 }],
      },
      {
        x: axis('page size (bytes)'),
        y: axis('root recompute time (µs)', { beginAtZero: true, ticks: { _format: 'us' } }),
      },
    ),
  };
}

/** One series ({ label, values }) as a line in its structure's colour. */
const lineOf = (x) => ({ label: x.label, data: x.values, borderColor: color(x.label), backgroundColor: color(x.label), pointRadius: 4, borderWidth: 2 });

/** A SIRI figure against the dataset size, one line per structure (those that have it). */
function siriChart(fig, id, field, title, yAxis) {
  const f = fig.figures.siri;
  const series = f[field].filter((x) => x.values.every((v) => v !== null));
  const datasets = series.map(lineOf);
  return {
    id,
    paper: 'SIRI (Yue et al. 2020) Fig. 6/9',
    title,
    config: base(
      'line',
      title,
      `32-byte keys and values; batches of ${f.batch} ops, one synced commit per block, on fjall; the B+-tree is the POS-Tree engine with fixed splits of 16 entries`,
      { labels: f.sizes.map(String), datasets },
      { x: axis('dataset size (keys)'), y: yAxis(series.flatMap((x) => x.values)) },
    ),
  };
}

function siriDedupChart(fig) {
  const d = fig.figures.siri.dedup;
  const datasets = d.eta.map(lineOf);
  datasets.push({ label: '½ − α/2 (paper)', data: d.predicted, borderColor: '#000', backgroundColor: '#000', borderDash: [6, 4], pointRadius: 0, borderWidth: 2 });
  return {
    id: 'siri-dedup',
    paper: 'SIRI §4.2.2, Fig. 17(c)',
    title: 'Deduplication ratio of two versions vs their overlap',
    config: base(
      'line',
      'Deduplication ratio η of two versions vs their overlap',
      `${d.n} keys; the second version updates a contiguous key range of α·N records (α = 1 − overlap); η = 1 − bytes(P₁ ∪ P₂) / (bytes(P₁) + bytes(P₂))`,
      { labels: d.overlaps.map(String), datasets },
      {
        x: axis('overlap of the two versions (% of records)'),
        y: axis('deduplication ratio η (fraction of bytes)', { beginAtZero: true }),
      },
    ),
  };
}

/** Every plot of the report, in order. */
export function charts(fig) {
  const out = [];
  const w = fig.figures.storage.workloads;
  if (w.kvstore) out.push(storageChart(fig, 'kvstore', 'Fig. 8/9 (kvstore)'));
  if (w.smallbank) out.push(storageChart(fig, 'smallbank', 'Fig. 8/9 (SmallBank)'));
  out.push(throughputChart(fig));
  for (const k of Object.keys(fig.figures.commitLatency.workloads)) out.push(latencyChart(fig, k));
  out.push(provenanceChart(fig, 'bytes'), provenanceChart(fig, 'verify'));
  out.push(lvmtVerifyChart(fig), mptVerifyChart(fig), wasmChart(fig), lvmtCommitChart(fig), blockStoreChart(fig));
  if (fig.figures.forklessPages) out.push(forklessPagesChart(fig));
  out.push(
    siriChart(fig, 'siri-reads', 'readsPerS', 'SIRI read throughput vs dataset size', (v) => logAxis('read throughput (gets/s, log scale)', 'count', v)),
    siriChart(fig, 'siri-writes', 'writesPerS', 'SIRI write throughput vs dataset size', (v) => logAxis('write throughput (updates/s, log scale)', 'count', v)),
    siriChart(fig, 'siri-path', 'pathNodes', 'SIRI path length vs dataset size', () => axis('path length (nodes from the root to the leaf)', { beginAtZero: true })),
    siriDedupChart(fig),
  );
  return out;
}
