/**
 * Proof inspector: draws the proof behind the last history as its family's inspector outlines
 * it (`outlineHistory` of `@lightprov/sdk/inspect`: the structures, levels or trie paths the
 * proof holds), hashes abbreviated, and the root recomputed from the proof next to the root in
 * the verified header. No family is named here: the SDK's registries dispatch.
 */
import { historyProof } from '@lightprov/sdk';
import { type ProofNode, type ProofOutline, type RootCheck, outlineHistory } from '@lightprov/sdk/inspect';

import { type HistoryResult, app } from './state.js';
import { byId, bytes, errorBox, h, hash } from './ui.js';

const MAX_CHILDREN = 24;
const OPEN_DEPTH = 3;

/** Whether a subtree reveals a result (the key's versions): such paths are drawn open. */
function revealsResult(n: ProofNode): boolean {
  return n.kind === 'result' || n.children.some(revealsResult);
}

function nodeView(n: ProofNode, depth: number): HTMLElement {
  const head = h(
    'span',
    { class: `pnode kind-${n.kind}` },
    h('span', { class: 'badge' }, n.kind),
    h('span', { class: 'plabel' }, n.label),
    n.hash ? hash(n.hash) : '',
    n.detail ? h('span', { class: 'pdetail' }, n.detail) : '',
    n.range ? h('span', { class: 'prange', title: 'byte offsets in the proof' }, `[${n.range[0]}…${n.range[1]})`) : '',
  );
  if (n.children.length === 0) return h('li', {}, head);
  const list = h('ul', {});
  const shown = n.children.slice(0, MAX_CHILDREN);
  for (const c of shown) list.append(nodeView(c, depth + 1));
  if (n.children.length > MAX_CHILDREN) {
    const rest = n.children.slice(MAX_CHILDREN);
    const more = h('li', {}, h('button', { type: 'button', class: 'link' }, `show ${rest.length} more`));
    more.querySelector('button')?.addEventListener('click', () => {
      more.replaceWith(...rest.map((c) => nodeView(c, depth + 1)));
    });
    list.append(more);
  }
  return h('li', {}, h('details', { open: depth < OPEN_DEPTH || revealsResult(n) }, h('summary', {}, head), list));
}

/** A strip showing where the top-level parts sit in the proof's bytes. */
function layoutStrip(o: ProofOutline): HTMLElement {
  const parts = o.tree.children.filter((c) => c.range);
  const strip = h('div', { class: 'strip', role: 'img', 'aria-label': 'proof layout by bytes' });
  for (const p of parts) {
    const [a, b] = p.range as [number, number];
    const w = Math.max(0.5, ((b - a) / Math.max(1, o.bytes)) * 100);
    strip.append(h('span', { class: `seg kind-${p.kind}`, style: `width:${w}%`, title: `${p.label}: ${bytes(b - a)}` }));
  }
  return strip;
}

function rootView(r: RootCheck): HTMLElement {
  return h(
    'div',
    { class: `root-check ${r.matches ? 'ok' : 'bad'}`, 'data-matches': String(r.matches) },
    h('div', {}, h('span', { class: 'k' }, `recomputed ${r.label}`), r.recomputed ? hash(r.recomputed, 8) : h('span', { class: 'muted' }, '(no tree fits the paths)')),
    h('div', {}, h('span', { class: 'k' }, 'in the verified header'), hash(r.expected, 8)),
    h('div', { class: 'verdict' }, r.matches ? '✓ equal: the proof leads to the header' : '✗ different: this proof does not lead to the header'),
  );
}

/** Every other comparison the outline made (LVMT: each tuple; MPT: storage roots), compact. */
function allRoots(o: ProofOutline): HTMLElement | string {
  const rest = (o.roots ?? []).filter((r) => !(r.label === o.root.label && r.recomputed === o.root.recomputed && r.expected === o.root.expected));
  if (rest.length === 0) return '';
  const bad = rest.filter((r) => !r.matches).length;
  return h(
    'details',
    { class: 'all-roots', open: bad > 0 },
    h('summary', {}, `${rest.length} more comparison${rest.length === 1 ? '' : 's'}: ${bad === 0 ? 'all equal' : `${bad} differ`}`),
    h(
      'div',
      { class: 'scroll-x' },
      h(
        'table',
        { class: 'table' },
        h('thead', {}, h('tr', {}, h('th', {}, 'recomputed'), h('th', {}, 'value'), h('th', {}, 'expected'), h('th', {}, ''))),
        h(
          'tbody',
          {},
          ...rest.map((r) =>
            h('tr', {}, h('td', {}, r.label), h('td', {}, r.recomputed ? hash(r.recomputed) : '—'), h('td', {}, hash(r.expected)), h('td', { class: r.matches ? 'ok' : 'bad' }, r.matches ? '✓' : '✗')),
          ),
        ),
      ),
    ),
  );
}

/** Draws an outline; `forged` marks a tampered proof (never presented as fact). */
export function outlineView(o: ProofOutline, forged = false): HTMLElement {
  return h(
    'div',
    { class: forged ? 'outline forged' : 'outline', 'data-family': o.family },
    forged ? h('p', { class: 'forged-tag' }, 'FORGED PROOF — drawn for inspection only; nothing in it is a verified value') : '',
    h('p', { class: 'muted' }, `${o.family} proof, ${bytes(o.bytes)}`),
    layoutStrip(o),
    rootView(o.root),
    allRoots(o),
    h('ul', { class: 'ptree' }, nodeView(o.tree, 0)),
  );
}

async function render(r: HistoryResult): Promise<void> {
  const out = byId('inspector-out');
  try {
    // The inspector's wasm module is loaded on the first outline.
    const o = await outlineHistory(r.history);
    const which = historyProof(r.history).what;
    out.replaceChildren(h('p', {}, `Drawing the ${which} behind the history of `, h('strong', {}, r.picked.label), '.'), outlineView(o));
  } catch (e) {
    out.replaceChildren(errorBox(e, 'Drawing the proof'));
  }
}

export function setupInspector(): void {
  app.bus.on('history', (r) => void render(r));
}
