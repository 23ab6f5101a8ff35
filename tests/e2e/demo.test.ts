import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { LVMT_TABLES, tempDataDir } from '../lib/node-process.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('npm run demo', () => {
  it('verifies the real proofs, starts lightprov-node, reads a transfer back verified, and serves the explorer', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'demo.mjs')], {
      env: {
        ...process.env,
        DEMO_EXIT: '1',
        LIGHTPROV_PORT: '0',
        LIGHTPROV_DEMO_PORT: '0',
        LIGHTPROV_DEMO_WARMUP: '16',
        LIGHTPROV_DATA_DIR: tempDataDir(),
        LIGHTPROV_LVMT_TABLES: LVMT_TABLES,
        RUST_LOG: 'warn',
      },
      encoding: 'utf8',
      // A first start derives LVMT's D = 16 tables (about 15 s, longer on a busy machine).
      timeout: 240_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Verified 8 real eth_getProof answers/);
    expect(r.stdout).toMatch(/is rejected: VALUE_MISMATCH/);
    expect(r.stdout).toMatch(/verified balance of 0x[0-9a-fA-F]{40}: 1\.5 ETH/);
    expect(r.stdout).toMatch(/asEip1193\(\): balance of 0x[0-9a-fA-F]{40} = 1\.5 ETH/);
    expect(r.stdout).toMatch(/LVMT: balance [0-9.]+ ETH, version \d+ written in block \d+; \d+-byte proof/);
    // The explorer: built with its verifier as a separate .wasm asset, served with the /rpc proxy.
    expect(r.stdout).toMatch(/^ {3}assets\/\S+\.wasm\s+[0-9.]+ kB │ gzip\s+[0-9.]+ kB/m);
    expect(r.stdout).toMatch(/^explorer {6}http:\/\/127\.0\.0\.1:\d+\/$/m);
    expect(r.stdout).toMatch(/explorer self-check: page, config and the \/rpc proxy answer \(head #\d+\)/);
  }, 300_000);
});
