/**
 * Verified receipts and logs over a real mainnet block served by a scripted node (checkpoint
 * anchor = the block itself): the logs of a filter come back complete, a block whose bloom rules
 * the filter out is not read, and each way of hiding or moving a log is caught — a dropped log,
 * a receipt of another index, a reordered receipt list, a flipped status, a transaction of another
 * block, a bloom that hides a match.
 */
import fs from 'node:fs';
import path from 'node:path';

import { RLP } from '@ethereumjs/rlp';
import { LightClient, bytesToHex, encodeHeader, encodeReceipt, encodeTransaction, init, isVerificationError } from '@lightprov/sdk';
import { beforeAll, describe, expect, it } from 'vitest';

import { VECTORS } from './load.js';

beforeAll(() => init());

type Json = Record<string, unknown>;
interface Fixture {
  block: Json & { hash: string; number: string; transactions: Json[] };
  receipts: (Json & { logs: Json[] })[];
}
const load = (f: string) => JSON.parse(fs.readFileSync(path.join(VECTORS, 'blocks', f), 'utf8')) as Fixture;
const main = load('mainnet-19432673.json');
const other = load('mainnet-19539214.json');

/**
 * A node serving `fx`, recording the methods asked. `raw`: it also serves geth's raw forms
 * (`debug_getRawReceipts`, `debug_getRawBlock`, built from `fx`, so a tampered fixture gives
 * tampered bytes); otherwise it answers them as a node without the debug namespace does.
 */
function node(fx: Fixture, calls: string[] = [], raw = false): typeof fetch {
  return async (_input, init) => {
    const body = JSON.parse(String(init?.body)) as { id: number; method: string; params: unknown[] } | { id: number; method: string; params: unknown[] }[];
    const answer = (c: { id: number; method: string; params: unknown[] }) => {
      calls.push(c.method);
      const b = fx.block;
      const header = { ...b, transactions: b.transactions.map((t) => t['hash']) };
      let result: unknown = null;
      if (c.method === 'eth_getBlockByHash' && c.params[0] === b.hash) result = c.params[1] === true ? b : header;
      else if (c.method === 'eth_getBlockByNumber' && BigInt(c.params[0] as string) === BigInt(b.number)) result = c.params[1] === true ? b : header;
      else if (c.method === 'eth_getBlockReceipts' && c.params[0] === b.hash) result = fx.receipts;
      else if (c.method === 'eth_blockNumber') result = b.number;
      else if (raw && c.method === 'debug_getRawReceipts' && c.params[0] === b.hash) result = fx.receipts.map((r) => bytesToHex(encodeReceipt(r)));
      else if (raw && c.method === 'debug_getRawBlock' && c.params[0] === b.hash) {
        // Typed transactions are byte strings in a block's RLP, legacy ones lists.
        const txs = b.transactions.map((t) => {
          const enc = encodeTransaction(t);
          return enc[0]! < 0x80 ? enc : RLP.decode(enc);
        });
        result = bytesToHex(RLP.encode([RLP.decode(encodeHeader(header).rlp), txs, []] as never));
      } else if (c.method.startsWith('debug_')) {
        return { jsonrpc: '2.0', id: c.id, error: { code: -32601, message: `the method ${c.method} does not exist/is not available` } };
      }
      return { jsonrpc: '2.0', id: c.id, result };
    };
    return new Response(JSON.stringify(Array.isArray(body) ? body.map(answer) : answer(body)), { headers: { 'content-type': 'application/json' } });
  };
}

const clone = (fx: Fixture): Fixture => JSON.parse(JSON.stringify(fx)) as Fixture;
const connect = (fx: Fixture, calls?: string[], raw = false) =>
  LightClient.connect({ rpc: 'http://fixture.invalid/', trust: { checkpoint: { number: BigInt(main.block.number), hash: main.block.hash } }, fetch: node(fx, calls, raw) });
const n = BigInt(main.block.number);

/** The block's logs matching an address and first topic, from the fixture directly. */
function expected(address: string, topic0: string) {
  return main.receipts.flatMap((r) => r.logs).filter((l) => l['address'] === address && (l['topics'] as string[])[0] === topic0);
}

for (const raw of [false, true]) describe(`getLogs over a real block, ${raw ? 'raw encodings (debug_getRawReceipts, debug_getRawBlock)' : 'JSON (eth_getBlockReceipts; the node has no debug_ methods)'}`, () => {
  const sample = main.receipts.flatMap((r) => r.logs)[0]!;
  const address = sample['address'] as string;
  const topic0 = (sample['topics'] as string[])[0]!;

  it('returns every matching log, verified, with its place', async () => {
    const calls: string[] = [];
    const c = await connect(main, calls, raw);
    const logs = await c.getLogs({ fromBlock: n, toBlock: n, address, topics: [topic0] });
    // The raw forms when the node has them, else the JSON objects.
    expect(calls.includes('debug_getRawReceipts')).toBe(true);
    expect(calls.includes('eth_getBlockReceipts')).toBe(!raw);
    const want = expected(address, topic0);
    expect(logs.length).toBe(want.length);
    expect(logs.map((l) => [l.address, l.topics, l.data, l.transactionHash, l.logIndex])).toEqual(
      want.map((l) => [l['address'], l['topics'], l['data'], l['transactionHash'], Number(BigInt(l['logIndex'] as string))]),
    );
    const all = await c.getBlockReceipts(n);
    expect(all.receipts.length).toBe(main.receipts.length);
    expect(all.receipts.map((r) => r.transactionHash)).toEqual(main.block.transactions.map((t) => t['hash']));
  });

  it('asEip1193 answers eth_getLogs verified (by range or by blockHash), as the node would', async () => {
    const c = await connect(main, undefined, raw);
    const eip = c.asEip1193();
    const want = expected(address, topic0).map((l) => [l['address'], l['topics'], l['data'], l['transactionHash'], l['logIndex'], l['blockHash']]);
    const shape = (logs: unknown) => (logs as Json[]).map((l) => [l['address'], l['topics'], l['data'], l['transactionHash'], l['logIndex'], l['blockHash']]);
    const hexN = '0x' + n.toString(16);
    expect(shape(await eip.request({ method: 'eth_getLogs', params: [{ fromBlock: hexN, toBlock: hexN, address, topics: [topic0] }] }))).toEqual(want);
    expect(shape(await eip.request({ method: 'eth_getLogs', params: [{ blockHash: main.block.hash, address, topics: [topic0] }] }))).toEqual(want);
  });

  it('an empty list of addresses or of topics at a position restricts nothing, as eth_getLogs', async () => {
    const c = await connect(main, undefined, raw);
    const all = main.receipts.flatMap((r) => r.logs).length;
    expect((await c.getLogs({ fromBlock: n, toBlock: n, address: [] })).length).toBe(all);
    expect((await c.getLogs({ fromBlock: n, toBlock: n, topics: [[]] })).length).toBe(all);
    expect((await c.getLogs({ fromBlock: n, toBlock: n, address: [], topics: [[], [topic0]] })).length).toBe(
      main.receipts.flatMap((r) => r.logs).filter((l) => (l['topics'] as string[])[1] === topic0).length,
    );
  });

  it('a block whose bloom rules the filter out is not read', async () => {
    const calls: string[] = [];
    const c = await connect(main, calls, raw);
    expect(await c.getLogs({ fromBlock: n, toBlock: n, address: '0x' + '00'.repeat(19) + '01' })).toEqual([]);
    expect(calls).not.toContain('eth_getBlockReceipts');
    expect(calls).not.toContain('debug_getRawReceipts');
  });

  const tampers: [string, (fx: Fixture) => void, string][] = [
    ['a hidden log', (fx) => fx.receipts.find((r) => r.logs.length > 0)!.logs.pop(), 'receipts'],
    ['a receipt of another index', (fx) => ([fx.receipts[0], fx.receipts[1]] = [fx.receipts[1]!, fx.receipts[0]!]), 'receipts'],
    ['a reordered receipt list', (fx) => fx.receipts.reverse(), 'receipts'],
    ['a flipped status', (fx) => (fx.receipts[0]!['status'] = fx.receipts[0]!['status'] === '0x1' ? '0x0' : '0x1'), 'receipts'],
    ['a transaction of another block', (fx) => (fx.block.transactions[0] = other.block.transactions[0]!), 'transactions'],
  ];
  for (const [what, tamper, field] of tampers) {
    it(`catches ${what}`, async () => {
      const fx = clone(main);
      tamper(fx);
      const c = await connect(fx, undefined, raw);
      const e = await c.getLogs({ fromBlock: n, toBlock: n, address, topics: [topic0] }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(isVerificationError(e, 'ROOT_MISMATCH'), String(e)).toBe(true);
      expect((e as { field?: string }).field).toBe(field);
    });
  }

  it('catches a bloom that hides a match (the header no longer hashes to the anchor)', async () => {
    const fx = clone(main);
    fx.block['logsBloom'] = '0x' + '00'.repeat(256);
    const e = await connect(fx, undefined, raw).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isVerificationError(e, 'HEADER_HASH_MISMATCH'), String(e)).toBe(true);
  });

  if (raw) {
    it('a raw block that is not RLP is BAD_ENCODING naming the block', async () => {
      const lying: typeof fetch = async (input, init) => {
        const res = await node(main, [], true)(input, init);
        const body = (await res.json()) as { id: number; result?: unknown }[] | { id: number; result?: unknown };
        const sent = JSON.parse(String(init?.body)) as { id: number; method: string }[] | { id: number; method: string };
        const fix = (a: { id: number; result?: unknown }) => {
          const call = (Array.isArray(sent) ? sent : [sent]).find((c) => c.id === a.id);
          return call?.method === 'debug_getRawBlock' ? { ...a, result: '0xc1' } : a;
        };
        return new Response(JSON.stringify(Array.isArray(body) ? body.map(fix) : fix(body)), { headers: { 'content-type': 'application/json' } });
      };
      const c = await LightClient.connect({ rpc: 'http://fixture.invalid/', trust: { checkpoint: { number: n, hash: main.block.hash } }, fetch: lying });
      const e = await c.getLogs({ fromBlock: n, toBlock: n, address, topics: [topic0] }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(isVerificationError(e, 'BAD_ENCODING'), String(e)).toBe(true);
      expect((e as { field?: string }).field).toBe('block');
    });
  }

  if (raw) {
    for (const [what, answer] of [
      ['-32004 (EIP-1474: method not supported)', { error: { code: -32004, message: 'method not supported' } }],
      ['null (no such block, says the node)', { result: null }],
    ] as const) {
      it(`a node answering the raw forms with ${what} is read through eth_getBlockReceipts instead`, async () => {
        const calls: string[] = [];
        const inner = node(main, calls, true);
        const refusing: typeof fetch = async (input, init) => {
          const sent = JSON.parse(String(init?.body)) as { id: number; method: string }[] | { id: number; method: string };
          const list = Array.isArray(sent) ? sent : [sent];
          if (list.every((c) => c.method.startsWith('debug_'))) {
            list.forEach((c) => calls.push(c.method));
            const out = list.map((c) => ({ jsonrpc: '2.0', id: c.id, ...answer }));
            return new Response(JSON.stringify(Array.isArray(sent) ? out : out[0]), { headers: { 'content-type': 'application/json' } });
          }
          return inner(input, init);
        };
        const c = await LightClient.connect({ rpc: 'http://fixture.invalid/', trust: { checkpoint: { number: n, hash: main.block.hash } }, fetch: refusing });
        const logs = await c.getLogs({ fromBlock: n, toBlock: n, address, topics: [topic0] });
        expect(logs.length).toBe(expected(address, topic0).length);
        expect(calls).toContain('eth_getBlockReceipts');
        expect(c.faultyNodes()).toEqual([]);
      });
    }
  }
});
