/**
 * The POS-Tree family's SDK functions on the shared vectors: their answers, caller mistakes
 * named by field (TypeError/RangeError, never a verification code), a claimed value checked,
 * and the scheme lookups of `getRange`/`getDiff`.
 */
import { VerificationError, init, isVerificationError } from '@lightprov/sdk';
import { posRootOf, verifyPosDiff, verifyPosHistory, verifyPosRange, verifyPosValue } from '@lightprov/sdk/pos';
import { beforeAll, describe, expect, it } from 'vitest';

import { thrown } from '../lib/util.js';
import { loadVectors } from './load.js';

beforeAll(() => init());

const vector = (name: string) => {
  const v = loadVectors('pos', 'valid').find(([n]) => n === `${name}.json`);
  if (!v) throw new Error(`no vector ${name}`);
  return v[1];
};
const valid = (name: string) => vector(name).inputs;
const s = (i: Record<string, unknown>, f: string) => i[f] as string;

describe('POS-Tree in the SDK', () => {
  it('verifies a value, an absence, a range, a diff and a history', () => {
    const v = valid('value-0');
    expect(verifyPosValue({ proof: s(v, 'proof'), stateKey: s(v, 'stateKey'), posRoot: s(v, 'posRoot') })).toEqual({ present: true, value: BigInt(s(v, 'value')) });
    const a = valid('value-3');
    expect(verifyPosValue({ proof: s(a, 'proof'), stateKey: s(a, 'stateKey'), posRoot: s(a, 'posRoot') })).toEqual({ present: false, value: 0n });
    const r = valid('range-0');
    const entries = verifyPosRange({ proof: s(r, 'proof'), lo: s(r, 'lo'), hi: s(r, 'hi'), posRoot: s(r, 'posRoot') });
    const want = (vector('range-0').expected as unknown as { entries: { key: string; value: string }[] }).entries;
    expect(entries).toEqual(want.map((e) => ({ key: e.key, value: BigInt(e.value) })));
    expect(entries.every((e) => e.key >= s(r, 'lo') && e.key <= s(r, 'hi'))).toBe(true);
    const d = valid('diff-0');
    const changes = verifyPosDiff({ proof: s(d, 'proof'), oldRoot: s(d, 'oldRoot'), newRoot: s(d, 'newRoot') });
    const word = (x: string | null) => (x === null ? null : BigInt(x));
    const wantChanges = (vector('diff-0').expected as unknown as { changes: { key: string; old: string | null; new: string | null }[] }).changes;
    expect(changes).toEqual(wantChanges.map((c) => ({ key: c.key, old: word(c.old), new: word(c.new) })));
    expect(changes.some((c) => c.old === null) && changes.some((c) => c.new === null)).toBe(true);
    const h = valid('history-2');
    const values = verifyPosHistory({ proof: s(h, 'proof'), stateKey: s(h, 'stateKey'), fromBlock: h['fromBlock'] as number, roots: h['roots'] as string[] });
    expect(values).toEqual((vector('history-2').expected as unknown as { values: (string | null)[] }).values.map(word));
    expect(values[0]).not.toBeNull();
    expect(values.slice(1).every((x) => x === null)).toBe(true);
  });

  it('checks a claimed value: the proven one passes, another or a claimed absence is VALUE_MISMATCH on value', () => {
    const v = valid('value-0');
    const base = { proof: s(v, 'proof'), stateKey: s(v, 'stateKey'), posRoot: s(v, 'posRoot') };
    expect(verifyPosValue({ ...base, value: BigInt(s(v, 'value')) }).present).toBe(true);
    expect(verifyPosValue({ ...base, value: s(v, 'value') }).present).toBe(true);
    for (const value of [BigInt(s(v, 'value')) + 1n, null]) {
      const e = thrown(() => verifyPosValue({ ...base, value }));
      expect(isVerificationError(e, 'VALUE_MISMATCH'), String(e)).toBe(true);
      expect((e as VerificationError).field).toBe('value');
    }
    const a = valid('value-3');
    expect(verifyPosValue({ proof: s(a, 'proof'), stateKey: s(a, 'stateKey'), posRoot: s(a, 'posRoot'), value: null }).present).toBe(false);
    expect(thrown(() => verifyPosValue({ ...base, value: -1n }))).toBeInstanceOf(RangeError);
  });

  it('names the argument a caller got wrong, before any verification', () => {
    const v = valid('value-0');
    const r = valid('range-0');
    const h = valid('history-0');
    const cases: [string, () => unknown][] = [
      ['posRoot', () => verifyPosValue({ proof: s(v, 'proof'), stateKey: s(v, 'stateKey'), posRoot: '0x12' })],
      ['stateKey', () => verifyPosValue({ proof: s(v, 'proof'), stateKey: 'zz', posRoot: s(v, 'posRoot') })],
      ['proof', () => verifyPosValue({ proof: '0xabc', stateKey: s(v, 'stateKey'), posRoot: s(v, 'posRoot') })],
      ['lo', () => verifyPosRange({ proof: s(r, 'proof'), lo: '0x00', hi: s(r, 'hi'), posRoot: s(r, 'posRoot') })],
      ['hi', () => verifyPosRange({ proof: s(r, 'proof'), lo: s(r, 'lo'), hi: new Uint8Array(31), posRoot: s(r, 'posRoot') })],
      ['oldRoot', () => verifyPosDiff({ proof: '0x00', oldRoot: '0x', newRoot: s(r, 'posRoot') })],
      ['newRoot', () => verifyPosDiff({ proof: '0x00', oldRoot: s(r, 'posRoot'), newRoot: 7 as never })],
      ['fromBlock', () => verifyPosHistory({ proof: s(h, 'proof'), stateKey: s(h, 'stateKey'), fromBlock: -1, roots: h['roots'] as string[] })],
      ['roots', () => verifyPosHistory({ proof: s(h, 'proof'), stateKey: s(h, 'stateKey'), fromBlock: 0, roots: [] })],
      ['roots[1]', () => verifyPosHistory({ proof: s(h, 'proof'), stateKey: s(h, 'stateKey'), fromBlock: 0, roots: [s(v, 'posRoot'), '0x01'] })],
    ];
    for (const [field, f] of cases) {
      const e = thrown(f);
      expect(e instanceof TypeError || e instanceof RangeError, `${field}: ${String(e)}`).toBe(true);
      expect((e as Error).message.startsWith(`${field}:`), `${field}: ${(e as Error).message}`).toBe(true);
    }
  });

  it('a history checked against roots of other blocks, or too few, is rejected with a code', () => {
    const h = valid('history-0');
    const roots = h['roots'] as string[];
    const base = { proof: s(h, 'proof'), stateKey: s(h, 'stateKey'), fromBlock: 0 };
    const swapped = thrown(() => verifyPosHistory({ ...base, roots: [roots[1]!, roots[0]!, roots[2]!] }));
    expect(swapped).toBeInstanceOf(VerificationError);
    const short = thrown(() => verifyPosHistory({ ...base, roots: roots.slice(0, 2) }));
    expect(short).toBeInstanceOf(VerificationError);
  });

  it('reads posRoot from extraData bytes 160..192', () => {
    const root = '0x' + 'ab'.repeat(32);
    const extra = '0x' + '00'.repeat(160) + 'ab'.repeat(32) + '11'.repeat(65);
    expect(posRootOf(extra)).toBe(root);
  });
});
