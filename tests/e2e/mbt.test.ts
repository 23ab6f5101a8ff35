/**
 * The Merkle Bucket Tree through the SDK against lightprov-node: values at the head and at older
 * blocks (each against that block's own mbtRoot) agree with eth_getProof, absence is proven,
 * histories agree with the MPT baseline, a diff between two blocks names exactly the keys whose
 * values moved, and a forged history proof is caught.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { LightClient, NodeFaultError, RpcError, type StateKey, VerificationError, commitmentOf, historyProof, init, stateKeys } from '@lightprov/sdk';
import { forgeProof, outlineHistory } from '@lightprov/sdk/inspect';
import { mbtParamsOfWord } from '@lightprov/sdk/mbt';
import { keccak256, toBeHex } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { scriptedFetch } from '../lib/scripted.js';
import { mine, rejection, rpc, thrown } from '../lib/util.js';

const KVSTORE = '0x' + 'cc'.repeat(20);
const HEAD = 24n;

let node: RunningNode;

beforeAll(async () => {
  await init();
  // Few buckets, so they hold several keys and absence proofs carry neighbours.
  node = await startNode({ args: ['--engines', 'mpt,mbt', '--workload', 'kvstore', '--tx-per-block', '20', '--mbt-bucket-bits', '5', '--mbt-fanout', '3'] });
  await mine(node.url, Number(HEAD));
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

const trust = (n: RunningNode) => ({ genesisHash: n.genesisHash, signers: [n.signer] });
const record = (k: number): StateKey => stateKeys.storage(KVSTORE, keccak256(toBeHex(k, 8)));

async function client(url = node.url) {
  return LightClient.connect({ rpc: url, trust: trust(node) });
}

type Answer = { block: string; proof: string } & Record<string, unknown>;

/** A proxy to the node that rewrites the answers of `method` with `lie`. */
async function lyingProxy(method: string, lie: (a: Answer) => Answer): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      void (async () => {
        const reqs = JSON.parse(body) as { method: string } | { method: string }[];
        const r = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const answers = (await r.json()) as { result?: unknown } | { result?: unknown }[];
        const list = Array.isArray(answers) ? answers : [answers];
        const asked = Array.isArray(reqs) ? reqs : [reqs];
        list.forEach((a, i) => {
          if (asked[i]?.method === method && a.result) a.result = lie(a.result as Answer);
        });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(answers));
      })();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** `hex` with its last byte flipped. */
const flipLast = (hex: string) => hex.slice(0, -2) + (parseInt(hex.slice(-2), 16) ^ 1).toString(16).padStart(2, '0');

describe('mbt against lightprov-node', () => {
  it('proves values at any block against that block, as eth_getProof does, and absence', async () => {
    const c = await client();
    for (const k of [0, 1, 2, 3]) {
      const key = record(k);
      for (const block of [3n, 11n, HEAD]) {
        const v = await c.getValueDetailed(key, { scheme: 'mbt', block });
        expect(v.block).toBe(block);
        expect(v.anchor.number).toBe(block);
        expect(v.value).toBe(BigInt(await c.getStorageAt(KVSTORE, key.slot!, block)));
        expect(v.present).toBe(v.value !== 0n);
      }
    }
    const absent = await c.getValueDetailed(stateKeys.balance('0x' + '77'.repeat(20)), { scheme: 'mbt' });
    expect([absent.present, absent.value]).toEqual([false, 0n]);
  });

  it('proves histories that agree with one eth_getProof per block', async () => {
    const c = await client();
    for (const [k, from, to] of [[0, 0n, HEAD], [5, 7n, 19n], [20_000, 2n, 9n]] as const) {
      const key = record(k);
      const q = { fromBlock: from, toBlock: to };
      const [mbt, mpt] = await Promise.all([c.getHistoryDetailed(key, { ...q, scheme: 'mbt' }), c.getHistory(key, { ...q, scheme: 'mpt' })]);
      expect(mbt.points).toEqual(mpt);
      expect(mbt.blockRoots).toHaveLength(Number(to - from) + 1);
      // Checked against every block's root of the range: anchored to the range's last block,
      // whatever block the node names its answer by.
      expect(mbt.anchor.number).toBe(to);
      // The inspector draws it against every block's root; a forged node set is caught.
      expect((await outlineHistory(mbt)).root.matches).toBe(true);
      const f = await forgeProof({ family: 'mbt', kind: 'history-nodes-reordered', proof: historyProof(mbt).proof as string }).catch(() => null);
      if (f) expect(() => c.verifyHistoryProof(mbt, f.proof)).toThrow(expect.objectContaining({ code: f.expectedCode }));
    }
  });

  it("anchors a history to its range's last block, not to the later block a node names its answer by", async () => {
    const fetch = scriptedFetch({
      'http://later.invalid/': { target: node.url, script: (method, _params, result) => (method === 'lightprov_getHistory' ? { ...(result as object), block: toBeHex(HEAD) } : result) },
    });
    const c = await LightClient.connect({ rpc: 'http://later.invalid/', trust: trust(node), fetch });
    const h = await c.getHistoryDetailed(record(5), { fromBlock: 7n, toBlock: 19n, scheme: 'mbt' });
    expect(h.anchor.number).toBe(19n);
    expect(h.points).toEqual(await c.getHistory(record(5), { fromBlock: 7n, toBlock: 19n, scheme: 'mpt' }));
  });

  it('proves the changes between two blocks: exactly the keys whose values differ', async () => {
    const c = await client();
    const d = await c.getDiffDetailed(6n, 9n, { scheme: 'mbt' });
    expect(d.anchors.map((h) => h.number)).toEqual([6n, 9n]);
    expect(d.changes.length).toBeGreaterThan(0);
    for (const ch of d.changes) expect(ch.old).not.toBe(ch.new);
    const moved = new Map(d.changes.map((ch) => [ch.stateKey, ch]));
    for (let k = 0; k < 40; k++) {
      const key = record(k);
      const [a, b] = await Promise.all([c.getStorageAt(KVSTORE, key.slot!, 6n), c.getStorageAt(KVSTORE, key.slot!, 9n)]);
      const ch = moved.get(key.stateKey);
      if (BigInt(a) === BigInt(b)) expect(ch).toBeUndefined();
      else expect([ch?.old, ch?.new]).toEqual([a, b].map((v) => (BigInt(v) === 0n ? null : BigInt(v))));
    }
    expect(await c.getDiff(5n, 5n, { scheme: 'mbt' })).toEqual([]);
    await expect(c.getDiff(9n, 6n, { scheme: 'mbt' })).rejects.toThrow(RangeError);
  });

  it('catches a node that alters a proof, or answers for another block than asked', async () => {
    const key = record(1);
    const altered = await lyingProxy('lightprov_getMbtProof', (a) => ({ ...a, proof: flipLast(a.proof) }));
    const e = await rejection((await client(altered.url)).getValue(key, { scheme: 'mbt', block: 11n }));
    altered.close();
    expect(e).toBeInstanceOf(VerificationError);
    const older = await lyingProxy('lightprov_getMbtProof', (a) => ({ ...a, block: '0x3' }));
    const f = await rejection((await client(older.url)).getValue(key, { scheme: 'mbt', block: 11n }));
    older.close();
    expect(f).toBeInstanceOf(NodeFaultError);
    const history = await lyingProxy('lightprov_getHistory', (a) => ({ ...a, proof: flipLast(a.proof) }));
    const g = await rejection((await client(history.url)).getHistory(key, { scheme: 'mbt', fromBlock: 2, toBlock: 12 }));
    history.close();
    expect(g).toBeInstanceOf(VerificationError);
    const diff = await lyingProxy('lightprov_getMbtDiff', (a) => ({ ...a, bucketBits: 6 }));
    const d = (await rejection((await client(diff.url)).getDiff(6n, 9n, { scheme: 'mbt' }))) as VerificationError;
    diff.close();
    expect(d.code).toBe('PARAMS_MISMATCH');
  });

  it('verifies under the parameters the genesis header pins, and refuses answers under others', async () => {
    const genesis = (await rpc(node.url, 'eth_getBlockByNumber', ['0x0', false])) as { extraData: string };
    const word = (h: { extraData: string }) => commitmentOf(h, 'mbtParams');
    expect(mbtParamsOfWord(word(genesis))).toEqual({ bucketBits: 5, fanout: 3 });
    const later = (await rpc(node.url, 'eth_getBlockByNumber', ['0x1', false])) as { extraData: string };
    expect(mbtParamsOfWord(word(later))).toBeNull();
    expect(() => mbtParamsOfWord('0x0503' + '00'.repeat(29) + '01')).toThrow(/bytes 2\.\.32/);
    const key = record(2);
    // A client pinned to other parameters refuses the node's answers: the answer claims others…
    const pinnedOther = await LightClient.connect({ rpc: node.url, trust: trust(node), mbtParams: { bucketBits: 6, fanout: 3 } });
    const e = (await rejection(pinnedOther.getValue(key, { scheme: 'mbt', block: 11n }))) as VerificationError;
    expect([e.code, e.field]).toEqual(['PARAMS_MISMATCH', 'params']);
    // …and when the answer claims the pinned ones, the proof itself was made under others.
    const claims6 = await lyingProxy('lightprov_getMbtProof', (a) => ({ ...a, bucketBits: 6 }));
    const lied = await LightClient.connect({ rpc: claims6.url, trust: trust(node), mbtParams: { bucketBits: 6, fanout: 3 } });
    const f = (await rejection(lied.getValue(key, { scheme: 'mbt', block: 11n }))) as VerificationError;
    claims6.close();
    expect(f.code).toBe('PARAMS_MISMATCH');
    expect(f.message).not.toContain('the answer is under');
    // A malformed option is refused by name.
    await expect(LightClient.connect({ rpc: node.url, trust: trust(node), mbtParams: { bucketBits: 5 } as never })).rejects.toThrow('mbtParams.fanout');
  });

  it('re-verifies a history proof under the parameters the client pins, never those the answer claims', async () => {
    const c = await client();
    const h = await c.getHistoryDetailed(record(1), { fromBlock: 4n, toBlock: 12n, scheme: 'mbt' });
    const proof = historyProof(h).proof;
    // The answer behind the history claims other parameters: the pinned ones still serve.
    const claimsOther = { ...h, raw: { ...(h.raw as object), bucketBits: 6 } };
    c.verifyHistoryProof(claimsOther, proof);
    // A client that pins other parameters refuses the proof, though the answer claims the chain's.
    const pinnedOther = await LightClient.connect({ rpc: node.url, trust: trust(node), mbtParams: { bucketBits: 6, fanout: 3 } });
    const e = thrown(() => pinnedOther.verifyHistoryProof(h, proof)) as VerificationError;
    expect(e).toBeInstanceOf(VerificationError);
    expect(e.code).toBe('PARAMS_MISMATCH');
    // A client that has pinned none yet cannot tell which parameters to check under.
    const fresh = await LightClient.connect({ rpc: node.url, trust: trust(node) });
    expect(() => fresh.verifyHistoryProof(h, proof)).toThrow(/pinned no MBT parameters/);
  });

  it('refuses malformed calls with the field at fault', async () => {
    const e = (await rejection(rpc(node.url, 'lightprov_getMbtDiff', ['0x9', '0x6']))) as RpcError;
    expect([e.code, e.message]).toEqual([-32602, expect.stringContaining('toBlock')]);
    const h = (await rejection(rpc(node.url, 'lightprov_getMbtProof', ['0x12', 'latest']))) as RpcError;
    expect(h.message).toContain('stateKey');
    const s = (await rpc(node.url, 'lightprov_status', [])) as { engines: { name: string; params?: unknown }[] };
    expect(s.engines.find((x) => x.name === 'mbt')?.params).toEqual({ bucketBits: 5, fanout: 3 });
  });
});
