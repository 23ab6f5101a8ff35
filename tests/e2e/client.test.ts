import { LightClient, RpcError, isVerificationError } from '@lightprov/sdk';
import { BrowserProvider, JsonRpcProvider, Network, Wallet } from 'ethers';
import { createPublicClient, custom } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { rejection } from '../lib/util.js';

let honest: RunningNode;
let liar: RunningNode;

beforeAll(async () => {
  [honest, liar] = await Promise.all([startNode(), startNode({ args: ['--dishonest', 'proof-byte'] })]);
});
afterAll(async () => {
  await Promise.all([honest?.stop(), liar?.stop()]);
});

const trust = () => ({ genesisHash: honest.genesisHash, signers: [honest.signer] });


describe('LightClient against lightprov-node', () => {
  it('reads verified state from the genesis anchor', async () => {
    const client = await LightClient.connect({ rpc: [honest.url], trust: trust() });
    const a = honest.accounts[3]!.address;
    expect(await client.getBalance(a, 0n)).toBe(10n ** 24n);
    expect(await client.getTransactionCount(a)).toBe(0n);
    expect(await client.getCode(a)).toBe('0x');
    expect(await client.getStorageAt(a, 0n)).toBe('0x' + '00'.repeat(32));
    const h = await client.getHeader(0n);
    expect(h.hash).toBe(honest.genesisHash);
  });

  it('serves ethers through asEip1193: a Wallet sends, balances come back verified', async () => {
    // The gas estimate is verified (a run over proven state, under the chain's London rules).
    const client = await LightClient.connect({ rpc: [honest.url], trust: { ...trust(), chainId: 1337n }, chainConfig: { londonBlock: 0 } });
    // Fee data has no proof: the app names it to let it through (the receipt is verified).
    const eip = client.asEip1193({ allowUnverified: ['eth_gasPrice', 'eth_maxPriorityFeePerGas'] });
    const provider = new BrowserProvider(eip, Network.from(1337));
    const wallet = new Wallet(honest.accounts[4]!.key, provider);
    const to = Wallet.createRandom().address;
    const before = await provider.getBalance(wallet.address);
    const receipt = await (await wallet.sendTransaction({ to, value: 4242n })).wait();
    expect(receipt?.status).toBe(1);
    expect(await provider.getBalance(to)).toBe(4242n);
    const after = await provider.getBalance(wallet.address, receipt!.blockNumber);
    expect(before - after).toBe(4242n + receipt!.gasUsed * receipt!.gasPrice);
    expect(await provider.getTransactionCount(wallet.address, 'latest')).toBe(1);
    expect((await provider.getBlock(receipt!.blockNumber))?.hash).toBe(receipt!.blockHash);
  });

  it('serves viem through custom(asEip1193())', async () => {
    const client = await LightClient.connect({ rpc: honest.url, trust: trust() });
    const viem = createPublicClient({ transport: custom(client.asEip1193()) });
    const a = honest.accounts[7]!.address as `0x${string}`;
    expect(await viem.getBalance({ address: a, blockNumber: 0n })).toBe(10n ** 24n);
    expect(await viem.getTransactionCount({ address: a })).toBe(0);
    expect((await viem.getBlock({ blockNumber: 0n })).hash).toBe(honest.genesisHash);
  });

  it('fails over from a dead node and from a lying node, and remembers the liar', async () => {
    const client = await LightClient.connect({ rpc: ['http://127.0.0.1:9', liar.url, honest.url], trust: trust(), timeoutMs: 2000 });
    const a = honest.accounts[5]!.address;
    expect(await client.getBalance(a, 0n)).toBe(10n ** 24n);
    const faulty = client.faultyNodes();
    expect(faulty.map((f) => f.url)).toEqual([liar.url]);
    expect(faulty[0]?.error.code).toBe('NODE_HASH_MISMATCH');
  });

  it('fails over from a node that accepts the connection but never answers (timeout)', async () => {
    const http = await import('node:http');
    const silent = http.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    try {
      const client = await LightClient.connect({ rpc: [url, honest.url], trust: trust(), timeoutMs: 300 });
      expect(await client.getBalance(honest.accounts[8]!.address, 0n)).toBe(10n ** 24n);
      expect(client.faultyNodes()).toEqual([]); // slow is not dishonest
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('with only a lying node, throws the verification error and returns nothing', async () => {
    const client = await LightClient.connect({ rpc: [liar.url], trust: { genesisHash: liar.genesisHash, signers: [liar.signer] } });
    const e = await rejection(client.getBalance(liar.accounts[0]!.address, 0n));
    expect(isVerificationError(e, 'NODE_HASH_MISMATCH')).toBe(true);
    const again = await rejection(client.getBalance(liar.accounts[0]!.address, 0n));
    expect(again).toBeInstanceOf(RpcError); // every node is now marked faulty
  });

  it('refuses headers sealed by an untrusted signer', async () => {
    const eth = new JsonRpcProvider(honest.url, Network.from(1337), { staticNetwork: true });
    await eth.send('evm_mine', []);
    eth.destroy();
    // The anchor is trusted by its hash; every header after it must carry a trusted seal.
    const client = await LightClient.connect({ rpc: [honest.url], trust: { genesisHash: honest.genesisHash, signers: ['0x' + '11'.repeat(20)] } });
    const e = await rejection(client.getBalance(honest.accounts[0]!.address, 1n));
    expect(isVerificationError(e, 'UNKNOWN_SIGNER')).toBe(true);
  });

  it('refuses a genesis hash that is not the node chain', async () => {
    const e = await rejection(LightClient.connect({ rpc: [honest.url], trust: { genesisHash: '0x' + '22'.repeat(32), signers: [honest.signer] } }));
    expect(e).toBeInstanceOf(RpcError); // the node has no such block
  });

  it('from a checkpoint, verifies earlier blocks by walking parent hashes back', async () => {
    const eth = new JsonRpcProvider(honest.url, Network.from(1337), { staticNetwork: true });
    await eth.send('evm_mine', []);
    await eth.send('evm_mine', []);
    const head = await eth.send('eth_getBlockByNumber', ['latest', false]);
    eth.destroy();
    const client = await LightClient.connect({ rpc: honest.url, trust: { checkpoint: { number: BigInt(head.number), hash: head.hash } } });
    expect((await client.getHeader(0n)).hash).toBe(honest.genesisHash);
    expect(await client.getBalance(honest.accounts[6]!.address, 0n)).toBe(10n ** 24n);
    // Without signers nothing after the checkpoint can be verified: 'latest' is the checkpoint,
    // and a later block is refused rather than believed.
    expect((await client.getHeader('latest')).hash).toBe(head.hash);
    await expect(client.getHeader(BigInt(head.number) + 1n)).rejects.toBeInstanceOf(RangeError);
    // A checkpoint whose number does not match its hash is the caller's mistake.
    await expect(LightClient.connect({ rpc: honest.url, trust: { checkpoint: { number: 1n, hash: head.hash } } })).rejects.toBeInstanceOf(RangeError);
  });

  it('never lets a node roll "latest" back below what it verified', async () => {
    let lie = false;
    const fetchThatLies: typeof fetch = async (input, init) => {
      const body = JSON.parse(String(init?.body));
      if (lie && !Array.isArray(body) && body.method === 'eth_blockNumber') {
        return new Response(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: '0x0' }), { headers: { 'content-type': 'application/json' } });
      }
      return fetch(input, init);
    };
    const client = await LightClient.connect({ rpc: honest.url, trust: trust(), fetch: fetchThatLies });
    const head = await client.getHeader('latest');
    expect(head.number).toBeGreaterThan(0n);
    lie = true;
    expect((await client.getHeader('latest')).number).toBe(head.number);
  });

  it('answers eth_getBlockByNumber through asEip1193 with the verified header of that number', async () => {
    const client = await LightClient.connect({ rpc: honest.url, trust: trust() });
    const eip = client.asEip1193();
    const block = (await eip.request({ method: 'eth_getBlockByNumber', params: ['0x1', false] })) as Record<string, string>;
    const verified = await client.getHeader(1n);
    expect(block.number).toBe('0x1');
    expect(block.hash).toBe(verified.hash);
    expect(block.stateRoot).toBe(verified.stateRoot);
    expect(await eip.request({ method: 'eth_getBlockByNumber', params: ['0xffffff', false] })).toBeNull();
  });

  it('checks its options at the edge', async () => {
    await expect(LightClient.connect({ rpc: [], trust: trust() })).rejects.toBeInstanceOf(TypeError);
    await expect(LightClient.connect({ rpc: 'ftp://x', trust: trust() })).rejects.toBeInstanceOf(TypeError);
    await expect(LightClient.connect({ rpc: honest.url, trust: { genesisHash: honest.genesisHash, signers: [] } })).rejects.toBeInstanceOf(RangeError);
    await expect(LightClient.connect({ rpc: honest.url, trust: {} as never })).rejects.toBeInstanceOf(TypeError);
  });
});
