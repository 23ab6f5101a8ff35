/**
 * Connect: a node URL and a trust anchor (genesis hash + trusted signers). The client verifies
 * every header from genesis on (hash links and a seal by a trusted signer, in wasm); the page
 * shows the verified head and, for the newest headers, the seal check recomputed here: the
 * signer recovered from the seal over keccak256(RLP(header without the seal)).
 */
import { LightClient, type VerifiedHeader, coleRootOf, encodeHeader, lvmtRootsOf } from '@lightprov/sdk';
import { Signature, dataLength, dataSlice, getBytes, keccak256, recoverAddress } from 'ethers';

import { app, rawRpc } from './state.js';
import { busy, byId, errorBox, h, hash, num, withButton } from './ui.js';

const SHOWN_HEADERS = 8;
/** Headers verified per step while catching up from genesis (for the progress bar). */
const STEP = 250n;

export interface SealCheck {
  signer: string;
  trusted: boolean;
}

/** Recovers the sealer of a lightprov-node header (extraData ends with the 65-byte seal). */
export function sealCheck(header: VerifiedHeader, trusted: readonly string[]): SealCheck {
  const len = dataLength(header.extraData);
  if (len < 65) throw new Error(`block ${header.number}: extraData has no seal`);
  const json: Record<string, string> = {};
  for (const [k, v] of Object.entries(header)) {
    if (k === 'hash' || k === 'layout' || v === undefined) continue;
    json[k] = typeof v === 'bigint' ? `0x${v.toString(16)}` : (v as string);
  }
  json['extraData'] = dataSlice(header.extraData, 0, len - 65);
  const seal = dataSlice(header.extraData, len - 65);
  const digest = keccak256(encodeHeader(json).rlp);
  const v = getBytes(seal)[64] ?? 0;
  const signer = recoverAddress(digest, Signature.from({ r: dataSlice(seal, 0, 32), s: dataSlice(seal, 32, 64), v: 27 + v }));
  return { signer, trusted: trusted.some((t) => t.toLowerCase() === signer.toLowerCase()) };
}

/** The head the node claims (unverified: it only sizes the progress bar). */
async function claimedHead(): Promise<bigint | undefined> {
  try {
    return BigInt((await rawRpc('eth_blockNumber', [])) as string);
  } catch {
    return undefined;
  }
}

function renderHead(head: VerifiedHeader): void {
  const roots = lvmtRootsOf(head.extraData);
  const row = (k: string, v: Node | string) => h('div', { class: 'kv' }, h('span', { class: 'k' }, k), h('span', { class: 'v' }, v));
  byId('head').replaceChildren(
    h(
      'div',
      { class: 'head-card', 'data-head': String(head.number) },
      h('div', { class: 'head-number' }, h('span', { class: 'tick' }, '✓'), ` verified head #${num(head.number)}`),
      row('hash', hash(head.hash, 6)),
      row('time', new Date(Number(head.timestamp) * 1000).toLocaleTimeString()),
      row('sealed by', hash(head.miner, 6)),
      row('stateRoot (MPT)', hash(head.stateRoot, 6)),
      row('coleRoot', hash(coleRootOf(head.extraData), 6)),
      row('lvmtRoot', hash(roots.lvmtRoot, 6)),
      row('lvmtHistoryRoot', hash(roots.lvmtHistoryRoot, 6)),
    ),
  );
}

async function renderHeaders(head: VerifiedHeader): Promise<void> {
  const client = app.client;
  if (!client) return;
  const from = head.number >= BigInt(SHOWN_HEADERS) ? head.number - BigInt(SHOWN_HEADERS) + 1n : 0n;
  const headers: VerifiedHeader[] = [];
  for (let n = from > 0n ? from - 1n : 0n; n <= head.number; n++) headers.push(await client.getHeader(n));
  const rows: HTMLElement[] = [];
  for (let i = headers.length - 1; i >= 0; i--) {
    const hd = headers[i] as VerifiedHeader;
    if (hd.number < from) continue;
    const parent = headers[i - 1];
    const linked = hd.number === 0n || (parent !== undefined && parent.hash === hd.parentHash);
    let seal: Node;
    if (hd.number === 0n) {
      seal = h('span', { class: 'muted' }, 'trust anchor (by hash)');
    } else {
      try {
        const s = sealCheck(hd, app.signers);
        seal = h('span', { class: s.trusted ? 'ok' : 'bad' }, s.trusted ? '✓ ' : '✗ ', hash(s.signer), s.trusted ? ' trusted' : ' NOT trusted');
      } catch (e) {
        seal = h('span', { class: 'bad' }, `✗ ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    rows.push(
      h(
        'tr',
        { 'data-block': String(hd.number) },
        h('td', {}, `#${hd.number}`),
        h('td', {}, hash(hd.hash)),
        h('td', { class: linked ? 'ok' : 'bad' }, linked ? '✓' : '✗'),
        h('td', {}, seal),
      ),
    );
  }
  byId('headers').replaceChildren(
    h(
      'table',
      { class: 'table headers' },
      h('thead', {}, h('tr', {}, h('th', {}, 'block'), h('th', {}, 'hash'), h('th', { title: 'parentHash equals the previous header’s hash' }, 'link'), h('th', {}, 'seal: recovered signer'))),
      h('tbody', {}, ...rows),
    ),
    h(
      'p',
      { class: 'note' },
      `Every header from genesis to #${head.number} was checked by the client in WebAssembly (hash link + seal by a trusted signer); the link and seal columns are recomputed here for the newest ${SHOWN_HEADERS}.`,
    ),
  );
}

let polling: ReturnType<typeof setInterval> | undefined;

function startPolling(): void {
  if (polling) clearInterval(polling);
  let inFlight = false;
  polling = setInterval(async () => {
    const client = app.client;
    if (!client || inFlight) return;
    inFlight = true;
    try {
      const head = await client.getHeader('latest');
      byId('head-error').replaceChildren();
      if (!app.head || head.number > app.head.number) {
        app.head = head;
        app.bus.emit('head', head);
        await renderHeaders(head);
      }
    } catch (e) {
      setStatus('head check failed', 'bad');
      byId('head-error').replaceChildren(errorBox(e, 'Following the head'));
    } finally {
      inFlight = false;
    }
  }, 2000);
}

function setStatus(text: string, kind: 'ok' | 'bad' | 'idle'): void {
  const s = byId('status');
  s.textContent = text;
  s.className = `status ${kind}`;
}

async function connect(url: string, genesisHash: string, signers: string[]): Promise<void> {
  const out = byId('connect-out');
  const b = busy(out, 'Connecting and verifying the genesis header…');
  try {
    // lightprov-node's chain: its chain id (from the demo server, 1337 by default) and its forks,
    // every one through Prague from genesis, so that calls (a token's balanceOf, a transfer's gas
    // estimate) run in wasm over proven state under the rules the node executes them by.
    const chainId = BigInt(app.config?.chainId ?? 1337);
    const client = await LightClient.connect({ rpc: [url], trust: { genesisHash, signers, chainId }, chainConfig: { londonBlock: 0, shanghaiTime: 0, cancunTime: 0, pragueTime: 0 } });
    app.client = client;
    app.rpcUrl = url;
    app.signers = signers;
    const claimed = await claimedHead();
    if (claimed !== undefined) {
      for (let n = STEP; n < claimed; n += STEP) {
        b.progress(Number(n), Number(claimed), `Verifying headers from genesis: hash links and seals (${num(n)} of ${num(claimed)} claimed by the node)…`);
        await client.getHeader(n);
      }
    }
    b.label('Verifying the head…');
    const head = await client.getHeader('latest');
    app.head = head;
    b.done();
    out.replaceChildren(h('p', { class: 'ok' }, `✓ connected to ${url}: ${num(head.number + 1n)} headers verified from the trusted genesis.`));
    setStatus(`head #${head.number} verified`, 'ok');
    renderHead(head);
    await renderHeaders(head);
    app.bus.emit('connected', undefined);
    startPolling();
  } catch (e) {
    b.done();
    app.client = undefined;
    setStatus('not connected', 'bad');
    out.replaceChildren(errorBox(e, 'Could not connect'));
  }
}

export function setupConnect(): void {
  // A newer head verified elsewhere (e.g. a transfer's block) shows at once.
  app.bus.on('head', (head) => {
    renderHead(head);
    setStatus(`head #${head.number} verified`, 'ok');
  });
  const form = byId<HTMLFormElement>('connect-form');
  const url = byId<HTMLInputElement>('rpc-url');
  const genesis = byId<HTMLInputElement>('genesis-hash');
  const signers = byId<HTMLInputElement>('signers');
  const c = app.config;
  if (c) {
    url.value = c.rpc;
    genesis.value = c.genesisHash;
    signers.value = c.signer;
  }
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const button = form.querySelector('button') as HTMLButtonElement;
    const list = signers.value.split(/[\s,]+/).filter(Boolean);
    void withButton(button, () => connect(url.value.trim(), genesis.value.trim(), list));
  });
}
