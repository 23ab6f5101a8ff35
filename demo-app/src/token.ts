/**
 * Token balance: the picked account's balance of an ERC-20 by a verified `eth_call` of
 * `balanceOf` (the token's code run in WebAssembly over state proven against a verified header:
 * the accounts and slots proven and the round trips are shown), the slot of the token's balances
 * mapping found by the SDK's verified probe (`client.keys.erc20Balance`), then that balance's
 * history drawn in the timeline by the chosen scheme: the key becomes the picked key, so the
 * inspector, the comparison and forgery mode work on it as on an ether balance.
 */
import { type CallStats, type Erc20BalanceKey, SlotProbeError, type VerifiedHeader } from '@lightprov/sdk';

import { pickAddress, pickedAddress, pickedToken } from './accounts.js';
import { drawHistory } from './history.js';
import { app, client } from './state.js';
import { busy, byId, errorBox, h, hash, ms, num, verifiedMark, withButton } from './ui.js';

const ZERO_ADDRESS = '0x' + '00'.repeat(20);

/** What the call proved: each account with its slots, named where the page knows it. */
function provenList(stats: CallStats, names: ReadonlyMap<string, string>): HTMLElement {
  const named = (hex: string) => [hash(hex), names.has(hex) ? h('span', { class: 'muted' }, ` ${names.get(hex)}`) : ''];
  return h(
    'ul',
    { class: 'proven', id: 'token-proven', 'aria-label': 'accounts and storage slots proven' },
    ...stats.proven.map((p) =>
      h(
        'li',
        { 'data-address': p.address },
        h('div', {}, ...named(p.address)),
        p.slots.length === 0
          ? h('div', { class: 'slots muted' }, 'the account (no slot)')
          : h('div', { class: 'slots' }, `slot${p.slots.length === 1 ? '' : 's'} `, ...p.slots.flatMap((s, i) => [i > 0 ? ', ' : '', ...named(s)])),
      ),
    ),
  );
}

function callSummary(stats: CallStats): HTMLElement {
  return h(
    'p',
    { class: 'note', id: 'token-call-stats', 'data-rounds': String(stats.rounds), 'data-accounts': String(stats.accounts), 'data-slots': String(stats.slots) },
    `${stats.rounds} round trip${stats.rounds === 1 ? '' : 's'} to the node (${stats.hinted ? 'its access-list hint, then the proofs' : 'no usable access-list hint; proofs fetched as the EVM stopped'}), `,
    `${stats.accounts} account${stats.accounts === 1 ? '' : 's'} and ${stats.slots} storage slot${stats.slots === 1 ? '' : 's'} proven, `,
    `${stats.codes} code${stats.codes === 1 ? '' : 's'} (${num(stats.codeBytes)} B) checked against proven code hashes, `,
    `${stats.runs} EVM run${stats.runs === 1 ? '' : 's'}, ${ms(stats.computeMs)} in WebAssembly; ${num(stats.bytes)} B of answers.`,
  );
}

async function readToken(): Promise<void> {
  const out = byId('token-out');
  let holder: string;
  let token: string;
  try {
    holder = pickedAddress();
    token = pickedToken();
  } catch (e) {
    out.replaceChildren(errorBox(e));
    return;
  }
  const c = client();
  delete out.dataset['slot'];
  const b = busy(out, 'Running balanceOf in WebAssembly over proven state, then proving the candidate mapping entries…');
  let key: Erc20BalanceKey | undefined;
  let refusal: SlotProbeError | undefined;
  try {
    key = await c.keys.erc20Balance(token, holder);
  } catch (e) {
    if (!(e instanceof SlotProbeError) || e.call === undefined || e.balance === undefined) {
      b.done();
      out.replaceChildren(errorBox(e, 'Reading the token balance'));
      return;
    }
    refusal = e;
  }
  let header: VerifiedHeader;
  let balance: bigint;
  let stats: CallStats;
  try {
    if (key?.probe) ({ header, balance, call: stats } = key.probe);
    else {
      const r = refusal as SlotProbeError;
      header = await c.getHeader(r.block);
      balance = r.balance as bigint;
      stats = r.call as CallStats;
    }
  } catch (e) {
    b.done();
    out.replaceChildren(errorBox(e, 'Reading the token balance'));
    return;
  }
  b.done();
  const t = token.toLowerCase();
  const names = new Map<string, string>([
    [t, '(the token)'],
    [ZERO_ADDRESS, '(the caller: eth_call’s default)'],
    [header.miner.toLowerCase(), '(the coinbase)'],
  ]);
  if (key) names.set(key.slot, `(balances[holder], mapping at slot ${key.slotIndex})`);
  const parts: (Node | string)[] = [
    h('div', { class: 'value-row' }, h('span', { class: 'k' }, 'balanceOf'), h('strong', { class: 'v', id: 'token-balance', 'data-value': String(balance) }, `${num(balance)} units`)),
    verifiedMark(`eth_call run in WebAssembly (revm) over proven state`, header),
    callSummary(stats),
    h('p', { class: 'note' }, 'Proven against that header, each by its eth_getProof:'),
    provenList(stats, names),
  ];
  let slot: bigint;
  if (key?.probe) {
    slot = key.slotIndex;
    app.tokenSlots.set(t, { slotIndex: slot, holder, block: header.number });
    parts.push(
      h(
        'p',
        { class: 'note', id: 'token-probe' },
        h('strong', { class: 'ok' }, '✓ Probe: '),
        `one storage proof of the holder's entries in mappings at slots 0…${key.probe.candidates - 1}, against the same header: only slot ${slot}'s holds ${num(balance)}. `,
        'The history key is that entry: ',
        hash(key.slot, 6),
        ` of the token. The probe shows what the slot held at #${num(header.number)}, not that the token keeps balances there at every block.`,
      ),
    );
  } else {
    const r = refusal as SlotProbeError;
    parts.push(errorBox(r, 'The probe'));
    const known = app.tokenSlots.get(t);
    if (!known) {
      out.replaceChildren(...parts);
      return;
    }
    slot = known.slotIndex;
    parts.push(h('p', { class: 'note', id: 'token-probe' }, `Using slot ${slot}, which the probe with ${known.holder.slice(0, 8)}… found at #${num(known.block)} (the slot is the token's, not the holder's).`));
  }
  out.replaceChildren(...parts);
  out.dataset['slot'] = String(slot);
  out.dataset['block'] = String(header.number);
  // The token balance becomes the picked key: read by MPT and LVMT, then its history drawn.
  await pickAddress(holder, 'erc20');
  await drawHistory();
}

export function setupToken(): void {
  const input = byId<HTMLInputElement>('token-address');
  const token = app.config?.workload?.token;
  if (token) input.value = token;
  byId<HTMLFormElement>('token-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (app.client) void withButton(byId<HTMLButtonElement>('read-token'), readToken);
  });
  app.bus.on('connected', () => {
    byId<HTMLButtonElement>('read-token').disabled = false;
  });
}
