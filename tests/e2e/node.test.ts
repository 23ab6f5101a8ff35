import { verifyMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, fetchVerifiedAccount, hexToBytes, init, isVerificationError, verifyAccountProof, verifyHeader } from '@lightprov/sdk';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { JsonRpcProvider, Network, Wallet, parseEther } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { rejection } from '../lib/util.js';

const bytes = (h: string): Uint8Array => hexToBytes(h, 'hex');
const bigIntToBytes8 = (v: bigint): Uint8Array => bytes('0x' + v.toString(16).padStart(16, '0'));
const provider = (url: string) => new JsonRpcProvider(url, Network.from(1337), { staticNetwork: true, pollingInterval: 50 });

let node: RunningNode;
let rpc: JsonRpcProvider;

beforeAll(async () => {
  await init();
  node = await startNode();
  rpc = provider(node.url);
});
afterAll(async () => {
  rpc?.destroy();
  await node?.stop();
});


describe('lightprov-node with ethers and the SDK', () => {
  it('a transfer sent with an ethers Wallet shows in both verified balances', async () => {
    const alice = new Wallet(node.accounts[0]!.key, rpc);
    const bob = Wallet.createRandom().address;
    const value = parseEther('1.25');
    const genesis = await rpc.send('eth_getBlockByNumber', ['0x0', false]);
    expect(genesis.hash).toBe(node.genesisHash);

    const before = await fetchVerifiedAccount(rpc, alice.address, [], { blockHash: node.genesisHash });
    const tx = await alice.sendTransaction({ to: bob, value });
    const receipt = await tx.wait();
    expect(receipt?.status).toBe(1);
    const blockHash = receipt!.blockHash;

    const after = await fetchVerifiedAccount(rpc, alice.address, [], { blockHash });
    const bobAfter = await fetchVerifiedAccount(rpc, bob, [], { blockHash });
    const fee = receipt!.gasUsed * receipt!.gasPrice;
    expect(bobAfter.exists).toBe(true);
    expect(bobAfter.balance).toBe(value);
    expect(before.balance - after.balance).toBe(value + fee);
    expect(after.nonce).toBe(before.nonce + 1n);
    // Bob did not exist at genesis: the proof of absence verifies.
    const bobBefore = await fetchVerifiedAccount(rpc, bob, [], { blockHash: node.genesisHash });
    expect(bobBefore.exists).toBe(false);
    expect(await rpc.getBalance(bob)).toBe(value);
  });

  it('eth_getProof answers verify with @ethereumjs/mpt too, present and absent, past blocks', async () => {
    const alice = node.accounts[1]!.address;
    const absent = '0x' + '42'.repeat(20);
    const head = Number(await rpc.send('eth_blockNumber', []));
    for (let n = 0; n <= head; n++) {
      const block = await rpc.send('eth_getBlockByNumber', ['0x' + n.toString(16), false]);
      const header = verifyHeader(block, block.hash);
      for (const address of [alice, absent]) {
        const p = await rpc.send('eth_getProof', [address, ['0x0', '0x1'], { blockHash: block.hash }]);
        const ours = verifyAccountProof(p, header.stateRoot);
        const leaf = await verifyMerkleProof(keccak_256(bytes(address)), p.accountProof.map(bytes), { root: bytes(header.stateRoot) });
        expect(leaf !== null).toBe(ours.exists);
        if (leaf !== null) {
          const [nonce, balance] = RLP.decode(leaf) as Uint8Array[];
          expect(BigInt('0x' + (Buffer.from(balance!).toString('hex') || '0'))).toBe(ours.balance);
          expect(BigInt('0x' + (Buffer.from(nonce!).toString('hex') || '0'))).toBe(ours.nonce);
        }
        for (const s of p.storageProof) {
          expect(BigInt(s.value)).toBe(0n);
        }
      }
    }
  });

  it('storage proofs of a workload chain verify with @ethereumjs/mpt too, present and absent slots', async () => {
    const kvNode = await startNode({ args: ['--workload', 'kvstore', '--tx-per-block', '20', '--seed', '4'] });
    const p = provider(kvNode.url);
    try {
      await p.send('evm_mine', []);
      const block = await p.send('eth_getBlockByNumber', ['latest', false]);
      const header = verifyHeader(block, block.hash);
      const kv = '0x' + 'cc'.repeat(20);
      // record k lives at keccak256(k as 8 big-endian bytes); 10^9 is beyond the 10 000 records
      const slotOf = (k: bigint) => bytesToHex(keccak_256(bigIntToBytes8(k)));
      const slots = [slotOf(0n), slotOf(9999n), slotOf(1_000_000_000n)];
      const proof = await p.send('eth_getProof', [kv, slots, { blockHash: block.hash }]);
      const ours = verifyAccountProof(proof, header.stateRoot);
      expect(ours.storage.map((s) => s.value !== 0n)).toEqual([true, true, false]);
      for (const [i, s] of proof.storageProof.entries()) {
        const v = await verifyMerkleProof(keccak_256(bytes(s.key)), s.proof.map(bytes), { root: bytes(ours.storageHash) });
        const peer = v === null ? 0n : BigInt('0x' + (Buffer.from(RLP.decode(v) as Uint8Array).toString('hex') || '0'));
        expect(peer).toBe(ours.storage[i]!.value);
      }
    } finally {
      p.destroy();
      await kvNode.stop();
    }
  });

  it('bad parameters get -32602 naming the parameter; unknown blocks -32001', async () => {
    const e1 = (await rejection(rpc.send('eth_getProof', ['0x1234', [], 'latest']))) as { error?: { code: number; message: string } };
    expect(e1.error?.code).toBe(-32602);
    expect(e1.error?.message).toMatch(/address/);
    const e2 = (await rejection(rpc.send('eth_getBalance', [node.accounts[0]!.address, '0xffffff']))) as { error?: { code: number } };
    expect(e2.error?.code).toBe(-32001);
    const e3 = (await rejection(rpc.send('eth_sendRawTransaction', ['0xdead']))) as { error?: { message: string } };
    expect(e3.error?.message).toMatch(/invalid transaction encoding/);
  });
});

describe('a node that lies', () => {
  for (const [mode, code] of [
    ['proof-byte', 'NODE_HASH_MISMATCH'],
    ['header-field', 'HEADER_HASH_MISMATCH'],
  ] as const) {
    it(`--dishonest ${mode} is caught as ${code}`, async () => {
      const liar = await startNode({ args: ['--dishonest', mode] });
      const p = provider(liar.url);
      try {
        const e = await rejection(fetchVerifiedAccount(p, liar.accounts[0]!.address, [], { blockHash: liar.genesisHash }));
        expect(isVerificationError(e, code), String(e)).toBe(true);
      } finally {
        p.destroy();
        await liar.stop();
      }
    });
  }
});

describe('restart', () => {
  it('kill -9 then restart: same head, same verified history', async () => {
    const n1 = await startNode();
    let p = provider(n1.url);
    const w = new Wallet(n1.accounts[2]!.key, p);
    const to = Wallet.createRandom().address;
    const receipt = await (await w.sendTransaction({ to, value: 777n })).wait();
    const head = await p.send('eth_getBlockByNumber', ['latest', false]);
    p.destroy();
    await n1.stop('SIGKILL');

    const n2 = await startNode({ dataDir: n1.dataDir });
    p = provider(n2.url);
    try {
      expect(n2.genesisHash).toBe(n1.genesisHash);
      const again = await p.send('eth_getBlockByNumber', ['latest', false]);
      expect(again.hash).toBe(head.hash);
      const acct = await fetchVerifiedAccount(p, to, [], { blockHash: receipt!.blockHash });
      expect(acct.balance).toBe(777n);
    } finally {
      p.destroy();
      await n2.stop();
    }
  });
});

describe('crash safety', () => {
  it('kill -9 while blocks are produced, three times: the chain resumes intact and verifies from genesis', async () => {
    const dataDir = (await import('../lib/node-process.js')).tempDataDir();
    let lastHead = -1;
    for (let round = 0; round < 3; round++) {
      const n = await startNode({ dataDir, args: ['--block-time', '20ms', '--workload', 'kvstore', '--tx-per-block', '50', '--seed', '9'] });
      await new Promise((r) => setTimeout(r, 300 + 150 * round));
      // The last block the node served is committed: it must survive the kill.
      const live = provider(n.url);
      const served = await live.send('eth_getBlockByNumber', ['latest', false]);
      live.destroy();
      await n.stop('SIGKILL');
      // Restart without block production and check what was committed.
      const check = await startNode({ dataDir, args: ['--workload', 'kvstore', '--tx-per-block', '50', '--seed', '9'] });
      const p = provider(check.url);
      try {
        const head = Number(await p.send('eth_blockNumber', []));
        expect(head).toBeGreaterThanOrEqual(Number(served.number));
        expect((await p.send('eth_getBlockByNumber', [served.number, false])).hash).toBe(served.hash);
        expect(head).toBeGreaterThan(lastHead);
        lastHead = head;
        const { LightClient } = await import('@lightprov/sdk');
        const client = await LightClient.connect({ rpc: check.url, trust: { genesisHash: check.genesisHash, signers: [check.signer] } });
        const verified = await client.getHeader(BigInt(head)); // every link and seal from genesis
        const latest = await p.send('eth_getBlockByNumber', ['latest', false]);
        expect(verified.hash).toBe(latest.hash);
        const kv = '0x' + 'cc'.repeat(20);
        const acct = await client.getAccount(kv, [], BigInt(head));
        expect(acct.exists).toBe(true);
      } finally {
        p.destroy();
        await check.stop();
      }
    }
  }, 60_000);
});
