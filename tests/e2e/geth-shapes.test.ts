/**
 * lightprov-node answers with geth's shapes: the same methods, asked of both nodes for the same
 * kinds of objects (value transfers of types 0, 1 and 2, their blocks, receipts and logs, proofs,
 * unknown blocks and transactions, bad parameters), compared field by field — every key and the
 * form of every value (a quantity, data of a given length, a list, null). The deliberate
 * differences are listed here and in docs/rpc.md.
 */
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { artifact } from '../contracts/index.js';
import { type RunningGeth, devSend, receiptOf, startGeth } from '../lib/geth.js';
import { CHAIN_ID, KEY, iface } from '../lib/geth-chain.js';
import { type RunningNode, startNode } from '../lib/node-process.js';
import { mine, rpc } from '../lib/util.js';

let g: RunningGeth;
let node: RunningNode;
/** Per node: the hashes of a type 0, 1 and 2 transfer, and the block holding the first. */
const sent: Record<'geth' | 'node', { txs: string[]; block: string }> = { geth: { txs: [], block: '' }, node: { txs: [], block: '' } };
let compared = 0;
/** A geth transaction whose receipt holds a log. */
let logged: string;

/**
 * Keys one node has and the other does not, on purpose (docs/rpc.md, "lightprov-node and geth"):
 * lightprov-node's chain is a Clique-style proof-of-authority chain of the London fork, geth's
 * dev chain is proof of stake at Prague (withdrawals, blob gas, the beacon root and EIP-7685
 * requests are fields of later forks), and lightprov-node reports `totalDifficulty`, which geth
 * dropped with the merge.
 */
const FORK_FIELDS = ['withdrawals', 'withdrawalsRoot', 'blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash'];
const DELIBERATE: Record<string, readonly string[]> = {
  block: [...FORK_FIELDS, 'totalDifficulty'],
};

/** Fixed-length data: an address, a hash, a bloom, a PoW nonce. */
const FIXED = [20, 32, 256, 8];

/**
 * The forms a JSON-RPC value can be read as: `quantity` (0x, no leading zero), `data20` /
 * `data32` / `data256` / `data8` (fixed-length data) or `data` (any other even-length hex),
 * `bool`, `null`, `string`. One value may fit several (`0xab…` of 64 digits is a quantity and a
 * hash); two values agree when they share a form.
 */
function forms(v: unknown): string[] {
  if (v === null) return ['null'];
  if (typeof v !== 'string') return [typeof v];
  const out: string[] = [];
  if (/^0x(0|[1-9a-f][0-9a-f]*)$/.test(v)) out.push('quantity');
  if (/^0x([0-9a-f]{2})*$/.test(v)) {
    const n = (v.length - 2) / 2;
    out.push(FIXED.includes(n) ? `data${n}` : 'data');
  }
  return out.length > 0 ? out : ['string'];
}

/** Where the forms of `a` (geth's) and `b` (lightprov-node's) differ, but for keys `skip`. */
function shapeDifferences(a: unknown, b: unknown, skip: readonly string[], path = ''): string[] {
  if (Array.isArray(a) && Array.isArray(b)) {
    // Lists of one kind (proof nodes, logs, transactions): their first elements' forms.
    return a.length === 0 || b.length === 0 ? [] : shapeDifferences(a[0], b[0], skip, `${path}[]`);
  }
  const isObject = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x);
  if (isObject(a) && isObject(b)) {
    const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
    const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => !skip.includes(k)).sort();
    return keys.flatMap((k) => {
      const p = path ? `${path}.${k}` : k;
      if (!(k in x)) return [`${p} (only lightprov-node's)`];
      if (!(k in y)) return [`${p} (only geth's)`];
      return shapeDifferences(x[k], y[k], skip, p);
    });
  }
  const [fa, fb] = [Array.isArray(a) ? ['list'] : isObject(a) ? ['object'] : forms(a), Array.isArray(b) ? ['list'] : isObject(b) ? ['object'] : forms(b)];
  return fa.some((f) => fb.includes(f)) ? [] : [`${path || '.'} (geth ${JSON.stringify(a)?.slice(0, 70)}, lightprov-node ${JSON.stringify(b)?.slice(0, 70)})`];
}

/** One method asked of both nodes; the forms must agree. */
async function sameShape(method: string, gethParams: unknown[], nodeParams: unknown[], skip: readonly string[] = []): Promise<void> {
  const [a, b] = await Promise.all([rpc(g.url, method, gethParams), rpc(node.url, method, nodeParams)]);
  expect(shapeDifferences(a, b, skip), method).toEqual([]);
  compared++;
}

/** One method whose error both nodes must answer with the same code. */
async function sameError(method: string, gethParams: unknown[], nodeParams: unknown[]): Promise<void> {
  const err = async (url: string, params: unknown[]) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return ((await res.json()) as { error?: { code: number; message: string } }).error;
  };
  const [a, b] = await Promise.all([err(g.url, gethParams), err(node.url, nodeParams)]);
  expect([method, b?.code], `geth: ${a?.message}; lightprov-node: ${b?.message}`).toEqual([method, a?.code]);
  compared++;
}

async function transfers(url: string, wallet: Wallet, chainId: bigint, to: string, startNonce: number): Promise<string[]> {
  const common = { to, value: 7n, gasLimit: 21_000n, chainId };
  const raws = [
    await wallet.signTransaction({ ...common, nonce: startNonce, type: 0, gasPrice: 10n ** 10n }),
    await wallet.signTransaction({ ...common, nonce: startNonce + 1, type: 1, gasPrice: 10n ** 10n, gasLimit: 30_000n, accessList: [{ address: to, storageKeys: ['0x' + '00'.repeat(31) + '01'] }] }),
    await wallet.signTransaction({ ...common, nonce: startNonce + 2, type: 2, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n }),
  ];
  const hashes: string[] = [];
  for (const r of raws) hashes.push((await rpc(url, 'eth_sendRawTransaction', [r])) as string);
  return hashes;
}

beforeAll(async () => {
  [g, node] = await Promise.all([startGeth(), startNode({ args: ['--block-time', '3600s'] })]);
  const key = new Wallet(KEY);
  const funded = (await rpc(g.url, 'eth_sendTransaction', [{ from: g.dev, to: key.address, value: '0xde0b6b3a7640000' }])) as string;
  await receiptOf(g.url, funded);
  const to = '0x' + '5a'.repeat(20);
  sent.geth.txs = await transfers(g.url, key, CHAIN_ID, to, 0);
  for (const h of sent.geth.txs) await receiptOf(g.url, h);
  sent.node.txs = await transfers(node.url, new Wallet(node.accounts[3]!.key), 1337n, to, 0);
  await mine(node.url, 1);
  sent.geth.block = ((await rpc(g.url, 'eth_getTransactionByHash', [sent.geth.txs[0]])) as { blockHash: string }).blockHash;
  // A transaction with a log on geth: Store.set emits Set.
  const store = (await devSend(g, { data: artifact('Store').bytecode }))['contractAddress'] as string;
  logged = (await devSend(g, { to: store, data: iface('Store').encodeFunctionData('set', [1n, 2n]) }))['transactionHash'] as string;
  sent.node.block = ((await rpc(node.url, 'eth_getTransactionByHash', [sent.node.txs[0]])) as { blockHash: string }).blockHash;
}, 120_000);

afterAll(async () => {
  await Promise.all([g?.stop(), node?.stop()]);
  console.log(`lightprov-node against geth: ${compared} answers compared by form`);
});

describe("lightprov-node's answers take geth's shapes", () => {
  it('blocks, transactions, receipts, logs, proofs and the raw forms', async () => {
    const skip = DELIBERATE['block']!;
    for (const full of [false, true]) await sameShape('eth_getBlockByHash', [sent.geth.block, full], [sent.node.block, full], skip);
    await sameShape('eth_getBlockByNumber', ['latest', false], ['latest', false], skip);
    // Logs: geth's from a contract event, lightprov-node's from a transfer (EIP-7708's shape).
    await sameShape('eth_getTransactionReceipt', [logged], [sent.node.txs[0]]);
    const at = async (url: string, h: string) => ((await rpc(url, 'eth_getTransactionByHash', [h])) as { blockHash: string }).blockHash;
    await sameShape('eth_getLogs', [{ blockHash: await at(g.url, logged) }], [{ blockHash: sent.node.block }]);
    await sameShape('eth_getBlockReceipts', [await at(g.url, logged)], [sent.node.block]);
    for (let i = 0; i < 3; i++) {
      await sameShape('eth_getTransactionByHash', [sent.geth.txs[i]], [sent.node.txs[i]]);
      await sameShape('eth_getTransactionReceipt', [sent.geth.txs[i]], [sent.node.txs[i]]);
    }
    await sameShape('eth_getBlockReceipts', [sent.geth.block], [sent.node.block]);
    await sameShape('eth_getBlockTransactionCountByHash', [sent.geth.block], [sent.node.block]);
    await sameShape('eth_getRawTransactionByBlockHashAndIndex', [sent.geth.block, '0x0'], [sent.node.block, '0x0']);
    await sameShape('debug_getRawReceipts', [sent.geth.block], [sent.node.block]);
    await sameShape('debug_getRawBlock', ['0x0'], ['0x0']);
    const who = '0x' + '5a'.repeat(20);
    await sameShape('eth_getProof', [who, ['0x1'], 'latest'], [who, ['0x1'], 'latest']);
    for (const m of ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode']) await sameShape(m, [who, 'latest'], [who, 'latest']);
    await sameShape('eth_getStorageAt', [who, '0x0', 'latest'], [who, '0x0', 'latest']);
    for (const m of ['eth_chainId', 'net_version', 'eth_blockNumber', 'eth_gasPrice', 'eth_maxPriorityFeePerGas', 'eth_syncing']) await sameShape(m, [], []);
  });

  it('nulls for what a node does not have, and the same error codes', async () => {
    const none = '0x' + '42'.repeat(32);
    await sameShape('eth_getBlockByHash', [none, false], [none, false]);
    await sameShape('eth_getBlockByNumber', ['0xffffff', false], ['0xffffff', false]);
    await sameShape('eth_getTransactionByHash', [none], [none]);
    await sameShape('eth_getTransactionReceipt', [none], [none]);
    await sameShape('eth_getBlockTransactionCountByHash', [none], [none]);
    await sameShape('eth_getRawTransactionByBlockHashAndIndex', [sent.geth.block, '0x63'], [sent.node.block, '0x63']);
    await sameError('eth_getBalance', ['0x1234', 'latest'], ['0x1234', 'latest']);
    await sameError('eth_getProof', ['0x' + '5a'.repeat(20), 'not a list', 'latest'], ['0x' + '5a'.repeat(20), 'not a list', 'latest']);
    await sameError('eth_noSuchMethod', [], []);
  });
});
