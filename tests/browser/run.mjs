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
import { ssz } from '@lodestar/types';
import { build } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, '..', '..', 'target', 'browser-test');
const vectorsDir = path.join(here, '..', 'vectors');

await build({ configFile: path.join(here, 'vite.config.ts') });

const vectors = [];
// Every registered family: the families counts.json lists (a test keeps it equal to the registry).
const families = Object.keys(JSON.parse(fs.readFileSync(path.join(vectorsDir, 'counts.json'), 'utf8')));
for (const family of families) {
  for (const kind of ['valid', 'invalid']) {
    for (const f of fs.readdirSync(path.join(vectorsDir, family, kind)).sort()) {
      vectors.push([`${family}/${kind}/${f}`, JSON.parse(fs.readFileSync(path.join(vectorsDir, family, kind, f), 'utf8'))]);
    }
  }
}
const vectorsJson = JSON.stringify(vectors);

// A beacon node for the page's BeaconFollower: real mainnet light-client objects (periods
// 862..867) as SSZ, the `updates` answer in the Beacon API's chunks; every request logged.
const helios = path.join(here, '..', 'fixtures', 'beacon', 'real', 'raw', 'helios');
const json = (f) => JSON.parse(fs.readFileSync(path.join(helios, f), 'utf8'));
const sszOf = (type, file) => type.serialize(type.fromJson(json(file).data));
const beacon = {
  bootstrap: sszOf(ssz.capella.LightClientBootstrap, 'bootstrap.json'),
  updates: json('updates.json').map((u) => ssz.capella.LightClientUpdate.serialize(ssz.capella.LightClientUpdate.fromJson(u.data))),
  finality_update: sszOf(ssz.capella.LightClientFinalityUpdate, 'finality.json'),
  optimistic_update: sszOf(ssz.capella.LightClientOptimisticUpdate, 'optimistic.json'),
};
const beaconLog = [];
function beaconAnswer(url) {
  const p = url.pathname.replace(/^\/beacon\/eth\/v1\/beacon\/light_client\//, '');
  beaconLog.push(p);
  if (p.startsWith('bootstrap/')) return beacon.bootstrap;
  if (p === 'updates') {
    const from = Number(url.searchParams.get('start_period')) - 862;
    const chosen = beacon.updates.slice(Math.max(from, 0), Math.max(from, 0) + Number(url.searchParams.get('count')));
    return Buffer.concat(
      chosen.map((u) => {
        const head = Buffer.alloc(12);
        head.writeBigUInt64LE(BigInt(4 + u.length)); // the length counts the digest
        Buffer.from('bba4da96', 'hex').copy(head, 8); // Capella's fork digest on mainnet
        return Buffer.concat([head, Buffer.from(u)]);
      }),
    );
  }
  return beacon[p];
}
const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };
const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname.startsWith('/beacon/')) {
    const body = beaconAnswer(url);
    if (body === undefined) {
      res.statusCode = 404;
      return res.end('{"code":404,"message":"not found"}');
    }
    res.setHeader('content-type', 'application/octet-stream');
    return res.end(Buffer.from(body));
  }
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
  // The follower synced from the checkpoint, then a second one started from the store it kept in
  // IndexedDB: no bootstrap, no updates, only the newest finality and optimistic updates.
  const b = r.beacon;
  const wantLog = ['bootstrap/0x5afc212a7924789b2bc86acad3ab3a6ffb1f6e97253ea50bee7f4f51422c9275', 'updates', 'finality_update', 'optimistic_update', 'finality_update', 'optimistic_update'];
  if (!b || b.first !== '7109344' || b.second !== '7109344' || b.block !== '17923026' || JSON.stringify(beaconLog) !== JSON.stringify(wantLog)) {
    console.log(`browser: FAIL beacon follower with IndexedDB: ${JSON.stringify(b)}, requests ${JSON.stringify(beaconLog)}`);
    r.failed++;
  } else {
    r.passed++;
    console.log(`browser: the beacon follower synced six periods and restarted from IndexedDB (${b.savedBytes} bytes) without a bootstrap`);
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
