/**
 * Proof outlines and forgeries (`@lightprov/sdk/inspect`, the inspector's own wasm module) over
 * the shared honest vectors: every honest outline recomputes the header's root, every forgery is
 * rejected by the verifier with exactly the code `forgeProof` announces, and every forged proof
 * can still be drawn. The main entry neither exports nor imports the inspector.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as sdk from '@lightprov/sdk';
import { LvmtParams, type TamperClass, VerificationError, families, hexToBytes, init, verifyAccountProof, verifyColeHistory, verifyLvmtHistory, verifyLvmtProof } from '@lightprov/sdk';
import {
  FORGERIES,
  type ForgeryKind,
  type ProofNode,
  type ProofOutline,
  forgeProof,
  loadInspector,
  outlineColeProof,
  outlineLvmtHistory,
  outlineLvmtProof,
  outlineMptProof,
} from '@lightprov/sdk/inspect';
import { beforeAll, describe, expect, it } from 'vitest';

import { coleQuery } from '../lib/vectors.js';
import { loadVectors } from './load.js';

beforeAll(() => init());

describe('the inspector is a subpath of its own', () => {
  it('the main entry exports none of it', () => {
    for (const name of ['outlineColeProof', 'outlineMptProof', 'forgeProof', 'FORGERIES', 'loadInspector']) expect(name in sdk).toBe(false);
  });

  it('nothing the main entry imports, statically or dynamically, is the inspector', () => {
    const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'sdk', 'dist');
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)) {
        const target = path.resolve(path.dirname(file), m[1] as string);
        expect(target.includes(`${path.sep}inspect`), `${file} imports ${target}`).toBe(false);
        if (target.endsWith('.js') && target.startsWith(dist)) visit(target);
      }
    };
    visit(path.join(dist, 'index.js'));
    expect(seen.size).toBeGreaterThan(5);
  });

  it('loads once, on first use', async () => {
    const a = loadInspector();
    const b = loadInspector();
    await Promise.all([a, b]);
    await expect(loadInspector()).resolves.toBeUndefined();
  });
});

const KINDS = new Set(['root', 'structure', 'level', 'node', 'leaf', 'sibling', 'result', 'tuple', 'digest']);

function nodes(n: ProofNode): ProofNode[] {
  return [n, ...n.children.flatMap(nodes)];
}

/** The outline is well-formed: known kinds, 32-byte hashes, ranges inside the proof. */
function wellFormed(o: ProofOutline): void {
  expect(o.tree.kind).toBe('root');
  for (const n of nodes(o.tree)) {
    expect(KINDS.has(n.kind), n.kind).toBe(true);
    expect(typeof n.label).toBe('string');
    expect(Array.isArray(n.children)).toBe(true);
    if (n.hash !== undefined) expect(n.hash).toMatch(/^0x[0-9a-f]{64}$/);
    if (n.range !== undefined) {
      const [a, b] = n.range;
      expect(a).toBeGreaterThanOrEqual(0);
      expect(b).toBeGreaterThanOrEqual(a);
      expect(b).toBeLessThanOrEqual(o.bytes);
    }
  }
  expect(o.roots.length).toBeGreaterThan(0);
}

/** The code a verification throws (or rejects with), or `accepted`. */
async function rejection(f: () => unknown): Promise<string> {
  try {
    await f();
  } catch (e) {
    if (e instanceof VerificationError) return e.code;
    throw e;
  }
  return 'accepted';
}

/** Draws a forged proof: it must outline, or fail only as BAD_ENCODING (undecodable bytes). */
async function drawable(f: () => Promise<ProofOutline>): Promise<ProofOutline | null> {
  try {
    const o = await f();
    wellFormed(o);
    return o;
  } catch (e) {
    expect(e).toBeInstanceOf(VerificationError);
    expect((e as VerificationError).code).toBe('BAD_ENCODING');
    return null;
  }
}

const kinds = (family: keyof typeof FORGERIES): ForgeryKind[] => FORGERIES[family].map((f) => f.kind);

/** The registry's tamper class `kind` of `family` (`families()`, from the header module). */
function tamper(family: 'cole' | 'lvmt' | 'mpt', kind: string): TamperClass {
  const t = families()
    .find((f) => f.name === family)
    ?.tampers.find((x) => x.name === kind);
  if (!t) throw new Error(`${kind} is not a ${family} tamper class`);
  return t;
}

/** The codes a tamper class answers: its code, and its alternative if it has one. */
const answers = (t: TamperClass): string[] => (t.alt ? [t.code, t.alt] : [t.code]);

describe('COLE outlines and forgeries', () => {
  const vectors = loadVectors('cole', 'valid');
  it('has vectors', () => expect(vectors.length).toBeGreaterThan(0));

  describe.each(vectors)('%s', (_name, v) => {
    const i = v.inputs as Record<string, string>;
    const args = coleQuery(i);
    const scheme = args.scheme;
    const proof = i['proof'] as string;

    it('outlines the honest proof with the header root', async () => {
      const o = await outlineColeProof({ ...args, proof });
      wellFormed(o);
      expect(o.family).toBe(scheme);
      expect(o.bytes).toBe(hexToBytes(proof, 'proof').length);
      expect(o.root).toEqual({ label: 'coleRoot', recomputed: args.coleRoot, expected: args.coleRoot, matches: true });
      // The results drawn are exactly the versions the verifier returns.
      const expected = (v.expected as unknown as { versions: unknown[] }).versions;
      expect(nodes(o.tree).filter((n) => n.kind === 'result')).toHaveLength(expected.length);
      expect(nodes(o.tree).filter((n) => n.kind === 'structure').length).toBeGreaterThan(0);
    });

    it.each(kinds('cole'))('%s is rejected with the announced code', async (kind) => {
      const f = await forgeProof({ family: scheme, kind, proof });
      expect(f.proof).toBeInstanceOf(Uint8Array);
      expect(f.description.length).toBeGreaterThan(0);
      expect(await rejection(() => verifyColeHistory({ ...args, proof: f.proof }))).toBe(f.expectedCode);
      expect(answers(tamper('cole', kind))).toContain(f.expectedCode);
      const o = await drawable(() => outlineColeProof({ ...args, proof: f.proof }));
      expect(o).not.toBeNull();
      // A hidden version keeps every hash (the range check catches it); the others change the root.
      expect(o?.root.matches).toBe(kind === 'result-hidden');
    });
  });

  it('value-changed flips exactly one byte, inside a value', async () => {
    const [, v] = vectors[0] as [string, (typeof vectors)[0][1]];
    const honest = hexToBytes((v.inputs as Record<string, string>)['proof'], 'proof');
    const f = await forgeProof({ family: 'cole', kind: 'value-changed', proof: honest });
    expect(f.expectedCode).toBe('ROOT_MISMATCH');
    expect(f.proof).toHaveLength(honest.length);
    expect(f.proof.filter((b, k) => b !== honest[k])).toHaveLength(1);
    expect(f.description).toMatch(/; wire byte \d+$/);
  });

  it('structure-dropped leaves the last structure out', async () => {
    const [, v] = vectors[0] as [string, (typeof vectors)[0][1]];
    const i = v.inputs as Record<string, string>;
    const honest = await outlineColeProof({ ...coleQuery(i), proof: i['proof'] as string });
    const f = await forgeProof({ family: 'cole', kind: 'structure-dropped', proof: i['proof'] as string });
    const forged = await outlineColeProof({ ...coleQuery(i), proof: f.proof });
    expect(forged.tree.children.map((n) => n.hash)).toEqual(honest.tree.children.slice(0, -1).map((n) => n.hash));
    expect(f.expectedCode).toBe('ROOT_MISMATCH');
  });

  it('refuses undecodable bytes as BAD_ENCODING and unknown tampers as RangeError', async () => {
    const [, v] = vectors[0] as [string, (typeof vectors)[0][1]];
    const i = v.inputs as Record<string, string>;
    const cut = hexToBytes(i['proof'], 'proof').subarray(0, 60);
    const args = { stateKey: i['stateKey'] as string, fromBlock: BigInt(i['fromBlock'] as string), toBlock: BigInt(i['toBlock'] as string), coleRoot: i['coleRoot'] as string, siblingRoot: i['siblingRoot'] as string, scheme: 'cole' as const };
    expect(await rejection(() => outlineColeProof({ ...args, proof: cut }))).toBe('BAD_ENCODING');
    expect(await rejection(() => forgeProof({ family: 'cole', kind: 'value-changed', proof: cut }))).toBe('BAD_ENCODING');
    // A class of another family, and a name no registry holds.
    await expect(forgeProof({ family: 'cole', kind: 'stale-tuple', proof: i['proof'] as string })).rejects.toThrow(RangeError);
    await expect(forgeProof({ family: 'cole', kind: 'value-flipped' as ForgeryKind, proof: i['proof'] as string })).rejects.toThrow(RangeError);
    // Wrong arguments are refused before the module is asked.
    await expect(outlineColeProof({ ...args, proof: i['proof'] as string, scheme: 'lvmt' as 'cole' })).rejects.toThrow(TypeError);
    await expect(outlineColeProof({ ...args, proof: i['proof'] as string, stateKey: '0x12' })).rejects.toThrow(RangeError);
  });
});

describe('LVMT outlines and forgeries', () => {
  const vectors = loadVectors('lvmt', 'valid');
  const params = new Map<string, LvmtParams>();
  it('has vectors', () => expect(vectors.length).toBeGreaterThan(0));

  describe.each(vectors)('%s', (name, v) => {
    const i = v.inputs as Record<string, string>;
    const anchor = { lvmtRoot: i['lvmtRoot'] as string, lvmtHistoryRoot: i['lvmtHistoryRoot'] as string, number: BigInt(i['number'] as string) };
    const stateKey = i['stateKey'] as string;
    const proof = i['proof'] as string;
    const history = 'fromBlock' in i;
    const range = history ? { fromBlock: BigInt(i['fromBlock'] as string), toBlock: BigInt(i['toBlock'] as string) } : null;
    const getParams = (): LvmtParams => {
      const hex = i['params'] as string;
      let p = params.get(hex);
      if (!p) params.set(hex, (p = LvmtParams.shipped(hex)));
      return p;
    };
    const outline = (p: Uint8Array | string): Promise<ProofOutline> =>
      range ? outlineLvmtHistory({ proof: p, stateKey, anchor, ...range }) : outlineLvmtProof({ proof: p, stateKey, anchor });
    const verify = (p: Uint8Array): unknown =>
      range ? verifyLvmtHistory({ params: getParams(), anchor, stateKey, proof: p, ...range }) : verifyLvmtProof({ params: getParams(), anchor, stateKey, proof: p });
    const expected = v.expected as { present?: boolean };
    const present = history || expected.present === true;
    // A history of the same key holding older versions, for stale-tuple.
    const aux = vectors.find(([n, w]) => n.startsWith('history') && (w.inputs as Record<string, string>)['stateKey'] === stateKey)?.[1].inputs['proof'] as
      | string
      | undefined;

    it('outlines the honest proof with the header roots', async () => {
      const o = await outline(proof);
      wellFormed(o);
      expect(o.family).toBe(history ? 'lvmt-history' : 'lvmt');
      expect(o.root.matches).toBe(true);
      expect(o.roots.every((r) => r.matches)).toBe(true);
      const tuples = nodes(o.tree).filter((n) => n.kind === 'tuple').length;
      expect(o.root.label).toBe(present || tuples > 0 ? 'lvmtHistoryRoot' : 'lvmtRoot');
      expect(o.root.expected).toBe(o.root.label === 'lvmtRoot' ? anchor.lvmtRoot : anchor.lvmtHistoryRoot);
      expect(nodes(o.tree).filter((n) => n.kind === 'level').length).toBeGreaterThan(0);
    });

    it.each(kinds('lvmt'))('%s is rejected with the announced code', async (kind) => {
      if (kind === 'stale-tuple' && (!present || (!aux && !history))) {
        await expect(forgeProof({ family: 'lvmt', kind, proof, ...(aux ? { aux } : {}) })).rejects.toThrow(RangeError);
        return;
      }
      // The outline tells what the proof holds: the levels, and for absence its occupants.
      const honest = await outline(proof);
      const levels = nodes(honest.tree).filter((n) => n.kind === 'level').length;
      const occupants = !present && nodes(honest.tree).some((n) => n.kind === 'tuple' && n.label.startsWith('occupant'));
      if ((kind === 'level-dropped' && levels < 2) || (kind === 'value-changed' && !present && !occupants)) {
        await expect(forgeProof({ family: 'lvmt', kind, proof })).rejects.toThrow(RangeError);
        return;
      }
      const f = await forgeProof({ family: 'lvmt', kind, proof, ...(aux ? { aux } : {}) });
      expect(await rejection(() => verify(f.proof))).toBe(f.expectedCode);
      expect(answers(tamper('lvmt', kind))).toContain(f.expectedCode);
      const o = await drawable(() => outline(f.proof));
      expect(o).not.toBeNull();
      if (f.expectedCode === 'HISTORY_MISMATCH') expect(o?.root.matches).toBe(false);
    });

    if (name === 'proof-2.json') {
      it('stale-tuple takes the older tuple from a history given as the proof itself', async () => {
        expect(aux).toBeDefined();
        const f = await forgeProof({ family: 'lvmt', kind: 'stale-tuple', proof: aux as string });
        expect(f.expectedCode).toBe('HISTORY_MISMATCH');
      });
    }
  });
});

describe('MPT outlines and forgeries', () => {
  // Account proofs: an object proof against a stateRoot (transaction proofs have block roots).
  const vectors = loadVectors('mpt', 'valid').filter(([, v]) => {
    const p = v.inputs['proof'];
    return typeof p === 'object' && p !== null && !Array.isArray(p) && 'stateRoot' in v.inputs;
  });
  it('has account vectors', () => expect(vectors.length).toBeGreaterThan(0));

  describe.each(vectors)('%s', (_name, v) => {
    const proof = v.inputs['proof'];
    const stateRoot = v.inputs['stateRoot'] as string;

    it('outlines the honest proof with the state root and storage roots', async () => {
      const o = await outlineMptProof({ proof, stateRoot });
      wellFormed(o);
      expect(o.family).toBe('mpt');
      expect(o.root).toEqual({ label: 'stateRoot', recomputed: stateRoot.toLowerCase(), expected: stateRoot.toLowerCase(), matches: true });
      expect(o.roots.every((r) => r.matches)).toBe(true);
      const results = nodes(o.tree).filter((n) => n.kind === 'result');
      const slots = (proof as { storageProof: unknown[] }).storageProof.length;
      expect(results).toHaveLength(1 + slots);
      expect(results.every((r) => !r.detail?.includes('✗'))).toBe(true);
    });

    it.each(kinds('mpt'))('%s is rejected with the announced code', async (kind) => {
      const before = JSON.stringify(proof);
      const f = await forgeProof({ family: 'mpt', kind, proof });
      expect(JSON.stringify(proof)).toBe(before);
      expect(await rejection(() => verifyAccountProof(f.proof, stateRoot))).toBe(f.expectedCode);
      expect(answers(tamper('mpt', kind))).toContain(f.expectedCode);
      const o = await drawable(() => outlineMptProof({ proof: f.proof, stateRoot }));
      expect(o).not.toBeNull();
      if (f.expectedCode === 'ROOT_MISMATCH') expect(o?.root.matches).toBe(false);
      // What the verifier objects to is visible in the drawing.
      const text = nodes((o as ProofOutline).tree).map((n) => `${n.label} ${n.detail ?? ''}`).join('\n');
      if (f.expectedCode === 'NODE_HASH_MISMATCH') expect(text).toContain('≠ the reference its parent holds');
      if (f.expectedCode === 'TRUNCATED_PROOF') expect(text).toContain('missing node');
      if (f.expectedCode === 'VALUE_MISMATCH') expect(text).toContain('✗');
    });
  });
});

describe('MPT: the single-node proof of docs/proofs.md', () => {
  const proof = {
    address: '0x1111111111111111111111111111111111111111',
    balance: '0xde0b6b3a7640000',
    nonce: '0x1',
    codeHash: '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    storageHash: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
    accountProof: [
      '0xf872a120e2c07404b8c1df4c46226425cac68c28d27a766bbddce62309f36724839b22c0b84ef84c01880de0b6b3a7640000a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a0c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    ],
    storageProof: [],
  };
  const stateRoot = '0xb3e58fdbabd36dfe1519fdc910e208791c4d3fd0153ee4b650be5112ddcf41c6';

  it('draws the leaf and the account, with the wire size of the docs', async () => {
    const o = await outlineMptProof({ proof, stateRoot });
    expect(o.bytes).toBe(249);
    expect(o.root.matches).toBe(true);
    const leaf = nodes(o.tree).find((n) => n.kind === 'leaf');
    expect(leaf?.hash).toBe(stateRoot);
    expect(leaf?.range).toEqual([131, 247]);
    expect(nodes(o.tree).find((n) => n.kind === 'result')?.label).toBe('account: nonce 1, balance 1000000000000000000');
  });

  it.each([
    ['account-truncated', 'TRUNCATED_PROOF'],
    ['wrong-balance', 'VALUE_MISMATCH'],
  ] as const)('%s → %s', async (kind, code) => {
    const f = await forgeProof({ family: 'mpt', kind, proof });
    expect(f.expectedCode).toBe(code);
    expect(await rejection(() => verifyAccountProof(f.proof, stateRoot))).toBe(code);
    expect((await outlineMptProof({ proof: f.proof, stateRoot })).root.matches).toBe(kind === 'wrong-balance');
  });

  it('account-flipped-byte-in-last-node does not apply: the only node is the root', async () => {
    // Flipping a byte of the root node is another class (account-flipped-byte-in-root-node,
    // ROOT_MISMATCH): no forgery is labelled with a class that does not answer its code.
    await expect(forgeProof({ family: 'mpt', kind: 'account-flipped-byte-in-last-node', proof })).rejects.toThrow(RangeError);
  });
});

describe('FORGERIES', () => {
  it('lists registry tamper classes of each family', () => {
    expect(kinds('cole')).toEqual(['value-changed', 'result-hidden', 'structure-dropped']);
    expect(kinds('lvmt')).toEqual(['value-changed', 'stale-tuple', 'level-dropped']);
    expect(kinds('mpt')).toEqual(['account-truncated', 'wrong-balance', 'account-flipped-byte-in-last-node']);
  });

  describe.each(['cole', 'lvmt', 'mpt'] as const)('%s', (family) => {
    it('every entry is a tamper class of the family in families(), with a label', () => {
      const registry = families().find((f) => f.name === family);
      expect(registry, family).toBeDefined();
      for (const { kind, label } of FORGERIES[family]) {
        expect(registry?.tampers.map((t) => t.name)).toContain(kind);
        expect(label.length).toBeGreaterThan(0);
      }
    });

    it('forging a real proof gives a code the class answers, and the verifier agrees', async () => {
      const vectors = loadVectors(family, 'valid');
      for (const { kind } of FORGERIES[family]) {
        let forged = 0;
        for (const [name, v] of vectors) {
          const i = v.inputs as Record<string, unknown>;
          // MPT: account proofs (an object proof against a stateRoot; transaction proofs have block roots).
          if (family === 'mpt' && (typeof i['proof'] !== 'object' || i['proof'] === null || Array.isArray(i['proof']) || !('stateRoot' in i))) continue;
          const scheme = family === 'cole' ? (i['scheme'] as 'cole' | 'cole-star') : family;
          let f: Awaited<ReturnType<typeof forgeProof>>;
          try {
            f = await forgeProof({ family: scheme, kind, proof: i['proof'] as string });
          } catch (e) {
            // Only a class that does not fit this proof; never a decode error of an honest one.
            expect(e, `${name} ${kind}`).toBeInstanceOf(RangeError);
            continue;
          }
          expect(answers(tamper(family, kind)), `${name} ${kind}`).toContain(f.expectedCode);
          forged++;
        }
        expect(forged, `${family} ${kind}: no vector forged`).toBeGreaterThan(0);
      }
    });
  });
});
