#!/usr/bin/env node
// Builds the browser test page with Vite, serves it on 127.0.0.1 with the shared vectors, runs it
// in headless Debian Chromium through playwright-core, prints one line per failure and a final
// "N passed, N failed" line, and saves a screenshot. Exit code 1 if anything failed.
// Then runs the provenance explorer's test (demo-app.mjs, its own "N passed, N failed" line);
// LIGHTPROV_SKIP_DEMO_APP=1 skips it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { launchChromium } from '../lib/chromium.mjs';
import { build } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, '..', '..', 'target', 'browser-test');
const vectorsDir = path.join(here, '..', 'vectors');

await build({ configFile: path.join(here, 'vite.config.ts') });

const vectors = [];
for (const family of ['mpt', 'header', 'cole', 'lvmt', 'beacon']) {
  for (const kind of ['valid', 'invalid']) {
    for (const f of fs.readdirSync(path.join(vectorsDir, family, kind)).sort()) {
      vectors.push([`${family}/${kind}/${f}`, JSON.parse(fs.readFileSync(path.join(vectorsDir, family, kind, f), 'utf8'))]);
    }
  }
}
const vectorsJson = JSON.stringify(vectors);
const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };
const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/vectors.json') {
    res.setHeader('content-type', 'application/json');
    return res.end(vectorsJson);
  }
  const file = path.join(out, url.pathname === '/' ? 'index.html' : path.normalize(url.pathname));
  if (!file.startsWith(out) || !fs.existsSync(file)) {
    res.statusCode = 404;
    return res.end('not found');
  }
  res.setHeader('content-type', types[path.extname(file)] ?? 'application/octet-stream');
  fs.createReadStream(file).pipe(res);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'lightprov-chromium-'));
let context;
let code = 1;
try {
  context = await launchChromium(profile, { width: 1100, height: 760 });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`browser: page error: ${e.message}`));
  await page.goto(url);
  await page.waitForFunction(() => window.__results !== undefined || window.__error !== undefined, null, { timeout: 120_000 });
  const error = await page.evaluate(() => window.__error);
  if (error) throw new Error(`the page failed: ${error}`);
  const r = await page.evaluate(() => window.__results);
  for (const f of r.failures) console.log(`browser: FAIL ${f}`);
  if (r.accounts.length === 0) {
    console.log('browser: FAIL no real proof was verified in the page');
    r.failed++;
  }
  console.log(`browser: verified ${r.accounts.length} real eth_getProof answers in Chromium (${await page.evaluate(() => navigator.userAgent)})`);
  await page.screenshot({ path: path.join(out, 'screenshot.png'), fullPage: true });
  console.log(`browser: ${r.passed} passed, ${r.failed} failed`);
  code = r.failed === 0 ? 0 : 1;
} catch (e) {
  console.log(`browser: ${e instanceof Error ? e.message : String(e)}`);
  console.log('browser: 0 passed, 1 failed');
} finally {
  await context?.close();
  server.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
if (process.env.LIGHTPROV_SKIP_DEMO_APP !== '1') {
  const demo = spawnSync(process.execPath, [path.join(here, 'demo-app.mjs')], { stdio: 'inherit' });
  if (demo.status !== 0) code = 1;
}
process.exit(code);
