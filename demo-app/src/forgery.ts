/**
 * Forgery mode: get the picked key's history over the range from the client (verified), take
 * the proof behind it (`historyProof`), tamper with it (`forgeProof`) — each tamper is a tamper
 * class of the family's registry entry (`families()`), the one the shared invalid vectors are
 * named after — verify the forgery in its place against the same verified header
 * (`client.verifyHistoryProof`), and show the rejection with its code and the forgery drawn
 * (`outlineHistory`). The forged proof's contents are never shown as values. No family is named
 * here: the SDK's registries (`READERS`, `INSPECTORS`, `families()`) dispatch.
 */
import { type HistoryScheme, type VerifiedHistory, families, historyProof, isVerificationError } from '@lightprov/sdk';
import { type ForgeryKind, forgeProof, inspectorFor, outlineHistory } from '@lightprov/sdk/inspect';

import { explain } from './explain.js';
import { SCHEMES, currentScheme, queryFromControls, schemeLabel, verifiedHistory } from './history.js';
import { outlineView } from './inspector.js';
import { type PickedKey, app, client } from './state.js';
import { type Busy, busy, byId, bytes, errorBox, h, hash, num, verifiedMark, withButton } from './ui.js';

/** An honest, verified history and the proof behind it (the SDK's `historyProof`). */
interface Honest {
  history: VerifiedHistory;
  proof: unknown;
  bytes: number;
  what: string;
}

/**
 * The honest proof: the picked key's history over the range, verified by the client as the
 * history view asks it (the family says which proof is behind it: `historyProof`).
 */
async function fetchHonest(scheme: HistoryScheme, picked: PickedKey, from: bigint, to: bigint, b: Busy): Promise<Honest> {
  const history = await verifiedHistory(client(), picked.key, scheme, from, to, b);
  return { history, ...historyProof(history) };
}

/** Whether the inspector forges proofs of `scheme` (every history scheme of the registry does). */
function forgeable(scheme: string): boolean {
  try {
    return inspectorFor(scheme).forgeries.length > 0;
  } catch {
    return false;
  }
}

/** The schemes to tamper with: the registry's history schemes the inspector forges. */
function fillSchemes(): void {
  const select = byId<HTMLSelectElement>('forgery-scheme');
  select.replaceChildren(...SCHEMES.filter((s) => forgeable(s.id)).map((s) => h('option', { value: s.id }, s.label)));
}

function fillKinds(): void {
  const scheme = byId<HTMLSelectElement>('forgery-scheme').value;
  const select = byId<HTMLSelectElement>('forgery-kind');
  const keep = select.value;
  const list = inspectorFor(scheme).forgeries;
  select.replaceChildren(...list.map((f) => h('option', { value: f.kind }, `${f.label} (${f.kind})`)));
  if (list.some((f) => f.kind === keep)) select.value = keep;
}

async function runForgery(): Promise<void> {
  const out = byId('forgery-out');
  const scheme = byId<HTMLSelectElement>('forgery-scheme').value as HistoryScheme;
  const kind = byId<HTMLSelectElement>('forgery-kind').value as ForgeryKind;
  const q = queryFromControls(out);
  if (!q) return;
  const { picked, r } = q;
  const b = busy(out, `Fetching the honest ${schemeLabel(scheme)} proof and verifying it…`);
  let honest: Honest;
  try {
    honest = await fetchHonest(scheme, picked, r.from, r.to, b);
    client().verifyHistoryProof(honest.history, honest.proof);
  } catch (e) {
    b.done();
    out.replaceChildren(errorBox(e, 'The honest proof'));
    return;
  }
  b.done();
  const honestLine = h('div', { class: 'step' }, h('span', { class: 'step-n' }, '1'), h('span', { class: 'step-text' }, verifiedMark(`the honest ${honest.what} (${bytes(honest.bytes)}) for ${picked.label}`, honest.history.anchor)));
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
    client().verifyHistoryProof(honest.history, forged.proof);
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
    const o = await outlineHistory(honest.history, forged.proof);
    drawing = h('details', { class: 'forged-outline' }, h('summary', {}, 'Draw the forged proof (its recomputed root vs the header)'), outlineView(o, true));
  } catch (e) {
    drawing = h('p', { class: 'muted' }, `The forged proof does not even decode (${explain(e).code}).`);
  }
  const registry = inspectorFor(scheme).family;
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
    h('div', { class: 'step' }, h('span', { class: 'step-n' }, '3'), h('span', {}, `Verified the tampered proof against the same header #${num(honest.history.anchor.number)} `), hash(honest.history.anchor.hash)),
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
      const select = byId<HTMLSelectElement>('forgery-scheme');
      if ([...select.options].some((o) => o.value === currentScheme())) select.value = currentScheme();
      fillKinds();
    }
  };
  fillSchemes();
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
