/**
 * Forgery mode: fetch an honest proof for the picked key and range, check that it verifies,
 * tamper with it — each tamper is a tamper class of the family's registry entry (`families()`),
 * the one the shared invalid vectors are named after (a changed value, a hidden version, a
 * structure left out, a stale LVMT tuple, …) — verify the forgery with the same SDK function
 * against the same verified header, and show the rejection with its code. The forged proof's
 * contents are never shown as values.
 */
import {
  type HistoryScheme,
  LvmtParams,
  type VerifiedHeader,
  coleRootOf,
  families,
  hexToBytes,
  isVerificationError,
  lvmtRootsOf,
  verifyAccountProof,
  verifyColeHistory,
  verifyLvmtHistory,
} from '@lightprov/sdk';
import {
  FORGERIES,
  type ForgeFamily,
  type ForgeryKind,
  type ProofOutline,
  forgeProof,
  outlineColeProof,
  outlineLvmtHistory,
  outlineMptProof,
} from '@lightprov/sdk/inspect';

import { pickedFromControls } from './accounts.js';
import { explain } from './explain.js';
import { currentScheme, queryFromControls, schemeLabel } from './history.js';
import { outlineView } from './inspector.js';
import { type PickedKey, app, client, rawRpc } from './state.js';
import { busy, byId, bytes, errorBox, h, hash, num, verifiedMark, withButton } from './ui.js';

let params: LvmtParams | undefined;

/** LVMT parameters, pinned by the verified genesis header's mixHash. */
async function lvmtParams(): Promise<LvmtParams> {
  if (params) return params;
  const genesis = await client().getHeader(0n);
  const raw = (await rawRpc('lightprov_params', [])) as { lvmt?: { params?: string } };
  params = LvmtParams.fromBytes(raw.lvmt?.params ?? '', genesis.mixHash);
  return params;
}

interface Honest {
  proof: unknown;
  bytes: number;
  anchor: VerifiedHeader;
  what: string;
  /** Verifies a proof (honest or forged) against the same header; throws VerificationError. */
  verify(proof: unknown): void;
  outline(proof: unknown): Promise<ProofOutline>;
}

const hex = (n: bigint) => `0x${n.toString(16)}`;

async function fetchHonest(scheme: HistoryScheme, picked: PickedKey, from: bigint, to: bigint): Promise<Honest> {
  const c = client();
  const { key } = picked;
  if (scheme === 'mpt') {
    const anchor = app.head ?? (await c.getHeader('latest'));
    const slots = key.kind === 'storage' && key.slot ? [key.slot] : [];
    const proof = await rawRpc('eth_getProof', [key.address, slots, { blockHash: anchor.hash }]);
    return {
      proof,
      bytes: JSON.stringify(proof).length,
      anchor,
      what: `eth_getProof answer for block #${anchor.number}`,
      verify: (p) => void verifyAccountProof(p, anchor.stateRoot),
      outline: (p) => outlineMptProof({ proof: p, stateRoot: anchor.stateRoot }),
    };
  }
  const raw = (await rawRpc('lightprov_getHistory', [key.stateKey, hex(from), hex(to), scheme])) as { block: string; siblingRoot?: string; proof: string };
  const anchor = await c.getHeader(BigInt(raw.block));
  const what = `${schemeLabel(scheme)} proof of blocks ${num(from)}…${num(to)}`;
  const size = hexToBytes(raw.proof, 'proof').length;
  if (scheme === 'lvmt') {
    const p = await lvmtParams();
    const anchorArg = { ...lvmtRootsOf(anchor.extraData), number: anchor.number };
    return {
      proof: raw.proof,
      bytes: size,
      anchor,
      what,
      verify: (proof) => void verifyLvmtHistory({ params: p, anchor: anchorArg, stateKey: key.stateKey, fromBlock: from, toBlock: to, proof: proof as Uint8Array | string }),
      outline: (proof) => outlineLvmtHistory({ proof: proof as Uint8Array | string, stateKey: key.stateKey, fromBlock: from, toBlock: to, anchor: anchorArg }),
    };
  }
  const args = { stateKey: key.stateKey, fromBlock: from, toBlock: to, coleRoot: coleRootOf(anchor.extraData), siblingRoot: raw.siblingRoot ?? '', scheme };
  return {
    proof: raw.proof,
    bytes: size,
    anchor,
    what,
    verify: (proof) => void verifyColeHistory({ ...args, proof: proof as Uint8Array | string }),
    outline: (proof) => outlineColeProof({ ...args, proof: proof as Uint8Array | string }),
  };
}

function fillKinds(): void {
  const scheme = byId<HTMLSelectElement>('forgery-scheme').value as ForgeFamily;
  const select = byId<HTMLSelectElement>('forgery-kind');
  const keep = select.value;
  const list = FORGERIES[scheme === 'cole-star' ? 'cole' : scheme];
  select.replaceChildren(...list.map((f) => h('option', { value: f.kind }, `${f.label} (${f.kind})`)));
  if (list.some((f) => f.kind === keep)) select.value = keep;
}

async function runForgery(): Promise<void> {
  const out = byId('forgery-out');
  const scheme = byId<HTMLSelectElement>('forgery-scheme').value as ForgeFamily;
  const kind = byId<HTMLSelectElement>('forgery-kind').value as ForgeryKind;
  const q = queryFromControls(out);
  if (!q) return;
  const { picked, r } = q;
  const b = busy(out, `Fetching the honest ${schemeLabel(scheme)} proof and verifying it…`);
  let honest: Honest;
  try {
    honest = await fetchHonest(scheme, picked, r.from, r.to);
    honest.verify(honest.proof);
  } catch (e) {
    b.done();
    out.replaceChildren(errorBox(e, 'The honest proof'));
    return;
  }
  b.done();
  const honestLine = h('div', { class: 'step' }, h('span', { class: 'step-n' }, '1'), verifiedMark(`the honest ${honest.what} (${bytes(honest.bytes)})`, honest.anchor));
  let forged: { proof: unknown; description: string; expectedCode: string };
  try {
    forged = await forgeProof({ family: scheme, kind, proof: honest.proof });
  } catch (e) {
    out.replaceChildren(
      honestLine,
      h('div', { class: 'step' }, h('span', { class: 'step-n' }, '2'), h('span', {}, 'This tamper does not apply to this proof (pick another key, range or tamper):')),
      errorBox(e),
    );
    return;
  }
  let verdict: HTMLElement;
  let code = 'ACCEPTED';
  try {
    honest.verify(forged.proof);
    verdict = h('div', { class: 'error', role: 'alert', 'data-code': code }, h('strong', {}, '⚠ The tampered proof verified. This is a bug in the verifier; its contents are not shown.'));
  } catch (e) {
    const x = explain(e);
    code = x.code;
    verdict = h(
      'div',
      { class: 'rejection', role: 'alert', 'data-code': x.code, id: 'forgery-verdict' },
      h('div', { class: 'error-head' }, h('strong', {}, isVerificationError(e) ? '✗ Rejected by the verifier' : `✗ ${x.title}`), h('code', { class: 'code' }, x.code)),
      h('p', {}, x.words),
      h('p', { class: x.code === forged.expectedCode ? 'ok' : 'muted' }, x.code === forged.expectedCode ? `✓ the code this tamper must get (${forged.expectedCode})` : `expected ${forged.expectedCode}; got ${x.code}`),
      h('details', {}, h('summary', {}, 'details'), h('pre', {}, x.detail)),
    );
  }
  let drawing: Node | string = '';
  try {
    const o = await honest.outline(forged.proof);
    drawing = h('details', { class: 'forged-outline' }, h('summary', {}, 'Draw the forged proof (its recomputed root vs the header)'), outlineView(o, true));
  } catch (e) {
    drawing = h('p', { class: 'muted' }, `The forged proof does not even decode (${explain(e).code}).`);
  }
  const registry = scheme === 'cole-star' ? 'cole' : scheme;
  const about = families()
    .find((f) => f.name === registry)
    ?.tampers.find((t) => t.name === kind)?.about;
  out.replaceChildren(
    honestLine,
    h(
      'div',
      { class: 'step' },
      h('span', { class: 'step-n' }, '2'),
      h('span', { class: 'step-text' }, 'Tampered, tamper class ', h('code', {}, kind), about ? ` (${about}): ` : ': ', forged.description),
    ),
    h('div', { class: 'step' }, h('span', { class: 'step-n' }, '3'), h('span', {}, `Verified the tampered proof against the same header #${num(honest.anchor.number)} `), hash(honest.anchor.hash)),
    verdict,
    drawing,
    h('p', { class: 'note' }, 'Nothing from the tampered proof is displayed as a value: only the honest, verified answer counts.'),
  );
  out.dataset['code'] = code;
}

export function setupForgery(): void {
  const toggle = byId<HTMLInputElement>('forgery-mode');
  const controls = byId('forgery-controls');
  const sync = () => {
    controls.hidden = !toggle.checked;
    byId('forgery-panel').classList.toggle('armed', toggle.checked);
    if (toggle.checked) {
      byId<HTMLSelectElement>('forgery-scheme').value = currentScheme();
      fillKinds();
    }
  };
  toggle.addEventListener('change', sync);
  byId('forgery-scheme').addEventListener('change', fillKinds);
  byId('run-forgery').addEventListener('click', () => {
    if (app.client) void withButton(byId<HTMLButtonElement>('run-forgery'), runForgery);
  });
  app.bus.on('connected', () => {
    byId<HTMLButtonElement>('run-forgery').disabled = false;
  });
  sync();
}
