/**
 * Load: N concurrent `LightClient`s against one lightprov-node that produces a block every 250 ms
 * (kvstore workload, every engine) while dev accounts send transfers through `asEip1193()`.
 *
 * Each client loops over a seeded random mix of verified reads: balances, nonces and kvstore
 * records by MPT (`getBalance`, `getTransactionCount`, `getAccount`, at the head and at past
 * blocks), LVMT values, and COLE / COLE* / LVMT / MPT histories over ranges of up to 64 blocks.
 *
 * The SDK verifies every answer; on top of that the answers are checked against each other,
 * independently of the verifiers: every (key, block) → value that any answer implies goes into one
 * ledger, and two answers that disagree on a key's value at a block are a wrong answer, whichever
 * schemes proved them. The ledger starts from what the chain's definition says block 0 holds;
 * histories of the same key and range by all four schemes must be equal; answers "at the head",
 * whose block the SDK does not return, must equal the value at one of the blocks the head can have
 * been at. Any error fails the test (no call here exceeds a documented node limit).
 *
 * Figures (per operation kind and overall: count, ops/s, latency p50/p99, errors) go to
 * target/hardening/load.json. Latencies are noisy on a shared machine: nothing asserts on speed.
 *
 * `LIGHTPROV_LOAD_SEED` picks the seed (default 1); failures name the seed, client, operation,
 * key and block.
 */
import { LightClient, RpcError, type StateKey, type Version, init, stateKeys } from '@lightprov/sdk';
import { Wallet, concat, keccak256, toBeHex, toUtf8Bytes } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { rpc } from '../lib/util.js';
import { MODE, sized, writeFigures } from './figures.js';

const CLIENTS = sized(8, 32);
const DURATION_MS = sized(20_000, 120_000);
const SEED = Number(process.env.LIGHTPROV_LOAD_SEED ?? 1);
const BLOCK_TIME_MS = 250;
const TX_PER_BLOCK = 50;
const MAX_RANGE = 64;
const KVSTORE = '0x' + 'cc'.repeat(20);
const RECORDS = 10_000;
const DEV_BALANCE = 10n ** 24n;
/** Dev accounts that send transfers (the others and the signer receive them, or tips). */
const SENDERS = [0, 1, 2];

const NODE_ARGS = ['--block-time', `${BLOCK_TIME_MS}ms`, '--workload', 'kvstore', '--seed', '1', '--tx-per-block', String(TX_PER_BLOCK)];

type Kind = 'mpt-balance' | 'mpt-account' | 'lvmt-value' | 'history:cole' | 'history:cole-star' | 'history:lvmt' | 'history:mpt' | 'history:all';
const KINDS: Kind[] = ['mpt-balance', 'mpt-account', 'lvmt-value', 'history:cole', 'history:cole-star', 'history:lvmt', 'history:mpt', 'history:all'];
const WEIGHTS: Record<Kind, number> = {
  'mpt-balance': 3,
  'mpt-account': 3,
  'lvmt-value': 3,
  'history:cole': 2,
  'history:cole-star': 2,
  'history:lvmt': 2,
  'history:mpt': 1,
  'history:all': 1,
};
const SCHEMES = ['cole', 'cole-star', 'lvmt', 'mpt'] as const;

/** mulberry32: a small seeded PRNG. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    /** An integer in [0, n). */
    int: (n: number) => Math.floor(next() * n),
    /** An integer in [lo, hi]. */
    big: (lo: bigint, hi: bigint) => (hi <= lo ? lo : lo + BigInt(Math.floor(next() * Number(hi - lo + 1n)))),
    chance: (p: number) => next() < p,
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T,
  };
}
type Rng = ReturnType<typeof prng>;

/** A key the clients read, with a readable name for failure messages. */
interface Key {
  name: string;
  key: StateKey;
  /** What the chain's definition puts at block 0. */
  genesis: bigint;
}

const recordSlot = (k: number) => keccak256(toBeHex(k, 8));
const recordKey = (k: number): Key => ({
  name: `kvstore record ${k}`,
  key: stateKeys.storage(KVSTORE, recordSlot(k)),
  genesis: BigInt(keccak256(concat([toUtf8Bytes('init'), toBeHex(k, 8)]))),
});

/**
 * Every (key, block) → value some verified answer implied, with the answer that implied it.
 * Disagreements are wrong answers.
 */
class Ledger {
  private readonly values = new Map<string, Map<bigint, { value: bigint; by: string }>>();
  readonly wrong: string[] = [];
  /** Block values an answer implied that another answer had already given (and agreed with). */
  crossChecked = 0;

  constructor(private readonly seed: number) {}

  observe(key: Key, block: bigint, value: bigint, by: string): void {
    let m = this.values.get(key.key.stateKey);
    if (!m) this.values.set(key.key.stateKey, (m = new Map()));
    const had = m.get(block);
    if (!had) {
      m.set(block, { value, by });
      return;
    }
    if (had.value === value) {
      this.crossChecked++;
      return;
    }
    this.wrong.push(`seed ${this.seed}: ${key.name} (${key.key.stateKey}) at block ${block}: ${hex(value)} by ${by}, but ${hex(had.value)} by ${had.by}`);
  }

  /** The value of `key` at every block of `from..=to` that a history of that range implies. */
  observeHistory(key: Key, from: bigint, to: bigint, points: readonly Version[], by: string): void {
    let i = 0;
    for (let b = from; b <= to; b++) {
      while (i + 1 < points.length && (points[i + 1] as Version).block <= b) i++;
      this.observe(key, b, (points[i] as Version).value, by);
    }
  }

  at(key: Key, block: bigint): bigint | undefined {
    return this.values.get(key.key.stateKey)?.get(block)?.value;
  }

  /** Blocks of `from..=to` no answer covered yet. */
  missing(key: Key, from: bigint, to: bigint): bigint[] {
    const m = this.values.get(key.key.stateKey);
    const out: bigint[] = [];
    for (let b = from; b <= to; b++) if (!m?.has(b)) out.push(b);
    return out;
  }
}

/** A read "at the head": its block is only known to lie in lo..=hi. */
interface HeadRead {
  key: Key;
  value: bigint;
  lo: bigint;
  hi: bigint;
  by: string;
}

interface OpStats {
  latencies: number[];
  errors: number;
  answers: number;
  proofBytes: number;
}

const hex = (v: bigint) => '0x' + v.toString(16);
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** Structural checks every history answer must pass, whatever scheme proved it. */
function historyShape(points: readonly Version[], from: bigint, to: bigint): string | undefined {
  if (points.length === 0) return 'no points';
  if (points[0]!.block !== from) return `first point at block ${points[0]!.block}, not at fromBlock ${from}`;
  for (let i = 1; i < points.length; i++) {
    const [a, b] = [points[i - 1]!, points[i]!];
    if (b.block <= a.block) return `points out of order (${a.block} then ${b.block})`;
    if (b.block > to) return `a point at block ${b.block}, after toBlock ${to}`;
    if (b.value === a.value) return `a point at block ${b.block} that does not change the value`;
  }
  return undefined;
}

const showPoints = (p: readonly Version[]) => p.map((v) => `${v.block}:${hex(v.value)}`).join(' ');

let node: RunningNode;

beforeAll(async () => {
  await init();
  node = await startNode({ args: NODE_ARGS, startTimeoutMs: 60_000 });
}, 90_000);
afterAll(async () => {
  await node?.stop();
});

describe(`load: ${CLIENTS} concurrent clients for ${DURATION_MS / 1000} s (${MODE})`, () => {
  it('every verified answer agrees with every other, and no call fails', async () => {
    const trust = { genesisHash: node.genesisHash, signers: [node.signer] };
    const connect = () => LightClient.connect({ rpc: [node.url], trust, timeoutMs: 30_000 });
    const nodeHead = async () => BigInt((await rpc(node.url, 'eth_blockNumber', [])) as string);
    const ledger = new Ledger(SEED);
    const errors: string[] = [];
    const headReads: HeadRead[] = [];
    let multiPointHistories = 0;

    // The keys: dev balances and senders' nonces (moved by the transfers below), the signer's
    // balance (tips), a fixed sample of kvstore records and the records found to have moved.
    const shared = prng(SEED);
    const accountKeys: Key[] = [
      ...node.accounts.map((a, i) => ({ name: `balance of dev account ${i}`, key: stateKeys.balance(a.address), genesis: DEV_BALANCE })),
      ...SENDERS.map((i) => ({ name: `nonce of dev account ${i}`, key: stateKeys.nonce(node.accounts[i]!.address), genesis: 0n })),
      { name: 'balance of the signer', key: stateKeys.balance(node.signer), genesis: 0n },
    ];
    const coldRecords: Key[] = [];
    const seen = new Set<number>();
    while (coldRecords.length < 48) {
      const k = shared.int(RECORDS);
      if (seen.has(k)) continue;
      seen.add(k);
      coldRecords.push(recordKey(k));
    }
    const hotRecords: Key[] = [];
    const hot = new Set<number>();
    for (const k of [...accountKeys, ...coldRecords]) ledger.observe(k, 0n, k.genesis, 'the chain definition (genesis)');

    const stats = new Map<Kind, OpStats>(KINDS.map((k) => [k, { latencies: [], errors: 0, answers: 0, proofBytes: 0 }]));
    const totalWeight = KINDS.reduce((s, k) => s + WEIGHTS[k], 0);
    const pickKind = (rng: Rng): Kind => {
      let r = rng.int(totalWeight);
      for (const k of KINDS) if ((r -= WEIGHTS[k]) < 0) return k;
      return KINDS[0]!;
    };
    const pickRecord = (rng: Rng): Key => (hotRecords.length > 0 && rng.chance(0.6) ? rng.pick(hotRecords) : rng.pick(coldRecords));
    const pickKey = (rng: Rng): Key => (rng.chance(0.5) ? rng.pick(accountKeys) : pickRecord(rng));

    const startHead = await nodeHead();
    const started = performance.now();
    const deadline = started + DURATION_MS;

    // Transfers: each sender signs with its dev key and sends through a light client's
    // EIP-1193 provider, every 100–400 ms, to a random dev account.
    const sender = await connect();
    const eip = sender.asEip1193();
    const sent = new Map<number, number>(SENDERS.map((i) => [i, 0]));
    const firstNonce = new Map<number, bigint>();
    const transfers = SENDERS.map(async (i) => {
      const rng = prng(SEED * 7919 + 1000 + i);
      const wallet = new Wallet(node.accounts[i]!.key);
      firstNonce.set(i, await sender.getTransactionCount(wallet.address));
      let nonce = Number(firstNonce.get(i));
      while (performance.now() < deadline) {
        const to = node.accounts[rng.pick([3, 4, 5, 6, 7, 8, 9, ...SENDERS.filter((s) => s !== i)])]!.address;
        try {
          const raw = await wallet.signTransaction({ to, value: BigInt(1 + rng.int(1_000_000)), nonce, gasLimit: 21_000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1n, chainId: 1337n, type: 2 });
          await eip.request({ method: 'eth_sendRawTransaction', params: [raw] });
          nonce++;
          sent.set(i, (sent.get(i) ?? 0) + 1);
        } catch (e) {
          errors.push(`seed ${SEED}: transfer from dev account ${i} (nonce ${nonce}): ${String(e)}`);
          return;
        }
        await new Promise((r) => setTimeout(r, 100 + rng.int(300)));
      }
    });

    const runClient = async (c: number) => {
      const rng = prng(SEED * 1_000_003 + c);
      const client = await connect();
      let head = (await client.getHeader('latest')).number;
      const seenBlock = (b: bigint) => {
        if (b > head) head = b;
      };
      for (let op = 0; performance.now() < deadline; op++) {
        const kind = pickKind(rng);
        const s = stats.get(kind)!;
        const at = (b: bigint | 'latest') => (b === 'latest' ? 'the head' : `block ${b}`);
        const by = (what: string) => `client ${c} op ${op} ${kind} ${what}`;
        let what = '';
        // Latency is the SDK calls' time: the node-head lookups that bound reads at the head are not counted.
        let overheadMs = 0;
        const headBound = async () => {
          const t = performance.now();
          const h = await nodeHead();
          overheadMs += performance.now() - t;
          return h;
        };
        const t0 = performance.now();
        try {
          switch (kind) {
            case 'mpt-balance': {
              // getBalance / getTransactionCount at a past block, at the head, or getValueDetailed
              // at the head (which returns the block it proved).
              const key = rng.pick(accountKeys);
              const mode = rng.int(3);
              const block = mode === 0 ? rng.big(0n, head) : ('latest' as const);
              what = `${key.name} at ${at(block)}`;
              if (mode === 2) {
                const v = await client.getValueDetailed(key.key, { scheme: 'mpt' });
                ledger.observe(key, v.block, v.value, by(`${key.name} (getValueDetailed mpt at the head, block ${v.block})`));
                seenBlock(v.block);
              } else {
                const lo = head;
                const value = key.key.kind === 'nonce' ? await client.getTransactionCount(key.key.address, block) : await client.getBalance(key.key.address, block);
                if (block === 'latest') headReads.push({ key, value, lo, hi: await headBound(), by: by(what) });
                else ledger.observe(key, block, value, by(what));
              }
              s.answers++;
              break;
            }
            case 'mpt-account': {
              // One proof for several kvstore slots, plus a sample of other records: those no
              // longer at their genesis value join the hot records.
              const keys = [pickRecord(rng), pickRecord(rng)];
              const sample = Array.from({ length: 24 }, () => rng.int(RECORDS));
              const block = rng.chance(0.5) ? rng.big(0n, head) : ('latest' as const);
              what = `${keys.map((k) => k.name).join(', ')} and ${sample.length} sampled records at ${at(block)}`;
              const lo = head;
              const account = await client.getAccount(KVSTORE, [...keys.map((k) => k.key.slot!), ...sample.map(recordSlot)], block);
              const hi = block === 'latest' ? await headBound() : block;
              const values = account.storage.map((x) => x.value);
              if (values.length !== keys.length + sample.length) throw new Error(`asked for ${keys.length + sample.length} slots, got ${values.length}`);
              keys.forEach((k, i) => {
                const value = values[i]!;
                if (block === 'latest') headReads.push({ key: k, value, lo, hi, by: by(`${k.name} at the head`) });
                else ledger.observe(k, block, value, by(`${k.name} at block ${block}`));
              });
              sample.forEach((r, i) => {
                const k = recordKey(r);
                const value = values[keys.length + i]!;
                if (ledger.at(k, 0n) === undefined) ledger.observe(k, 0n, k.genesis, 'the chain definition (genesis)');
                if (block !== 'latest') ledger.observe(k, block, value, by(`${k.name} at block ${block}`));
                if (value !== k.genesis && !hot.has(r) && hotRecords.length < 64) {
                  hot.add(r);
                  hotRecords.push(k);
                }
              });
              s.answers++;
              break;
            }
            case 'lvmt-value': {
              const key = pickKey(rng);
              const block = rng.chance(0.5) ? rng.big(0n, head) : ('latest' as const);
              what = `${key.name} at ${at(block)}`;
              const v = await client.getValueDetailed(key.key, block === 'latest' ? { scheme: 'lvmt' } : { scheme: 'lvmt', block });
              if (block !== 'latest' && v.block !== block) throw new Error(`asked for block ${block}, the answer is for block ${v.block}`);
              seenBlock(v.block);
              s.proofBytes += v.proofBytes;
              // The value in force at v.block was written at writtenAt; absent: never written, 0.
              const since = v.present ? v.writtenAt! : 0n;
              if (!v.present && v.value !== 0n) throw new Error(`an absent key with value ${hex(v.value)}`);
              if (since > v.block) throw new Error(`written at block ${since}, after the block ${v.block} it answers for`);
              for (let b = since; b <= v.block; b++) ledger.observe(key, b, v.value, by(`${key.name} at block ${v.block} (LVMT: ${v.present ? `written at ${since}` : 'absent'})`));
              s.answers++;
              break;
            }
            default: {
              const key = pickKey(rng);
              const latest = rng.chance(0.2);
              const from = latest ? (head > BigInt(MAX_RANGE / 2) ? head - rng.big(0n, BigInt(MAX_RANGE / 2)) : 0n) : rng.big(0n, head);
              const end = from + rng.big(0n, BigInt(MAX_RANGE - 1));
              const to = latest ? undefined : end > head ? head : end;
              what = `${key.name} over ${from}..${to ?? 'the head'}`;
              const schemes = kind === 'history:all' ? SCHEMES : [kind.slice('history:'.length) as (typeof SCHEMES)[number]];
              // history:all pins toBlock so that the four answers cover the same range.
              const toBlock = kind === 'history:all' ? (to ?? head) : to;
              const hs = await Promise.all(schemes.map((scheme) => client.getHistoryDetailed(key.key, toBlock === undefined ? { fromBlock: from, scheme } : { fromBlock: from, toBlock, scheme })));
              for (const h of hs) {
                const shape = historyShape(h.points, from, h.toBlock);
                if (shape) throw new Error(`${h.scheme} history ${h.fromBlock}..${h.toBlock}: ${shape}: ${showPoints(h.points)}`);
                if (toBlock !== undefined && h.toBlock !== toBlock) throw new Error(`${h.scheme}: asked up to block ${toBlock}, answered up to ${h.toBlock}`);
                seenBlock(h.toBlock);
                s.proofBytes += h.proofBytes;
                s.answers++;
                if (h.points.length > 1) multiPointHistories++;
                ledger.observeHistory(key, h.fromBlock, h.toBlock, h.points, by(`${h.scheme} history of ${key.name} over ${h.fromBlock}..${h.toBlock}`));
              }
              const [first, ...rest] = hs;
              for (const h of rest) {
                if (showPoints(h.points) !== showPoints(first!.points)) {
                  ledger.wrong.push(
                    `seed ${SEED}: client ${c} op ${op} ${kind}: ${key.name} (${key.key.stateKey}) over ${from}..${toBlock}: ` +
                      `${first!.scheme} says [${showPoints(first!.points)}], ${h.scheme} says [${showPoints(h.points)}]`,
                  );
                }
              }
            }
          }
          s.latencies.push(performance.now() - t0 - overheadMs);
        } catch (e) {
          s.errors++;
          const code = e instanceof RpcError ? ` (RpcError ${e.code})` : '';
          errors.push(`seed ${SEED}: client ${c} op ${op} ${kind} ${what}: ${e instanceof Error ? e.message : String(e)}${code}`);
        }
      }
    };

    const results = await Promise.allSettled([...Array.from({ length: CLIENTS }, (_, c) => runClient(c)), ...transfers]);
    for (const r of results) if (r.status === 'rejected') errors.push(`seed ${SEED}: a client stopped: ${String(r.reason)}`);
    const elapsedMs = performance.now() - started;
    const endHead = await nodeHead();

    // Settle: the transfers are all included (verified nonces), and every read at the head matches
    // the value at one of the blocks it can have been answered at (filled in by verified histories
    // where no answer covered those blocks yet, alternating COLE* and LVMT).
    const settle = await connect();
    const totalSent = [...sent.values()].reduce((a, b) => a + b, 0);
    let transfersMissing = 0;
    for (const i of SENDERS) {
      const want = (firstNonce.get(i) ?? 0n) + BigInt(sent.get(i) ?? 0);
      let nonce = -1n;
      for (let tries = 0; tries < 40 && nonce !== want; tries++) {
        nonce = await settle.getTransactionCount(node.accounts[i]!.address);
        if (nonce !== want) await new Promise((r) => setTimeout(r, BLOCK_TIME_MS));
      }
      if (nonce !== want) {
        transfersMissing += Number(want - nonce);
        errors.push(`seed ${SEED}: dev account ${i} sent ${sent.get(i)} transfers from nonce ${firstNonce.get(i)}, its verified nonce is ${nonce}, not ${want}`);
      }
    }
    const spans = new Map<string, { key: Key; lo: bigint; hi: bigint }>();
    for (const r of headReads) {
      if (ledger.missing(r.key, r.lo, r.hi).length === 0) continue;
      const span = spans.get(r.key.key.stateKey);
      if (!span) spans.set(r.key.key.stateKey, { key: r.key, lo: r.lo, hi: r.hi });
      else (span.lo = r.lo < span.lo ? r.lo : span.lo), (span.hi = r.hi > span.hi ? r.hi : span.hi);
    }
    let settleHistories = 0;
    for (const { key, lo, hi } of spans.values()) {
      for (let from = lo; from <= hi; from += 1000n) {
        const to = from + 999n < hi ? from + 999n : hi;
        const scheme = settleHistories++ % 2 === 0 ? 'cole-star' : 'lvmt';
        try {
          const points = await settle.getHistory(key.key, { fromBlock: from, toBlock: to, scheme });
          ledger.observeHistory(key, from, to, points, `settle: ${scheme} history of ${key.name} over ${from}..${to}`);
        } catch (e) {
          errors.push(`seed ${SEED}: settle: ${scheme} history of ${key.name} over ${from}..${to}: ${String(e)}`);
        }
      }
    }
    let headMismatches = 0;
    for (const r of headReads) {
      const possible: bigint[] = [];
      for (let b = r.lo; b <= r.hi; b++) {
        const v = ledger.at(r.key, b);
        if (v !== undefined) possible.push(v);
      }
      if (possible.length > 0 && !possible.includes(r.value)) {
        headMismatches++;
        ledger.wrong.push(
          `seed ${SEED}: ${r.by}: ${hex(r.value)}, but ${r.key.name} (${r.key.key.stateKey}) was ${[...new Set(possible)].map(hex).join(' / ')} over blocks ${r.lo}..${r.hi}, where the head was`,
        );
      }
    }

    // Figures.
    const secs = elapsedMs / 1000;
    const blocks = Number(endHead - startHead);
    const all = [...stats.values()].flatMap((s) => s.latencies).sort((a, b) => a - b);
    const errorCount = errors.length;
    const answers = [...stats.values()].reduce((a, s) => a + s.answers, 0);
    const perKind: Record<string, unknown> = {};
    const kindLines: string[] = [];
    for (const k of KINDS) {
      const s = stats.get(k)!;
      const l = [...s.latencies].sort((a, b) => a - b);
      const f = { ops: l.length, answers: s.answers, perSec: l.length / secs, p50Ms: percentile(l, 50), p99Ms: percentile(l, 99), errors: s.errors, proofBytes: s.proofBytes };
      perKind[k] = f;
      kindLines.push(
        `  ${k.padEnd(18)} ${fmt(f.ops).padStart(6)} ops (${fmt(f.perSec, 1)}/s), p50 ${fmt(f.p50Ms)} ms, p99 ${fmt(f.p99Ms)} ms, ${f.errors} errors` +
          (f.proofBytes > 0 ? `, ${fmt(f.proofBytes / 1e6, 1)} MB of proofs` : ''),
      );
    }
    const lines = [
      `load: ${CLIENTS} clients × ${fmt(secs)} s while ${blocks} blocks were produced: ${fmt(all.length)} operations, ${fmt(answers)} verified answers ` +
        `(${fmt(all.length / secs, 1)} ops/s), p50 ${fmt(percentile(all, 50))} ms, p99 ${fmt(percentile(all, 99))} ms, ${ledger.wrong.length} wrong, ${errorCount} errors`,
      ...kindLines,
      `  cross-checks: ${fmt(ledger.crossChecked)} block values agreed between answers; ${fmt(headReads.length)} reads at the head checked (${headMismatches} mismatched); ` +
        `${fmt(totalSent)} transfers sent through asEip1193 (${transfersMissing > 0 ? `${transfersMissing} not included` : 'all included'}); ${hotRecords.length} moved records found (at most 64 kept)`,
    ];
    writeFigures('load', lines, {
      seed: SEED,
      clients: CLIENTS,
      durationMs: DURATION_MS,
      elapsedMs,
      node: { args: NODE_ARGS },
      blocks: { start: Number(startHead), end: Number(endHead), produced: blocks },
      total: { ops: all.length, answers, perSec: all.length / secs, p50Ms: percentile(all, 50), p99Ms: percentile(all, 99), wrong: ledger.wrong.length, errors: errorCount },
      ops: perKind,
      crossChecked: ledger.crossChecked,
      headReads: headReads.length,
      headMismatches,
      transfersMissing,
      settleHistories,
      multiPointHistories,
      transfers: totalSent,
      hotRecords: hotRecords.length,
      firstWrong: ledger.wrong.slice(0, 10),
      firstErrors: errors.slice(0, 10),
    });
    console.log(lines.join('\n'));

    expect(ledger.wrong.length, `${ledger.wrong.length} wrong answers (seed ${SEED}), the first:\n${ledger.wrong.slice(0, 10).join('\n')}\n`).toBe(0);
    expect(errors.length, `${errors.length} errors (seed ${SEED}), the first:\n${errors.slice(0, 10).join('\n')}\n`).toBe(0);
    // The run did what it claims: every kind ran, blocks came, answers overlapped, histories moved.
    for (const k of KINDS) expect(stats.get(k)!.latencies.length, `no ${k} operation completed`).toBeGreaterThan(0);
    expect(blocks).toBeGreaterThan(0);
    expect(totalSent).toBeGreaterThan(0);
    expect(ledger.crossChecked).toBeGreaterThan(0);
    expect(multiPointHistories, 'no history showed a change').toBeGreaterThan(0);
  }, DURATION_MS + 120_000);
});
