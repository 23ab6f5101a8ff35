#!/usr/bin/env node
// The provenance explorer in headless Debian Chromium: starts `scripts/demo.mjs` (lightprov-node
// with its workload, the page and its /rpc proxy), then connects, picks an account, reads a
// verified balance, draws a COLE history, switches to LVMT, MPT, MBT and the POS-Tree (same
// points), runs the scheme comparison, tampers with proofs and sees the rejection codes, reads a
// token balance by a verified eth_call and draws its history (inspected and forged as well), sends
// a transfer and sees the new point, and checks the narrow layout. Screenshots of each step go to target/screenshots/.
// Prints one line per check and a final "demo-app: N passed, N failed"; exit code 1 on failure.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { launchChromium } from '../lib/chromium.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..', '..');
const shots = path.join(root, 'target', 'screenshots');
fs.mkdirSync(shots, { recursive: true });

let passed = 0;
let failed = 0;
const check = async (name, f) => {
  const t0 = Date.now();
  try {
    await f();
    passed++;
    console.log(`demo-app: ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    return true;
  } catch (e) {
    failed++;
    console.log(`demo-app: FAIL ${name}: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
    return false;
  }
};
const expect = (ok, what) => {
  if (!ok) throw new Error(what);
};
/** One JSON-RPC call to the node itself (unverified: the tests' second opinion). */
const rpc = async (url, method, params) => {
  const j = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }).then((r) => r.json());
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
};

// 1. The demo, as `npm run demo` starts it (without the offline proofs and the CLI example).
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lightprov-demo-'));
const demo = spawn(process.execPath, [path.join(root, 'scripts', 'demo.mjs')], {
  env: {
    ...process.env,
    DEMO_EXPLORER_ONLY: '1',
    LIGHTPROV_PORT: '0',
    LIGHTPROV_DEMO_PORT: '0',
    LIGHTPROV_DATA_DIR: dataDir,
    LIGHTPROV_LVMT_TABLES: process.env.LIGHTPROV_LVMT_TABLES ?? path.join(root, 'target', 'lvmt-tables'),
    LIGHTPROV_DEMO_WARMUP: '140',
    RUST_LOG: 'warn',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const output = [];
const demoExit = new Promise((resolve) => demo.once('exit', (code, signal) => resolve({ code, signal })));
const started = new Promise((resolve, reject) => {
  let buf = '';
  const timer = setTimeout(() => reject(new Error('the demo did not print its explorer URL within 300 s')), 300_000);
  const onData = (c) => {
    buf += c.toString();
    output.push(c.toString());
    const page = /^explorer\s+(http:\/\/127\.0\.0\.1:\d+\/)/m.exec(buf);
    const node = /^json-rpc\s+(\S+)/m.exec(buf);
    if (page && node) {
      clearTimeout(timer);
      resolve({ page: page[1], node: node[1] });
    }
  };
  demo.stdout.on('data', onData);
  demo.stderr.on('data', (c) => output.push(c.toString()));
  demo.once('exit', (code) => {
    clearTimeout(timer);
    reject(new Error(`the demo exited (${code}) before serving the page:\n${output.join('').slice(-2000)}`));
  });
});

let urls;
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'lightprov-chromium-'));
let context;
try {
  const ok = await check('npm run demo starts lightprov-node and serves the page on 127.0.0.1', async () => {
    urls = await started;
    const sizes = output.join('').match(/^ {3}assets\/\S+\.wasm\s.*$/m);
    expect(sizes, 'the build did not print the .wasm asset size');
    console.log(`demo-app: page ${urls.page}, node ${urls.node}; ${sizes[0].trim()}`);
  });
  if (!ok) throw new Error('no page to test');

  context = await launchChromium(profile, { width: 1280, height: 800 });
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const wasmResponses = [];
  page.on('response', (r) => {
    if (r.url().endsWith('.wasm')) wasmResponses.push({ url: r.url(), type: r.headers()['content-type'] });
  });
  const shot = (name) => page.screenshot({ path: path.join(shots, `${name}.png`) });
  /** Scrolls a panel to the top of the viewport (below the sticky bar) for a screenshot. */
  const view = (selector) =>
    page.evaluate((s) => {
      const el = document.querySelector(s);
      if (el) window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 56);
    }, selector);
  /** A screenshot of a panel, scrolled to the top of the viewport. */
  const shotOf = async (selector, name) => {
    await view(selector);
    await shot(name);
  };
  const points = () =>
    page.$$eval('#history-points tr[data-block]', (rows) => rows.map((r) => `${r.getAttribute('data-block')}=${r.children[1]?.textContent}`));
  const drawn = async (scheme) => {
    await page.click(`#scheme-buttons button[data-scheme="${scheme}"]`);
    await page.waitForSelector(`#history-panel[data-scheme="${scheme}"]:not([aria-busy])`, { timeout: 120_000 });
    const error = await page.$('#history-status [role="alert"]');
    if (error) throw new Error(`the page shows an error: ${await error.innerText()}`);
    return points();
  };

  await check('connects with the prefilled trust anchor: verified head and seal checks', async () => {
    await page.goto(urls.page);
    await page.waitForSelector('body[data-ready]');
    expect((await page.inputValue('#genesis-hash')).startsWith('0x'), 'the trust anchor is not prefilled');
    await page.click('#connect');
    await page.waitForSelector('#head [data-head]', { timeout: 60_000 });
    const seals = await page.$$eval('#headers tbody tr', (rows) => rows.map((r) => r.textContent ?? ''));
    expect(seals.length >= 2, `expected the newest headers, got ${seals.length}`);
    expect(seals.every((s) => /✓.*trusted/.test(s) && !/NOT trusted/.test(s)), `a seal check failed: ${seals.join(' | ')}`);
    await shot('01-connect');
  });

  await check('follows the node\'s sync committee: finalized and optimistic heads, participation verified', async () => {
    await page.waitForSelector('#beacon-participation[data-signed]:not([data-signed=""])', { timeout: 60_000 }).catch(async (e) => {
      throw new Error(`${e.message.split('\n')[0]} — the panel says: ${(await page.$eval('#beacon-panel', (e) => e.textContent ?? '')).replace(/\s+/g, ' ').slice(0, 900)}`);
    });
    const heads = await page.$$eval('#beacon-out tr[data-beacon]', (rows) => Object.fromEntries(rows.map((r) => [r.getAttribute('data-beacon'), Number(r.getAttribute('data-block'))])));
    expect(heads.finalized > 0 && heads.optimistic > heads.finalized, `heads: ${JSON.stringify(heads)}`);
    const signed = await page.getAttribute('#beacon-participation', 'data-signed');
    expect(signed === '30', `participation: ${signed} (the node's default is 30 of 32)`);
    // It follows: the optimistic head moves as blocks are sealed.
    await page.waitForFunction((n) => Number(document.querySelector('#beacon-out tr[data-beacon="optimistic"]')?.getAttribute('data-block')) > n, heads.optimistic, { timeout: 30_000 });
    await shotOf('#beacon-panel', '02-beacon');
  });

  await check('picks an account and reads its balance, verified by MPT against a header', async () => {
    const option = await page.$eval('#account', (s) => [...s.options].find((o) => o.textContent?.startsWith('acct 3'))?.value);
    expect(option, 'no workload account in the picker');
    await page.selectOption('#account', option);
    await page.click('#read-account');
    await page.waitForSelector('#account-out #balance-value', { timeout: 60_000 });
    const text = await page.innerText('#balance-value');
    expect(/\d/.test(text), `balance: ${text}`);
    const mark = await page.innerText('#account-out .verified');
    expect(/verified: MPT proof .* against header #\d+/.test(mark), `mark: ${mark}`);
    await page.waitForSelector('#lvmt-value .verified, #lvmt-value [role="alert"]', { timeout: 60_000 });
    expect(await page.$('#lvmt-value .verified'), `LVMT: ${await page.innerText('#lvmt-value')}`);
    console.log(`demo-app:      balance ${text}; ${mark.trim()}`);
    await shot('02-account');
  });

  const inspectorLoads = () => wasmResponses.filter((r) => r.url.includes('lightprov_inspect')).length;
  await check('the proof inspector module is not loaded before a proof is drawn', async () => {
    expect(wasmResponses.length > 0, 'no verifier module was loaded');
    expect(inspectorLoads() === 0, `loaded early: ${wasmResponses.map((r) => r.url).join(', ')}`);
  });

  let cole = [];
  /** Draws `scheme`'s history (`label` in messages): the same points as COLE's, with the inspector's outline (`outline`) shown. */
  const drawnAsCole = async (label, scheme, outline) => {
    const got = await drawn(scheme);
    expect(JSON.stringify(got) === JSON.stringify(cole), `${label} ${got.join(', ')} ≠ COLE ${cole.join(', ')}`);
    await page.waitForSelector(`#inspector-out ${outline}`, { timeout: 30_000 });
  };
  await check('draws a COLE history: every point verified, the proof drawn with its root', async () => {
    // The range ends at the head the page verified now, so that every scheme below is asked for
    // the same blocks while the node goes on producing them (a blank field follows the head).
    const head = await page.$eval('#head [data-head]', (e) => e.getAttribute('data-head') ?? '');
    expect(/^\d+$/.test(head), `no verified head number on the page: ${head}`);
    await page.fill('#hist-to', head);
    cole = await drawn('cole');
    expect(cole.length >= 2, `expected a history with changes, got ${cole.join(', ')}`);
    expect(await page.$('#history-summary .verified'), 'no verified mark on the history');
    const painted = await page.$eval('#history-chart', (c) => {
      const ctx = c.getContext('2d');
      const d = ctx?.getImageData(0, 0, c.width, c.height).data ?? [];
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
      return n;
    });
    expect(painted > 1000, 'the chart is blank');
    await page.waitForSelector('#inspector-out .root-check[data-matches="true"]', { timeout: 30_000 });
    expect(inspectorLoads() === 1, `the inspector module was fetched ${inspectorLoads()} times`);
    console.log(`demo-app:      COLE points ${cole.join(', ')}`);
    await shotOf('#history-panel', '03-history-cole');
    await shotOf('#inspector-panel', '04-inspector-cole');
  });

  await check('switches to LVMT: the same points, verified by one LVMT history proof', async () => {
    await drawnAsCole('LVMT', 'lvmt', '.outline[data-family="lvmt-history"]');
    await shotOf('#history-panel', '05-history-lvmt');
    await shotOf('#inspector-panel', '06-inspector-lvmt');
  });

  await check('switches to MPT: the same points, one eth_getProof per block', async () => {
    await drawnAsCole('MPT', 'mpt', '.outline[data-family="mpt"] .root-check[data-matches="true"]');
    await shotOf('#history-panel', '07-history-mpt');
    await shotOf('#inspector-panel', '07-inspector-mpt');
    expect(inspectorLoads() === 1, `the inspector module was fetched ${inspectorLoads()} times`);
  });

  await check('switches to MBT and the POS-Tree: the same points, each one proof whose buckets and paths are drawn', async () => {
    for (const scheme of ['mbt', 'pos']) {
      await drawnAsCole(scheme, scheme, `.outline[data-family="${scheme}-history"]`);
      await shotOf('#inspector-panel', `07-inspector-${scheme}`);
    }
    expect(inspectorLoads() === 1, `the inspector module was fetched ${inspectorLoads()} times`);
  });

  await check('runs the scheme comparison for ranges 2…128 (bytes and verify ms per scheme)', async () => {
    await page.click('#run-compare');
    await page.waitForSelector('#compare-table tr[data-range="128"]', { timeout: 300_000 });
    const cells = await page.$$eval('#compare-table td[data-scheme]', (tds) => tds.map((t) => [t.getAttribute('data-scheme') ?? '', t.textContent ?? '']));
    // One cell per range (2, 4, …, 128) and history scheme of the registry (forkless, MBT and
    // the POS-Tree included).
    const schemes = new Set(cells.map(([s]) => s));
    expect(
      ['forkless', 'mbt', 'pos'].every((x) => schemes.has(x)) && schemes.size >= 7 && cells.length === 7 * schemes.size && cells.every(([, c]) => /B|KiB/.test(c)),
      `cells: ${cells.map(([s, c]) => `${s} ${c}`).join(' | ')}`,
    );
    const row = await page.innerText('#compare-table tr[data-range="128"]');
    console.log(`demo-app:      128 blocks: ${row.replace(/\s+/g, ' ')}`);
    await shotOf('#compare-panel', '08-compare');
  });

  await check('forgery mode: each tamper is rejected with its code, nothing shown as data', async () => {
    await page.check('#forgery-mode');
    const seen = [];
    for (const [scheme, kind] of [
      ['cole', 'result-hidden'],
      ['cole-star', 'value-changed'],
      ['lvmt', 'stale-tuple'],
      ['mbt', 'history-node-duplicated'],
      ['pos', 'history-node-unused'],
      ['mpt', 'wrong-balance'],
    ]) {
      await page.selectOption('#forgery-scheme', scheme);
      await page.selectOption('#forgery-kind', kind);
      await page.click('#run-forgery');
      await page.waitForSelector('#forgery-out:not(:has(.busy))', { timeout: 120_000 });
      await page.waitForSelector('#forgery-verdict, #forgery-out [role="alert"]', { timeout: 120_000 });
      const verdict = await page.$('#forgery-verdict');
      expect(verdict, `${scheme}/${kind}: ${await page.innerText('#forgery-out')}`);
      const code = await verdict.getAttribute('data-code');
      const text = await verdict.innerText();
      expect(/Rejected/.test(text) && /the code this tamper must get/.test(text), `${scheme}/${kind}: ${text}`);
      seen.push(`${scheme}/${kind} → ${code}`);
      if (scheme === 'cole') {
        await shotOf('#forgery-panel', '09-forgery-cole');
      }
    }
    console.log(`demo-app:      ${seen.join(', ')}`);
    await shotOf('#forgery-panel', '10-forgery-mpt');
  });

  await check('token panel: balanceOf by a verified eth_call, its slot by a verified probe, its history by each scheme, inspected and forged', async () => {
    const config = await page.evaluate(() => fetch('./demo-config.json').then((r) => r.json()));
    const token = config.workload?.token;
    expect(/^0x[0-9a-fA-F]{40}$/.test(token ?? ''), `the demo config names no token: ${JSON.stringify(config.workload)}`);
    expect((await page.inputValue('#token-address')).toLowerCase() === token.toLowerCase(), 'the token is not prefilled');
    const holder = await page.$eval('#account', (s) => [...s.options].find((o) => o.textContent?.startsWith('acct 5'))?.value);
    expect(holder, 'no workload account in the picker');
    await page.selectOption('#account', holder);
    await page.click('#read-token');
    await page.waitForSelector('#token-out[data-slot], #token-out [role="alert"]', { timeout: 120_000 });
    expect((await page.getAttribute('#token-out', 'data-slot')) === '0', `token panel: ${(await page.$eval('#token-out', (e) => e.textContent ?? '')).replace(/\s+/g, ' ').slice(0, 900)}`);
    const balance = BigInt((await page.getAttribute('#token-balance', 'data-value')) ?? '-1');
    const block = Number(await page.getAttribute('#token-out', 'data-block'));
    // Cross-checked with the node's own eth_call (unverified: a second opinion, not the page's source).
    const balanceOf = (b) =>
      rpc(urls.node, 'eth_call', [{ to: token, data: '0x70a08231' + holder.slice(2).toLowerCase().padStart(64, '0') }, '0x' + b.toString(16)]).then(BigInt);
    expect(balance === (await balanceOf(block)), `balanceOf ${balance} at #${block} ≠ the node's eth_call`);
    expect(await page.$('#token-out .verified'), 'the balance is not marked verified');
    const stats = await page.$eval('#token-call-stats', (e) => ({ rounds: Number(e.dataset.rounds), accounts: Number(e.dataset.accounts), slots: Number(e.dataset.slots) }));
    expect(stats.rounds >= 1 && stats.accounts >= 2 && stats.slots >= 1, `call stats: ${JSON.stringify(stats)}`);
    const proven = await page.$$eval('#token-proven [data-address]', (rows) => rows.map((r) => ({ address: r.getAttribute('data-address'), text: r.textContent ?? '' })));
    const ofToken = proven.find((p) => p.address === token.toLowerCase());
    expect(ofToken && /balances\[holder\]/.test(ofToken.text), `proven: ${JSON.stringify(proven)}`);
    expect(/only slot 0's holds/.test(await page.innerText('#token-probe')), 'the probe does not say which slot held the balance');
    await shotOf('#token-panel', '10b-token-panel');
    // The panel drew the token balance's history by the scheme chosen before (the POS-Tree).
    await page.waitForFunction(() => /token balance/.test(document.querySelector('#history-summary strong')?.textContent ?? '') && !document.querySelector('#history-panel[aria-busy]'), null, { timeout: 120_000 });
    const error = await page.$('#history-status [role="alert"]');
    if (error) throw new Error(`the history shows an error: ${await error.innerText()}`);
    const first = await points();
    expect(first.length >= 2, `expected a token history with changes, got ${first.join(', ')}`);
    // Each point is the balance from its block on: the node's balanceOf there, and unchanged the block before the next.
    const value = (p) => BigInt(p.split('=')[1].replace(/,/g, ''));
    for (const [i, p] of first.entries()) {
      const at = Number(p.split('=')[0]);
      expect((await balanceOf(at)) === value(p), `point ${p}: the node's balanceOf is ${await balanceOf(at)}`);
      const next = first[i + 1];
      if (next) expect((await balanceOf(Number(next.split('=')[0]) - 1)) === value(p), `the balance changed before the point after ${p}`);
    }
    // Every scheme draws the same points; each one's proof is drawn and leads to its header.
    cole = first;
    for (const [scheme, outline] of [
      ['cole', '.root-check[data-matches="true"]'],
      ['lvmt', '.outline[data-family="lvmt-history"]'],
      ['mpt', '.outline[data-family="mpt"] .root-check[data-matches="true"]'],
      ['forkless', '.outline[data-family="forkless"]'],
    ]) {
      await drawnAsCole(`${scheme} (token)`, scheme, outline);
    }
    await page.click('#scheme-buttons button[data-scheme="cole"]');
    await page.waitForSelector('#history-panel[data-scheme="cole"]:not([aria-busy])', { timeout: 120_000 });
    await page.waitForSelector('#inspector-out .root-check[data-matches="true"]', { timeout: 30_000 });
    console.log(`demo-app:      token balance ${balance} at #${block} (slot 0, ${stats.rounds} round trips, ${stats.accounts} accounts and ${stats.slots} slots proven); history ${first.join(', ')}`);
    await shotOf('#history-panel', '10c-token-history');
    await shotOf('#inspector-panel', '10d-token-inspector');
    // Forgery mode on the token balance's proof.
    await page.selectOption('#forgery-scheme', 'cole');
    await page.selectOption('#forgery-kind', 'value-changed');
    await page.click('#run-forgery');
    await page.waitForSelector('#forgery-out:not(:has(.busy))', { timeout: 120_000 });
    await page.waitForSelector('#forgery-verdict, #forgery-out [role="alert"]', { timeout: 120_000 });
    const verdict = await page.$('#forgery-verdict');
    expect(verdict, `token forgery: ${await page.innerText('#forgery-out')}`);
    expect(/Rejected/.test(await verdict.innerText()) && /the code this tamper must get/.test(await verdict.innerText()), `token forgery: ${await verdict.innerText()}`);
    expect(/for acct 5 · token balance/.test(await page.innerText('#forgery-out .verified')), `the forgery was not of the token balance's proof: ${await page.innerText('#forgery-out .verified')}`);
    await shotOf('#forgery-panel', '10e-token-forgery');
    // A dev account holds no tokens: the probe refuses (0 is what every unwritten slot holds),
    // and the panel goes on with the slot the probe found for the token before.
    const dev = await page.$eval('#account', (s) => [...s.options].find((o) => o.textContent?.startsWith('dev 0'))?.value);
    await page.selectOption('#account', dev);
    await page.click('#read-token');
    await page.waitForSelector('#token-out[data-slot], #token-out [role="alert"]', { timeout: 120_000 });
    const refusal = await page.$('#token-out [role="alert"][data-code="PROBE zero-balance"]');
    expect(refusal, `dev 0: ${(await page.$eval('#token-out', (e) => e.textContent ?? '')).replace(/\s+/g, ' ').slice(0, 600)}`);
    expect((await page.getAttribute('#token-balance', 'data-value')) === '0', 'dev 0 holds tokens');
    expect(/Using slot 0/.test(await page.innerText('#token-probe')), 'the slot found before is not used');
    await page.waitForFunction(() => /dev 0 · token balance/.test(document.querySelector('#history-summary strong')?.textContent ?? '') && !document.querySelector('#history-panel[aria-busy]'), null, { timeout: 120_000 });
    const zero = await points();
    expect(zero.length === 1 && zero[0].endsWith('=0'), `dev 0's token history: ${zero.join(', ')}`);
    await shotOf('#token-panel', '10f-token-refused');
  });

  await check('sends a transfer through the verified provider and sees the new point', async () => {
    await page.click('#send-transfer');
    await page.waitForSelector('#transfer-out[data-block], #transfer-out [role="alert"]', { timeout: 120_000 });
    const block = await page.getAttribute('#transfer-out', 'data-block');
    expect(block, `transfer: ${await page.innerText('#transfer-out')}`);
    await page.waitForSelector(`#history-points tr.new[data-block="${block}"]`, { timeout: 120_000 });
    expect(await page.$('#transfer-out .verified'), 'the balances after the transfer are not marked verified');
    // The receipt and its Transfer event, verified.
    const receipt = await page.$('#transfer-receipt');
    expect(receipt, 'no receipt shown after the transfer');
    expect((await receipt.getAttribute('data-events')) === '1', `the receipt shows ${await receipt.getAttribute('data-events')} events, not the transfer's one`);
    expect(/Transfer .* → .*: 0\.25 ETH/.test(await receipt.innerText()), `receipt: ${await receipt.innerText()}`);
    expect(await receipt.$('.verified'), 'the receipt is not marked verified');
    await shotOf('#transfer-panel', '11-transfer-receipt');
    console.log(`demo-app:      transfer included in block #${block}; history now ${(await points()).join(', ')}`);
    await shotOf('#history-panel', '11-transfer-history-after');
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot('12-overview');
  });

  await check('narrow (390 px) layout: one column, nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot('13-mobile-top');
    await shotOf('#history-panel', '14-mobile-history');
    await page.screenshot({ path: path.join(shots, '15-mobile-full.png'), fullPage: true });
    const overflow = await page.evaluate(() => {
      const wide = [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.scroll-x, #headers, #history-points, .ptree'))
        .map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')}`);
      return { by: document.documentElement.scrollWidth - window.innerWidth, wide: wide.slice(0, 5) };
    });
    expect(overflow.by <= 1, `the page is ${overflow.by} px wider than the screen (${overflow.wide.join(', ')})`);
  });

  await check('the verifier is fetched as a .wasm asset; no errors in the page', async () => {
    expect(wasmResponses.length >= 1 && wasmResponses.every((r) => r.type === 'application/wasm'), `wasm responses: ${JSON.stringify(wasmResponses)}`);
    expect(pageErrors.length === 0, `page errors: ${pageErrors.join(' | ')}`);
  });
} catch (e) {
  if (!(e instanceof Error && e.message === 'no page to test')) {
    failed++;
    console.log(`demo-app: FAIL ${e instanceof Error ? e.message : String(e)}`);
  }
} finally {
  await context?.close().catch(() => undefined);
  fs.rmSync(profile, { recursive: true, force: true });
}

await check('SIGTERM (as Ctrl-C) stops the page server and the node', async () => {
  if (demo.exitCode === null && demo.signalCode === null) demo.kill('SIGTERM');
  const { code } = await Promise.race([demoExit, new Promise((_, reject) => setTimeout(() => reject(new Error('the demo did not stop within 30 s')), 30_000))]);
  expect(code === 0, `the demo exited with ${code}`);
  if (urls) {
    const alive = async (u, init) => fetch(u, init).then(() => true, () => false);
    expect(!(await alive(urls.page)), 'the page server still answers');
    expect(!(await alive(urls.node, { method: 'POST', body: '{}' })), 'lightprov-node still answers');
  }
});
fs.rmSync(dataDir, { recursive: true, force: true });
console.log(`demo-app: screenshots in ${path.relative(root, shots)}/`);
console.log(`demo-app: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
