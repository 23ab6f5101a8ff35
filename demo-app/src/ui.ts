/** Small DOM helpers shared by the panels: element builder, hashes, loading states, errors. */
import { formatEther } from 'ethers';

import { explain } from './explain.js';

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | EventListener>;

/** `h('div', {class: 'x', onclick: f}, 'text', child)`. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, ...children);
  return el;
}

export function append(el: Element, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
}

/** `0x1234…abcd`, with the full value as a tooltip. */
export function hash(hex: string | undefined, keep = 4): HTMLElement {
  const s = hex ?? '';
  const text = s.length > 2 + 2 * keep + 1 ? `${s.slice(0, 2 + keep)}…${s.slice(-keep)}` : s;
  return h('code', { class: 'hash', title: s }, text);
}

export function shortHex(hex: string, keep = 4): string {
  return hex.length > 2 + 2 * keep + 1 ? `${hex.slice(0, 2 + keep)}…${hex.slice(-keep)}` : hex;
}

/** Thousands separators for bigints and numbers. */
export function num(v: bigint | number): string {
  return typeof v === 'bigint' ? v.toLocaleString('en-US') : v.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

export function bytes(n: number): string {
  return n < 10_000 ? `${num(n)} B` : `${(n / 1024).toFixed(1)} KiB`;
}

export function ms(v: number): string {
  return v < 10 ? `${v.toFixed(2)} ms` : `${v.toFixed(0)} ms`;
}

/** A value of a state key, in the unit that reads best. */
export function formatValue(kind: 'balance' | 'nonce' | 'storage', v: bigint): string {
  if (kind === 'nonce') return num(v);
  if (kind === 'storage') return v < 2n ** 53n ? num(v) : `0x${v.toString(16)}`;
  return v >= 10n ** 12n ? `${formatEther(v)} ETH` : `${num(v)} wei`;
}

/** The "verified" mark: a tick and against which header. */
export function verifiedMark(what: string, header: { number: bigint; hash: string }): HTMLElement {
  return h(
    'span',
    { class: 'verified', 'data-verified': 'true', 'data-block': String(header.number) },
    h('span', { class: 'tick', 'aria-hidden': 'true' }, '✓'),
    ` verified: ${what} against header #${header.number} `,
    hash(header.hash),
  );
}

/** A loading state: spinner, label, elapsed time and (optionally) a progress bar. */
export interface Busy {
  progress(done: number, total: number, label?: string): void;
  label(text: string): void;
  done(): void;
}

export function busy(container: HTMLElement, label: string): Busy {
  const text = h('span', { class: 'busy-label' }, label);
  const time = h('span', { class: 'busy-time' });
  const bar = h('progress', { class: 'busy-bar', max: 1, hidden: true });
  const box = h('div', { class: 'busy', role: 'status', 'aria-live': 'polite' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), text, time, bar);
  container.replaceChildren(box);
  const t0 = performance.now();
  const timer = setInterval(() => {
    const s = (performance.now() - t0) / 1000;
    if (s >= 1) time.textContent = ` ${s.toFixed(0)} s`;
  }, 250);
  return {
    progress(done, total, l) {
      bar.hidden = false;
      bar.max = Math.max(1, total);
      bar.value = done;
      if (l) text.textContent = l;
    },
    label(l) {
      text.textContent = l;
    },
    done() {
      clearInterval(timer);
      box.remove();
    },
  };
}

/** An error box: plain words, with the code beside them. */
export function errorBox(e: unknown, context?: string): HTMLElement {
  const x = explain(e);
  return h(
    'div',
    { class: x.rejected ? 'error rejected' : 'error', role: 'alert', 'data-code': x.code },
    h('div', { class: 'error-head' }, h('strong', {}, context ? `${context}: ${x.title}` : x.title), h('code', { class: 'code' }, x.code)),
    h('p', {}, x.words),
    h('details', {}, h('summary', {}, 'details'), h('pre', {}, x.detail)),
  );
}

/** Disables a button while `f` runs. */
export async function withButton<T>(button: HTMLButtonElement, f: () => Promise<T>): Promise<T> {
  button.disabled = true;
  try {
    return await f();
  } finally {
    button.disabled = false;
  }
}
