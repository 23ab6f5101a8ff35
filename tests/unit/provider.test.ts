import { RpcError, fetchVerifiedAccount, isVerificationError } from '@lightprov/sdk';
import { JsonRpcProvider, Network } from 'ethers';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { type FixtureNode, startFixtureNode } from '../lib/fixture-node.js';
import { rejection } from '../lib/util.js';

const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const WETH_SLOT = '0x4de9be9d9a5197eea999984bec8d41aac923403f95449eaf16641fbc3a942711';
const BLOCK_23223655 = '0x8d96f79997a305853cbb6886915209bccfb0c71156c2ed560b040f1d30fc3265';
const DEPOSIT = '0x00000000219ab540356cbb839cbe05303d7705fa';
const MINER = '0x4838b106fce9647bdf1e7877bf73ce8b0bad5f97';
const BLOCK_21925176 = '0x92dabfa3f61ff1c349d12f5fd0dd4c99760a0a41b77dee8f0a80f83efdcb307a';

let node: FixtureNode;
let provider: JsonRpcProvider;

beforeAll(async () => {
  node = await startFixtureNode();
  provider = new JsonRpcProvider(node.url, Network.from(1), { staticNetwork: true, batchMaxCount: 1 });
});
afterAll(async () => {
  provider.destroy();
  await node.close();
});
beforeEach(() => {
  node.lie = undefined;
});


describe('fetchVerifiedAccount through an ethers v6 JsonRpcProvider', () => {
  it('returns the verified account and slot from an honest node', async () => {
    const a = await fetchVerifiedAccount(provider, WETH, [WETH_SLOT], { blockHash: BLOCK_23223655 });
    expect(a.exists).toBe(true);
    expect(a.balance).toBeGreaterThan(10n ** 24n);
    expect(a.storage).toHaveLength(1);
    expect(a.storage[0]?.key).toBe(WETH_SLOT);
    expect(a.storage[0]?.value).toBeGreaterThan(0n);
    expect(node.calls).toContain('eth_getProof');
  });

  it('accepts slots as bigint', async () => {
    const a = await fetchVerifiedAccount(provider, DEPOSIT, [1n], { blockHash: BLOCK_21925176 });
    expect(a.storage[0]?.value).toBe(0x2394e3bc4086a9625ae88307145a40ff4a4bf2c9a6755435bff86b22d6175d5fn);
  });

  it('rejects a node that inflates the balance', async () => {
    node.lie = (m, _p, a) => (m === 'eth_getProof' ? { ...(a as object), balance: '0x1' } : a);
    const e = await rejection(fetchVerifiedAccount(provider, WETH, [WETH_SLOT], { blockHash: BLOCK_23223655 }));
    expect(isVerificationError(e, 'VALUE_MISMATCH')).toBe(true);
  });

  it('rejects a header whose state root was swapped', async () => {
    node.lie = (m, _p, a) =>
      m === 'eth_getBlockByHash' ? { ...(a as object), stateRoot: '0x' + '11'.repeat(32) } : a;
    const e = await rejection(fetchVerifiedAccount(provider, WETH, [WETH_SLOT], { blockHash: BLOCK_23223655 }));
    expect(isVerificationError(e, 'HEADER_HASH_MISMATCH')).toBe(true);
  });

  it('rejects an answer without the storage proofs asked for', async () => {
    node.lie = (m, _p, a) => (m === 'eth_getProof' ? { ...(a as object), storageProof: [] } : a);
    const e1 = await rejection(fetchVerifiedAccount(provider, DEPOSIT, [1n], { blockHash: BLOCK_21925176 }));
    expect(isVerificationError(e1, 'KEY_MISMATCH')).toBe(true);
  });

  it('rejects a proof that answers for another address', async () => {
    let minerProof: unknown;
    node.lie = (m, _p, a) => {
      if (m === 'eth_getProof') minerProof ??= a;
      return a;
    };
    await fetchVerifiedAccount(provider, MINER, [], { blockHash: BLOCK_21925176 });
    node.lie = (m, _p, a) => (m === 'eth_getProof' ? minerProof : a);
    const e = await rejection(fetchVerifiedAccount(provider, DEPOSIT, [], { blockHash: BLOCK_21925176 }));
    expect(isVerificationError(e, 'KEY_MISMATCH')).toBe(true);
    expect((e as { field?: string }).field).toBe('address');
  });

  it('reports transport errors and unknown blocks as RpcError', async () => {
    const unknown = '0x' + '22'.repeat(32);
    const e = await rejection(fetchVerifiedAccount(provider, WETH, [], { blockHash: unknown }));
    expect(e).toBeInstanceOf(RpcError);
  });

  it('checks its arguments at the edge', async () => {
    await expect(fetchVerifiedAccount(provider, '0x1234', [], { blockHash: BLOCK_23223655 })).rejects.toBeInstanceOf(RangeError);
    await expect(fetchVerifiedAccount(provider, WETH, [-1n], { blockHash: BLOCK_23223655 })).rejects.toBeInstanceOf(RangeError);
    await expect(fetchVerifiedAccount(provider, WETH, [], { blockHash: 'nope' })).rejects.toBeInstanceOf(TypeError);
  });
});
