// Runs the shared vectors through the SDK inside Chromium, and shows the real proofs it verified.
import { init, verifyAccountProof } from '@lightprov/sdk';
import { loadBeacon } from '@lightprov/sdk/beacon';

import { type Vector, checkVector } from '../lib/vectors.js';

interface Results {
  passed: number;
  failed: number;
  failures: string[];
  accounts: { name: string; address: string; balance: string }[];
}

declare global {
  interface Window {
    __results?: Results;
    __error?: string;
  }
}

const $ = (id: string): HTMLElement => document.getElementById(id) as HTMLElement;

async function main(): Promise<void> {
  await Promise.all([init(), loadBeacon()]);
  const vectors = (await (await fetch('/vectors.json')).json()) as [string, Vector][];
  const r: Results = { passed: 0, failed: 0, failures: [], accounts: [] };
  for (const [name, v] of vectors) {
    const problem = checkVector(v);
    if (problem === null) r.passed++;
    else {
      r.failed++;
      r.failures.push(`${name}: ${problem}`);
    }
    const inputs = v.inputs as { proof?: unknown; stateRoot?: string };
    if ('ok' in v.expected && name.startsWith('mpt/valid/account-') && inputs.stateRoot) {
      const a = verifyAccountProof(inputs.proof, inputs.stateRoot);
      r.accounts.push({ name: name.replace(/^mpt\/valid\/account-|\.json$/g, ''), address: a.address, balance: a.balance.toString() });
    }
  }
  const body = $('accounts').querySelector('tbody') as HTMLElement;
  for (const a of r.accounts) {
    const tr = document.createElement('tr');
    const eth = (Number(BigInt(a.balance) / 10n ** 12n) / 1e6).toLocaleString('en-US', { maximumFractionDigits: 6 });
    for (const t of [a.name, a.address, eth]) {
      const td = document.createElement('td');
      td.textContent = t;
      tr.append(td);
    }
    body.append(tr);
  }
  const status = $('status');
  status.className = r.failed === 0 ? 'ok' : 'bad';
  status.textContent = `${r.passed} vectors passed, ${r.failed} failed — every proof verified by the wasm verifier in this page`;
  $('failures').textContent = r.failures.join('\n');
  window.__results = r;
}

main().catch((e: unknown) => {
  window.__error = e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ''}` : String(e);
  $('status').textContent = window.__error;
});
