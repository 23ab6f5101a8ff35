/**
 * Verified calls against geth (pinned to Osaka, the last fork the SDK's EVM runs, so both run
 * the same rules): for every call of a corpus, the SDK's `eth_call`, `eth_estimateGas` and
 * `eth_createAccessList` through `asEip1193()` — results, or errors with their code, message
 * and revert data — must equal geth's own answers at the same block.
 */
import { type Eip1193Provider, LightClient, ProviderRpcError, init } from '@lightprov/sdk';
import { Wallet, getCreateAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { artifact } from '../contracts/index.js';
import { type CallChain, buildCallChain } from '../lib/call-chain.js';
import { type RunningGeth, checkpointOf, osakaChainConfig, startGeth } from '../lib/geth.js';
import { iface } from '../lib/geth-chain.js';
import { precompileCalls } from '../lib/precompiles.js';

let g: RunningGeth;
let c: CallChain;
let client: LightClient;
let eip: Eip1193Provider;
let cp: { number: bigint; hash: string };

type Answer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** geth's own answer, as JSON-RPC gives it. */
async function geths(method: string, params: unknown[]): Promise<Answer> {
  const res = await fetch(g.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
  if (body.error) return { error: { code: body.error.code, message: body.error.message, ...(body.error.data !== undefined ? { data: body.error.data } : {}) } };
  return { result: body.result };
}

/** The SDK's answer through its EIP-1193 provider. */
async function ours(method: string, params: unknown[]): Promise<Answer> {
  try {
    return { result: await eip.request({ method, params }) };
  } catch (e) {
    if (!(e instanceof ProviderRpcError)) throw e;
    return { error: { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } };
  }
}

const T = (fn: string, args: unknown[] = []) => iface('Token').encodeFunctionData(fn, args);
const P = (fn: string, args: unknown[] = []) => iface('Probe').encodeFunctionData(fn, args);
const S = (fn: string, args: unknown[] = []) => iface('Store').encodeFunctionData(fn, args);
const hex = (n: bigint | number) => '0x' + n.toString(16);

/** The corpus: each call, as a dapp would send it. */
function corpus(): { name: string; tx: Record<string, unknown> }[] {
  const stranger = Wallet.createRandom().address.toLowerCase();
  const reads = [
    ...c.holders.map((h) => ({ target: c.token, allowFailure: false, callData: T('balanceOf', [h]) })),
    ...Array.from({ length: 40 }, () => ({ target: c.token, allowFailure: false, callData: T('balanceOf', [Wallet.createRandom().address]) })),
    { target: c.token, allowFailure: false, callData: T('totalSupply') },
    { target: c.token, allowFailure: false, callData: T('allowance', [c.owner, c.spender]) },
    { target: c.store, allowFailure: true, callData: S('nonZero', [0n]) },
    { target: c.multicall, allowFailure: false, callData: iface('Multicall').encodeFunctionData('getEthBalance', [c.probe]) },
  ];
  return [
    { name: 'ERC-20 balanceOf', tx: { to: c.token, data: T('balanceOf', [c.holders[0]]) } },
    { name: 'ERC-20 balanceOf of an account without tokens', tx: { to: c.token, data: T('balanceOf', [stranger]) } },
    { name: 'ERC-20 allowance', tx: { to: c.token, data: T('allowance', [c.owner, c.spender]) } },
    { name: 'ERC-20 name (a string)', tx: { to: c.token, data: T('name') } },
    { name: 'ERC-20 transfer, simulated', tx: { from: c.owner, to: c.token, data: T('transfer', [stranger, 5n]) } },
    { name: 'ERC-20 transfer over the balance (custom error)', tx: { from: c.holders[0], to: c.token, data: T('transfer', [stranger, 10n ** 30n]) } },
    { name: `Multicall aggregate3 of ${reads.length} reads`, tx: { to: c.multicall, data: iface('Multicall').encodeFunctionData('aggregate3', [reads]) } },
    { name: 'a revert with a reason string', tx: { to: c.store, data: S('nonZero', [0n]) } },
    { name: 'a revert with a custom error', tx: { from: c.owner, to: c.store, data: S('refuse', [42n]) } },
    { name: 'an out-of-gas call', tx: { to: c.probe, data: P('burn'), gas: hex(100_000) } },
    { name: 'BLOCKHASH, TIMESTAMP, BASEFEE (0 without a gas price), COINBASE, SELFBALANCE', tx: { to: c.probe, data: P('env', [5n]) } },
    { name: 'the block environment paying a fee (BASEFEE the header’s)', tx: { from: c.owner, to: c.probe, data: P('env', [2n]), maxFeePerGas: hex(10n ** 11n), maxPriorityFeePerGas: hex(1n) } },
    { name: 'CREATE2 inside a call', tx: { to: c.probe, data: P('create2', ['0x' + '11'.repeat(32), 21n]) } },
    { name: `a call reading ${c.filled} storage slots`, tx: { to: c.probe, data: P('sum', [BigInt(c.filled)]) } },
    { name: 'an account balance read inside a call', tx: { to: c.probe, data: P('etherOf', [c.owner]) } },
    { name: 'a precompile called from a contract', tx: { to: c.probe, data: P('probe', ['0x0000000000000000000000000000000000000005', precompileCalls()[4]!.data]) } },
    ...precompileCalls().map((p) => ({ name: `precompile ${p.name}`, tx: { to: p.to, data: p.data } })),
    { name: 'a call to an empty account', tx: { to: stranger, data: '0x12345678' } },
    { name: 'a plain transfer', tx: { from: c.owner, to: stranger, value: hex(10n ** 15n) } },
    { name: 'a contract creation', tx: { from: c.owner, data: artifact('Child').bytecode } },
    { name: 'a sender without the funds for its value', tx: { from: stranger, to: c.owner, value: hex(1n) } },
    { name: 'a fee cap below the base fee', tx: { from: c.owner, to: c.token, data: T('name'), maxFeePerGas: hex(1n), maxPriorityFeePerGas: hex(1n) } },
  ];
}

beforeAll(async () => {
  await init();
  g = await startGeth();
  c = await buildCallChain(g);
  cp = await checkpointOf(g.url);
  client = await LightClient.connect({ rpc: g.url, trust: { checkpoint: cp, chainId: 1337n }, chainConfig: osakaChainConfig() });
  eip = client.asEip1193();
}, 180_000);

afterAll(async () => {
  await g?.stop();
});

describe('verified calls equal geth’s own answers (geth v1.17.10 --dev, pinned to Osaka)', () => {
  it('the corpus, every call by eth_call, eth_estimateGas and eth_createAccessList', async () => {
    const at = { blockHash: cp.hash };
    const cases = corpus();
    expect(cases.length).toBe(39);
    const differ: string[] = [];
    for (const { name, tx } of cases) {
      for (const method of ['eth_call', 'eth_estimateGas', 'eth_createAccessList']) {
        const [theirs, mine] = await Promise.all([geths(method, [tx, at]), ours(method, [tx, at])]);
        try {
          expect(mine).toEqual(theirs);
        } catch {
          differ.push(`${name} by ${method}: ours ${JSON.stringify(mine)}, geth's ${JSON.stringify(theirs)}`);
        }
      }
    }
    expect(differ).toEqual([]);
  }, 300_000);

  it('every precompile of Osaka runs its success path, in pure-Rust WebAssembly', async () => {
    const one = '0x' + '0'.repeat(63) + '1';
    for (const p of precompileCalls()) {
      const out = await client.call({ to: p.to, data: p.data }, { block: { blockHash: cp.hash } });
      expect(out.length, p.name).toBeGreaterThan(2);
      if (['bn254 pairing', 'bls12-381 pairing', 'p256 verify'].includes(p.name)) expect(out, p.name).toBe(one);
    }
  });

  it('a creation returns the code it deploys, at the address geth computes', async () => {
    const tx = { from: c.owner, data: artifact('Child').bytecode };
    expect(await client.call(tx, { block: { blockHash: cp.hash } })).toBe(artifact('Child').deployedBytecode);
    const nonce = await client.getTransactionCount(c.owner, { blockHash: cp.hash });
    const list = await client.createAccessList(tx, { block: { blockHash: cp.hash } });
    // The created address is left out of the list, as geth leaves it.
    expect(list.accessList.map((e) => e.address)).not.toContain(getCreateAddress({ from: c.owner, nonce }).toLowerCase());
  });
});
