#!/usr/bin/env node
// The demo: verifies real mainnet/Sepolia/Goerli proofs offline, starts lightprov-node on its
// embedded store (./data, port 8545), sends a transfer with ethers and reads it back verified,
// then leaves the node running for you (Ctrl-C stops it). DEMO_EXIT=1 stops after the examples.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'target', 'debug', 'lightprov-node');
const dataDir = process.env.LIGHTPROV_DATA_DIR ?? path.join(root, 'data');
const port = process.env.LIGHTPROV_PORT ?? '8545';
const run = (file, env = {}) => {
  const r = spawnSync(process.execPath, [path.join(root, file)], { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${file} failed`);
};

console.log('== 1. Real proofs from public chains, verified offline in WebAssembly');
run('sdk/examples/verify-real-proofs.mjs');

console.log(`\n== 2. lightprov-node on its embedded store (${path.relative(root, dataDir) || dataDir})`);
if (!fs.existsSync(bin)) throw new Error('lightprov-node is not built: run `npm run build`');
// LVMT's derived tables are cached (default: ~/.cache/lightprov); the first start derives them.
const tables = process.env.LIGHTPROV_LVMT_TABLES ? ['--lvmt-tables', process.env.LIGHTPROV_LVMT_TABLES] : [];
const node = spawn(bin, ['--data-dir', dataDir, '--port', port, '--block-time', '1s', ...tables], { stdio: ['ignore', 'pipe', 'inherit'] });
const info = await new Promise((resolve, reject) => {
  const fields = {};
  let buf = '';
  node.stdout.on('data', (c) => {
    process.stdout.write(c);
    buf += c.toString();
    // Progress of the one slow step (deriving LVMT's tables on a first start).
    for (const line of c.toString().split('\n')) if (/LVMT: (deriving|tables derived)/.test(line)) console.log(line.replace(/^.*LVMT:/, '   LVMT:'));
    for (const m of buf.matchAll(/^(genesis hash|signer|json-rpc|account 0)\s+(\S+)(?: key (\S+))?/gm)) {
      fields[m[1]] = m[2];
      if (m[3]) fields.key = m[3];
    }
    if (fields['json-rpc']) resolve(fields);
  });
  node.once('exit', (code) => reject(new Error(`lightprov-node exited (${code}); is port ${port} in use? Set LIGHTPROV_PORT.`)));
});
const stop = () => {
  if (node.exitCode === null) node.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

try {
  console.log('\n== 3. A wallet sends; LightClient reads back only what it can verify');
  run('sdk/examples/live-node.mjs', {
    LIGHTPROV_RPC: info['json-rpc'],
    LIGHTPROV_GENESIS: info['genesis hash'],
    LIGHTPROV_SIGNER: info.signer,
    LIGHTPROV_KEY: info.key,
  });
} catch (e) {
  stop();
  throw e;
}

if (process.env.DEMO_EXIT === '1') {
  stop();
} else {
  console.log(`\nlightprov-node keeps running at ${info['json-rpc']} (chain id 1337) — point ethers or viem at it; Ctrl-C stops it.`);
  node.stdout.removeAllListeners('data');
  node.stdout.pipe(process.stdout);
}
