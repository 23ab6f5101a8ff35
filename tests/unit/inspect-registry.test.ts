/**
 * The inspector's registry (`INSPECTORS` of `@lightprov/sdk/inspect`) and the family readers'
 * proof of a history (`historyProof`, `Family.reverify`): over the shared honest vectors, as
 * verified histories, the generic `outlineHistory` draws each family's proof as its typed outline
 * function does, the generic `forgeProof` forges it through the registry, and the family's
 * `reverify` accepts the honest proof and rejects each forgery with the code announced.
 */
import {
  type FamilyContext,
  LvmtParams,
  READERS,
  type StateKey,
  VerificationError,
  type VerifiedHeader,
  type VerifiedHistory,
  bytesToHex,
  families,
  headerCommitments,
  hexToBytes,
  historyProof,
  historySchemes,
  init,
  stateKeys,
} from '@lightprov/sdk';
import {
  FORGERIES,
  type Forgery,
  INSPECTORS,
  forgeProof,
  inspectorFor,
  outlineColeProof,
  outlineForklessProof,
  outlineHistory,
  outlineLvmtHistory,
  outlineMbtHistory,
  outlineMptProof,
  outlinePosHistory,
} from '@lightprov/sdk/inspect';
import { describe, expect, it } from 'vitest';

import { loadVectors } from './load.js';

// The cases are built at collection time, from the registry and the commitment table.
await init();

/** A header holding `roots` where the core's commitment table puts them (no other field). */
function header(roots: Record<string, string>, number: bigint): VerifiedHeader {
  const fields: Record<string, Uint8Array> = {};
  for (const c of headerCommitments()) {
    const v = roots[c.name];
    if (v === undefined) continue;
    const old = fields[c.field] ?? new Uint8Array(0);
    const b = new Uint8Array(Math.max(old.length, c.offset + c.length));
    b.set(old);
    b.set(hexToBytes(v, c.name, 'argument', c.length), c.offset);
    fields[c.field] = b;
  }
  const hex = Object.fromEntries(Object.entries(fields).map(([k, b]) => [k, bytesToHex(b)]));
  return { number, ...hex } as unknown as VerifiedHeader;
}

/** A verified history as a client returns it, for a vector (its points are not read here). */
function history(v: Partial<VerifiedHistory> & Pick<VerifiedHistory, 'scheme' | 'fromBlock' | 'toBlock' | 'anchor' | 'raw' | 'stateKey'>): VerifiedHistory {
  return { points: [], proofBytes: 0, verifyMs: 0, ...v };
}

interface Case {
  name: string;
  family: string;
  h: VerifiedHistory;
  ctx: FamilyContext;
  /** The family's typed outline of `proof` for the same query. */
  typed(proof: unknown): Promise<unknown>;
}

const context = (state: [string, unknown][] = []): FamilyContext => ({ state: new Map(state), options: {} }) as unknown as FamilyContext;

function coleCases(): Case[] {
  return loadVectors('cole', 'valid').map(([name, v]) => {
    const i = v.inputs as Record<string, string>;
    const [fromBlock, toBlock] = [BigInt(i['fromBlock'] as string), BigInt(i['toBlock'] as string)];
    const scheme = i['scheme'] as 'cole' | 'cole-star';
    const h = history({
      scheme,
      fromBlock,
      toBlock,
      anchor: header({ coleRoot: i['coleRoot'] as string }, toBlock),
      raw: { block: `0x${toBlock.toString(16)}`, siblingRoot: i['siblingRoot'], proof: i['proof'] },
      stateKey: i['stateKey'] as string,
    });
    const args = { stateKey: h.stateKey, fromBlock, toBlock, coleRoot: i['coleRoot'] as string, siblingRoot: i['siblingRoot'] as string, scheme };
    return { name, family: 'cole', h, ctx: context(), typed: (p) => outlineColeProof({ ...args, proof: p as string }) };
  });
}

function lvmtCases(): Case[] {
  const params = new Map<string, LvmtParams>();
  return loadVectors('lvmt', 'valid')
    .filter(([, v]) => 'fromBlock' in v.inputs)
    .map(([name, v]) => {
      const i = v.inputs as Record<string, string>;
      const [fromBlock, toBlock, number] = [BigInt(i['fromBlock'] as string), BigInt(i['toBlock'] as string), BigInt(i['number'] as string)];
      const roots = { lvmtRoot: i['lvmtRoot'] as string, lvmtHistoryRoot: i['lvmtHistoryRoot'] as string };
      const h = history({ scheme: 'lvmt', fromBlock, toBlock, anchor: header(roots, number), raw: { block: `0x${number.toString(16)}`, proof: i['proof'] }, stateKey: i['stateKey'] as string });
      const hex = i['params'] as string;
      if (!params.has(hex)) params.set(hex, LvmtParams.shipped(hex));
      const typed = (p: unknown) => outlineLvmtHistory({ proof: p as string, stateKey: h.stateKey, fromBlock, toBlock, anchor: { ...roots, number } });
      return { name, family: 'lvmt', h, ctx: context([['lvmt', params.get(hex)]]), typed };
    });
}

function mptCases(): Case[] {
  return loadVectors('mpt', 'valid').flatMap(([name, v]): Case[] => {
    const p = v.inputs['proof'] as { address: string; storageProof: { key: string }[] } | null;
    // Account proofs only (transaction proofs are objects too, against block roots).
    if (typeof p !== 'object' || p === null || Array.isArray(p) || !('stateRoot' in v.inputs) || p.storageProof.length > 1) return [];
    const slot = p.storageProof[0]?.key;
    const key: StateKey = slot === undefined ? stateKeys.balance(p.address) : stateKeys.storage(p.address, slot);
    const stateRoot = v.inputs['stateRoot'] as string;
    // The block's answer is the last of a one-block history, and of a two-block one.
    return [1n, 2n].map((blocks) => {
      const h = history({ scheme: 'mpt', fromBlock: 10n - blocks + 1n, toBlock: 10n, anchor: header({ stateRoot }, 10n), raw: [...Array(Number(blocks - 1n)).fill(null), p], stateKey: key.stateKey, key });
      return { name: `${name} (${blocks} blocks)`, family: 'mpt', h, ctx: context(), typed: (q) => outlineMptProof({ proof: q, stateRoot }) };
    });
  });
}

function forklessCases(): Case[] {
  return loadVectors('forkless', 'valid')
    .filter(([, v]) => 'fromBlock' in v.inputs)
    .map(([name, v]) => {
      const i = v.inputs as Record<string, unknown>;
      const [fromBlock, toBlock] = [BigInt(i['fromBlock'] as string), BigInt(i['toBlock'] as string)];
      const k = i['key'] as { kind: 'balance' | 'nonce' | 'storage'; address: string; slot?: string };
      const key: StateKey = k.kind === 'storage' ? stateKeys.storage(k.address, k.slot as string) : stateKeys[k.kind](k.address);
      const forklessRoot = i['forklessRoot'] as string;
      const h = history({ scheme: 'forkless', fromBlock, toBlock, anchor: header({ forklessRoot }, toBlock), raw: { block: `0x${toBlock.toString(16)}`, proof: i['proof'] }, stateKey: key.stateKey, key });
      const typed = (p: unknown) => outlineForklessProof({ proof: p as string, key, forklessRoot, fromBlock, toBlock });
      return { name, family: 'forkless', h, ctx: context(), typed };
    });
}

function mbtCases(): Case[] {
  return loadVectors('mbt', 'valid')
    .filter(([, v]) => v.inputs['kind'] === 'history')
    .map(([name, v]) => {
      const i = v.inputs as Record<string, unknown>;
      const [fromBlock, toBlock] = [BigInt(i['fromBlock'] as string), BigInt(i['toBlock'] as string)];
      const roots = i['roots'] as string[];
      const raw = { block: `0x${toBlock.toString(16)}`, bucketBits: i['bucketBits'], fanout: i['fanout'], proof: i['proof'] };
      const anchor = header({ mbtRoot: roots[roots.length - 1] as string }, toBlock);
      const h = history({ scheme: 'mbt', fromBlock, toBlock, anchor, raw, stateKey: i['stateKey'] as string, blockRoots: roots });
      const typed = (p: unknown) => outlineMbtHistory({ proof: p as string, roots });
      // The parameters the client pinned (its genesis header's, here the vector's).
      return { name, family: 'mbt', h, ctx: context([['mbt', { bucketBits: i['bucketBits'], fanout: i['fanout'] }]]), typed };
    });
}

/** POS history vectors: a header per block of the range, each holding that block's posRoot. */
function posCases(): Case[] {
  return loadVectors('pos', 'valid')
    .filter(([, v]) => v.inputs['kind'] === 'history')
    .map(([name, v]) => {
      const i = v.inputs as Record<string, unknown>;
      const roots = i['roots'] as string[];
      const fromBlock = BigInt(i['fromBlock'] as number);
      const toBlock = fromBlock + BigInt(roots.length - 1);
      const anchors = roots.map((posRoot, j) => header({ posRoot }, fromBlock + BigInt(j)));
      const h = history({ scheme: 'pos', fromBlock, toBlock, anchor: anchors[anchors.length - 1] as VerifiedHeader, anchors, raw: { block: `0x${toBlock.toString(16)}`, proof: i['proof'] }, stateKey: i['stateKey'] as string });
      const typed = (p: unknown) => outlinePosHistory({ proof: p as string, stateKey: h.stateKey, fromBlock, roots });
      return { name, family: 'pos', h, ctx: context(), typed };
    });
}

const CASES: Case[] = [...coleCases(), ...lvmtCases(), ...forklessCases(), ...mbtCases(), ...posCases(), ...mptCases()];

/** The code `f` throws, or `accepted`. */
function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof VerificationError) return e.code;
    throw e;
  }
  return 'accepted';
}

const reverify = (c: Case, proof: unknown): string => code(() => READERS.find((r) => r.name === c.family)?.reverify?.(c.ctx, c.h, proof));

describe('the registry', () => {
  it('has one inspector per family reader, drawing exactly its history schemes', () => {
    expect(INSPECTORS.map((i) => i.family)).toEqual(READERS.map((r) => r.name));
    for (const i of INSPECTORS) expect(i.schemes).toEqual(READERS.find((r) => r.name === i.family)?.historySchemes);
    for (const s of historySchemes()) expect(inspectorFor(s.id).family).toBe(s.family);
  });

  it('FORGERIES is read from it, and every entry is a tamper class of the family', () => {
    expect(Object.keys(FORGERIES)).toEqual(INSPECTORS.map((i) => i.family));
    for (const i of INSPECTORS) {
      expect(FORGERIES[i.family]).toBe(i.forgeries);
      const tampers = families().find((f) => f.name === i.family)?.tampers.map((t) => t.name);
      for (const f of i.forgeries) expect(tampers).toContain(f.kind);
    }
  });

  it('refuses a family it does not hold', async () => {
    expect(() => inspectorFor('verkle')).toThrow(TypeError);
    await expect(forgeProof({ family: 'verkle' as 'mpt', kind: 'wrong-balance', proof: {} })).rejects.toThrow(TypeError);
    await expect(outlineHistory({ ...(CASES[0] as Case).h, scheme: 'verkle' as 'mpt' })).rejects.toThrow(TypeError);
  });

  it('has cases of every family', () => {
    for (const i of INSPECTORS) expect(CASES.filter((c) => c.family === i.family).length, i.family).toBeGreaterThan(0);
  });
});

describe.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const honest = historyProof(c.h).proof;

  it('historyProof names the answer the history came from (MPT: the last block\'s)', () => {
    const raw = c.h.raw as { proof?: unknown } | unknown[];
    expect(honest).toBe(Array.isArray(raw) ? raw[raw.length - 1] : raw.proof);
    expect(historyProof(c.h).bytes).toBeGreaterThan(0);
  });

  it('outlineHistory draws it as the family\'s own outline does, and reverify accepts it', async () => {
    const o = await outlineHistory(c.h);
    expect(o).toEqual(await c.typed(honest));
    expect(o.root.matches).toBe(true);
    expect(reverify(c, honest)).toBe('accepted');
  });

  it.each(inspectorFor(c.h.scheme).forgeries.map((f) => f.kind))('%s through the registry: reverify rejects it with the announced code', async (kind) => {
    let f: Forgery;
    try {
      f = await forgeProof({ family: c.h.scheme, kind, proof: honest });
    } catch (e) {
      // Only a class that does not fit this proof (a proof of one level, no older tuple…).
      expect(e).toBeInstanceOf(RangeError);
      return;
    }
    expect(reverify(c, f.proof)).toBe(f.expectedCode);
    // The forgery is drawn against the same header, or refused as undecodable.
    try {
      const o = await outlineHistory(c.h, f.proof);
      if (f.expectedCode === 'ROOT_MISMATCH') expect(o.root.matches).toBe(false);
    } catch (e) {
      expect((e as VerificationError).code).toBe('BAD_ENCODING');
    }
  });
});

describe('reverify', () => {
  it('forges at least one proof of every family that its reader rejects', async () => {
    for (const i of INSPECTORS) {
      let rejected = 0;
      for (const c of CASES.filter((x) => x.family === i.family)) {
        for (const { kind } of i.forgeries) {
          const f = await forgeProof({ family: c.h.scheme, kind, proof: historyProof(c.h).proof }).catch(() => null);
          if (f && reverify(c, f.proof) === f.expectedCode) rejected++;
        }
      }
      expect(rejected, i.family).toBeGreaterThan(0);
    }
  });

  it('checks the proof against the history\'s own key (MPT: the account asked)', () => {
    const c = CASES.find((x) => x.family === 'mpt' && x.h.key?.kind === 'balance') as Case;
    const other = stateKeys.balance('0x' + '11'.repeat(20));
    expect(code(() => READERS.find((r) => r.name === 'mpt')?.reverify?.(c.ctx, { ...c.h, key: other, stateKey: other.stateKey }, historyProof(c.h).proof))).toBe('KEY_MISMATCH');
  });

  it('LVMT needs the parameters its client verified the history with', () => {
    const c = CASES.find((x) => x.family === 'lvmt') as Case;
    expect(() => READERS.find((r) => r.name === 'lvmt')?.reverify?.(context(), c.h, historyProof(c.h).proof)).toThrow(TypeError);
  });

  it('MBT needs the parameters its client pins, and re-verifies under them whatever the answer claims', () => {
    const c = CASES.find((x) => x.family === 'mbt') as Case;
    const mbt = READERS.find((r) => r.name === 'mbt');
    expect(() => mbt?.reverify?.(context(), c.h, historyProof(c.h).proof)).toThrow(/pinned no MBT parameters/);
    const claimsOther = { ...c.h, raw: { ...(c.h.raw as object), bucketBits: 9 } };
    expect(reverify({ ...c, h: claimsOther }, historyProof(c.h).proof)).toBe('accepted');
    const pinned = c.ctx.state.get('mbt') as { bucketBits: number; fanout: number };
    expect(code(() => mbt?.reverify?.(context([['mbt', { ...pinned, bucketBits: pinned.bucketBits + 1 }]]), c.h, historyProof(c.h).proof))).toBe('PARAMS_MISMATCH');
  });
});
