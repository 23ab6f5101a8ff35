/** What the panels share: the demo config, the connected client, the picked key, the last proof. */
import { type HistoryScheme, type LightClient, RpcError, type StateKey, type VerifiedHeader, type VerifiedHistory } from '@lightprov/sdk';
import { computeAddress, concat, keccak256, toBeHex, toUtf8Bytes } from 'ethers';

/** What the demo server tells the page (`/demo-config.json`); the dev keys are public. */
export interface DemoConfig {
  /** JSON-RPC URL for the page (the demo server's same-origin proxy). */
  rpc: string;
  /** The node's own URL (for ethers, viem, curl outside the browser). */
  nodeUrl?: string;
  genesisHash: string;
  signer: string;
  chainId: number;
  /** Funded dev accounts with their (public) private keys. */
  accounts: { address: string; key: string }[];
  /**
   * The node's workload, if any: `transfer` moves wei between synthetic accounts every block;
   * `erc20` moves tokens of `token` (an ERC-20 deployed at genesis) between them.
   */
  workload?: { kind: string; txPerBlock: number; token?: string };
}

/** Account `i` of lightprov-node's transfer workload: the address of its public key (as server-mock derives it). */
export function workloadAccount(i: number): string {
  return computeAddress(keccak256(concat([toUtf8Bytes('lightprov transfer account'), toBeHex(i, 8)])));
}

export interface PickedKey {
  key: StateKey;
  /** A human label ("dev account 1 · balance"). */
  label: string;
  /** For a token balance: the token, the holder and the slot index of its balances mapping. */
  token?: { address: string; owner: string; slotIndex: bigint };
}

/** A token's balances slot as a verified probe found it: the index, the holder probed, the block. */
export interface TokenSlot {
  slotIndex: bigint;
  holder: string;
  block: bigint;
}

export interface HistoryResult {
  picked: PickedKey;
  scheme: HistoryScheme;
  history: VerifiedHistory;
}

type Events = {
  connected: undefined;
  head: VerifiedHeader;
  key: PickedKey;
  history: HistoryResult;
  transfer: { from: string; to: string; block: bigint };
};

class Bus {
  private readonly target = new EventTarget();
  on<K extends keyof Events>(name: K, f: (detail: Events[K]) => void): void {
    this.target.addEventListener(name, (e) => f((e as CustomEvent<Events[K]>).detail));
  }
  emit<K extends keyof Events>(name: K, detail: Events[K]): void {
    this.target.dispatchEvent(new CustomEvent(name, { detail }));
  }
}

export const app = {
  config: undefined as DemoConfig | undefined,
  client: undefined as LightClient | undefined,
  /** The JSON-RPC URL the client was connected to. */
  rpcUrl: undefined as string | undefined,
  signers: [] as string[],
  head: undefined as VerifiedHeader | undefined,
  picked: undefined as PickedKey | undefined,
  lastHistory: undefined as HistoryResult | undefined,
  /** Each token's balances slot, once a verified probe found it (by lowercase token address). */
  tokenSlots: new Map<string, TokenSlot>(),
  bus: new Bus(),
};

export function client(): LightClient {
  if (!app.client) throw new Error('connect to a node first');
  return app.client;
}

/** Loads `/demo-config.json` if the page is served by the demo server. */
export async function loadConfig(): Promise<DemoConfig | undefined> {
  try {
    const res = await fetch('./demo-config.json', { cache: 'no-store' });
    if (!res.ok) return undefined;
    const c = (await res.json()) as DemoConfig;
    // A relative RPC path becomes an absolute URL on this origin (the client wants http(s) URLs).
    return { ...c, rpc: new URL(c.rpc, location.href).toString() };
  } catch {
    return undefined;
  }
}

/**
 * A raw JSON-RPC call to the connected node. Its answer is NOT verified: callers verify it (the
 * forgery panel) or use it only to size progress bars.
 */
export async function rawRpc(method: string, params: unknown[]): Promise<unknown> {
  if (!app.rpcUrl) throw new Error('connect to a node first');
  let j: { result?: unknown; error?: { code?: number; message?: string } };
  try {
    const res = await fetch(app.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    j = (await res.json()) as typeof j;
  } catch (e) {
    throw new RpcError(method, -1, e instanceof Error ? e.message : String(e));
  }
  if (j.error) throw new RpcError(method, j.error.code ?? -1, j.error.message ?? 'error');
  return j.result;
}
