// Runs the shared vectors through the SDK inside Chromium, and shows the real proofs it verified.
import { init, verifyAccountProof } from '@lightprov/sdk';
import { BeaconFollower, loadBeacon } from '@lightprov/sdk/beacon';

import { type Vector, checkVector } from '../lib/vectors.js';

interface Results {
  passed: number;
  failed: number;
  failures: string[];
  accounts: { name: string; address: string; balance: string }[];
  /** The beacon follower's finalized slot, then a restarted one's, its block and the kept bytes. */
  beacon?: { first: string; second: string; block: string; savedBytes: number };
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
  r.beacon = await followBeacon();
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

/**
 * Follows the page server's beacon node (real mainnet periods 862..867) from the checkpoint with
 * the store kept in IndexedDB (the default in browsers), then again from what was kept.
 */
async function followBeacon(): Promise<NonNullable<Results['beacon']>> {
  const trust = {
    network: 'mainnet',
    checkpoint: '0x5afc212a7924789b2bc86acad3ab3a6ffb1f6e97253ea50bee7f4f51422c9275',
    urls: [`${location.origin}/beacon`],
    currentSlot: () => 7109432n, // the optimistic update's signature slot
  };
  const first = await BeaconFollower.open(trust, 10_000, fetch.bind(globalThis));
  const second = await BeaconFollower.open(trust, 10_000, fetch.bind(globalThis));
  return {
    first: String(first.finalized().slot),
    second: String(second.finalized().slot),
    block: String(second.execution().finalized.number),
    savedBytes: second.save().length,
  };
}

main().catch((e: unknown) => {
  window.__error = e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ''}` : String(e);
  $('status').textContent = window.__error;
});
