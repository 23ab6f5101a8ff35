/**
 * The beacon panel: follows lightprov-node's simulated sync committee with the SDK's
 * `BeaconFollower`, as a wallet on Ethereum follows the real one — from one finalized beacon
 * block root, every header checked in the page against the committee's aggregate BLS signature,
 * the store kept in IndexedDB. Shows the head it follows (the newest header two thirds of the
 * committee signed), the finalized and the protocol's optimistic headers with their execution
 * blocks, how old the head is, and how many of the committee signed the newest update. The
 * trusted root is taken from the node when the page first follows it (trust on first use; an
 * app pins one it got elsewhere).
 */
import { BeaconFollower, type BeaconHeader, loadBeacon } from '@lightprov/sdk/beacon';

import { byId, errorBox, h, hash, num } from './ui.js';

/** How often the panel asks the node for newer updates. */
const REFRESH_MS = 3000;

interface Status {
  currentSlot: string;
}

async function getJson<T>(path: string): Promise<T> {
  const r = await fetch(path);
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status} ${(await r.text()).slice(0, 200)}`);
  return (await r.json()) as T;
}

function row(label: string, header: BeaconHeader, what: string): HTMLElement {
  const ex = header.execution;
  return h(
    'tr',
    { 'data-beacon': what, 'data-slot': String(header.slot), 'data-block': ex ? String(ex.blockNumber) : '' },
    h('th', {}, label),
    h('td', {}, num(header.slot)),
    h('td', {}, ex ? `#${num(ex.blockNumber)}` : '—'),
    h('td', {}, ex ? hash(ex.blockHash) : '—'),
  );
}

export function setupBeacon(): void {
  const out = byId('beacon-out');
  void (async () => {
    try {
      out.replaceChildren(h('p', { class: 'muted' }, 'Loading the beacon module and syncing from the checkpoint…'));
      await loadBeacon();
      const genesis = await getJson<{ data: { genesis_validators_root: string } }>('./eth/v1/beacon/genesis');
      const finalized = await getJson<{ data: { root: string } }>('./eth/v1/beacon/headers/finalized');
      let slot = BigInt((await getJson<Status>('./lightprov/v1/beacon/status')).currentSlot);
      const checkpoint = localStorage.getItem('lightprov-demo-beacon-checkpoint') ?? finalized.data.root;
      const trust = {
        network: { preset: 'minimal' as const, genesisValidatorsRoot: genesis.data.genesis_validators_root, lastFork: 'fulu' as const },
        checkpoint,
        urls: [location.origin],
        currentSlot: () => slot,
        refreshMs: 0,
      };
      let follower: BeaconFollower;
      try {
        follower = await BeaconFollower.open(trust, 10_000, fetch.bind(globalThis));
      } catch (e) {
        // A checkpoint kept from another chain (the demo's chain was made anew): take the node's.
        if (checkpoint === finalized.data.root) throw e;
        trust.checkpoint = finalized.data.root;
        follower = await BeaconFollower.open(trust, 10_000, fetch.bind(globalThis));
      }
      localStorage.setItem('lightprov-demo-beacon-checkpoint', trust.checkpoint);
      const draw = () => {
        const p = follower.participation();
        const age = follower.age();
        out.replaceChildren(
          h(
            'table',
            { class: 'beacon-heads' },
            h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', {}, 'slot'), h('th', {}, 'execution block'), h('th', {}, 'hash'))),
            h('tbody', {}, row('head', follower.head(), 'head'), row('finalized', follower.finalized(), 'finalized'), row('optimistic', follower.optimistic(), 'optimistic')),
          ),
          h(
            'p',
            { id: 'beacon-participation', 'data-signed': p ? String(p.signed) : '', 'data-size': p ? String(p.size) : '' },
            h('span', { class: 'verified' }, h('span', { class: 'tick', 'aria-hidden': 'true' }, '✓'), ' '),
            p ? `${p.signed} of ${p.size} members signed the newest header — their aggregate BLS signature verified in this page` : 'no optimistic update yet',
          ),
          h(
            'p',
            { id: 'beacon-age', 'data-slots': String(age.slots) },
            `the head is ${num(age.slots)} slot${age.slots === 1n ? '' : 's'} (${age.seconds} s) behind the clock (past 300 s, reads of latest throw STALE_HEAD)`,
          ),
          h('p', { class: 'muted' }, 'trusted checkpoint ', hash(trust.checkpoint), ` · current slot ${num(slot)}`),
        );
      };
      draw();
      setInterval(() => {
        void (async () => {
          try {
            slot = BigInt((await getJson<Status>('./lightprov/v1/beacon/status')).currentSlot);
            await follower.refresh();
            draw();
          } catch (e) {
            out.replaceChildren(errorBox(e, 'Following the sync committee'));
          }
        })();
      }, REFRESH_MS);
    } catch (e) {
      out.replaceChildren(errorBox(e, 'Following the sync committee'));
    }
  })();
}
