/**
 * History timeline: the value of the picked state key over a block range, each point verified,
 * by COLE / COLE* (one provenance proof against the header's coleRoot), LVMT (one history proof
 * against lvmtHistoryRoot) or MPT (one eth_getProof per block, fetched in chunks so the page can
 * show progress).
 */
import { type HistoryScheme, type LightClient, type StateKey, type Version, type VerifiedHeader, type VerifiedHistory, historySchemes } from '@lightprov/sdk';
import { formatEther } from 'ethers';

import { pickAddress, pickedFromControls } from './accounts.js';
import { Chart, SCHEME_COLORS } from './charts.js';
import { type PickedKey, app, client } from './state.js';
import { type Busy, busy, byId, bytes, errorBox, formatValue, h, ms, num, verifiedMark, withButton } from './ui.js';

/** The schemes, from the SDK's family registry. */
export const SCHEMES: { id: HistoryScheme; label: string; what: string }[] = historySchemes();

export function schemeLabel(s: HistoryScheme): string {
  return SCHEMES.find((x) => x.id === s)?.label ?? s;
}

const DEFAULT_SPAN = 64n;
/** Blocks per MPT request (for progress; the SDK batches eth_getProof inside). */
const MPT_CHUNK = 16n;

let scheme: HistoryScheme = 'cole';
let chart: Chart | undefined;

/**
 * A verified history; MPT in chunks with progress. Exported for the comparison, which asks the
 * same questions.
 */
export async function verifiedHistory(c: LightClient, key: StateKey, scheme: HistoryScheme, from: bigint, to: bigint, b?: Busy): Promise<VerifiedHistory> {
  if (scheme !== 'mpt') return c.getHistoryDetailed(key, { fromBlock: from, toBlock: to, scheme });
  const points: Version[] = [];
  const raw: unknown[] = [];
  let proofBytes = 0;
  let verifyMs = 0;
  let anchor: VerifiedHeader | undefined;
  const total = Number(to - from + 1n);
  for (let a = from; a <= to; a += MPT_CHUNK) {
    const z = a + MPT_CHUNK - 1n < to ? a + MPT_CHUNK - 1n : to;
    const part = await c.getHistoryDetailed(key, { fromBlock: a, toBlock: z, scheme: 'mpt' });
    for (const p of part.points) if (points.length === 0 || points[points.length - 1]?.value !== p.value) points.push(p);
    raw.push(...(part.raw as unknown[]));
    proofBytes += part.proofBytes;
    verifyMs += part.verifyMs;
    anchor = part.anchor;
    b?.progress(Number(z - from + 1n), total, `Verifying eth_getProof answers: block ${num(z)} (${num(z - from + 1n)} of ${num(total)})…`);
  }
  return { points, scheme: 'mpt', fromBlock: from, toBlock: to, anchor: anchor as VerifiedHeader, proofBytes, verifyMs, raw, stateKey: key.stateKey, key };
}

/** The block range the history controls describe (blank: the last 64 blocks to the head). */
export function currentRange(): { from: bigint; to: bigint } {
  const head = app.head?.number ?? 0n;
  const f = byId<HTMLInputElement>('hist-from').value.trim();
  const t = byId<HTMLInputElement>('hist-to').value.trim();
  const block = (v: string, what: string): bigint => {
    if (!/^\d+$/.test(v)) throw new TypeError(`the ${what} block “${v}” is not a block number`);
    return BigInt(v);
  };
  const to = t === '' ? head : block(t, 'last');
  const from = f === '' ? (to >= DEFAULT_SPAN - 1n ? to - DEFAULT_SPAN + 1n : 0n) : block(f, 'first');
  if (from < 0n || to < 0n) throw new RangeError('block numbers cannot be negative');
  if (from > to) throw new RangeError(`the range starts (block ${from}) after it ends (block ${to})`);
  if (to > head) throw new RangeError(`block ${to} is past the verified head #${head}`);
  if (to - from + 1n > 1024n) throw new RangeError(`${to - from + 1n} blocks is more than the 1,024 the node proves in one query`);
  return { from, to };
}

/** Values as chart numbers, in a unit that reads well. */
function unitFor(kind: StateKey['kind'] | 'token', values: bigint[]): { name: string; toNumber: (v: bigint) => number } {
  const max = values.reduce((m, v) => (v > m ? v : m), 0n);
  if (kind === 'token') return { name: max < 2n ** 53n ? 'token units' : 'token units (approx.)', toNumber: Number };
  if (kind === 'balance' && max >= 10n ** 12n) return { name: 'ETH', toNumber: (v) => Number(formatEther(v)) };
  if (kind === 'balance') return { name: 'wei', toNumber: Number };
  if (kind === 'nonce') return { name: 'nonce', toNumber: Number };
  return { name: max < 2n ** 53n ? 'value' : 'value (approx.)', toNumber: Number };
}

function renderChart(picked: PickedKey, h0: VerifiedHistory, highlight?: bigint): void {
  const canvas = byId<HTMLCanvasElement>('history-chart');
  const pts = h0.points;
  const unit = unitFor(picked.token ? 'token' : picked.key.kind, pts.map((p) => p.value));
  const last = pts[pts.length - 1];
  // The last value holds until the range's end: drawn as a line, not as a proof point.
  const data = pts.map((p) => ({ x: Number(p.block), y: unit.toNumber(p.value) }));
  if (last && last.block < h0.toBlock) data.push({ x: Number(h0.toBlock), y: unit.toNumber(last.value) });
  const radius = data.map((_, i) => (i < pts.length ? 4 : 0));
  const color = SCHEME_COLORS[h0.scheme] ?? '#2563eb';
  const pointColors = data.map((d) => (highlight !== undefined && BigInt(d.x) === highlight ? '#dc2626' : color));
  chart?.destroy();
  byId('history-chart-box').classList.remove('empty');
  chart = new Chart(canvas, {
    type: 'line',
    data: {
      datasets: [
        {
          label: `${picked.label} — verified by ${schemeLabel(h0.scheme)}`,
          data,
          stepped: 'before',
          borderColor: color,
          backgroundColor: `${color}22`,
          fill: true,
          pointRadius: radius,
          pointHoverRadius: radius.map((r) => (r ? 6 : 0)),
          pointBackgroundColor: pointColors,
          pointBorderColor: pointColors,
          // Points on the range's edges are drawn whole.
          clip: 8,
        },
      ],
    },
    options: {
      parsing: false,
      layout: { padding: { right: 8, top: 4 } },
      scales: {
        x: { type: 'linear', min: Number(h0.fromBlock), max: Number(h0.toBlock), title: { display: true, text: 'block' }, ticks: { precision: 0 } },
        y: { title: { display: true, text: unit.name }, grace: '5%' },
      },
      plugins: {
        legend: { display: true, position: 'bottom' },
        tooltip: {
          callbacks: {
            title: (items) => `block ${items[0]?.parsed.x ?? ''}`,
            label: (item) => {
              const p = pts[item.dataIndex];
              return p ? `✓ ${formatValue(picked.key.kind, p.value)} (verified)` : 'unchanged to the end of the range';
            },
          },
        },
      },
    },
  });
}

function renderPoints(picked: PickedKey, h0: VerifiedHistory, highlight?: bigint): void {
  const what = SCHEMES.find((s) => s.id === h0.scheme)?.what ?? '';
  const rows = h0.points.map((p, i) =>
    h(
      'tr',
      { 'data-block': String(p.block), class: highlight === p.block ? 'new' : undefined },
      h('td', {}, i === 0 ? `#${p.block} (range start)` : `#${p.block}`),
      h('td', { class: 'num' }, formatValue(picked.key.kind, p.value)),
      h('td', { class: 'ok' }, '✓'),
    ),
  );
  const blocks = h0.toBlock - h0.fromBlock + 1n;
  const how =
    h0.scheme === 'mpt'
      ? `${num(blocks)} eth_getProof answers (${bytes(h0.proofBytes)} as JSON), verified in ${ms(h0.verifyMs)}`
      : `one ${bytes(h0.proofBytes)} ${schemeLabel(h0.scheme)} proof, verified in ${ms(h0.verifyMs)}`;
  byId('history-summary').replaceChildren(
    h('p', {}, h('strong', {}, picked.label), ` over blocks ${num(h0.fromBlock)}…${num(h0.toBlock)}: ${h0.points.length} point${h0.points.length === 1 ? '' : 's'} (the value at the start, then one per change).`),
    verifiedMark(how, h0.anchor),
    h('p', { class: 'note' }, `How: ${what}.`),
  );
  byId('history-points').replaceChildren(
    h('table', { class: 'table points' }, h('thead', {}, h('tr', {}, h('th', {}, 'from block'), h('th', {}, 'value'), h('th', {}, 'verified'))), h('tbody', {}, ...rows)),
  );
}

/** The picked key and block range from the controls, or `undefined` after showing why not in `out`. */
export function queryFromControls(out: HTMLElement): { picked: PickedKey; r: { from: bigint; to: bigint } } | undefined {
  try {
    return { picked: pickedFromControls(), r: currentRange() };
  } catch (e) {
    out.replaceChildren(errorBox(e));
    return undefined;
  }
}

/** Draws the history of the picked key with the chosen scheme. */
export async function drawHistory(highlight?: bigint): Promise<void> {
  const status = byId('history-status');
  const q = queryFromControls(status);
  if (!q) return;
  const { picked, r } = q;
  app.picked = picked;
  const c = client();
  const label =
    scheme === 'mpt'
      ? `Fetching ${num(r.to - r.from + 1n)} eth_getProof answers and verifying each…`
      : `Fetching one ${schemeLabel(scheme)} proof for blocks ${num(r.from)}…${num(r.to)} and verifying it in WebAssembly…`;
  const b = busy(status, label);
  byId('history-panel').setAttribute('aria-busy', 'true');
  try {
    const hst = await verifiedHistory(c, picked.key, scheme, r.from, r.to, b);
    b.done();
    renderChart(picked, hst, highlight);
    renderPoints(picked, hst, highlight);
    byId('history-panel').dataset['scheme'] = scheme;
    app.lastHistory = { picked, scheme, history: hst };
    app.bus.emit('history', app.lastHistory);
  } catch (e) {
    b.done();
    // Nothing unverified is shown: clear the chart and say why.
    chart?.destroy();
    chart = undefined;
    byId('history-chart-box').classList.add('empty');
    byId('history-summary').replaceChildren(h('p', { class: 'muted' }, 'No history is shown: the answer did not verify or did not arrive.'));
    byId('history-points').replaceChildren();
    status.replaceChildren(errorBox(e, `${schemeLabel(scheme)} history`));
  } finally {
    byId('history-panel').removeAttribute('aria-busy');
  }
}

export function currentScheme(): HistoryScheme {
  return scheme;
}

function setScheme(s: HistoryScheme): void {
  scheme = s;
  for (const b of byId('scheme-buttons').querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset['scheme'] === s));
}

export function setupHistory(): void {
  const group = byId('scheme-buttons');
  for (const s of SCHEMES) {
    group.append(
      h(
        'button',
        {
          type: 'button',
          'data-scheme': s.id,
          'aria-pressed': String(s.id === scheme),
          title: s.what,
          onclick: () => {
            setScheme(s.id);
            if (app.client) void withButton(byId<HTMLButtonElement>('draw-history'), () => drawHistory());
          },
        },
        s.label,
      ),
    );
  }
  byId<HTMLFormElement>('history-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (app.client) void withButton(byId<HTMLButtonElement>('draw-history'), () => drawHistory());
  });
  app.bus.on('connected', () => {
    byId<HTMLButtonElement>('draw-history').disabled = false;
  });
  // After a transfer: show the sender's balance history up to the new block, new point marked.
  app.bus.on('transfer', async ({ from, block }) => {
    await pickAddress(from, 'balance');
    byId<HTMLInputElement>('hist-to').value = '';
    byId<HTMLInputElement>('hist-from').value = String(block > 31n ? block - 31n : 0n);
    await drawHistory(block);
  });
}
