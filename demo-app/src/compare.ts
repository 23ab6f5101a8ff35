/**
 * Scheme comparison (the COLE paper's Fig. 13, live): for the same history query — the picked
 * key over the last r blocks, r = 2…128 — the proof bytes and the verify time of each scheme,
 * every answer verified before it is counted.
 */
import type { HistoryScheme } from '@lightprov/sdk';

import { pickedFromControls } from './accounts.js';
import { Chart, SCHEME_COLORS } from './charts.js';
import { SCHEMES, schemeLabel, verifiedHistory } from './history.js';
import { app, client } from './state.js';
import { busy, byId, bytes, errorBox, h, ms, num, withButton } from './ui.js';

const RANGES = [2, 4, 8, 16, 32, 64, 128];

interface Cell {
  proofBytes: number;
  verifyMs: number;
  points: number;
}

let charts: Chart[] = [];

function barChart(canvas: HTMLCanvasElement, title: string, ranges: number[], results: Map<string, Cell>, pick: (c: Cell) => number, log: boolean): Chart {
  return new Chart(canvas, {
    type: 'bar',
    data: {
      labels: ranges.map(String),
      datasets: SCHEMES.map((s) => ({
        label: s.label,
        data: ranges.map((r) => {
          const c = results.get(`${s.id}/${r}`);
          return c ? pick(c) : null;
        }),
        backgroundColor: SCHEME_COLORS[s.id] ?? '#888',
      })),
    },
    options: {
      scales: {
        x: { title: { display: true, text: 'blocks in the range' } },
        y: {
          type: log ? 'logarithmic' : 'linear',
          title: { display: true, text: title },
          // Log axes: label the powers of ten only.
          ticks: log ? { callback: (v) => (Number.isInteger(Math.log10(Number(v))) ? Number(v).toLocaleString('en-US') : '') } : {},
        },
      },
      plugins: { legend: { position: 'bottom' } },
    },
  });
}

async function runComparison(): Promise<void> {
  const out = byId('compare-status');
  const c = client();
  let picked;
  try {
    picked = pickedFromControls();
  } catch (e) {
    out.replaceChildren(errorBox(e));
    return;
  }
  const head = app.head?.number ?? 0n;
  const ranges = RANGES.filter((r) => BigInt(r) <= head + 1n);
  const skipped = RANGES.filter((r) => !ranges.includes(r));
  const total = ranges.length * SCHEMES.length;
  const b = busy(out, 'Warming up (LVMT parameters, the wasm verifier)…');
  const results = new Map<string, Cell>();
  try {
    // Not measured: loads LVMT's parameters and lets the browser optimise the wasm.
    for (const s of SCHEMES) await verifiedHistory(c, picked.key, s.id, head > 0n ? head - 1n : 0n, head);
    let done = 0;
    for (const r of ranges) {
      for (const s of SCHEMES) {
        b.progress(done, total, `${schemeLabel(s.id)}, last ${r} blocks (${done + 1} of ${total} queries, each verified)…`);
        const hst = await verifiedHistory(c, picked.key, s.id as HistoryScheme, head - BigInt(r) + 1n, head);
        results.set(`${s.id}/${r}`, { proofBytes: hst.proofBytes, verifyMs: hst.verifyMs, points: hst.points.length });
        done++;
      }
    }
    b.done();
  } catch (e) {
    b.done();
    out.replaceChildren(errorBox(e, 'Comparison'));
    return;
  }
  for (const ch of charts) ch.destroy();
  charts = [
    barChart(byId<HTMLCanvasElement>('compare-bytes'), 'proof bytes (log scale)', ranges, results, (x) => x.proofBytes, true),
    barChart(byId<HTMLCanvasElement>('compare-ms'), 'verify ms in this browser (log scale)', ranges, results, (x) => x.verifyMs, true),
  ];
  byId('compare-charts').hidden = false;
  out.replaceChildren(
    h(
      'p',
      { class: 'ok' },
      `✓ ${num(results.size)} answers for ${picked.label}, blocks up to #${head}, each verified before it was counted.`,
      skipped.length ? ` Ranges ${skipped.join(', ')} need a longer chain (head #${head}).` : '',
    ),
  );
  const rows = ranges.map((r) =>
    h(
      'tr',
      { 'data-range': String(r) },
      h('td', {}, String(r)),
      ...SCHEMES.map((s) => {
        const cell = results.get(`${s.id}/${r}`);
        return h('td', { class: 'num', 'data-scheme': s.id }, cell ? `${bytes(cell.proofBytes)} · ${ms(cell.verifyMs)}` : '—');
      }),
    ),
  );
  byId('compare-table').replaceChildren(
    h(
      'table',
      { class: 'table compare' },
      h('thead', {}, h('tr', {}, h('th', {}, 'blocks'), ...SCHEMES.map((s) => h('th', {}, s.label)))),
      h('tbody', {}, ...rows),
    ),
    h('p', { class: 'note' }, 'COLE, COLE* and LVMT: one binary proof per query. MPT: the eth_getProof JSON answers, one per block. Verify time is measured around the wasm calls, without the network.'),
  );
}

export function setupCompare(): void {
  byId('run-compare').addEventListener('click', () => {
    if (app.client) void withButton(byId<HTMLButtonElement>('run-compare'), runComparison);
  });
  app.bus.on('connected', () => {
    byId<HTMLButtonElement>('run-compare').disabled = false;
  });
}
