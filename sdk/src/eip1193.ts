/**
 * An EIP-1193 provider over a `LightClient`, for ethers' `BrowserProvider` and viem's `custom()`:
 * reads of state and headers are answered after verification; other calls
 * (`eth_sendRawTransaction`, `eth_chainId`, …) are passed to a node.
 */
import { type BlockTag, rpcBlockArg } from './args.js';
import type { HeaderChain } from './chain.js';
import { RpcError, VerificationError } from './errors.js';
import type { VerifiedHeader } from './header.js';
import { bytesToHex, hexToBytes } from './hex.js';
import type { Transport } from './transport.js';

/** The minimal EIP-1193 provider shape that ethers' BrowserProvider and viem's custom() accept. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] | object }): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): Eip1193Provider;
  removeListener(event: string, listener: (...args: unknown[]) => void): Eip1193Provider;
}

/** What the provider reads through: the client's verified reads, its nodes and its headers. */
export interface VerifiedReads {
  getBalance(address: string, block?: BlockTag): Promise<bigint>;
  getTransactionCount(address: string, block?: BlockTag): Promise<bigint>;
  getStorageAt(address: string, slot: string, block?: BlockTag): Promise<string>;
  getCode(address: string, block?: BlockTag): Promise<string>;
  getHeader(block?: BlockTag): Promise<VerifiedHeader>;
}

/** Builds the provider. */
export function eip1193(reads: VerifiedReads, net: Transport, chain: HeaderChain): Eip1193Provider {
  const listeners = new Map<string, Set<(...a: unknown[]) => void>>();
  const hex = (v: bigint) => '0x' + v.toString(16);
  const provider: Eip1193Provider = {
    request: async ({ method, params }) => {
      const p = Array.isArray(params) ? params : [];
      switch (method) {
        case 'eth_getBalance':
          return hex(await reads.getBalance(p[0] as string, rpcBlockArg(p[1])));
        case 'eth_getTransactionCount':
          // The pending nonce counts the node's mempool, which no proof covers: pass it on.
          if (p[1] === 'pending') return net.withFailover((e) => net.call(e, method, p));
          return hex(await reads.getTransactionCount(p[0] as string, rpcBlockArg(p[1])));
        case 'eth_getStorageAt':
          return reads.getStorageAt(p[0] as string, p[1] as string, rpcBlockArg(p[2]));
        case 'eth_getCode':
          return reads.getCode(p[0] as string, rpcBlockArg(p[1]));
        case 'eth_blockNumber':
          return hex((await reads.getHeader('latest')).number);
        case 'eth_getBlockByNumber':
        case 'eth_getBlockByHash':
          return net.withFailover(async (e) => {
            const tag = method === 'eth_getBlockByHash' ? rpcBlockArg({ blockHash: String(p[0]) }) : rpcBlockArg(p[0]);
            let header: VerifiedHeader;
            try {
              header = await chain.headerAt(e, tag);
            } catch (err) {
              if (err instanceof RpcError && err.code === -32001) return null; // unknown block
              throw err;
            }
            const json = await net.call(e, 'eth_getBlockByHash', [header.hash, p[1] === true]);
            if (typeof json !== 'object' || json === null) throw new RpcError(method, -32001, `block ${header.hash} is unknown to ${e.url}`);
            const served = bytesToHex(hexToBytes((json as { hash?: unknown }).hash, 'hash', 'network', 32));
            if (served !== header.hash) throw new VerificationError('HEADER_HASH_MISMATCH', `asked for ${header.hash}, got ${served}`, { field: 'hash' });
            // Header fields come from the verified header; the transaction list is the node's.
            return { ...(json as object), ...headerJson(header) };
          });
        default:
          return net.withFailover((e) => net.call(e, method, p));
      }
    },
    on: (event, listener) => {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      return provider;
    },
    removeListener: (event, listener) => {
      listeners.get(event)?.delete(listener);
      return provider;
    },
  };
  return provider;
}

/** A verified header as the JSON-RPC block fields. */
function headerJson(h: VerifiedHeader): Record<string, string> {
  const q = (v: bigint) => '0x' + v.toString(16);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (k === 'layout' || v === undefined) continue;
    out[k] = typeof v === 'bigint' ? q(v) : (v as string);
  }
  return out;
}
