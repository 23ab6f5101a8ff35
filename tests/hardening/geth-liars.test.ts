/**
 * Lying proxies in front of geth: each rewrites one kind of geth's answers the way one of
 * lightprov-node's `--dishonest` modes (or a hidden or altered receipt, log, transaction or
 * withdrawal) does. For every lie and every read the SDK offers against a real execution client:
 *  - alone against the liar, a read the lie touches throws; one it leaves alone returns exactly
 *    the honest answer;
 *  - with the liar listed first and geth second, every read returns the honest answer, geth is
 *    never marked faulty, and a liar caught by verification is.
 */
import { type Eip1193Provider, LightClient, RpcError, init, isVerificationError } from '@lightprov/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningGeth, checkpointOf, startGeth } from '../lib/geth.js';
import { CHAIN_ID, DEV_BLOB_SCHEDULE, type GethChain, buildChain } from '../lib/geth-chain.js';
import { type Script, scriptedFetch } from '../lib/scripted.js';
import { writeFigures } from './figures.js';

type Read = 'header' | 'balance' | 'storage' | 'code' | 'logs' | 'receipt' | 'transaction' | 'block' | 'withdrawals' | 'txproof';
const READS: Read[] = ['header', 'balance', 'storage', 'code', 'logs', 'receipt', 'transaction', 'block', 'withdrawals', 'txproof'];

let g: RunningGeth;
let chain: GethChain;
let cp: { number: bigint; hash: string };
const expected = new Map<Read, unknown>();
const figures: Record<string, { caught: number; unchanged: number; failedOver: number; faulty: string[] }> = {};
const q = (n: bigint) => '0x' + n.toString(16);

/** Each state read's block: a past one (the Store's second write). */
const past = () => chain.storeHistory[1]!.block;

async function read(client: LightClient, eip: Eip1193Provider, r: Read): Promise<unknown> {
  switch (r) {
    case 'header':
      return (await client.getHeader(past())).hash;
    case 'balance':
      return client.getBalance(chain.sender.address, past());
    case 'storage':
      return client.getStorageAt(chain.contracts.Store, 0n, past());
    case 'code':
      return client.getCode(chain.contracts.Token, past());
    case 'logs':
      return (await client.getLogs({ fromBlock: 0n, toBlock: cp.number, address: chain.contracts.Emitter })).map((l) => [l.transactionHash, l.logIndex, l.data]);
    case 'receipt':
      return eip.request({ method: 'eth_getTransactionReceipt', params: [chain.txs.blob] });
    case 'transaction':
      return eip.request({ method: 'eth_getTransactionByHash', params: [chain.txs.setCode] });
    case 'block':
      return eip.request({ method: 'eth_getBlockByNumber', params: [q(past()), true] });
    case 'withdrawals':
      return eip.request({ method: 'eth_getBlockByNumber', params: [q(chain.withdrawalBlocks[0]!), false] });
    case 'txproof': {
      const t = (await client.getTransaction(chain.txs.dynamic))!;
      const p = await client.getTransactionProof(t.blockNumber, t.transactionIndex);
      return [p?.transaction.hash, p?.receipt.status, p?.receipt.gasUsed];
    }
  }
}

/** A fresh client per read, so one read's lie does not decide the next read's path. */
async function attempt(urls: string[], fetch: typeof globalThis.fetch, r: Read): Promise<{ value?: unknown; error?: unknown; client?: LightClient }> {
  let client: LightClient | undefined;
  try {
    client = await LightClient.connect({ rpc: urls, trust: { checkpoint: cp, chainId: CHAIN_ID }, blobSchedule: DEV_BLOB_SCHEDULE, fetch, timeoutMs: 5_000 });
    return { value: await read(client, client.asEip1193(), r), client };
  } catch (error) {
    return { error, ...(client ? { client } : {}) };
  }
}

beforeAll(async () => {
  await init();
  g = await startGeth();
  chain = await buildChain(g, { emits: 3, perEmit: 30 });
  cp = await checkpointOf(g.url);
  const honest = await LightClient.connect({ rpc: g.url, trust: { checkpoint: cp, chainId: CHAIN_ID }, blobSchedule: DEV_BLOB_SCHEDULE });
  for (const r of READS) expected.set(r, await read(honest, honest.asEip1193(), r));
}, 120_000);

afterAll(async () => {
  await g?.stop();
  const total = Object.values(figures).reduce((s, f) => s + f.caught, 0);
  writeFigures(
    'geth-liars',
    [
      `lying proxies in front of geth: ${Object.keys(figures).length} lies, ${total} reads caught, 0 unverified answers returned, geth never marked faulty`,
      ...Object.entries(figures).map(([lie, f]) => `geth liar ${lie}: ${f.caught} reads caught, ${f.unchanged} untouched reads honest, ${f.failedOver}/${READS.length} failed over to geth`),
    ],
    figures,
  );
});

/** Rewrites a hex string: its last byte flipped. */
const flip = (h: string) => h.slice(0, -2) + (parseInt(h.slice(-2), 16) ^ 1).toString(16).padStart(2, '0');
const bump = (h: string) => '0x' + (BigInt(h) + 1n).toString(16);
/** For `eth_getBlockBy*` answers: a block object with `f` applied. */
const onBlocks = (f: (b: Record<string, unknown>, params: unknown[]) => Record<string, unknown>): Script => (m, p, r) =>
  (m === 'eth_getBlockByNumber' || m === 'eth_getBlockByHash') && r !== null && typeof r === 'object' ? f(r as Record<string, unknown>, p) : r;
const proof = (f: (p: Record<string, unknown>) => Record<string, unknown>): Script => (m, _p, r) => (m === 'eth_getProof' && r !== null ? f(r as Record<string, unknown>) : r);

/** A liar at `url` that rewrites geth's answers by `script`. */
const scripted = (script: Script) => (url: string) => scriptedFetch({ [url]: { target: g.url, script } });

/**
 * A liar at `url` that answers `method` with geth's answer to other params (`rewrite`, where it
 * returns params): a proof of another block, a header of another number.
 */
const refetching = (method: string, rewrite: (p: unknown[]) => unknown[] | undefined) => (url: string): typeof fetch => async (input, init) => {
  const target = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (target !== url) return fetch(input, init);
  type Call = { id: unknown; method: string; params: unknown[] };
  const body = JSON.parse(String(init?.body)) as Call | Call[];
  const calls = (Array.isArray(body) ? body : [body]).map((c) => (c.method === method ? { ...c, params: rewrite(c.params) ?? c.params } : c));
  const res = await fetch(g.url, { ...init, body: JSON.stringify(Array.isArray(body) ? calls : calls[0]) });
  return new Response(await res.text(), { status: res.status, headers: { 'content-type': 'application/json' } });
};

/** Each block's parent hash (filled in beforeAll), for proofs "of the block before". */
const parents = new Map<string, string>();

/** Each lie, the reads it must be caught on (the others it leaves honest). */
const LIES: { name: string; liar: (url: string) => typeof fetch; caught: Read[] }[] = [
  // The account's claimed fields come with every proof: storage and code reads check them too.
  { name: 'wrong-value (balance)', liar: scripted(proof((p) => ({ ...p, balance: bump(p['balance'] as string) }))), caught: ['balance', 'storage', 'code'] },
  {
    name: 'wrong-value (storage)',
    liar: scripted(proof((p) => ({ ...p, storageProof: (p['storageProof'] as Record<string, string>[]).map((s) => ({ ...s, value: bump(s['value']!) })) }))),
    caught: ['storage'],
  },
  {
    name: 'other-block (the proof of the block before)',
    liar: refetching('eth_getProof', (p) => {
      const h = (p[2] as { blockHash?: string }).blockHash;
      return h !== undefined && parents.has(h) ? [p[0], p[1], { blockHash: parents.get(h) }] : undefined;
    }),
    caught: ['balance', 'storage', 'code'],
  },
  { name: 'truncated (a proof node dropped)', liar: scripted(proof((p) => ({ ...p, accountProof: (p['accountProof'] as string[]).slice(0, -1) }))), caught: ['balance', 'storage', 'code'] },
  {
    name: 'proof-byte (a byte of a proof node flipped)',
    liar: scripted(proof((p) => ({ ...p, accountProof: (p['accountProof'] as string[]).map((n, i) => (i === 0 ? flip(n) : n)) }))),
    caught: ['balance', 'storage', 'code'],
  },
  { name: 'header-field (gasUsed changed)', liar: scripted(onBlocks((b) => ({ ...b, gasUsed: bump(b['gasUsed'] as string) }))), caught: READS },
  {
    name: 'stale-header (block n answered with block n − 1)',
    liar: refetching('eth_getBlockByNumber', (p) => (/^0x[0-9a-f]+$/.test(String(p[0])) && BigInt(String(p[0])) > 0n ? [q(BigInt(String(p[0])) - 1n), p[1]] : undefined)),
    caught: READS,
  },
  { name: 'code (a byte changed)', liar: scripted((m, _p, r) => (m === 'eth_getCode' ? flip(r as string) : r)), caught: ['code'] },
  {
    name: 'hidden receipt (the last one dropped)',
    liar: scripted((m, _p, r) => ((m === 'debug_getRawReceipts' || m === 'eth_getBlockReceipts') && Array.isArray(r) && r.length > 0 ? r.slice(0, -1) : r)),
    caught: ['logs', 'receipt', 'txproof'],
  },
  {
    name: 'altered log (a byte of a raw receipt flipped)',
    liar: scripted((m, _p, r) => (m === 'debug_getRawReceipts' && Array.isArray(r) ? r.map((x, i) => (i === 0 ? flip(x as string) : x)) : r)),
    caught: ['logs'],
  },
  {
    name: 'altered transaction (a raw byte, a value)',
    liar: scripted((m, p, r) => {
      if (m === 'eth_getRawTransactionByBlockHashAndIndex' || m === 'debug_getRawBlock') return typeof r === 'string' ? flip(r) : r;
      if ((m === 'eth_getBlockByHash' || m === 'eth_getBlockByNumber') && p[1] === true && r !== null) {
        const b = r as { transactions: Record<string, string>[] };
        return { ...b, transactions: b.transactions.map((t) => ({ ...t, value: bump(t['value']!) })) };
      }
      return r;
    }),
    caught: ['logs', 'receipt', 'transaction', 'block', 'txproof'],
  },
  {
    name: 'altered withdrawal (amount)',
    liar: scripted(onBlocks((b) => (Array.isArray(b['withdrawals']) ? { ...b, withdrawals: (b['withdrawals'] as Record<string, string>[]).map((w) => ({ ...w, amount: bump(w['amount']!) })) } : b))),
    caught: ['withdrawals'],
  },
];

describe('lying proxies in front of geth', () => {
  beforeAll(async () => {
    for (let n = 1n; n <= cp.number; n++) {
      const b = (await fetch(g.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: [q(n), false] }) }).then((r) => r.json())) as { result: { hash: string; parentHash: string } };
      parents.set(b.result.hash, b.result.parentHash);
    }
  });

  for (const lie of LIES) {
    it(`${lie.name}: caught where it lies, honest elsewhere, failover to geth`, async () => {
      const url = 'http://liar.invalid/';
      const fetchFn = lie.liar(url);
      const f = { caught: 0, unchanged: 0, failedOver: 0, faulty: [] as string[] };
      for (const r of READS) {
        const alone = await attempt([url], fetchFn, r);
        if (lie.caught.includes(r)) {
          expect(alone.error, `${lie.name}: ${r} from the liar alone returned ${JSON.stringify(alone.value, (_k, v) => (typeof v === 'bigint' ? String(v) : v))?.slice(0, 200)}`).toBeDefined();
          const e = alone.error as Error & { cause?: unknown };
          const cause = e.cause ?? e;
          expect(cause instanceof RpcError || isVerificationError(cause) || isVerificationError(e), `${lie.name}: ${r} failed with ${String(e)}`).toBe(true);
          f.caught++;
          if (isVerificationError(cause)) f.faulty.push(`${r} ${cause.code}`);
        } else {
          expect(alone.error, `${lie.name}: ${r} should be untouched`).toBeUndefined();
          expect(alone.value, `${lie.name}: ${r}`).toEqual(expected.get(r));
          f.unchanged++;
        }
        const both = await attempt([url, g.url], fetchFn, r);
        expect(both.error, `${lie.name}: ${r} with failover threw ${String(both.error)}`).toBeUndefined();
        expect(both.value, `${lie.name}: ${r} with failover`).toEqual(expected.get(r));
        f.failedOver++;
        const faulty = both.client?.faultyNodes() ?? [];
        expect(faulty.map((x) => x.url).filter((u) => u !== url), `${lie.name}: geth was marked faulty`).toEqual([]);
        if (lie.caught.includes(r) && isVerificationError((alone.error as { cause?: unknown })?.cause ?? alone.error)) {
          expect(faulty.map((x) => x.url), `${lie.name}: ${r}: the liar is marked faulty`).toEqual([url]);
        }
      }
      figures[lie.name] = f;
    }, 120_000);
  }
});
