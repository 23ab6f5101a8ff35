/**
 * `debug_traceCall` with geth's `prestateTracer` on lightprov-node's own chain (`--workload
 * erc20`): the workload's token transfers, traced on the state of the block before the one that
 * included them. Every account and slot in a trace must be what `eth_getBalance`,
 * `eth_getTransactionCount`, `eth_getCode` and `eth_getStorageAt` say at that block; with
 * `diffMode`, the two token balances move by the amount. Tracers other than `prestateTracer` are
 * refused by name. Then the same kinds of call on geth: a value transfer's trace has the same
 * fields and forms, and creations that store, read a missing account's balance, call a
 * precompile, CREATE2 a child and return or revert trace the same accounts, slots and values.
 */
import { RpcError } from '@lightprov/sdk';
import { Interface, getCreate2Address, getCreateAddress, keccak256, zeroPadValue } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningGeth, devSend, startGeth } from '../lib/geth.js';
import { type RunningNode, startNode } from '../lib/node-process.js';
import { mine, rejection, rpc } from '../lib/util.js';

const BLOCKS = 3;
const erc20 = new Interface(['function transfer(address to, uint256 amount) returns (bool)']);
const quantity = (n: number | bigint) => '0x' + n.toString(16);

interface Account {
  balance?: string;
  nonce?: number;
  code?: string;
  codeHash?: string;
  storage?: Record<string, string>;
}
type Prestate = Record<string, Account>;
interface Tx {
  from: string;
  to: string;
  input: string;
}

/** OpenZeppelin's `_balances` mapping at slot 0: the slot of `holder`'s balance. */
const balanceSlot = (holder: string) => keccak256(zeroPadValue(holder, 32) + '00'.repeat(32));

let node: RunningNode;

beforeAll(async () => {
  node = await startNode({ args: ['--workload', 'erc20', '--seed', '3', '--tx-per-block', '20'] });
  await mine(node.url, BLOCKS);
}, 120_000);

afterAll(async () => {
  await node?.stop();
});

/** The first two transactions of block `b` (token transfers), as calls. */
async function transfersOf(b: number): Promise<Tx[]> {
  const block = (await rpc(node.url, 'eth_getBlockByNumber', [quantity(b), true])) as { transactions: Tx[] };
  return block.transactions.slice(0, 2).map((t) => ({ from: t.from, to: t.to, input: t.input }));
}

const trace = (url: string, tx: object, block: string, tracerConfig?: object) => rpc(url, 'debug_traceCall', [tx, block, { tracer: 'prestateTracer', ...(tracerConfig ? { tracerConfig } : {}) }]);

describe('debug_traceCall with prestateTracer on lightprov-node', () => {
  it("every account and slot of a token transfer's prestate is the block's state", async () => {
    let slots = 0;
    for (let b = 1; b < BLOCKS; b++) {
      const at = quantity(b);
      for (const tx of await transfersOf(b + 1)) {
        const pre = (await trace(node.url, tx, at)) as Prestate;
        const [to] = erc20.decodeFunctionData('transfer', tx.input) as unknown as [string];
        // The sender, and the token with the balances of both holders.
        expect(Object.keys(pre)).toEqual(expect.arrayContaining([tx.from.toLowerCase(), tx.to.toLowerCase()]));
        const token = pre[tx.to.toLowerCase()] as Account;
        expect(Object.keys(token.storage ?? {}).sort()).toEqual([balanceSlot(tx.from), balanceSlot(to)].sort());
        for (const [address, a] of Object.entries(pre)) {
          expect(a.balance, `${address} at ${at}`).toBe(await rpc(node.url, 'eth_getBalance', [address, at]));
          expect(quantity(a.nonce ?? 0)).toBe(await rpc(node.url, 'eth_getTransactionCount', [address, at]));
          const code = (await rpc(node.url, 'eth_getCode', [address, at])) as string;
          expect(a.code ?? '0x').toBe(code);
          if (code !== '0x') expect(a.codeHash).toBe(keccak256(code));
          else expect(a.codeHash).toBeUndefined();
          for (const [slot, value] of Object.entries(a.storage ?? {})) {
            expect(value, `${address} slot ${slot} at ${at}`).toBe(await rpc(node.url, 'eth_getStorageAt', [address, slot, at]));
            slots++;
          }
        }
      }
    }
    expect(slots).toBeGreaterThanOrEqual(4);
  }, 120_000);

  it('diffMode: the two token balances move by the amount; pre holds their values before', async () => {
    const [tx] = await transfersOf(BLOCKS);
    if (!tx) throw new Error(`block ${BLOCKS} has no transactions`);
    const at = quantity(BLOCKS - 1);
    const [to, amount] = erc20.decodeFunctionData('transfer', tx.input) as unknown as [string, bigint];
    expect(to.toLowerCase()).not.toBe(tx.from.toLowerCase());
    const { pre, post } = (await trace(node.url, tx, at, { diffMode: true })) as { pre: Prestate; post: Prestate };
    const token = tx.to.toLowerCase();
    const before = (holder: string) => BigInt((pre[token]?.storage ?? {})[balanceSlot(holder)] ?? '0x0');
    const after = (holder: string) => BigInt((post[token]?.storage ?? {})[balanceSlot(holder)] ?? '0x0');
    expect(before(tx.from)).toBe(BigInt((await rpc(node.url, 'eth_getStorageAt', [token, balanceSlot(tx.from), at])) as string));
    expect(after(tx.from)).toBe(before(tx.from) - amount);
    expect(after(to)).toBe(before(to) + amount);
    // The sender's nonce moves; its balance does not (a call that pays no gas price).
    expect(post[tx.from.toLowerCase()]).toEqual({ nonce: Number(await rpc(node.url, 'eth_getTransactionCount', [tx.from, at])) + 1 });
  }, 60_000);

  it('tracers other than prestateTracer are refused by name', async () => {
    const [tx] = await transfersOf(1);
    const unknown = (await rejection(rpc(node.url, 'debug_traceCall', [tx, 'latest', { tracer: 'fooTracer' }]))) as RpcError;
    expect(unknown).toBeInstanceOf(RpcError);
    // geth's own message for a name it does not know (it takes it for JavaScript).
    expect(unknown.code).toBe(-32000);
    expect(unknown.message).toMatch(/ReferenceError: fooTracer is not defined/);
    const call = (await rejection(rpc(node.url, 'debug_traceCall', [tx, 'latest', { tracer: 'callTracer' }]))) as RpcError;
    expect(call.code).toBe(-32006);
    expect(call.message).toMatch(/callTracer/);
    const structLogger = (await rejection(rpc(node.url, 'debug_traceCall', [tx, 'latest']))) as RpcError;
    expect(structLogger.code).toBe(-32006);
    expect(structLogger.message).toMatch(/struct logger/);
  });
});

describe('the same shape as geth v1.17.10 --dev', () => {
  let g: RunningGeth;
  beforeAll(async () => {
    g = await startGeth();
  }, 60_000);
  afterAll(async () => {
    await g?.stop();
  });

  /** Each field's form: `balance` a quantity, `nonce` a number, `codeHash` and storage words, `code` bytes. */
  const form = (v: unknown, key = ''): unknown => {
    if (typeof v === 'number') return 'number';
    if (typeof v !== 'string') return Object.fromEntries(Object.entries(v as object).map(([k, x]) => [/^0x[0-9a-f]{64}$/.test(k) ? 'word' : k, form(x, k)]));
    if (key === 'balance') return /^0x(0|[1-9a-f][0-9a-f]*)$/.test(v) ? 'quantity' : v;
    if (/^0x[0-9a-f]{64}$/.test(v)) return 'word';
    return /^0x([0-9a-f]{2})*$/.test(v) ? 'bytes' : v;
  };

  it("a value transfer's trace has geth's fields and forms; creations' traces equal geth's, role for role", async () => {
    const fresh = '0x' + 'bb'.repeat(20);
    const [ours] = await transfersOf(1);
    const sender = (ours as Tx).from.toLowerCase();
    const shapes = async (url: string, from: string, block: string) => {
      const tx = { from, to: fresh, value: '0x7' };
      const pre = (await trace(url, tx, block)) as Prestate;
      const diff = (await trace(url, tx, block, { diffMode: true })) as { pre: Prestate; post: Prestate };
      return {
        keys: Object.keys(diff),
        pre: form(pre[from]),
        diffPre: form(diff.pre[from]),
        post: form(diff.post[from]),
        recipient: diff.post[fresh],
      };
    };
    // Both senders have sent transactions before the block traced on: a nonce and a balance.
    const receipt = await devSend(g, { to: '0x' + 'aa'.repeat(20), value: '0x1' });
    const gethBlock = receipt['blockNumber'] as string;
    expect(await shapes(node.url, sender, quantity(2))).toEqual(await shapes(g.url, g.dev.toLowerCase(), gethBlock));

    // Creations whose code stores a slot, reads the balance of an address that does not exist,
    // calls a precompile, makes a child by CREATE2 (its init code one zero byte of memory not yet
    // written), then returns or reverts: the same accounts, slots and values on both chains once
    // the sender, the created address, the child and the coinbase are named by their role.
    const body = '600160005560bb3150600060006000600060025afa506007600160006000f550';
    const normalized = async (url: string, from: string, block: string, end: string, diffMode: boolean) => {
      const nonce = Number(await rpc(url, 'eth_getTransactionCount', [from, block]));
      const created = getCreateAddress({ from, nonce }).toLowerCase();
      const child = getCreate2Address(created, zeroPadValue('0x07', 32), keccak256('0x00')).toLowerCase();
      const { miner } = (await rpc(url, 'eth_getBlockByNumber', [block, false])) as { miner: string };
      const roles: Record<string, string> = { [miner.toLowerCase()]: 'coinbase', [from]: 'sender', [created]: 'created', [child]: 'child' };
      const t = await trace(url, { from, data: '0x' + body + end }, block, diffMode ? { diffMode } : undefined);
      const rename = (m: Prestate) =>
        Object.fromEntries(
          Object.entries(m).map(([a, acc]) => {
            const role = roles[a] ?? a;
            // The sender's own balance and nonce differ between the chains: their forms do not.
            return [role, role === 'sender' ? form(acc) : acc];
          }),
        );
      const out = diffMode ? { post: rename((t as { post: Prestate }).post), pre: rename((t as { pre: Prestate }).pre) } : rename(t as Prestate);
      return { out, coinbaseIsSender: miner.toLowerCase() === from };
    };
    for (const end of ['60006000f3', '60006000fd']) {
      for (const diffMode of [false, true]) {
        const ours = await normalized(node.url, sender, quantity(2), end, diffMode);
        const geths = await normalized(g.url, g.dev.toLowerCase(), gethBlock, end, diffMode);
        // Left out: a coinbase that is not the sender (it holds nothing on our chain: geth's zero
        // code hash in post), and the precompile, which geth --dev's genesis funds (1 wei) and
        // ours does not.
        const drop = (o: typeof ours) =>
          JSON.parse(JSON.stringify(o.out, (k, v) => ((k === 'coinbase' && !o.coinbaseIsSender) || k === '0x0000000000000000000000000000000000000002' ? undefined : v)));
        expect(drop(ours), `ends ${end}, diffMode ${diffMode}`).toEqual(drop(geths));
      }
    }
  }, 60_000);
});
