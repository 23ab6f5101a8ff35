/**
 * Verified calls against geth (pinned to Osaka, the last fork the SDK's EVM runs, so both run
 * the same rules): for every call of a corpus, the SDK's `eth_call`, `eth_estimateGas` and
 * `eth_createAccessList` through `asEip1193()` — results, or errors with their code, message
 * and revert data — must equal geth's own answers at the same block.
 */
import { type Eip1193Provider, ExecutionError, LightClient, ProviderRpcError, init, isVerificationError } from '@lightprov/sdk';
import { BrowserProvider, Contract, Network, Wallet, getCreateAddress, isError } from 'ethers';
import { BaseError, ContractFunctionRevertedError, createPublicClient, custom, defineChain } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { artifact } from '../contracts/index.js';
import { type CallChain, buildCallChain } from '../lib/call-chain.js';
import { type RunningGeth, checkpointOf, osakaChainConfig, startGeth } from '../lib/geth.js';
import { iface } from '../lib/geth-chain.js';
import { precompileCalls } from '../lib/precompiles.js';
import { type Script, scriptedFetch, withoutMethods } from '../lib/scripted.js';
import { rejection } from '../lib/util.js';

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
const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');

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
    { name: 'a call to an EOA that delegates its code (EIP-7702)', tx: { to: c.delegator, data: S('entries', [7n]) } },
    { name: 'a call to an empty account', tx: { to: stranger, data: '0x12345678' } },
    { name: 'a plain transfer', tx: { from: c.owner, to: stranger, value: hex(10n ** 15n) } },
    { name: 'a contract creation', tx: { from: c.owner, data: artifact('Child').bytecode } },
    { name: 'a sender without the funds for its value', tx: { from: stranger, to: c.owner, value: hex(1n) } },
    { name: 'a fee cap below the base fee', tx: { from: c.owner, to: c.token, data: T('name'), maxFeePerGas: hex(1n), maxPriorityFeePerGas: hex(1n) } },
  ];
}

/** The wasm modules loaded, in order (the loader's `locate` hook). */
const loaded: string[] = [];

beforeAll(async () => {
  await init({
    families: ['header'],
    locate: (m) => {
      loaded.push(m);
      return undefined;
    },
  });
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
  it("the EVM's module loads on the client's first call, not before", async () => {
    expect(loaded).not.toContain('evm');
    await client.call({ to: c.token, data: T('totalSupply') });
    expect(loaded).toContain('evm');
  });

  it('the corpus, every call by eth_call, eth_estimateGas and eth_createAccessList', async () => {
    const at = { blockHash: cp.hash };
    const cases = corpus();
    expect(cases.length).toBe(40);
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

  it('a delegated EOA runs its delegate\'s code on its own storage (EIP-7702)', async () => {
    expect(await client.call({ to: c.delegator, data: S('entries', [7n]) })).toBe(word(77n));
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

/** The Multicall of the corpus: 56 reads, every slot of which the node's access list names. */
function multicall(): Record<string, unknown> {
  const tx = corpus().find((x) => x.name.startsWith('Multicall aggregate3'))!.tx;
  return tx;
}

const LIAR = 'http://liar.invalid/';

/** A client of the liar (first) and, with `honest`, geth after it; the methods each node was asked. */
async function clientOf(script: Script, honest = false, fetchOf = (f: typeof fetch) => f) {
  const asked: string[] = [];
  const liar = scriptedFetch({ [LIAR]: { target: g.url, script } });
  const counting: typeof fetch = async (input, init) => {
    const body = JSON.parse(String(init?.body)) as { method: string } | { method: string }[];
    for (const m of Array.isArray(body) ? body : [body]) asked.push(m.method);
    return liar(input, init);
  };
  const liarClient = await LightClient.connect({
    rpc: honest ? [LIAR, g.url] : [LIAR],
    trust: { checkpoint: cp, chainId: 1337n },
    chainConfig: osakaChainConfig(),
    fetch: fetchOf(counting),
  });
  return { client: liarClient, asked };
}

describe('lying nodes: each lie fails a check or costs rounds, never changes the answer', () => {
  const at = () => ({ block: { blockHash: cp.hash } });
  const balanceOf = () => ({ to: c.token, data: T('balanceOf', [c.holders[0]]) });
  const honestOf = async (tx: Record<string, unknown>) => client.callDetailed(tx, at());

  it('a wrong storage value in a proof is rejected (VALUE_MISMATCH); with an honest node after it, the answer is right', async () => {
    const lie: Script = (m, p, r) =>
      m === 'eth_getProof' && (p[0] as string).toLowerCase() === c.token.toLowerCase()
        ? { ...(r as object), storageProof: (r as { storageProof: { value: string }[] }).storageProof.map((s) => ({ ...s, value: '0x' + (BigInt(s.value) + 1n).toString(16) })) }
        : r;
    const { client: alone } = await clientOf(lie);
    const e = await rejection(alone.call(balanceOf(), at()));
    expect(isVerificationError(e, 'VALUE_MISMATCH'), String(e)).toBe(true);
    const { client: both } = await clientOf(lie, true);
    expect(await both.call(balanceOf(), at())).toBe((await honestOf(balanceOf())).output);
    expect(both.faultyNodes().map((f) => f.url)).toEqual([LIAR]);
  });

  it("substituted code is rejected (CODE_HASH_MISMATCH)", async () => {
    const lie: Script = (m, p, r) => (m === 'eth_getCode' && (p[0] as string).toLowerCase() === c.token.toLowerCase() ? artifact('Store').deployedBytecode : r);
    const { client: alone } = await clientOf(lie);
    const e = await rejection(alone.call(balanceOf(), at()));
    expect(isVerificationError(e, 'CODE_HASH_MISMATCH'), String(e)).toBe(true);
    expect((e as { field?: string }).field).toBe(`code[${c.token.toLowerCase()}]`);
  });

  it('an access list that omits half its slots: the same answer, in more rounds', async () => {
    const honest = await honestOf(multicall());
    const lie: Script = (m, _p, r) => {
      if (m !== 'eth_createAccessList') return r;
      const list = (r as { accessList: { address: string; storageKeys: string[] }[] }).accessList;
      return { ...(r as object), accessList: list.map((e) => ({ ...e, storageKeys: e.storageKeys.filter((_, i) => i % 2 === 0) })) };
    };
    const { client: alone } = await clientOf(lie);
    const got = await alone.callDetailed(multicall(), at());
    expect(got.output).toBe(honest.output);
    expect(got.stats.rounds).toBeGreaterThan(honest.stats.rounds + 10);
    expect(got.stats.slots).toBe(honest.stats.slots);
  });

  it('an access list of 10,000 junk slots: the same answer; the hint is capped (2,048 slots taken)', async () => {
    const honest = await honestOf(balanceOf());
    const junk = Array.from({ length: 10_000 }, (_, i) => '0x' + (BigInt(i) * 0x9e3779b97f4a7c15n + 1n).toString(16).padStart(64, '0'));
    const lie: Script = (m, _p, r) => (m === 'eth_createAccessList' ? { ...(r as object), accessList: [{ address: c.token, storageKeys: junk }, ...(r as { accessList: unknown[] }).accessList] } : r);
    const { client: alone } = await clientOf(lie);
    const got = await alone.callDetailed(balanceOf(), at());
    expect(got.output).toBe(honest.output);
    // The junk came first: the real slot was left out of the capped hint and asked for in one more round.
    expect(got.stats.slots).toBe(2_049);
    expect(got.stats.rounds).toBe(honest.stats.rounds + 1);
    // With a lower state limit the same lie is a clear limit error, not a wrong answer.
    const limited = await LightClient.connect({ rpc: [LIAR], trust: { checkpoint: cp, chainId: 1337n }, chainConfig: osakaChainConfig(), fetch: scriptedFetch({ [LIAR]: { target: g.url, script: lie } }), callLimits: { maxSlots: 1_000 } });
    const e = await rejection(limited.call(balanceOf(), at()));
    expect([(e as Error).name, (e as { limit?: string }).limit]).toEqual(['CallLimitError', 'maxSlots']);
  });

  it("a node whose own eth_call is wrong: never asked, the answer is the proven one", async () => {
    const lie: Script = (m, _p, r) => (m === 'eth_call' ? '0x' + 'ff'.repeat(32) : r);
    const { client: alone, asked } = await clientOf(lie);
    expect(await alone.call(balanceOf(), at())).toBe((await honestOf(balanceOf())).output);
    expect(asked).not.toContain('eth_call');
    expect(asked).toContain('eth_getProof');
  });

  it('a node without eth_createAccessList: the same answer, each piece fetched as the EVM reaches it', async () => {
    const honest = await honestOf(multicall());
    const asked = new Map<string, number>();
    const plain = await LightClient.connect({ rpc: g.url, trust: { checkpoint: cp, chainId: 1337n }, chainConfig: osakaChainConfig(), fetch: withoutMethods(['eth_createAccessList'], asked) });
    const got = await plain.callDetailed(multicall(), at());
    expect(got.output).toBe(honest.output);
    expect(got.stats.hinted).toBe(false);
    expect(asked.get('eth_createAccessList')).toBe(1);
  });
});

describe('dapp libraries through asEip1193(), no allowUnverified', () => {
  const dev = defineChain({ id: 1337, name: 'geth --dev', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } });

  it('viem: readContract, simulateContract, multicall, and a custom error decoded', async () => {
    const pub = createPublicClient({ chain: dev, transport: custom(eip) });
    const token = { address: c.token as `0x${string}`, abi: artifact('Token').abi as never };
    expect(await pub.readContract({ ...token, functionName: 'balanceOf', args: [c.holders[2]] })).toBe(1002n);
    const sim = await pub.simulateContract({ ...token, functionName: 'transfer', args: [c.spender, 7n], account: c.owner as `0x${string}` });
    expect(sim.result).toBe(true);
    const reads = c.holders.map((h) => ({ ...token, functionName: 'balanceOf', args: [h] }));
    const results = await pub.multicall({ contracts: [...reads, ...reads, ...reads, ...reads, ...reads], multicallAddress: c.multicall as `0x${string}`, allowFailure: false });
    expect(results).toEqual(Array.from({ length: 5 }, () => c.holders.map((_, i) => 1000n + BigInt(i))).flat());
    const e = await rejection(pub.readContract({ address: c.store as `0x${string}`, abi: artifact('Store').abi as never, functionName: 'refuse', args: [3n] }));
    const reverted = (e as BaseError).walk((x) => x instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    expect([reverted?.data?.errorName, reverted?.data?.args?.[1]]).toEqual(['Refused', 3n]);
  });

  it('ethers: Contract reads, a reason and a custom error decoded, and estimateGas', async () => {
    const provider = new BrowserProvider(eip, Network.from(1337));
    const token = new Contract(c.token, artifact('Token').abi as never, provider);
    expect(await token.getFunction('balanceOf')(c.holders[1])).toBe(1001n);
    expect(await token.getFunction('symbol')()).toBe('TT');
    const store = new Contract(c.store, artifact('Store').abi as never, provider);
    const reason = await rejection(store.getFunction('nonZero')(0n));
    expect(isError(reason, 'CALL_EXCEPTION') && reason.reason).toBe('x is zero');
    const custom = await rejection(store.getFunction('refuse')(4n));
    expect(isError(custom, 'CALL_EXCEPTION') && [custom.revert?.name, custom.revert?.args.at(1)]).toEqual(['Refused', 4n]);
    const gas = await token.getFunction('transfer').estimateGas(c.spender, 1n, { from: c.owner });
    const theirs = (await geths('eth_estimateGas', [{ from: c.owner, to: c.token, data: T('transfer', [c.spender, 1n]) }, 'latest'])) as { result: string };
    expect(gas).toBe(BigInt(theirs.result));
  });

  it('client.call throws geth-shaped ExecutionErrors', async () => {
    const e = await rejection(client.call({ to: c.store, data: S('nonZero', [0n]) }));
    expect(e).toBeInstanceOf(ExecutionError);
    expect([(e as ExecutionError).code, (e as Error).message]).toEqual([3, 'execution reverted: x is zero']);
  });
});
