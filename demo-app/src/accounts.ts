/**
 * Account / state key picker. The balance and nonce shown are verified by an MPT proof
 * (`eth_getProof`) against a verified header's stateRoot; the picked key's value is also shown
 * as LVMT proves it, against the head's lvmtRoot. Each value carries the header it was
 * checked against.
 */
import type { StateKey } from '@lightprov/sdk';
import { isAddress } from 'ethers';

import { type PickedKey, app, client, workloadAccount } from './state.js';
import { busy, byId, errorBox, formatValue, h, hash, verifiedMark, withButton } from './ui.js';

const WORKLOAD_SHOWN = 12;

function fillPicker(): void {
  const select = byId<HTMLSelectElement>('account');
  const keep = select.value;
  select.replaceChildren();
  const dev = app.config?.accounts ?? [];
  if (dev.length > 0) {
    select.append(
      h('optgroup', { label: 'Dev accounts (funded; their keys are public)' }, ...dev.map((a, i) => h('option', { value: a.address }, `dev ${i} · ${a.address.slice(0, 8)}…${a.address.slice(-4)}`))),
    );
  }
  const workload = app.config?.workload?.kind;
  if (!app.config || workload === 'transfer' || workload === 'erc20') {
    const accts = Array.from({ length: WORKLOAD_SHOWN }, (_, i) => workloadAccount(i));
    const what = workload === 'erc20' ? 'token balances, and ether balances by the gas they pay, change every few blocks' : 'balances change every few blocks';
    select.append(h('optgroup', { label: `Workload accounts (${what})` }, ...accts.map((a, i) => h('option', { value: a }, `acct ${i} · ${a.slice(0, 8)}…${a.slice(-4)}`))));
  }
  select.append(h('option', { value: 'custom' }, 'another address…'));
  if (keep && [...select.options].some((o) => o.value === keep)) select.value = keep;
  else if (workload === 'transfer' || workload === 'erc20') select.value = workloadAccount(0);
}

function labelOf(address: string): string {
  const dev = app.config?.accounts.findIndex((a) => a.address.toLowerCase() === address.toLowerCase()) ?? -1;
  if (dev >= 0) return `dev ${dev}`;
  for (let i = 0; i < WORKLOAD_SHOWN; i++) if (workloadAccount(i).toLowerCase() === address.toLowerCase()) return `acct ${i}`;
  return `${address.slice(0, 8)}…${address.slice(-4)}`;
}

/** The account the picker names (throws a TypeError in words for bad input). */
export function pickedAddress(): string {
  const select = byId<HTMLSelectElement>('account');
  const address = select.value === 'custom' ? byId<HTMLInputElement>('custom-address').value.trim() : select.value;
  if (!isAddress(address)) throw new TypeError(`“${address}” is not an address (0x followed by 40 hex digits)`);
  return address;
}

/** The token the token panel names (throws a TypeError in words for bad input). */
export function pickedToken(): string {
  const token = byId<HTMLInputElement>('token-address').value.trim();
  if (!isAddress(token)) throw new TypeError(`the token “${token}” is not an address (0x followed by 40 hex digits)`);
  return token;
}

/** The key the controls describe (throws a TypeError in words for bad input). */
export function pickedFromControls(): PickedKey {
  const address = pickedAddress();
  const kind = byId<HTMLSelectElement>('key-kind').value as StateKey['kind'] | 'erc20';
  const c = client();
  if (kind === 'erc20') {
    const token = pickedToken();
    const found = app.tokenSlots.get(token.toLowerCase());
    if (!found) throw new TypeError('the token’s balances slot is not known yet: read a token balance in panel 3, whose verified probe finds it');
    return {
      key: c.keys.mapping(token, found.slotIndex, address),
      label: `${labelOf(address)} · token balance`,
      token: { address: token, owner: address, slotIndex: found.slotIndex },
    };
  }
  if (kind === 'storage') {
    const slot = byId<HTMLInputElement>('slot').value.trim() || '0';
    let s: bigint;
    try {
      s = BigInt(slot);
    } catch {
      throw new TypeError(`“${slot}” is not a slot number (decimal or 0x-hex)`);
    }
    return { key: c.keys.storage(address, s), label: `${labelOf(address)} · slot ${slot}` };
  }
  return { key: kind === 'nonce' ? c.keys.nonce(address) : c.keys.balance(address), label: `${labelOf(address)} · ${kind}` };
}

/** Selects `address` (adding it as a custom one if needed) and reads it. */
export async function pickAddress(address: string, kind: StateKey['kind'] | 'erc20' = 'balance'): Promise<void> {
  const select = byId<HTMLSelectElement>('account');
  if ([...select.options].some((o) => o.value === address)) select.value = address;
  else {
    select.value = 'custom';
    byId<HTMLInputElement>('custom-address').value = address;
  }
  byId<HTMLSelectElement>('key-kind').value = kind;
  syncControls();
  await readAccount();
}

function syncControls(): void {
  byId('custom-row').hidden = byId<HTMLSelectElement>('account').value !== 'custom';
  byId('slot-row').hidden = byId<HTMLSelectElement>('key-kind').value !== 'storage';
}

export async function readAccount(): Promise<void> {
  const out = byId('account-out');
  let picked: PickedKey;
  try {
    picked = pickedFromControls();
  } catch (e) {
    out.replaceChildren(errorBox(e));
    return;
  }
  app.picked = picked;
  app.bus.emit('key', picked);
  const c = client();
  const b = busy(out, `Fetching and verifying the MPT proof for ${picked.label}…`);
  const { key } = picked;
  try {
    const value = await c.getValueDetailed(key, { scheme: 'mpt' });
    // Balance and nonce from the same verified header (its proof is fetched again, and checked).
    // (A token balance's key is the token's storage: the holder's own account is shown beside it.)
    const account = await c.getAccount(picked.token?.owner ?? key.address, [], value.anchor.number);
    b.label('Fetching and verifying the LVMT proof…');
    const rows: HTMLElement[] = [
      h('div', { class: 'value-row' }, h('span', { class: 'k' }, 'balance'), h('strong', { id: 'balance-value', class: 'v' }, formatValue('balance', account.balance))),
      h('div', { class: 'value-row' }, h('span', { class: 'k' }, 'nonce'), h('strong', { class: 'v' }, formatValue('nonce', account.nonce))),
    ];
    if (picked.token) {
      rows.push(h('div', { class: 'value-row' }, h('span', { class: 'k' }, 'token balance'), h('strong', { class: 'v' }, `${formatValue('storage', value.value)} units`)));
    } else if (key.kind === 'storage') {
      rows.push(h('div', { class: 'value-row' }, h('span', { class: 'k' }, `slot ${BigInt(key.slot ?? '0')}`), h('strong', { class: 'v' }, formatValue('storage', value.value))));
    }
    out.replaceChildren(
      h('div', { class: 'account-values' }, ...rows),
      verifiedMark(`MPT proof (${value.proofBytes} B of eth_getProof) of state root ${value.anchor.stateRoot.slice(0, 8)}…`, value.anchor),
      account.exists ? '' : h('p', { class: 'note' }, 'The proof shows that no account exists at this address (balance and nonce 0).'),
      h(
        'div',
        { class: 'state-key' },
        h('span', { class: 'k' }, 'state key'),
        hash(key.stateKey, 8),
        h(
          'span',
          { class: 'muted' },
          picked.token
            ? ` = keccak256(0x03 ‖ token ‖ slot), slot = keccak256(pad32(holder) ‖ pad32(${picked.token.slotIndex}))`
            : ` = keccak256(0x0${key.kind === 'balance' ? 1 : key.kind === 'nonce' ? 2 : 3} ‖ address${key.kind === 'storage' ? ' ‖ slot' : ''})`,
        ),
      ),
      h('div', { id: 'lvmt-value' }),
    );
    b.done();
    const lv = byId('lvmt-value');
    const b2 = busy(lv, 'Verifying the same key by LVMT (AMT openings, one pairing check)…');
    try {
      const l = await c.getValueDetailed(key, { scheme: 'lvmt' });
      b2.done();
      lv.replaceChildren(
        h(
          'div',
          { class: 'value-row' },
          h('span', { class: 'k' }, 'by LVMT'),
          h('strong', { class: 'v' }, l.present ? formatValue(key.kind, l.value) : 'never written (proven absent)'),
          l.present ? h('span', { class: 'muted' }, ` version ${l.version}, written in block ${l.writtenAt}`) : '',
        ),
        verifiedMark(`LVMT proof (${l.proofBytes} B, ${l.verifyMs.toFixed(1)} ms) of lvmtRoot`, l.anchor),
      );
    } catch (e) {
      b2.done();
      lv.replaceChildren(errorBox(e, 'LVMT'));
    }
  } catch (e) {
    b.done();
    out.replaceChildren(errorBox(e, `Reading ${picked.label}`));
  }
}

export function setupAccounts(): void {
  fillPicker();
  syncControls();
  for (const id of ['account', 'key-kind']) byId(id).addEventListener('change', syncControls);
  byId<HTMLFormElement>('account-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!app.client) return;
    void withButton(byId<HTMLButtonElement>('read-account'), readAccount);
  });
  app.bus.on('connected', () => {
    byId<HTMLButtonElement>('read-account').disabled = false;
  });
}
