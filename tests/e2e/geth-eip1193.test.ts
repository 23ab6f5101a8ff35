/**
 * ethers v6 and viem through `asEip1193()` against geth: transactions signed by a funded key,
 * sent and waited for (`wait()`, `waitForTransactionReceipt`), contract events and logs, revert
 * reasons and custom errors of verified calls, and how a verification failure reaches each.
 *
 * The client's anchor is a checkpoint, so its `latest` moves only when the app adds a newer one:
 * here a follower takes geth's head every 100 ms (as an app would from a source it trusts) and
 * calls `addCheckpoint`.
 */
import { type Eip1193Provider, LightClient, ProviderRpcError, VERIFICATION_FAILED, init } from '@lightprov/sdk';
import { BrowserProvider, Contract, Network, Wallet, isError } from 'ethers';
import { BaseError, ContractFunctionRevertedError, createPublicClient, createWalletClient, custom, defineChain, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { artifact } from '../contracts/index.js';
import { differences } from '../lib/compare.js';
import { type RunningGeth, checkpointOf, osakaChainConfig, startGeth } from '../lib/geth.js';
import { CHAIN_ID, DEV_BLOB_SCHEDULE, type GethChain, KEY, buildChain } from '../lib/geth-chain.js';
import { type Script, scriptedFetch } from '../lib/scripted.js';
import { rejection, rpc } from '../lib/util.js';

/** What a wallet needs beyond the verified methods: fee data, which no proof covers. */
const WALLET_METHODS = ['eth_gasPrice', 'eth_maxPriorityFeePerGas', 'eth_feeHistory'];

let g: RunningGeth;
let chain: GethChain;
let client: LightClient;
let eip: Eip1193Provider;
let stopFollowing: () => Promise<void>;

/** What the follower could not do (a slow answer under load): it goes on, and says so. */
const followErrors: unknown[] = [];

/**
 * Adds geth's head as a checkpoint every 100 ms until stopped, and has geth seal a block every
 * 500 ms (a dev transfer) as a live chain would: ethers' `wait()` polls for a receipt on each new
 * block after the one it first sees, so on a chain that stops it waits forever.
 */
function follow(c: LightClient, url: string): () => Promise<void> {
  let on = true;
  const loop = (async () => {
    for (let i = 0; on; i++) {
      if (i % 5 === 0) await rpc(url, 'eth_sendTransaction', [{ from: g.dev, to: '0x' + '0d'.repeat(20), value: '0x1' }]).catch((e: unknown) => followErrors.push(e));
      await c.addCheckpoint(await checkpointOf(url)).catch((e: unknown) => followErrors.push(e));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return async () => {
    on = false;
    await loop;
  };
}

beforeAll(async () => {
  await init();
  g = await startGeth();
  chain = await buildChain(g, { emits: 2, perEmit: 20 });
  client = await LightClient.connect({ rpc: g.url, trust: { checkpoint: await checkpointOf(g.url), chainId: CHAIN_ID }, blobSchedule: DEV_BLOB_SCHEDULE, chainConfig: osakaChainConfig() });
  eip = client.asEip1193({ allowUnverified: WALLET_METHODS });
  stopFollowing = follow(client, g.url);
}, 120_000);

afterAll(async () => {
  await stopFollowing?.();
  if (followErrors.length > 0) console.log(`the checkpoint follower failed ${followErrors.length} times, first: ${String(followErrors[0])}`);
  await g?.stop();
});

/** The receipt as the SDK's provider answers it must be geth's, field by field. */
async function sameReceipt(hash: string): Promise<void> {
  const [ours, theirs] = await Promise.all([eip.request({ method: 'eth_getTransactionReceipt', params: [hash] }), rpc(g.url, 'eth_getTransactionReceipt', [hash])]);
  expect(differences(ours, theirs), hash).toEqual([]);
}

describe('ethers v6 (BrowserProvider) against geth', () => {
  it('a Wallet sends an ERC-20 transfer and waits for it; the receipt, its events and balances come back verified', async () => {
    const provider = new BrowserProvider(eip, Network.from(Number(CHAIN_ID)), { pollingInterval: 100 });
    const wallet = new Wallet(KEY, provider);
    const token = new Contract(chain.contracts.Token, artifact('Token').abi as never, wallet);
    const to = Wallet.createRandom().address;
    const tx = await token.getFunction('transfer')(to, 1234n);
    const receipt = await tx.wait();
    expect(receipt?.status).toBe(1);
    await sameReceipt(tx.hash);
    // The event, parsed by ethers from the verified logs, and found again by queryFilter (getLogs).
    const parsed = receipt!.logs.map((l: { topics: string[]; data: string }) => token.interface.parseLog(l));
    expect(parsed.map((p: { name: string; args: unknown[] } | null) => [p?.name, ...(p?.args ?? [])])).toEqual([['Transfer', wallet.address, to, 1234n]]);
    const found = await token.queryFilter(token.filters['Transfer']!(wallet.address, to), receipt!.blockNumber, receipt!.blockNumber);
    expect(found.map((e) => e.transactionHash)).toEqual([tx.hash]);
    // State at the receipt's block, verified: the recipient's token balance (a verified call)
    // and its ether balance.
    expect(await token.getFunction('balanceOf')(to, { blockTag: receipt!.blockNumber })).toBe(1234n);
    expect(await provider.getBalance(to)).toBe(0n);
    expect(await provider.getTransactionCount(wallet.address, receipt!.blockNumber)).toBe(tx.nonce + 1);
  }, 60_000);

  it("a verified call's revert has geth's code, message and data: ethers decodes the reason and the custom error", async () => {
    const provider = new BrowserProvider(eip, Network.from(Number(CHAIN_ID)));
    const store = new Contract(chain.contracts.Store, artifact('Store').abi as never, provider);
    const reason = await rejection(store.getFunction('nonZero')(0n));
    expect(isError(reason, 'CALL_EXCEPTION') && [reason.reason, reason.revert?.name]).toEqual(['x is zero', 'Error']);
    const custom = await rejection(store.getFunction('refuse')(7n));
    expect(isError(custom, 'CALL_EXCEPTION') && [custom.revert?.name, custom.revert?.args.at(1)]).toEqual(['Refused', 7n]);
  });

  it('a verification failure reaches ethers as its UNKNOWN_ERROR with our code in error.data', async () => {
    const liar = await lyingProvider((m, _p, r) => (m === 'eth_getProof' ? { ...(r as object), balance: '0x1' } : r));
    const e = await rejection(new BrowserProvider(liar, Network.from(Number(CHAIN_ID))).getBalance(chain.sender.address));
    // How an app tells a refused answer from ethers: the EIP-1193 error ethers wraps.
    expect(isError(e, 'UNKNOWN_ERROR')).toBe(true);
    const inner = (e as { error?: { code?: unknown; message?: string; data?: { code?: string } } }).error;
    expect(inner?.code).toBe(VERIFICATION_FAILED);
    expect(inner?.data?.code).toBe('VALUE_MISMATCH');
    expect(inner?.message).toMatch(/^VALUE_MISMATCH/);
  });
});

describe('viem (custom transport) against geth', () => {
  const dev = defineChain({ id: Number(CHAIN_ID), name: 'geth --dev', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } });

  it('a local account sends; waitForTransactionReceipt, getLogs and readContract come back verified', async () => {
    const transport = custom(eip);
    const pub = createPublicClient({ chain: dev, transport, pollingInterval: 100 });
    const wallet = createWalletClient({ chain: dev, transport, account: privateKeyToAccount(KEY as `0x${string}`) });
    const hash = await wallet.writeContract({ address: chain.contracts.Emitter as `0x${string}`, abi: artifact('Emitter').abi as never, functionName: 'emitMany', args: [25n] });
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    expect(receipt.status).toBe('success');
    expect(receipt.logs.length).toBe(25);
    await sameReceipt(hash);
    const logs = await pub.getLogs({ address: chain.contracts.Emitter as `0x${string}`, event: parseAbi(['event Ping(uint256 indexed batch, uint256 indexed index, address indexed sender, bytes32 data)'])[0], fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber });
    expect(logs.map((l) => l.args.index)).toEqual(Array.from({ length: 25 }, (_, i) => BigInt(i)));
    const raw = (await rpc(g.url, 'eth_getLogs', [{ address: chain.contracts.Emitter, fromBlock: '0x' + receipt.blockNumber.toString(16), toBlock: '0x' + receipt.blockNumber.toString(16) }])) as { transactionHash: string; logIndex: string }[];
    expect(logs.map((l) => [l.transactionHash, l.logIndex])).toEqual(raw.map((l) => [l.transactionHash, Number(l.logIndex)]));
    expect(await pub.readContract({ address: chain.contracts.Emitter as `0x${string}`, abi: parseAbi(['function batches() view returns (uint256)']), functionName: 'batches' })).toBe(BigInt(chain.txs.emits.length + 1));
  }, 60_000);

  it('a custom error of a verified call decodes in viem; a verification failure is found by walking the error', async () => {
    const pub = createPublicClient({ chain: dev, transport: custom(eip) });
    const e = await rejection(pub.readContract({ address: chain.contracts.Store as `0x${string}`, abi: artifact('Store').abi as never, functionName: 'refuse', args: [9n] }));
    const reverted = (e as BaseError).walk((x) => x instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    expect([reverted?.data?.errorName, reverted?.data?.args?.[1]]).toEqual(['Refused', 9n]);
    const liar = await lyingProvider((m, _p, r) => (m === 'eth_getProof' ? { ...(r as object), nonce: '0x99' } : r));
    const failed = await rejection(createPublicClient({ chain: dev, transport: custom(liar) }).getTransactionCount({ address: chain.sender.address as `0x${string}` }));
    // How an app tells a refused answer from viem: walk to the EIP-1193 error and read `data.code`.
    const cause = (failed as BaseError).walk((x) => x instanceof ProviderRpcError) as ProviderRpcError | null;
    expect([cause?.code, (cause?.data as { code?: string } | undefined)?.code]).toEqual([VERIFICATION_FAILED, 'VALUE_MISMATCH']);
    expect((failed as BaseError).name).toBe('ResourceUnavailableRpcError');
  });
});

/** A provider over a client whose one node is geth behind `script`. */
async function lyingProvider(script: Script): Promise<Eip1193Provider> {
  const url = 'http://liar.invalid/';
  const c = await LightClient.connect({ rpc: url, trust: { checkpoint: await checkpointOf(g.url) }, fetch: scriptedFetch({ [url]: { target: g.url, script } }) });
  return c.asEip1193({ allowUnverified: WALLET_METHODS });
}
