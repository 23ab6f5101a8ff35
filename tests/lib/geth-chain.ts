/**
 * A geth --dev chain with something of everything the SDK verifies: contracts compiled from
 * tests/contracts (storage, an ERC-20, thousands of events), transactions of types 0 to 4 signed
 * by a funded key (a blob transaction signed by geth's dev account), a reverted transaction, a
 * contract creation, and beacon withdrawals.
 */
import { Interface, Wallet, getCreateAddress, keccak256 } from 'ethers';

import { type ContractName, artifact } from '../contracts/index.js';
import { type RunningGeth, devSend, receiptOf } from './geth.js';
import { rpc } from './util.js';

/** A fixed key (funded by the chain builder), so that failures are reproducible. */
export const KEY = keccak256(new TextEncoder().encode('lightprov geth tests: sender'));
/** A second key: the EOA that delegates its code (EIP-7702). */
export const DELEGATOR_KEY = keccak256(new TextEncoder().encode('lightprov geth tests: delegator'));
export const CHAIN_ID = 1337n;
/** geth --dev's blob schedule (`eth_config`: Prague's, kept by Osaka). */
export const DEV_BLOB_SCHEDULE = [{ timestamp: 0n, baseFeeUpdateFraction: 5_007_716n }];

export interface GethChain {
  contracts: Record<'Emitter' | 'Multicall' | 'Store' | 'Token', string>;
  sender: Wallet;
  delegator: Wallet;
  /** Transaction hashes by what they are. */
  txs: {
    legacy: string;
    accessList: string;
    dynamic: string;
    blob: string;
    setCode: string;
    reverted: string;
    creation: string;
    /** The Emitter calls: their events are `events` in all. */
    emits: string[];
    /** Sent in one JSON-RPC batch: several land in one block. */
    batch: string[];
  };
  events: number;
  /** Blocks with a Store.set, and the values it set: state at past blocks. */
  storeHistory: { block: bigint; key: bigint; value: bigint }[];
  /** Blocks with withdrawals. */
  withdrawalBlocks: bigint[];
  head: bigint;
}

export const iface = (name: ContractName): Interface => new Interface(artifact(name).abi as never);

const hex = (n: bigint | number) => '0x' + n.toString(16);

/** Deploys `name` from the dev account; its address. */
export async function deploy(g: RunningGeth, name: ContractName, args: unknown[] = []): Promise<string> {
  const data = artifact(name).bytecode + iface(name).encodeDeploy(args).slice(2);
  const r = await devSend(g, { data });
  if (r['status'] !== '0x1') throw new Error(`deploying ${name} failed`);
  return r['contractAddress'] as string;
}

async function call(g: RunningGeth, to: string, name: ContractName, fn: string, args: unknown[], extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return devSend(g, { to, data: iface(name).encodeFunctionData(fn, args), ...extra });
}

/** A blob of 4096 field elements holding `text` (each element's first byte zero: below the BLS modulus). */
function blobOf(text: string): string {
  const blob = new Uint8Array(131_072);
  const bytes = new TextEncoder().encode(text);
  bytes.forEach((b, i) => (blob[32 * Math.floor(i / 31) + 1 + (i % 31)] = b));
  return '0x' + Buffer.from(blob).toString('hex');
}

/** Builds the chain on a fresh geth --dev (period 0: a block whenever transactions arrive). */
export async function buildChain(g: RunningGeth, opts: { emits?: number; perEmit?: number } = {}): Promise<GethChain> {
  const sender = new Wallet(KEY);
  const delegator = new Wallet(DELEGATOR_KEY);
  await devSend(g, { to: sender.address, value: hex(10n ** 21n) });
  await devSend(g, { to: delegator.address, value: hex(10n ** 18n) });

  const contracts = {
    Store: await deploy(g, 'Store'),
    Token: await deploy(g, 'Token', [10n ** 24n]),
    Emitter: await deploy(g, 'Emitter'),
    Multicall: await deploy(g, 'Multicall'),
  };

  const storeHistory: GethChain['storeHistory'] = [];
  for (const [key, value] of [
    [1n, 11n],
    [2n, 22n],
    [1n, 111n],
  ] as const) {
    const r = await call(g, contracts.Store, 'Store', 'set', [key, value]);
    storeHistory.push({ block: BigInt(r['blockNumber'] as string), key, value });
  }
  await call(g, contracts.Token, 'Token', 'transfer', [sender.address, 10n ** 20n]);

  // Transactions of types 0, 1 and 2 from the funded key.
  let nonce = 0;
  const fee = { maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n };
  const base = () => ({ chainId: CHAIN_ID, nonce: nonce++, gasLimit: 100_000n });
  const sendRaw = async (raw: string) => receiptOf(g.url, (await rpc(g.url, 'eth_sendRawTransaction', [raw])) as string);
  const legacy = await sendRaw(await sender.signTransaction({ ...base(), type: 0, gasPrice: 10n ** 11n, to: delegator.address, value: 1n }));
  const accessList = await sendRaw(
    await sender.signTransaction({
      ...base(),
      type: 1,
      gasPrice: 10n ** 11n,
      to: contracts.Store,
      data: iface('Store').encodeFunctionData('set', [3n, 33n]),
      accessList: [{ address: contracts.Store, storageKeys: ['0x' + '00'.repeat(32)] }],
    }),
  );
  const dynamic = await sendRaw(await sender.signTransaction({ ...base(), type: 2, ...fee, to: contracts.Token, data: iface('Token').encodeFunctionData('transfer', [delegator.address, 5n]) }));
  // A creation from the key (contractAddress derived from its nonce).
  const creation = await sendRaw(await sender.signTransaction({ ...base(), type: 2, ...fee, gasLimit: 1_000_000n, data: artifact('Store').bytecode }));
  if (creation['contractAddress'] !== getCreateAddress({ from: sender.address, nonce: nonce - 1 }).toLowerCase()) throw new Error('unexpected creation address');
  // Reverted (status 0): require(x != 0) with x = 0, with a gas limit so that nothing estimates it.
  const reverted = await sendRaw(await sender.signTransaction({ ...base(), type: 2, ...fee, to: contracts.Store, data: iface('Store').encodeFunctionData('nonZero', [0n]) }));

  // EIP-7702: the delegator's code becomes a delegation to Store, in a transaction the key sends.
  const auth = await delegator.authorize({ address: contracts.Store, nonce: 0n, chainId: CHAIN_ID });
  const setCode = await sendRaw(await sender.signTransaction({ ...base(), type: 4, ...fee, to: delegator.address, data: iface('Store').encodeFunctionData('set', [7n, 77n]), authorizationList: [auth] }));

  // EIP-4844: a blob transaction, signed by the dev account (geth computes the commitments and cell proofs).
  const devNonce = (await rpc(g.url, 'eth_getTransactionCount', [g.dev, 'pending'])) as string;
  const signed = (await rpc(g.url, 'eth_signTransaction', [
    { from: g.dev, to: contracts.Store, nonce: devNonce, gas: hex(50_000n), maxFeePerGas: hex(10n ** 11n), maxPriorityFeePerGas: hex(10n ** 9n), maxFeePerBlobGas: hex(10n ** 10n), blobs: [blobOf('lightprov blob one'), blobOf('lightprov blob two')] },
  ])) as { raw: string };
  const blob = await sendRaw(signed.raw);

  // Several transactions in one JSON-RPC batch: they share blocks.
  const raws = [];
  for (let i = 0; i < 12; i++) raws.push(await sender.signTransaction({ ...base(), type: i % 3 === 0 ? 0 : 2, ...(i % 3 === 0 ? { gasPrice: 10n ** 11n } : fee), to: delegator.address, value: BigInt(i + 1) }));
  const res = await fetch(g.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(raws.map((r, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [r] }))) });
  const batch = ((await res.json()) as { id: number; result: string }[]).sort((a, b) => a.id - b.id).map((a) => a.result);
  for (const h of batch) await receiptOf(g.url, h);

  // Thousands of events, over several blocks.
  const emits: string[] = [];
  const perEmit = opts.perEmit ?? 400;
  for (let i = 0; i < (opts.emits ?? 10); i++) emits.push((await call(g, contracts.Emitter, 'Emitter', 'emitMany', [perEmit]))['transactionHash'] as string);
  await call(g, contracts.Emitter, 'Emitter', 'note', ['a note']);

  // Withdrawals (the simulated beacon's dev_addWithdrawal): each seals a block.
  const withdrawalBlocks: bigint[] = [];
  for (let i = 0; i < 2; i++) {
    const before = BigInt((await rpc(g.url, 'eth_blockNumber', [])) as string);
    await rpc(g.url, 'dev_addWithdrawal', [{ index: hex(i), validatorIndex: hex(1000 + i), address: delegator.address, amount: hex(1_000_000_000n + BigInt(i)) }]);
    for (let k = 0; k < 200 && BigInt((await rpc(g.url, 'eth_blockNumber', [])) as string) === before; k++) await new Promise((r) => setTimeout(r, 25));
    withdrawalBlocks.push(before + 1n);
  }

  const head = BigInt((await rpc(g.url, 'eth_blockNumber', [])) as string);
  return {
    contracts,
    sender,
    delegator,
    txs: {
      legacy: legacy['transactionHash'] as string,
      accessList: accessList['transactionHash'] as string,
      dynamic: dynamic['transactionHash'] as string,
      blob: blob['transactionHash'] as string,
      setCode: setCode['transactionHash'] as string,
      reverted: reverted['transactionHash'] as string,
      creation: creation['transactionHash'] as string,
      emits,
      batch,
    },
    events: (opts.emits ?? 10) * perEmit,
    storeHistory,
    withdrawalBlocks,
    head,
  };
}
