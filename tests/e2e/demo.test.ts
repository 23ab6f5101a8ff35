import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { LVMT_TABLES, tempDataDir } from '../lib/node-process.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('npm run demo', () => {
  it('verifies the real proofs, starts lightprov-node, and reads a transfer back verified', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'demo.mjs')], {
      env: { ...process.env, DEMO_EXIT: '1', LIGHTPROV_PORT: '0', LIGHTPROV_DATA_DIR: tempDataDir(), LIGHTPROV_LVMT_TABLES: LVMT_TABLES, RUST_LOG: 'warn' },
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
  }, 300_000);
});
