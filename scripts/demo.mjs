#!/usr/bin/env node
// The demo: verifies real mainnet/Sepolia/Goerli proofs offline, starts lightprov-node on its
// embedded store (./data/demo, port 8545) with the ERC-20 workload, sends a transfer with ethers and
// reads it back verified, then builds the provenance explorer (demo-app/) and serves it on
// 127.0.0.1 next to a same-origin proxy to the node. Ctrl-C stops both.
//
// Environment: LIGHTPROV_PORT (node, default 8545; 0 = a free port), LIGHTPROV_DEMO_PORT (page,
// default 0 = a free port), LIGHTPROV_DATA_DIR, LIGHTPROV_LVMT_TABLES, LIGHTPROV_DEMO_WARMUP
// (blocks of history to have before serving the page, default 160), DEMO_EXIT=1 (check the page
// is served, then stop), DEMO_EXPLORER_ONLY=1 (skip the offline proofs and the example).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

import { getCreateAddress } from 'ethers';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'target', 'debug', 'lightprov-node');
// Its own directory: a chain made with other settings (another workload) is refused by the node.
const dataDir = process.env.LIGHTPROV_DATA_DIR ?? path.join(root, 'data', 'demo');
const port = process.env.LIGHTPROV_PORT ?? '8545';
const demoPort = Number(process.env.LIGHTPROV_DEMO_PORT ?? '0');
const warmup = Number(process.env.LIGHTPROV_DEMO_WARMUP ?? '160');
const txPerBlock = '50';
const explorerOnly = process.env.DEMO_EXPLORER_ONLY === '1';
const appDir = path.join(root, 'demo-app');
const dist = path.join(appDir, 'dist');
const run = (file, env = {}) => {
  const r = spawnSync(process.execPath, [path.join(root, file)], { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${file} failed`);
};

if (!explorerOnly) {
  console.log('== 1. Real proofs from public chains, verified offline in WebAssembly');
  run('sdk/examples/verify-real-proofs.mjs');
}

console.log(`\n== 2. lightprov-node on its embedded store (${path.relative(root, dataDir) || dataDir}), ${txPerBlock} workload token transfers per block`);
if (!fs.existsSync(bin)) throw new Error('lightprov-node is not built: run `npm run build`');
// The demo's own chain is disposable: one made by an older node (whose blocks today's clients
// refuse, e.g. sealed with difficulty 1, or whose blocks are not in the block store) is moved
// aside rather than refused.
const CHAIN_FORMAT = 'clique2-blockstore-mbtparams-erc20';
const marker = path.join(dataDir, 'demo-chain-format');
if (!process.env.LIGHTPROV_DATA_DIR && fs.existsSync(dataDir) && (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').trim() : '') !== CHAIN_FORMAT) {
  const aside = `${dataDir}.old-${Date.now()}`;
  fs.renameSync(dataDir, aside);
  console.log(`(the demo chain in ${path.relative(root, dataDir)} was made by an older lightprov-node: moved to ${path.relative(root, aside)}, starting a new one)`);
}
fs.mkdirSync(dataDir, { recursive: true });
if (!process.env.LIGHTPROV_DATA_DIR) fs.writeFileSync(marker, CHAIN_FORMAT + '\n');
// LVMT's derived tables are cached (default: ~/.cache/lightprov); the first start derives them.
const tables = process.env.LIGHTPROV_LVMT_TABLES ? ['--lvmt-tables', process.env.LIGHTPROV_LVMT_TABLES] : [];
// The erc20 workload deploys an ERC-20 at genesis and moves tokens between 1000 accounts every
// block, each transfer a transaction its sender pays gas for: their token balances and their
// ether balances have a point every few blocks for the explorer to draw; two signed transfers
// between the dev accounts per block leave ether transfers, receipts and Transfer events.
// A simulated sync committee signs every block (the beacon light-client API on the same port):
// the page follows it as a wallet on Ethereum would.
const node = spawn(bin, ['--data-dir', dataDir, '--port', port, '--block-time', '1s', '--workload', 'erc20', '--tx-per-block', txPerBlock, '--transfers', '2', '--consensus', 'sync-committee', ...tables], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
// The node's log goes to stdout: everything until it listens, then all but the per-block lines
// (the page shows the chain).
let started = false;
let pending = '';
node.stdout.on('data', (c) => {
  pending += c.toString();
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) if (!started || !/\bINFO\b.*\bblock #\d+ /.test(line)) console.log(line);
});
const info = await new Promise((resolve) => {
  const fields = { accounts: [] };
  let buf = '';
  const onData = (c) => {
    buf += c.toString();
    for (const m of buf.matchAll(/^(genesis hash|signer|json-rpc|account 0)\s+(\S+)(?: key (\S+))?/gm)) {
      fields[m[1]] = m[2];
      if (m[3]) fields.key = m[3];
    }
    fields.accounts = [...buf.matchAll(/^account \d+\s+(0x[0-9a-fA-F]{40}) key (0x[0-9a-fA-F]{64})/gm)].map((m) => ({ address: m[1], key: m[2] }));
    if (fields['json-rpc']) {
      node.stdout.off('data', onData);
      started = true;
      resolve(fields);
    }
  };
  node.stdout.on('data', onData);
  node.once('exit', (code) => {
    if (started) return;
    console.error(
      `\nlightprov-node exited (${code}) before it listened; see its message above. If port ${port} is in use, set LIGHTPROV_PORT; ` +
        `if ${path.relative(root, dataDir) || dataDir} holds a chain made with other settings, remove it or set LIGHTPROV_DATA_DIR.`,
    );
    process.exit(1);
  });
});

let server;
let stopping;
/** Stops the page server and the node, then exits. */
const shutdown = (exitCode = 0) => {
  stopping ??= (async () => {
    if (server) {
      server.close();
      server.closeAllConnections();
    }
    if (node.exitCode === null && node.signalCode === null) {
      const exited = new Promise((r) => node.once('exit', r));
      node.kill('SIGTERM');
      await exited;
    }
    process.exit(exitCode);
  })();
  return stopping;
};
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

const rpc = async (method, params = []) => {
  const res = await fetch(info['json-rpc'], {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const j = await res.json();
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
};

try {
  if (!explorerOnly) {
    console.log('\n== 3. A wallet sends; LightClient reads back only what it can verify');
    run('sdk/examples/live-node.mjs', {
      LIGHTPROV_RPC: info['json-rpc'],
      LIGHTPROV_GENESIS: info['genesis hash'],
      LIGHTPROV_SIGNER: info.signer,
      LIGHTPROV_KEY: info.key,
    });
  }

  console.log('\n== 4. The provenance explorer (demo-app/)');
  // History for the charts and the comparison (ranges up to 128 blocks): mine what is missing.
  const head = Number(BigInt(await rpc('eth_blockNumber')));
  if (head < warmup) {
    const todo = warmup - head;
    process.stdout.write(`   mining ${todo} blocks of workload history (the chain is at #${head})…`);
    for (let i = 1; i <= todo; i++) {
      await rpc('evm_mine');
      if (i % 40 === 0 && i < todo) process.stdout.write(` ${i}`);
    }
    console.log(' done');
  }

  const { build } = await import('vite');
  const t0 = performance.now();
  await build({ configFile: path.join(appDir, 'vite.config.ts'), logLevel: 'warn' });
  console.log(`   built demo-app/dist in ${((performance.now() - t0) / 1000).toFixed(1)} s:`);
  const files = [];
  const walk = (dir) => {
    for (const f of fs.readdirSync(dir, { withFileTypes: true })) {
      if (f.isDirectory()) walk(path.join(dir, f.name));
      else files.push(path.join(dir, f.name));
    }
  };
  walk(dist);
  for (const f of files.sort()) {
    const body = fs.readFileSync(f);
    const kb = (n) => `${(n / 1000).toFixed(1)} kB`.padStart(9);
    const wasm = f.endsWith('.wasm');
    const inspector = path.basename(f).startsWith('lightprov_inspect');
    const note = !wasm ? '' : inspector ? '  (the proof inspector, fetched when a proof is first drawn)' : '  (a verifier module, fetched as its own asset)';
    console.log(`   ${path.relative(dist, f).padEnd(48)} ${kb(body.length)} │ gzip ${kb(zlib.gzipSync(body).length)}${note}`);
  }
  if (!files.some((f) => f.endsWith('.wasm'))) throw new Error('the page bundle has no .wasm asset (was the verifier inlined?)');

  const config = JSON.stringify({
    rpc: './rpc',
    nodeUrl: info['json-rpc'],
    genesisHash: info['genesis hash'],
    signer: info.signer,
    chainId: 1337,
    accounts: info.accounts,
    // The workload's token: the first contract its genesis deployer (0xdede…de) creates.
    workload: { kind: 'erc20', txPerBlock: Number(txPerBlock), token: getCreateAddress({ from: '0x' + 'de'.repeat(20), nonce: 0 }) },
  });
  const types = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.wasm': 'application/wasm',
    '.json': 'application/json',
    '.svg': 'image/svg+xml',
    '.png': 'image/png',
  };
  const nodeUrl = new URL(info['json-rpc']);
  server = http.createServer((req, res) => {
    // Cross-origin isolation: finer performance.now() for the page's verify-time figures.
    res.setHeader('cross-origin-opener-policy', 'same-origin');
    res.setHeader('cross-origin-embedder-policy', 'require-corp');
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/rpc') {
      // Same-origin JSON-RPC for the page: the node sends no CORS headers.
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' });
        return res.end();
      }
      const up = http.request(
        { host: nodeUrl.hostname, port: nodeUrl.port, path: nodeUrl.pathname, method: 'POST', headers: { 'content-type': 'application/json' } },
        (r) => {
          res.writeHead(r.statusCode ?? 502, { 'content-type': r.headers['content-type'] ?? 'application/json' });
          r.pipe(res);
        },
      );
      up.on('error', (e) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`lightprov-node is not answering: ${e.message}`);
      });
      return req.pipe(up);
    }
    if (url.pathname.startsWith('/eth/v1/beacon/') || url.pathname.startsWith('/lightprov/v1/beacon/')) {
      // Same-origin beacon light-client API (GET), with the headers a client reads.
      if (req.method !== 'GET') {
        res.writeHead(405, { allow: 'GET' });
        return res.end();
      }
      const up = http.request(
        { host: nodeUrl.hostname, port: nodeUrl.port, path: url.pathname + url.search, method: 'GET', headers: { accept: req.headers.accept ?? 'application/json' } },
        (r) => {
          const headers = { 'content-type': r.headers['content-type'] ?? 'application/octet-stream', 'cache-control': 'no-store' };
          if (r.headers['eth-consensus-version']) headers['eth-consensus-version'] = r.headers['eth-consensus-version'];
          res.writeHead(r.statusCode ?? 502, headers);
          r.pipe(res);
        },
      );
      up.on('error', (e) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`lightprov-node is not answering: ${e.message}`);
      });
      return up.end();
    }
    if (url.pathname === '/demo-config.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return res.end(config);
    }
    const rel = url.pathname === '/' ? 'index.html' : path.normalize(decodeURIComponent(url.pathname)).replace(/^[/\\]+/, '');
    const file = path.join(dist, rel);
    if (!file.startsWith(dist + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('not found');
    }
    res.writeHead(200, {
      'content-type': types[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', (e) => reject(new Error(`cannot serve the explorer on 127.0.0.1:${demoPort} (${e.code ?? e.message}); set LIGHTPROV_DEMO_PORT`)));
    server.listen(demoPort, '127.0.0.1', resolve);
  });
  const pageUrl = `http://127.0.0.1:${server.address().port}/`;
  console.log(`explorer      ${pageUrl}`);

  if (process.env.DEMO_EXIT === '1') {
    const page = await fetch(pageUrl).then((r) => r.text());
    const cfg = await fetch(`${pageUrl}demo-config.json`).then((r) => r.json());
    const proxied = await fetch(`${pageUrl}rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    }).then((r) => r.json());
    if (!page.includes('provenance explorer') || cfg.genesisHash !== info['genesis hash'] || !proxied.result) {
      throw new Error('the explorer is not served correctly');
    }
    console.log(`explorer self-check: page, config and the /rpc proxy answer (head #${BigInt(proxied.result)})`);
    await shutdown(0);
  } else {
    node.once('exit', (code) => {
      if (!stopping) {
        console.error(`lightprov-node stopped (${code}); stopping the explorer`);
        void shutdown(1);
      }
    });
    console.log(`\nOpen the explorer: ${pageUrl}`);
    console.log(`lightprov-node keeps running at ${info['json-rpc']} (chain id 1337) — point ethers or viem at it; Ctrl-C stops both.`);
  }
} catch (e) {
  console.error(e instanceof Error ? e.message : e);
  await shutdown(1);
}
