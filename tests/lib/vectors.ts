/**
 * Runs one shared vector (tests/vectors) through the SDK. Used by the Node tests and by the
 * page that runs the same vectors in Chromium, so both check exactly the same thing.
 */
import {
  type ErrorCode,
  VerificationError,
  bytesToHex,
  hexToBytes,
  verifyAccountProof,
  verifyHeader,
  LvmtParams,
  verifyColeHistory,
  verifyLvmtHistory,
  verifyLvmtProof,
  verifyMptProof,
  verifyTransactionProof,
  wordHex,
} from '@lightprov/sdk';
import { type BeaconHeader, type BeaconNetworkArg, type BeaconUpdateArgs, BeaconStore } from '@lightprov/sdk/beacon';
import { type ForklessKeyArg, verifyForklessHistory, verifyForklessValue } from '@lightprov/sdk/forkless';
import { verifyMbtDiff, verifyMbtHistory, verifyMbtValue } from '@lightprov/sdk/mbt';
import { verifyPosDiff, verifyPosHistory, verifyPosRange, verifyPosValue } from '@lightprov/sdk/pos';

const lvmtParams = new Map<string, LvmtParams>();

export interface Vector {
  description: string;
  inputs: Record<string, unknown>;
  expected: { ok: true; [k: string]: unknown } | { error: ErrorCode; field?: string };
}

const quantity = (v: bigint): string => '0x' + v.toString(16);

/**
 * A step of a beacon vector: an update, a force update (`kind: 'force_update'`), or the store's
 * upgrade to a fork the chain entered (`kind: 'upgrade_store'`: nothing to do, one store type
 * serves every fork; the headers after it are checked like any step's).
 */
type BeaconStep = BeaconUpdateArgs | { kind: 'force_update'; currentSlot: number } | { kind: 'upgrade_store'; fork: string };

/** A COLE vector's query (all its inputs but the proof), as the COLE verify and outline functions take it. */
export function coleQuery(i: Record<string, unknown>) {
  return {
    stateKey: i['stateKey'] as string,
    fromBlock: BigInt(i['fromBlock'] as string),
    toBlock: BigInt(i['toBlock'] as string),
    coleRoot: i['coleRoot'] as string,
    siblingRoot: i['siblingRoot'] as string,
    scheme: i['scheme'] as 'cole' | 'cole-star',
  };
}

/**
 * A beacon vector: the bootstrap from the trusted root, then each step in order — an update, or
 * a force update after a period without finality — through the SDK's `BeaconStore` (the
 * `beacon` module must be loaded). The result holds the finalized and optimistic headers after
 * each step (`steps`) and at the end. An invalid vector must be refused at its `step` (0: the
 * bootstrap, i + 1: step i), every step before it accepted.
 */
function runBeacon(v: Vector): unknown {
  const i = v.inputs as { network: BeaconNetworkArg; trustedBlockRoot: string; bootstrap: BeaconUpdateArgs; updates: BeaconStep[] };
  const want = (v.expected as { step?: number }).step;
  const ZERO = '0x' + '00'.repeat(32);
  const header = (h: BeaconHeader) => ({ slot: Number(h.slot), beaconRoot: h.beaconRoot, executionRoot: h.execution?.root ?? ZERO });
  let step = 0;
  let store: BeaconStore | undefined;
  try {
    store = BeaconStore.bootstrap({ network: i.network, trustedBlockRoot: i.trustedBlockRoot, bootstrap: i.bootstrap });
    const steps = [];
    for (const u of i.updates) {
      step++;
      if ('kind' in u && u.kind === 'force_update') store.forceUpdate(u.currentSlot);
      else if ('kind' in u && u.kind === 'upgrade_store') {
        // One store type serves every fork: nothing to upgrade.
      } else if ('kind' in u && u.kind !== undefined) throw new Error(`step ${step}: unknown kind ${String(u.kind)}`);
      else store.processUpdate(u as BeaconUpdateArgs);
      steps.push({ finalized: header(store.finalizedHeader()), optimistic: header(store.optimisticHeader()) });
    }
    return { ok: true, finalized: header(store.finalizedHeader()), optimistic: header(store.optimisticHeader()), steps };
  } catch (e) {
    if (want !== undefined && step !== want) throw new Error(`refused at step ${step}, expected at step ${want}: ${String(e)}`);
    throw e;
  } finally {
    store?.free();
  }
}

export function run(v: Vector): unknown {
  const i = v.inputs;
  if ('trustedBlockRoot' in i) return runBeacon(v);
  if ('lvmtRoot' in i) {
    const hex = i['params'] as string;
    let params = lvmtParams.get(hex);
    if (!params) lvmtParams.set(hex, (params = LvmtParams.shipped(hex)));
    const anchor = { lvmtRoot: i['lvmtRoot'] as string, lvmtHistoryRoot: i['lvmtHistoryRoot'] as string, number: BigInt(i['number'] as string) };
    const version = (x: { block: bigint; version: bigint; value: bigint }) => ({ block: quantity(x.block), version: quantity(x.version), value: wordHex(x.value) });
    if ('fromBlock' in i) {
      const h = verifyLvmtHistory({ params, anchor, stateKey: i['stateKey'] as string, fromBlock: BigInt(i['fromBlock'] as string), toBlock: BigInt(i['toBlock'] as string), proof: i['proof'] as string });
      return { ok: true, atFrom: h.atFrom ? version(h.atFrom) : null, versions: h.versions.map(version) };
    }
    const p = verifyLvmtProof({ params, anchor, stateKey: i['stateKey'] as string, proof: i['proof'] as string });
    return p ? { ok: true, present: true, version: quantity(p.version), block: quantity(p.block), value: wordHex(p.value) } : { ok: true, present: false };
  }
  if ('forklessRoot' in i) {
    const base = { proof: i['proof'] as string, key: i['key'] as ForklessKeyArg, forklessRoot: i['forklessRoot'] as string };
    const word = (v: bigint) => wordHex(v);
    if ('fromBlock' in i) {
      const h = verifyForklessHistory({ ...base, fromBlock: BigInt(i['fromBlock'] as string), toBlock: BigInt(i['toBlock'] as string) });
      const version = (x: { block: bigint; value: bigint }) => ({ block: quantity(x.block), value: word(x.value) });
      return { ok: true, exists: h.exists, atFrom: h.atFrom ? version(h.atFrom) : null, versions: h.versions.map(version) };
    }
    const v = verifyForklessValue(base);
    return { ok: true, exists: v.exists, value: word(v.value) };
  }
  if ('bucketBits' in i) {
    // mbt: absent (zero) is null.
    const params = { bucketBits: i['bucketBits'] as number, fanout: i['fanout'] as number };
    const word = (v: bigint) => (v === 0n ? null : wordHex(v));
    const proof = i['proof'] as string;
    if (i['kind'] === 'diff') {
      const changes = verifyMbtDiff({ proof, oldRoot: i['oldRoot'] as string, newRoot: i['newRoot'] as string, params });
      return { ok: true, changes: changes.map((c) => ({ stateKey: c.stateKey, old: word(c.old), new: word(c.new) })) };
    }
    if (i['kind'] === 'history') {
      const values = verifyMbtHistory({ proof, stateKey: i['stateKey'] as string, fromBlock: BigInt(i['fromBlock'] as string), toBlock: BigInt(i['toBlock'] as string), roots: i['roots'] as string[], params });
      return { ok: true, values: values.map(word) };
    }
    const claim = i['value'];
    const claimed = claim === undefined ? {} : { claimed: claim === null ? 0n : BigInt(claim as string) };
    const v = verifyMbtValue({ proof, stateKey: i['stateKey'] as string, mbtRoot: i['root'] as string, params, ...claimed });
    return { ok: true, value: word(v.value) };
  }
  // POS after MBT: MBT's diff and history vectors carry oldRoot and roots too (and bucketBits).
  if ('posRoot' in i || 'oldRoot' in i || 'roots' in i) return runPos(i);
  if ('coleRoot' in i) {
    const h = verifyColeHistory({ ...coleQuery(i), proof: i['proof'] as string });
    const version = (x: { block: bigint; value: bigint }) => ({ block: quantity(x.block), value: wordHex(x.value) });
    return { ok: true, atFrom: h.atFrom ? version(h.atFrom) : null, versions: h.versions.map(version) };
  }
  if ('receiptsRoot' in i) {
    const roots = { transactionsRoot: i['transactionsRoot'] as string, receiptsRoot: i['receiptsRoot'] as string };
    const p = verifyTransactionProof(i['proof'], roots, BigInt(i['index'] as string), i['hash'] as string | undefined);
    return { ok: true, transaction: p ? bytesToHex(p.transaction) : null, receipt: p ? bytesToHex(p.receipt) : null };
  }
  if (typeof i['proof'] === 'object' && !Array.isArray(i['proof'])) {
    const a = verifyAccountProof(i['proof'], i['stateRoot'] as string);
    return {
      ok: true,
      exists: a.exists,
      balance: quantity(a.balance),
      nonce: quantity(a.nonce),
      codeHash: a.codeHash,
      storageHash: a.storageHash,
      storage: a.storage.map((s) => ({ key: s.key, value: quantity(s.value) })),
    };
  }
  if ('key' in i) {
    const proof = (i['proof'] as string[]).map((n) => hexToBytes(n, 'proof'));
    const value = i['value'] === null ? null : hexToBytes(i['value'], 'value');
    verifyMptProof(i['root'] as string, hexToBytes(i['key'], 'key'), proof, value);
    return { ok: true };
  }
  const h = verifyHeader(i['header'], i['expectedHash'] as string);
  return { ok: true, layout: h.layout, number: quantity(h.number) };
}

/** `null` if the SDK did what the vector expects, otherwise what went wrong. */
export function checkVector(v: Vector): string | null {
  let got: unknown;
  try {
    got = run(v);
  } catch (e) {
    if (!(e instanceof VerificationError)) return `threw ${String(e)}`;
    if (!('error' in v.expected)) return `rejected (${e.code}: ${e.message}), expected acceptance`;
    if (e.code !== v.expected.error) return `code ${e.code} (${e.message}), expected ${v.expected.error}`;
    if (v.expected.field !== undefined && e.field !== v.expected.field) {
      return `field ${String(e.field)}, expected ${v.expected.field}`;
    }
    return null;
  }
  if ('error' in v.expected) return `accepted, expected ${v.expected.error}`;
  const a = canonical(got);
  const b = canonical(v.expected);
  return a === b ? null : `got ${a}, expected ${b}`;
}

/** JSON with object keys sorted, so that generators in different languages compare equal. */
function canonical(x: unknown): string {
  return JSON.stringify(x, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

/** A POS-Tree vector (`inputs.kind`: value, range, diff or history; `null`: absent). */
function runPos(i: Record<string, unknown>): unknown {
  const proof = i['proof'] as string;
  const word = (v: bigint | null) => (v === null ? null : wordHex(v));
  switch (i['kind']) {
    case 'value': {
      const v = verifyPosValue({ proof, stateKey: i['stateKey'] as string, posRoot: i['posRoot'] as string, value: i['value'] as string | null });
      return { ok: true, value: v.present ? wordHex(v.value) : null };
    }
    case 'range': {
      const entries = verifyPosRange({ proof, lo: i['lo'] as string, hi: i['hi'] as string, posRoot: i['posRoot'] as string });
      return { ok: true, entries: entries.map((e) => ({ key: e.key, value: wordHex(e.value) })) };
    }
    case 'diff': {
      const changes = verifyPosDiff({ proof, oldRoot: i['oldRoot'] as string, newRoot: i['newRoot'] as string });
      return { ok: true, changes: changes.map((c) => ({ key: c.key, old: word(c.old), new: word(c.new) })) };
    }
    default: {
      const values = verifyPosHistory({ proof, stateKey: i['stateKey'] as string, fromBlock: i['fromBlock'] as number, roots: i['roots'] as string[] });
      return { ok: true, values: values.map(word) };
    }
  }
}
