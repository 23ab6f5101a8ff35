/**
 * Fetch-and-verify helpers over any EIP-1193-ish JSON-RPC sender, such as an ethers v6
 * `JsonRpcProvider` or `BrowserProvider` (anything with `send(method, params)`).
 */
import { RpcError } from './errors.js';
import { verifyHeader } from './header.js';
import { bytesArg, bytesToHex, slotToHex } from './hex.js';
import { init } from './init.js';
import { type VerifiedAccount, checkAnswerIsFor, verifyAccountProof } from './families/mpt.js';

/** Anything that sends JSON-RPC requests: ethers v6 providers qualify. */
export interface JsonRpcSender {
  send(method: string, params: unknown[]): Promise<unknown>;
}

async function call(provider: JsonRpcSender, method: string, params: unknown[]): Promise<unknown> {
  try {
    return await provider.send(method, params);
  } catch (e) {
    const code = typeof (e as { code?: unknown }).code === 'number' ? (e as { code: number }).code : -1;
    throw new RpcError(method, code, e instanceof Error ? e.message : String(e), { cause: e });
  }
}

/**
 * Fetches `eth_getProof` for `address` and `slots` at the block `blockHash`, and the block's
 * header; checks the header hashes to `blockHash`, the proof against its state root, and that
 * the answer is for the address and slots asked. Returns only verified data.
 *
 * `blockHash` is the trust anchor: take it from a source you trust (a checkpoint, a light
 * client, your own node).
 *
 * @example
 * import { JsonRpcProvider } from 'ethers';
 * const provider = new JsonRpcProvider('http://127.0.0.1:8545');
 * const acct = await fetchVerifiedAccount(provider, '0x…', [0n], { blockHash: '0x…' });
 */
export async function fetchVerifiedAccount(
  provider: JsonRpcSender,
  address: string,
  slots: readonly (string | bigint | number)[],
  options: { blockHash: string },
): Promise<VerifiedAccount> {
  if (typeof provider?.send !== 'function') throw new TypeError('provider: expected an object with send(method, params)');
  const addr = bytesToHex(bytesArg(address, 'address', 20));
  if (!Array.isArray(slots)) throw new TypeError('slots: expected an array');
  const keys = slots.map((s, i) => slotToHex(s, `slots[${i}]`));
  const blockHash = bytesToHex(bytesArg(options?.blockHash, 'options.blockHash', 32));
  await init({ families: ['header', 'mpt'] });

  const [block, proof] = await Promise.all([
    call(provider, 'eth_getBlockByHash', [blockHash, false]),
    call(provider, 'eth_getProof', [addr, keys, { blockHash }]),
  ]);
  if (block === null || block === undefined) throw new RpcError('eth_getBlockByHash', -1, `unknown block ${blockHash}`);
  const header = verifyHeader(block, blockHash);
  const account = verifyAccountProof(proof, header.stateRoot);
  checkAnswerIsFor(account, addr, keys);
  return account;
}
