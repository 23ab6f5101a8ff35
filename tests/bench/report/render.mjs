// Draws the report's Chart.js configurations in headless Chromium (Debian's, through
// playwright-core, as tests/browser/run.mjs does), saves each as a PNG, and reads back what was
// drawn: for every point and bar, its data value and the value its pixel position stands for on
// the chart's own scales. Also takes the screenshot of the finished page.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import { launchChromium } from '../../lib/chromium.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Chart.js as the workspace pins it (the provenance explorer's dependency, 4.6.1). */
export function chartJs() {
  const main = createRequire(path.join(root, 'demo-app', 'package.json')).resolve('chart.js');
  const dir = path.dirname(path.dirname(main));
  const version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  return { file: path.join(dir, 'dist', 'chart.umd.min.js'), version };
}

/** Runs `fn(context, browserVersion)` with a headless Chromium, and closes it. */
export async function withBrowser(fn) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'lightprov-report-'));
  let context;
  try {
    context = await launchChromium(profile, { width: 1280, height: 900 });
    const version = context.browser()?.version() ?? (await (async () => {
      const p = await context.newPage();
      const ua = await p.evaluate(() => navigator.userAgent);
      await p.close();
      return /Chrome\/(\S+)/.exec(ua)?.[1] ?? 'unknown';
    })());
    return await fn(context, version);
  } finally {
    await context?.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

/** In the page: draws one chart, returns its PNG and what it drew. */
function drawInPage(spec) {
  const { id, config, width, height } = spec;
  // eslint-disable-next-line no-undef
  Object.assign(Chart.defaults, { color: '#222' });
  // eslint-disable-next-line no-undef
  Chart.defaults.font.size = 13;
  const SI = [[1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  const num = (v) => Number(v.toPrecision(3)).toLocaleString('en-US');
  const si = (v, unit, kilo = 'k') => {
    for (const [f, p] of SI) if (Math.abs(v) >= f) return `${num(v / f)} ${p === 'k' ? kilo : p}${unit}`;
    return `${num(v)} ${unit}`.trim();
  };
  const formats = {
    bytes: (v) => si(v, 'B'),
    count: (v) => si(v, '').replace(/ $/, ''),
    us: (v) => `${num(v)} µs`,
    ms: (v) => `${num(v)} ms`,
  };
  for (const scale of Object.values(config.options.scales ?? {})) {
    const f = scale.ticks?._format;
    if (!f) continue;
    delete scale.ticks._format;
    const fmt = formats[f];
    scale.ticks.font = { size: 13 };
    scale.ticks.callback = scale.type === 'logarithmic'
      ? (v) => {
        const m = Number(v) / 10 ** Math.floor(Math.log10(Number(v)) + 1e-9);
        return [1, 2, 5].some((x) => Math.abs(m - x) < 1e-6) ? fmt(Number(v)) : '';
      }
      : (v) => fmt(Number(v));
  }
  config.plugins = [{
    id: 'white',
    beforeDraw(c) {
      const ctx = c.ctx;
      ctx.save();
      ctx.globalCompositeOperation = 'destination-over';
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, c.width, c.height);
      ctx.restore();
    },
  }];
  const canvas = document.createElement('canvas');
  canvas.id = id;
  canvas.width = width;
  canvas.height = height;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  document.body.appendChild(canvas);
  // eslint-disable-next-line no-undef
  const chart = new Chart(canvas, config);
  chart.draw();
  const a = chart.chartArea;
  const label = (scale, v) => (scale.type === 'category' ? scale.getLabelForValue(Math.round(v)) : v);
  const datasets = chart.data.datasets.map((ds, i) => {
    const meta = chart.getDatasetMeta(i);
    const iScale = meta.iScale;
    const vScale = meta.vScale;
    const drawn = meta.data.map((el) => {
      const p = el.getProps(['x', 'y', 'base'], true);
      const [ip, vp] = iScale.axis === 'x' ? [p.x, p.y] : [p.y, p.x];
      const inArea = p.x >= a.left - 1.5 && p.x <= a.right + 1.5 && p.y >= a.top - 1.5 && p.y <= a.bottom + 1.5;
      return {
        index: label(iScale, iScale.getValueForPixel(ip)),
        value: vScale.getValueForPixel(vp),
        base: Number.isFinite(p.base) ? vScale.getValueForPixel(p.base) : null,
        inArea,
      };
    });
    return { label: ds.label, type: meta.type, data: ds.data, drawn, visible: chart.isDatasetVisible(i) };
  });
  const axes = {};
  for (const [k, s] of Object.entries(chart.scales)) {
    axes[k] = { type: s.type, title: s.options.title?.display ? String(s.options.title.text) : '', min: s.min, max: s.max };
  }
  const title = chart.options.plugins.title.text;
  const png = canvas.toDataURL('image/png');
  return { id, title, type: chart.config.type, labels: chart.data.labels ?? null, axes, datasets, png };
}

/**
 * Draws every chart spec ({ id, config }) at `width`×`height` CSS px (twice that in pixels), writes
 * `<out>/<id>.png`, and returns what each chart drew, with the PNG's SHA-256.
 */
export async function renderCharts(context, specs, out, { width = 900, height = 500 } = {}) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setContent('<!doctype html><html><body style="margin:0;background:#fff"></body></html>');
  await page.addScriptTag({ path: chartJs().file });
  const rendered = [];
  for (const spec of specs) {
    const r = await page.evaluate(drawInPage, { id: spec.id, config: structuredClone(spec.config), width, height });
    if (errors.length) throw new Error(`drawing ${spec.id}: ${errors.join('; ')}`);
    const png = Buffer.from(r.png.replace(/^data:image\/png;base64,/, ''), 'base64');
    const file = `${spec.id}.png`;
    fs.writeFileSync(path.join(out, file), png);
    delete r.png;
    rendered.push({ ...r, file, sha256: crypto.createHash('sha256').update(png).digest('hex'), pixels: [width * 2, height * 2] });
  }
  await page.close();
  return rendered;
}

/** A full-page screenshot of `html` at 1280 CSS px wide. */
export async function screenshot(context, html, png) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`file://${path.resolve(html)}`);
  await page.waitForLoadState('load');
  const broken = await page.evaluate(() => [...document.images].filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.getAttribute('src')));
  await page.screenshot({ path: png, fullPage: true });
  const size = await page.evaluate(() => ({ width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight }));
  await page.close();
  return { broken, errors, size };
}
