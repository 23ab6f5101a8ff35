/**
 * The proof-of-authority rules the header walk enforces besides the seal, each broken alone by a
 * header re-sealed with a trusted signer's key (lightprov-node's dev signer key is public): the
 * difficulty of an in-turn or out-of-turn seal, and a signer sealing twice within its limit.
 */
import { LightClient, encodeHeader, init, isVerificationError } from '@lightprov/sdk';
import { SigningKey, Wallet, concat, keccak256, toBeHex } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { scriptedFetch } from '../lib/scripted.js';
import { mine, rejection, rpc } from '../lib/util.js';

/** The dev signer's key: keccak256 of its public seed string (see lightprov-node's Config::dev). */
const SIGNER_KEY = keccak256(new TextEncoder().encode('lightprov dev signer'));

let node: RunningNode;

beforeAll(async () => {
  await init();
  node = await startNode();
  await mine(node.url, 4);
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

type Json = Record<string, string>;

/** `h` with `changes`, re-sealed by the dev signer: a header the trusted signer really signed. */
function reseal(h: Json, changes: Json): Json {
  const extra = h['extraData']!;
  const unsealed = { ...h, ...changes, extraData: extra.slice(0, extra.length - 130) };
  const digest = keccak256(encodeHeader(unsealed).rlp);
  const sig = new SigningKey(SIGNER_KEY).sign(digest);
  const sealed = { ...unsealed, extraData: concat([unsealed.extraData!, sig.r, sig.s, toBeHex(sig.yParity, 1)]) };
  return { ...sealed, hash: keccak256(encodeHeader(sealed).rlp) };
}

const header = async (n: number) => (await rpc(node.url, 'eth_getBlockByNumber', [toBeHex(n), false])) as Json;

/** A client of a node that answers `eth_getBlockByNumber(n)` with `served[n]` where given. */
async function clientServing(served: Record<number, Json>, signers: string[]) {
  const fetch = scriptedFetch({
    'http://resealed.invalid/': {
      target: node.url,
      script: (method, params, result) => (method === 'eth_getBlockByNumber' ? (served[Number(BigInt((params as string[])[0]!))] ?? result) : result),
    },
  });
  return LightClient.connect({ rpc: 'http://resealed.invalid/', trust: { genesisHash: node.genesisHash, signers }, fetch });
}

describe('Clique rules of the header walk', () => {
  it('the dev key is the signer the node prints', () => {
    expect(new Wallet(SIGNER_KEY).address.toLowerCase()).toBe(node.signer.toLowerCase());
  });

  it('an in-turn block with difficulty 1 (a lone signer is always in turn: 2)', async () => {
    const b1 = reseal(await header(1), { difficulty: '0x1' });
    const c = await clientServing({ 1: b1 }, [node.signer]);
    const e = await rejection(c.getHeader(1n));
    expect(isVerificationError(e, 'SIGNER_RULE'), String(e)).toBe(true);
    expect((e as { field?: string }).field).toBe('difficulty');
    // The honest header passes the same walk.
    expect((await (await clientServing({}, [node.signer])).getHeader(1n)).hash).toBe((await header(1)).hash);
  });

  it('a signer sealing two blocks in a row among two signers (limit: once in 2)', async () => {
    // A second trusted signer; turns follow the sorted addresses.
    const other = Wallet.createRandom().address;
    const sorted = [node.signer.toLowerCase(), other.toLowerCase()].sort();
    const turn = (n: number) => (n % 2 === sorted.indexOf(node.signer.toLowerCase()) ? '0x2' : '0x1');
    const b1 = reseal(await header(1), { difficulty: turn(1) });
    const b2 = reseal(await header(2), { difficulty: turn(2), parentHash: b1['hash']! });
    const c = await clientServing({ 1: b1, 2: b2 }, [node.signer, other]);
    expect((await c.getHeader(1n)).hash).toBe(b1['hash']);
    const e = await rejection(c.getHeader(2n));
    expect(isVerificationError(e, 'SIGNER_RULE'), String(e)).toBe(true);
    expect((e as { field?: string }).field).toBe('miner');
    // The same two blocks with the out-of-turn difficulty swapped in are refused for that instead.
    const wrong = reseal(await header(1), { difficulty: turn(1) === '0x2' ? '0x1' : '0x2' });
    const d = await clientServing({ 1: wrong }, [node.signer, other]);
    const e2 = await rejection(d.getHeader(1n));
    expect(isVerificationError(e2, 'SIGNER_RULE') && (e2 as { field?: string }).field).toBe('difficulty');
  });
});

describe('concurrent reads of the header walk', () => {
  /** Forwards to the node; the first `eth_blockNumber` after `arm()` is answered late. */
  function lateFirstHead() {
    let armed = false;
    const fetchLate: typeof fetch = async (input, init) => {
      const body = JSON.parse(String(init?.body)) as { method?: string };
      if (armed && body.method === 'eth_blockNumber') {
        armed = false;
        await new Promise((ok) => setTimeout(ok, 300));
      }
      return fetch(node.url, init);
    };
    return { fetch: fetchLate, arm: () => (armed = true) };
  }

  it('two reads walking forward at once each get their own block, whichever walk runs first', async () => {
    await mine(node.url, 8);
    const late = lateFirstHead();
    const c = await LightClient.connect({ rpc: 'http://late.invalid/', trust: { genesisHash: node.genesisHash, signers: [node.signer] }, fetch: late.fetch });
    // The lower block asks first but waits: the walk to the higher one runs first.
    late.arm();
    const [six, nine] = await Promise.all([c.getHeader(6n), c.getHeader(9n)]);
    expect([six.number, nine.number]).toEqual([6n, 9n]);
    expect(six.hash).toBe((await header(6)).hash);
    expect(nine.hash).toBe((await header(9)).hash);
  });

  it('two reads walking back from a checkpoint at once each get their own block', async () => {
    const cp = await header(10);
    const c = await LightClient.connect({ rpc: node.url, trust: { checkpoint: { number: 10n, hash: cp['hash']! } } });
    // The walk to block 3 runs first and passes block 8 on its way.
    const [three, eight] = await Promise.all([c.getHeader(3n), c.getHeader(8n)]);
    expect([three.number, eight.number]).toEqual([3n, 8n]);
    expect(eight.hash).toBe((await header(8)).hash);
  });
});
