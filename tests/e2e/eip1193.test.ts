/**
 * `asEip1193()` passes nothing through unverified by default: each method has a class, methods
 * outside the table are refused with EIP-1193 error 4200 unless the app names them, block
 * objects hold only what the header hash and the transactions root prove, and what a node says
 * back for a send, a chain id or a pending nonce is checked where it can be.
 */
import { EIP1193_METHODS, LightClient, NodeFaultError, ProviderRpcError, VERIFICATION_FAILED, init, isVerificationError } from '@lightprov/sdk';
import { BrowserProvider, JsonRpcProvider, Network, Wallet, id, keccak256 } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { type Script, scriptedFetch } from '../lib/scripted.js';
import { mine, rejection, rpc } from '../lib/util.js';

/** Where the node's Transfer events come from (EIP-7708's system address), and their topic0. */
const TRANSFER_LOG_ADDRESS = '0xfffffffffffffffffffffffffffffffffffffffe';
const TRANSFER_TOPIC = id('Transfer(address,address,uint256)');

let node: RunningNode;
/** A block with several transactions (more than 16: the trie has branches two levels deep). */
let busy: bigint;
const TXS = 20;

beforeAll(async () => {
  await init();
  // Blocks only on evm_mine, so that every transaction sent below lands in one block.
  // --max-logs-range 2: the node's eth_getLogs limit, checked below (the SDK does not call it).
  node = await startNode({ args: ['--block-time', '3600s', '--max-logs-range', '2'] });
  await mine(node.url, 2);
  const eth = new JsonRpcProvider(node.url, Network.from(1337), { staticNetwork: true });
  const wallet = new Wallet(node.accounts[6]!.key);
  const raws = [];
  for (let i = 0; i < TXS; i++) {
    const common = { to: node.accounts[7]!.address, value: 1n + BigInt(i), nonce: i, gasLimit: 21_000n, chainId: 1337n };
    // Legacy and EIP-1559 transactions alternate.
    raws.push(await wallet.signTransaction(i % 2 === 0 ? { ...common, type: 2, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1n } : { ...common, type: 0, gasPrice: 2_000_000_000n }));
  }
  for (const r of raws) await eth.send('eth_sendRawTransaction', [r]);
  eth.destroy();
  await mine(node.url, 1);
  busy = BigInt((await rpc(node.url, 'eth_blockNumber', [])) as string);
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

const trust = () => ({ genesisHash: node.genesisHash, signers: [node.signer] });

async function provider(liars: Record<string, Script> = {}, order = [node.url], allowUnverified?: string[]) {
  const fetch = scriptedFetch(Object.fromEntries(Object.entries(liars).map(([url, script]) => [url, { target: node.url, script }])));
  const client = await LightClient.connect({ rpc: order, trust: trust(), fetch });
  return { client, eip: client.asEip1193(allowUnverified ? { allowUnverified } : {}) };
}

describe('receipts and logs against lightprov-node', () => {
  it("getBlockReceipts: the node's receipts rebuild receiptsRoot, each names its transaction", async () => {
    const { client } = await provider();
    const { header, receipts } = await client.getBlockReceipts(busy);
    const node_ = (await rpc(node.url, 'eth_getBlockByNumber', ['0x' + busy.toString(16), false])) as { transactions: string[] };
    expect(header.number).toBe(busy);
    expect(receipts.map((r) => r.transactionHash)).toEqual(node_.transactions);
    expect(receipts.map((r) => r.status)).toEqual(receipts.map(() => 1));
    expect(receipts.at(-1)?.cumulativeGasUsed).toBe(21_000n * BigInt(TXS));
    // Events come from the system address, not the recipient: this filter is verified empty.
    expect(await client.getLogs({ fromBlock: 1n, toBlock: busy, address: node.accounts[7]!.address })).toEqual([]);
  });

  it('every transfer leaves a Transfer event (EIP-7708 shape), found by topic and verified complete', async () => {
    const { client, eip } = await provider();
    const pad = (a: string) => '0x' + a.slice(2).toLowerCase().padStart(64, '0');
    const filter = { fromBlock: 1n, toBlock: busy, address: TRANSFER_LOG_ADDRESS, topics: [TRANSFER_TOPIC, pad(node.accounts[6]!.address), pad(node.accounts[7]!.address)] };
    const logs = await client.getLogs(filter);
    expect(logs.length).toBe(TXS);
    expect(logs.map((l) => BigInt(l.data))).toEqual(Array.from({ length: TXS }, (_, i) => 1n + BigInt(i)));
    expect(new Set(logs.map((l) => l.blockNumber))).toEqual(new Set([busy]));
    expect(logs.map((l) => l.logIndex)).toEqual(Array.from({ length: TXS }, (_, i) => i));
    // The receipt holds its event; ethers reads the same logs through asEip1193.
    const receipt = await client.getTransactionReceipt(logs[4]!.transactionHash);
    expect(receipt?.logs.map((l) => l.data)).toEqual([logs[4]!.data]);
    const ethers = new BrowserProvider(eip, Network.from(1337));
    const viaEthers = await ethers.getLogs({ fromBlock: 1, toBlock: Number(busy), address: TRANSFER_LOG_ADDRESS, topics: [TRANSFER_TOPIC] });
    expect(viaEthers.map((l) => l.transactionHash)).toEqual(logs.map((l) => l.transactionHash));
    // The node's own eth_getLogs (unverified, geth's shape) gives the same logs.
    const hex = (x: bigint) => '0x' + x.toString(16);
    const raw = (await rpc(node.url, 'eth_getLogs', [{ ...filter, fromBlock: hex(busy), toBlock: hex(busy) }])) as { transactionHash: string; logIndex: string; data: string }[];
    expect(raw.map((l) => [l.transactionHash, Number(l.logIndex), l.data])).toEqual(logs.map((l) => [l.transactionHash, l.logIndex, l.data]));
    expect(await rpc(node.url, 'eth_getLogs', [{ blockHash: logs[0]!.blockHash, address: TRANSFER_LOG_ADDRESS }])).toHaveLength(TXS);
    const tooLong = await rejection(rpc(node.url, 'eth_getLogs', [{ fromBlock: hex(busy - 2n), toBlock: hex(busy) }]));
    expect(String(tooLong)).toMatch(/limit exceeded: 3 blocks asked, at most 2 per eth_getLogs call/);
    // The SDK reads the node's raw receipts: one left out, or two swapped, breaks the receipts root.
    const drop: Script = (method, _p, result) => (method === 'debug_getRawReceipts' && Array.isArray(result) ? result.slice(1) : result);
    const swap: Script = (method, _p, result) => (method === 'debug_getRawReceipts' && Array.isArray(result) ? [result[1], result[0], ...result.slice(2)] : result);
    for (const [url, script] of [['http://drop.invalid/', drop], ['http://swap.invalid/', swap]] as const) {
      const liar = await provider({ [url]: script }, [url]);
      const e = await rejection(liar.client.getLogs(filter));
      expect(isVerificationError(e, 'ROOT_MISMATCH') && (e as { field?: string }).field, url).toBe('receipts');
    }
  });

  it('getTransaction and getTransactionReceipt: verified in their block, sender recovered; an unknown hash is undefined', async () => {
    const { client } = await provider();
    const node_ = (await rpc(node.url, 'eth_getBlockByNumber', ['0x' + busy.toString(16), false])) as { transactions: string[] };
    const hash = node_.transactions[3]!;
    const tx = await client.getTransaction(hash);
    expect(tx?.blockNumber).toBe(busy);
    expect(tx?.transactionIndex).toBe(3);
    expect(tx?.from).toBe(node.accounts[6]!.address.toLowerCase());
    const r = await client.getTransactionReceipt(hash);
    expect([r?.status, r?.gasUsed, r?.to, r?.contractAddress]).toEqual([1, 21_000n, node.accounts[7]!.address.toLowerCase(), null]);
    expect(r?.effectiveGasPrice).toBe(tx?.effectiveGasPrice);
    expect(await client.getTransaction('0x' + '42'.repeat(32))).toBeUndefined();
    // A node that places the transaction in another (verified) block is caught.
    const elsewhere: Script = (method, _p, result) => (method === 'eth_getTransactionByHash' && result ? { ...(result as object), blockHash: node.genesisHash } : result);
    const liar = await provider({ 'http://elsewhere.invalid/': elsewhere }, ['http://elsewhere.invalid/']);
    const e = await rejection(liar.client.getTransaction(hash));
    expect(isVerificationError(e, 'VALUE_MISMATCH') && (e as { field?: string }).field).toBe('blockHash');
  });

  it('a node that drops a receipt is caught by the root', async () => {
    const drop: Script = (method, _p, result) => (method === 'eth_getBlockReceipts' && Array.isArray(result) ? result.slice(1) : result);
    const { client } = await provider({ 'http://drop.invalid/': drop }, ['http://drop.invalid/']);
    const e = await rejection(client.getBlockReceipts(busy));
    expect(isVerificationError(e, 'ROOT_MISMATCH') && (e as { field?: string }).field).toBe('receipts');
  });
});

describe('transaction proofs by block and index against lightprov-node', () => {
  it('getTransactionProof: every index of the busy block proves what getTransaction and getTransactionReceipt verify; past the end is proven absent', async () => {
    const { client } = await provider();
    const node_ = (await rpc(node.url, 'eth_getBlockByNumber', ['0x' + busy.toString(16), false])) as { transactions: string[] };
    for (const [i, hash] of node_.transactions.entries()) {
      const p = await client.getTransactionProof(busy, i);
      expect([p?.transaction.hash, p?.transaction.transactionIndex, p?.receipt.transactionHash], `#${i}`).toEqual([hash, i, hash]);
      expect(p?.receipt.cumulativeGasUsed).toBe(21_000n * BigInt(i + 1));
      if (i > 2 && i < TXS - 2) continue;
      // The first and last ones (legacy and EIP-1559) against the by-hash reads.
      const tx = await client.getTransaction(hash);
      const r = await client.getTransactionReceipt(hash);
      expect([p?.transaction.from, p?.transaction.effectiveGasPrice, p?.transaction.blockHash]).toEqual([tx?.from, tx?.effectiveGasPrice, tx?.blockHash]);
      for (const f of ['nonce', 'value', 'gas', 'type']) expect(BigInt(p?.transaction.fields[f] as string), f).toBe(BigInt(tx?.fields[f] as string));
      const { logs: _, ...receipt } = r!;
      const { logs: __, ...proven } = p!.receipt;
      expect(proven).toEqual(receipt);
    }
    expect(await client.getTransactionProof(busy, TXS)).toBeUndefined();
    expect(await client.getTransactionProof(0n, 0)).toBeUndefined();
  });

  const lies: [string, Script, string, string][] = [
    ['a dropped node', (m, _p, r) => (m === 'lightprov_getTransactionProof' ? { ...(r as object), receiptProof: ((r as { receiptProof: string[] }).receiptProof).slice(0, -1) } : r), 'TRUNCATED_PROOF', 'receiptProof'],
    ['a hidden transaction', (m, _p, r) => (m === 'lightprov_getTransactionProof' ? { ...(r as object), transaction: null } : r), 'VALUE_MISMATCH', 'transaction'],
    ['an answer for another index', (m, _p, r) => (m === 'lightprov_getTransactionProof' ? { ...(r as object), index: '0x0' } : r), 'KEY_MISMATCH', 'index'],
  ];
  for (const [what, script, code, field] of lies) {
    it(`a node answering with ${what} is caught and marked faulty`, async () => {
      const { client } = await provider({ 'http://liar.invalid/': script }, ['http://liar.invalid/']);
      const e = await rejection(client.getTransactionProof(busy, 5));
      expect(isVerificationError(e, code as never) && (e as { field?: string }).field, String(e)).toBe(field);
      expect(client.faultyNodes().map((f) => f.url)).toEqual(['http://liar.invalid/']);
    });
  }
});

describe('asEip1193: the method table', () => {
  it('refuses methods outside the table with 4200, naming allowUnverified; forwards them when named', async () => {
    const { eip } = await provider();
    for (const method of ['eth_feeHistory', 'eth_getHeaderByNumber', 'eth_gasPrice', 'eth_getUncleByBlockHashAndIndex']) {
      const e = await rejection(eip.request({ method, params: [] }));
      expect(e, method).toBeInstanceOf(ProviderRpcError);
      expect((e as ProviderRpcError).code).toBe(4200);
      expect((e as Error).message).toContain(`allowUnverified: ['${method}']`);
    }
    const open = (await provider({}, [node.url], ['eth_gasPrice'])).eip;
    expect(await open.request({ method: 'eth_gasPrice', params: [] })).toBe('0x77359400');
    expect(Object.keys(EIP1193_METHODS)).toContain('eth_getProof');
    expect(await open.request({ method: 'eth_accounts', params: [] })).toEqual([]);
  });

  it('verifies calls under a genesis anchor with signers: a transfer estimated as the node estimates it, a call to an account without code', async () => {
    const client = await LightClient.connect({ rpc: node.url, trust: { ...trust(), chainId: 1337n }, chainConfig: { londonBlock: 0 } });
    const eip = client.asEip1193();
    const [from, to] = [node.accounts[5]!.address, node.accounts[6]!.address];
    const tx = { from, to, value: '0x1' };
    expect(await eip.request({ method: 'eth_estimateGas', params: [tx] })).toBe(await rpc(node.url, 'eth_estimateGas', [tx]));
    expect(await eip.request({ method: 'eth_call', params: [{ to, data: '0x12345678' }, 'latest'] })).toBe('0x');
    const list = (await eip.request({ method: 'eth_createAccessList', params: [tx] })) as { accessList: unknown[]; gasUsed: string };
    expect(list).toEqual({ accessList: [], gasUsed: '0x5208' });
    // State overrides are refused: no proof covers made-up state.
    const e = await rejection(eip.request({ method: 'eth_call', params: [{ to }, 'latest', { [to]: { balance: '0x1' } }] }));
    expect([(e as ProviderRpcError).code, (e as Error).message]).toEqual([-32602, 'eth_call: state overrides are not supported by verified calls (no proof covers state the caller makes up)']);
  });

  it('block objects hold only proven fields; transaction hashes rebuild transactionsRoot', async () => {
    const { client, eip } = await provider();
    const block = (await eip.request({ method: 'eth_getBlockByNumber', params: ['0x' + busy.toString(16), false] })) as Record<string, unknown>;
    const header = await client.getHeader(busy);
    expect(block['hash']).toBe(header.hash);
    expect(block['transactionsRoot']).toBe(header.transactionsRoot);
    expect(block).not.toHaveProperty('totalDifficulty');
    const node_ = (await rpc(node.url, 'eth_getBlockByNumber', ['0x' + busy.toString(16), false])) as { transactions: string[] };
    // The size of the block's encoding (geth's `size`), computed from the verified header and transactions.
    const raw = (await rpc(node.url, 'debug_getRawBlock', ['0x' + busy.toString(16)])) as string;
    expect(block['size']).toBe('0x' + ((raw.length - 2) / 2).toString(16));
    expect(block['transactions']).toEqual(node_.transactions);
    expect((block['transactions'] as string[]).length).toBe(TXS);
    expect(block['uncles']).toEqual([]);
    // Full objects: verified too — the hashes, senders, places and fees as the node has them.
    const full = (await eip.request({ method: 'eth_getBlockByHash', params: [header.hash, true] })) as { transactions: Record<string, string>[] };
    const nodeFull = (await rpc(node.url, 'eth_getBlockByHash', [header.hash, true])) as { transactions: Record<string, string>[] };
    const pick = (t: Record<string, string>) => [t['hash'], t['from']?.toLowerCase(), t['to']?.toLowerCase(), t['value'], t['nonce'], t['blockHash'], t['transactionIndex'], t['gasPrice']];
    expect(full.transactions.map(pick)).toEqual(nodeFull.transactions.map(pick));
    expect(new Set(full.transactions.map((t) => t['from']))).toEqual(new Set([node.accounts[6]!.address.toLowerCase()]));
    // A node that changes a field the encoding holds breaks transactionsRoot.
    const bump: Script = (method, p, result) => {
      if (method !== 'eth_getBlockByHash' || (p as unknown[])[1] !== true || result === null) return result;
      const b = result as { transactions: Record<string, string>[] };
      return { ...b, transactions: b.transactions.map((t, i) => (i === 5 ? { ...t, value: '0x' + (BigInt(t['value']!) + 1n).toString(16) } : t)) };
    };
    const liar = await provider({ 'http://bump.invalid/': bump }, ['http://bump.invalid/']);
    const e = await rejection(liar.eip.request({ method: 'eth_getBlockByHash', params: [header.hash, true] }));
    // The provider's error: EIP-1193's shape, the check in `data`, the VerificationError as `cause`.
    expect([(e as ProviderRpcError).code, (e as ProviderRpcError).data]).toMatchObject([VERIFICATION_FAILED, { code: 'ROOT_MISMATCH', field: 'transactions' }]);
    expect(isVerificationError((e as Error).cause, 'ROOT_MISMATCH')).toBe(true);
    // Fields no encoding covers — a typed transaction's `v` beside its `yParity`, a legacy one's
    // `chainId` — are never the node's: they are read back from the verified bytes.
    const extra: Script = (method, p, result) => {
      if (method !== 'eth_getBlockByHash' || (p as unknown[])[1] !== true || result === null) return result;
      const b = result as { transactions: Record<string, string>[] };
      return { ...b, transactions: b.transactions.map((t) => ({ ...t, ...(t['type'] === '0x2' ? { v: '0x5' } : { chainId: '0x1' }) })) };
    };
    const lying = await provider({ 'http://extra.invalid/': extra }, ['http://extra.invalid/']);
    const read = (await lying.eip.request({ method: 'eth_getBlockByHash', params: [header.hash, true] })) as { transactions: Record<string, string>[] };
    for (const t of read.transactions) {
      if (t['type'] === '0x2') expect(t['v']).toBe(t['yParity']);
      else expect(t['chainId']).toBe('0x539');
    }
  });

  it('a node that drops, alters or reorders a raw transaction is caught by the root, and marked', async () => {
    const tamper = (f: (raws: string[]) => void): Script => {
      const seen: string[] = [];
      return (method, params, result) => {
        if (method === 'eth_getRawTransactionByBlockHashAndIndex') {
          seen[Number(BigInt((params as string[])[1]!))] = result as string;
          const copy = [...seen];
          f(copy);
          return copy[Number(BigInt((params as string[])[1]!))] ?? result;
        }
        return result;
      };
    };
    const flip = tamper((r) => {
      if (r[3]) r[3] = r[3].slice(0, -2) + (r[3].endsWith('00') ? '01' : '00');
    });
    const { client, eip } = await provider({ 'http://flip.invalid/': flip }, ['http://flip.invalid/']);
    const e = await rejection(eip.request({ method: 'eth_getBlockByNumber', params: ['0x' + busy.toString(16), false] }));
    expect((e as ProviderRpcError).data, String(e)).toMatchObject({ code: 'ROOT_MISMATCH', field: 'transactions' });
    expect(client.faultyNodes().map((f) => f.url)).toEqual(['http://flip.invalid/']);
    const fewer: Script = (method, _p, result) => (method === 'eth_getBlockTransactionCountByHash' ? '0x' + (TXS - 1).toString(16) : result);
    const short = await provider({ 'http://short.invalid/': fewer }, ['http://short.invalid/', node.url]);
    expect(((await short.eip.request({ method: 'eth_getBlockByNumber', params: ['0x' + busy.toString(16), false] })) as { transactions: string[] }).transactions.length).toBe(TXS);
    expect(short.client.faultyNodes().map((f) => f.url)).toEqual(['http://short.invalid/']);
  });

  it("checks a send's returned hash, the chain id and the pending nonce", async () => {
    const wallet = new Wallet(node.accounts[8]!.key);
    const raw = await wallet.signTransaction({ to: node.accounts[9]!.address, value: 5n, nonce: 0, gasLimit: 21_000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1n, chainId: 1337n, type: 2 });
    const wrongHash: Script = (method, _p, result) => (method === 'eth_sendRawTransaction' ? '0x' + '12'.repeat(32) : result);
    const a = await provider({ 'http://hash.invalid/': wrongHash }, ['http://hash.invalid/', node.url]);
    const hash = (await a.eip.request({ method: 'eth_sendRawTransaction', params: [raw] })) as string;
    expect(hash).toBe(keccak256(raw));
    expect(a.client.faultyNodes()[0]?.error).toBeInstanceOf(NodeFaultError);
    await mine(node.url, 1);

    // With trust.chainId the anchor answers, whatever a node says; without it the first answer
    // is pinned, and a node answering another id later is marked faulty.
    const otherChain: Script = (method, _p, result) => (method === 'eth_chainId' ? '0x1' : result);
    const fetch = scriptedFetch({ 'http://chain.invalid/': { target: node.url, script: otherChain } });
    const anchored = await LightClient.connect({ rpc: ['http://chain.invalid/'], trust: { ...trust(), chainId: 1337 }, fetch });
    expect(await anchored.asEip1193().request({ method: 'eth_chainId', params: [] })).toBe('0x539');
    expect(await anchored.asEip1193().request({ method: 'net_version', params: [] })).toBe('1337');
    const b = await provider({ 'http://chain.invalid/': otherChain }, [node.url, 'http://chain.invalid/']);
    expect(await b.eip.request({ method: 'eth_chainId', params: [] })).toBe('0x539');

    const lowNonce: Script = (method, p, result) => (method === 'eth_getTransactionCount' && (p as string[])[1] === 'pending' ? '0x0' : result);
    const d = await provider({ 'http://nonce.invalid/': lowNonce }, ['http://nonce.invalid/', node.url]);
    expect(await d.eip.request({ method: 'eth_getTransactionCount', params: [wallet.address, 'pending'] })).toBe('0x1');
    expect(d.client.faultyNodes()[0]?.error.message).toMatch(/below the verified nonce 1/);
  });
});
