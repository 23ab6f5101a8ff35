#!/usr/bin/env node
// Checks that the report's plots show what figures.json holds: re-reads figures.json and
// rendered.json (what each Chart.js chart drew, read back from the live chart: the data it was
// given and, for every point and bar, the value its pixel position stands for on the chart's
// scales), and compares them with values taken from figures.json here, independently of
// charts.mjs. Also: every plot has both axes titled (value axes with their unit), every point lies inside the
// plot area, each PNG is the one drawn (SHA-256) and index.html shows it.
//
//   node tests/bench/report/check.mjs [bench-report]      prints "N passed, N failed"
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What each plot must show, straight from figures.json: per dataset label, its points. */
function expected(fig) {
  const f = fig.figures;
  const out = {};
  for (const [w, s] of Object.entries(f.storage.workloads)) {
    out[`storage-${w}`] = Object.fromEntries(s.series.map((x) => [x.label, x.points.map((p) => ({ index: p.block, value: p.bytes }))]));
  }
  out.throughput = Object.fromEntries(f.throughput.series.map((x) => [x.label, x.values.map((v, i) => ({ index: f.throughput.mixes[i], value: v }))]));
  for (const [w, s] of Object.entries(f.commitLatency.workloads)) {
    out[`latency-${w}`] = {
      'min – max': s.boxes.map((b) => ({ index: b.label, lo: b.min, hi: b.max })),
      'quartiles (q1 – q3)': s.boxes.map((b) => ({ index: b.label, lo: b.q1, hi: b.q3 })),
      median: s.boxes.map((b) => ({ index: b.label, value: b.median })),
      '99th percentile': s.boxes.map((b) => ({ index: b.label, value: b.p99 })),
    };
  }
  const ranges = f.provenance.ranges.map(String);
  out['provenance-bytes'] = Object.fromEntries(f.provenance.bytes.map((x) => [x.label, x.values.map((v, i) => ({ index: ranges[i], value: v }))]));
  out['provenance-verify'] = Object.fromEntries(f.provenance.verifyUs.map((x) => [x.label, x.values.map((v, i) => ({ index: ranges[i], value: v }))]));
  out['lvmt-verify'] = {
    'batched check (SDK wasm)': f.lvmtVerify.cases.map((c) => ({ index: c.label, value: c.oursMs })),
    'one pairing per factor (baseline)': f.lvmtVerify.cases.map((c) => ({ index: c.label, value: c.separateMs })),
  };
  out['mpt-verify'] = { 'µs per proof': f.mptVerify.bars.map((b) => ({ index: b.label, value: b.us })) };
  out['wasm-sizes'] = {
    raw: f.wasmSizes.modules.map((s) => ({ index: s.label, value: s.raw })),
    'gzip -9': f.wasmSizes.modules.map((s) => ({ index: s.label, value: s.gzip })),
  };
  out['lvmt-commit'] = { 'writes/s': f.lvmtCommit.rows.map((r) => ({ index: r.label, value: r.writesPerS })) };
  out['block-store'] = {
    'with the journal': f.blockStore.rows.map((r) => ({ index: r.label, value: r.wa })),
    'without the journal': f.blockStore.rows.map((r) => ({ index: r.label, value: r.waNoJournal })),
  };
  if (f.siri) {
    const sizes = f.siri.sizes.map(String);
    const bySize = (series) => Object.fromEntries(series.filter((x) => x.values.every((v) => v !== null)).map((x) => [x.label, x.values.map((v, i) => ({ index: sizes[i], value: v }))]));
    out['siri-reads'] = bySize(f.siri.readsPerS);
    out['siri-writes'] = bySize(f.siri.writesPerS);
    out['siri-path'] = bySize(f.siri.pathNodes);
    const overlaps = f.siri.dedup.overlaps.map(String);
    out['siri-dedup'] = {
      ...Object.fromEntries(f.siri.dedup.eta.map((x) => [x.label, x.values.map((v, i) => ({ index: overlaps[i], value: v }))])),
      '½ − α/2 (paper)': f.siri.dedup.predicted.map((v, i) => ({ index: overlaps[i], value: v })),
    };
  }
  if (f.forklessPages) out['forkless-pages'] = { 'recompute µs': f.forklessPages.rows.map((r) => ({ index: r.label, value: r.us })) };
  return out;
}

const close = (a, b) => typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));
const sameIndex = (a, b) => (typeof b === 'number' ? close(Number(a), b) : String(a) === String(b));

/** The given data point as { index?, value } or { lo, hi } (floating bars). */
function given(d) {
  if (Array.isArray(d)) return { lo: Math.min(...d), hi: Math.max(...d) };
  if (d && typeof d === 'object') return { index: d.x, value: d.y };
  return { value: d };
}

/** Runs every check on the report in `dir`; returns { passed, failed, failures }. */
export function checkReport(dir) {
  const failures = [];
  let passed = 0;
  const ok = (cond, what) => {
    if (cond) passed++;
    else failures.push(what);
  };
  const fig = JSON.parse(fs.readFileSync(path.join(dir, 'figures.json'), 'utf8'));
  const rendered = JSON.parse(fs.readFileSync(path.join(dir, 'rendered.json'), 'utf8'));
  const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  const want = expected(fig);
  // The SIRI figures (issue 17): every structure at every size, the η study, the wasm times.
  const si = fig.figures.siri;
  const siriIds = ['mpt', 'mbt', 'pos', 'btree'];
  ok(Boolean(si), 'figures.json has no SIRI figures');
  if (si) {
    for (const field of ['readsPerS', 'writesPerS', 'readHeavyOpsPerS', 'updateHeavyOpsPerS', 'pathNodes', 'proofBytes', 'diskBytes', 'separateBytes']) {
      const ids = si[field].map((x) => x.id).sort();
      ok(JSON.stringify(ids) === JSON.stringify([...siriIds].sort()) && si[field].every((x) => x.values.length === si.sizes.length && x.values.every((v) => typeof v === 'number' && v > 0)), `SIRI ${field}: not a positive number for every structure at every size`);
    }
    for (const id of ['mbt', 'pos', 'btree']) {
      ok(si.historyBytes.find((x) => x.id === id)?.values.every((v) => v > 0) && si.diffUs.find((x) => x.id === id)?.values.every((v) => v > 0), `SIRI ${id}: no history proof or diff time`);
      ok(si.dedup.eta.some((x) => x.id === id && x.values.every((v) => v >= 0 && v <= 1)), `SIRI ${id}: no η in [0, 1] at every overlap`);
    }
    ok(si.rangeBytes.find((x) => x.id === 'pos')?.values.every((v) => v > 0), 'SIRI: no POS range proof');
    ok(si.wasm.length === si.sizes.length && si.wasm.every((r) => ['mpt', 'mbt', 'pos'].every((k) => r.verifyUs[k] > 0)), 'SIRI: no wasm verify time for MPT, MBT and POS at every size');
    ok(fig.headline.some((r) => r.figure.startsWith('SIRI')), 'SIRI: no headline row');
  }

  ok(rendered.run === fig.run, `rendered.json is of run ${rendered.run}, figures.json of ${fig.run}`);
  const ids = rendered.charts.map((c) => c.id);
  for (const id of Object.keys(want)) ok(ids.includes(id), `no plot ${id}`);
  for (const chart of rendered.charts) {
    const exp = want[chart.id];
    if (!exp) {
      failures.push(`${chart.id}: a plot figures.json does not describe`);
      continue;
    }
    // Axes: both titled; a value axis with its unit in brackets.
    for (const [k, a] of Object.entries(chart.axes)) {
      const unit = a.type === 'category' || /\(.+\)/.test(a.title);
      ok(a.title.length > 0 && unit, `${chart.id}: axis ${k} has no title${a.type === 'category' ? '' : ' with its unit'} ("${a.title}")`);
    }
    // The PNG is the one drawn, and the page shows it.
    const png = path.join(dir, chart.file);
    ok(fs.existsSync(png) && crypto.createHash('sha256').update(fs.readFileSync(png)).digest('hex') === chart.sha256, `${chart.id}: ${chart.file} is missing or not the plot drawn`);
    ok(html.includes(`src="${chart.file}"`), `${chart.id}: index.html does not show ${chart.file}`);
    const labels = chart.datasets.map((d) => d.label);
    ok(JSON.stringify([...labels].sort()) === JSON.stringify(Object.keys(exp).sort()), `${chart.id}: datasets ${labels.join(', ')} ≠ ${Object.keys(exp).join(', ')}`);
    for (const ds of chart.datasets) {
      const points = exp[ds.label];
      if (!points) continue;
      const where = `${chart.id} / ${ds.label}`;
      ok(ds.visible, `${where}: hidden`);
      ok(ds.data.length === points.length && ds.drawn.length === points.length, `${where}: ${ds.drawn.length} points drawn, figures.json has ${points.length}`);
      let dataOk = true;
      let drawnOk = true;
      let inside = true;
      points.forEach((p, i) => {
        const g = given(ds.data[i] ?? null);
        const d = ds.drawn[i];
        if (!d) {
          drawnOk = false;
          return;
        }
        inside &&= d.inArea;
        // What the chart was given (category plots take their index from the labels).
        const gIndex = g.index ?? chart.labels?.[i];
        if (!sameIndex(gIndex, p.index)) dataOk = false;
        if ('lo' in p) {
          if (!close(g.lo, p.lo) || !close(g.hi, p.hi)) dataOk = false;
          const lo = Math.min(d.value, d.base);
          const hi = Math.max(d.value, d.base);
          if (!close(lo, p.lo) || !close(hi, p.hi) || !sameIndex(d.index, p.index)) drawnOk = false;
        } else {
          if (!close(g.value, p.value)) dataOk = false;
          if (!close(d.value, p.value) || !sameIndex(d.index, p.index)) drawnOk = false;
        }
      });
      ok(dataOk, `${where}: the data given to the chart differs from figures.json`);
      ok(drawnOk, `${where}: the drawn positions do not stand for figures.json's values`);
      ok(inside, `${where}: a point lies outside the plot area`);
    }
  }
  return { passed, failed: failures.length, failures };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = path.resolve(process.argv[2] ?? 'bench-report');
  const r = checkReport(dir);
  for (const f of r.failures) console.log(`report check: FAIL ${f}`);
  console.log(`report check: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}
