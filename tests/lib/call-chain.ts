/**
 * A geth chain for verified calls: an ERC-20 with holders and an allowance, Multicall, Store and
 * Probe (tests/contracts), Probe's storage filled and its balance funded, blocks enough for
 * BLOCKHASH a few blocks back. Used by the call tests and the call benchmark.
 */
import { Wallet, keccak256, toUtf8Bytes } from 'ethers';

import { type RunningGeth, devSend, receiptOf } from './geth.js';
import { deploy, iface } from './geth-chain.js';

export interface CallChain {
  token: string;
  multicall: string;
  store: string;
  probe: string;
  /** Accounts holding tokens (each a different amount). */
  holders: string[];
  /** The dev account, which holds the rest of the supply and approved `spender`. */
  owner: string;
  spender: string;
  /** Probe's slots 0..filled-1 hold 1..filled. */
  filled: number;
  /** An EOA whose code delegates to Store (EIP-7702); its own `entries(7)` is 77. */
  delegator: string;
}

const hex = (n: bigint | number) => '0x' + n.toString(16);

/** Builds the chain on a fresh geth (`holders` token holders, `fill` Probe slots). */
export async function buildCallChain(g: RunningGeth, opts: { holders?: number; fill?: number } = {}): Promise<CallChain> {
  const token = await deploy(g, 'Token', [10n ** 24n]);
  const multicall = await deploy(g, 'Multicall');
  const store = await deploy(g, 'Store');
  const probe = await deploy(g, 'Probe');
  const send = (to: string, data: string, value = 0n) => devSend(g, { to, data, value: hex(value), gas: hex(10_000_000) });
  const holders = Array.from({ length: opts.holders ?? 12 }, () => Wallet.createRandom().address.toLowerCase());
  for (const [i, h] of holders.entries()) await send(token, iface('Token').encodeFunctionData('transfer', [h, 1000n + BigInt(i)]));
  const spender = Wallet.createRandom().address.toLowerCase();
  await send(token, iface('Token').encodeFunctionData('approve', [spender, 777n]));
  await send(store, iface('Store').encodeFunctionData('set', [1n, 11n]));
  const fill = opts.fill ?? 600;
  // 250 fresh slots a transaction: under geth --dev's 11.5 M block gas limit.
  for (let from = 0; from < fill; from += 250) await send(probe, iface('Probe').encodeFunctionData('fill', [from, Math.min(fill, from + 250)]));
  await devSend(g, { to: probe, value: hex(12345n) });
  // EIP-7702: an EOA delegating to Store, which sets its own entries(7) = 77 in the same transaction.
  const sender = new Wallet(keccak256(toUtf8Bytes('lightprov call tests: sender')));
  const delegator = new Wallet(keccak256(toUtf8Bytes('lightprov call tests: delegator')));
  await devSend(g, { to: sender.address, value: hex(10n ** 18n) });
  const auth = await delegator.authorize({ address: store, nonce: 0n, chainId: 1337n });
  const raw = await sender.signTransaction({
    type: 4,
    chainId: 1337n,
    nonce: 0,
    gasLimit: 200_000n,
    maxFeePerGas: 10n ** 11n,
    maxPriorityFeePerGas: 10n ** 9n,
    to: delegator.address,
    data: iface('Store').encodeFunctionData('set', [7n, 77n]),
    authorizationList: [auth],
  });
  const r = await receiptOf(g.url, (await (await fetch(g.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }) })).json()).result as string);
  if (r['status'] !== '0x1') throw new Error('the EIP-7702 transaction failed');
  return { token, multicall, store, probe, holders, owner: g.dev.toLowerCase(), spender, filled: fill, delegator: delegator.address.toLowerCase() };
}
