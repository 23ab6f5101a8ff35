/**
 * Verified contract calls: `eth_call`, `eth_estimateGas` and `eth_createAccessList` executed in
 * WebAssembly (revm, the `evm` module, loaded on a client's first call) over state proven
 * against one verified block.
 *
 * The fetch loop cannot be bent by a node: its `eth_createAccessList` answer is only a prefetch
 * hint (capped); the sender, the callee and the coinbase, which geth's list leaves out, are
 * added. Every account comes with its `eth_getProof` against the pinned block's `stateRoot`,
 * every code is checked against its proven code hash, and the EVM stops at the first piece of
 * state it touches that is not proven yet; that piece is fetched and proven, and the call runs
 * again, until it completes on proven state alone. A node that omits, adds or lies in the hint
 * changes the number of round trips, never the answer; the node's own `eth_call` is never asked.
 */
import type { BlockTag } from './args.js';
import type { HeaderChain } from './chain.js';
import { NodeFaultError, RpcError, wasmCall } from './errors.js';
import { encodeAccountProof, parseAccountProof } from './families/mpt.js';
import { type VerifiedHeader, headerRlp } from './header.js';
import { bigIntToBytes, bytesArg, bytesToHex, hexToBigInt, hexToBytes } from './hex.js';
import { loadFamily, wasmOf } from './init.js';
import type { Endpoint, Transport } from './transport.js';

/** A number as a caller gives it: bigint, safe integer, or `0x`-hex. */
export type Quantity = bigint | number | string;

/** A call as `eth_call` takes it (geth's transaction arguments). */
export interface CallRequest {
  /** The sender (default: the zero address, as geth). */
  from?: string;
  /** The callee; absent or `null` runs `data` as init code. */
  to?: string | null;
  /** The gas limit (default: the client's gas cap; `estimateGas`: the block's). */
  gas?: Quantity;
  gasPrice?: Quantity;
  maxFeePerGas?: Quantity;
  maxPriorityFeePerGas?: Quantity;
  value?: Quantity;
  /** Calldata (or `input`, its other name; both must agree when both are given). */
  data?: string;
  input?: string;
  nonce?: Quantity;
  chainId?: Quantity;
  accessList?: readonly { address: string; storageKeys: readonly string[] }[];
  blobVersionedHashes?: readonly string[];
  maxFeePerBlobGas?: Quantity;
}

/** What {@link LightClient.call} and its siblings take besides the call. */
export interface CallOptions {
  /** The block whose state the call runs on (default: the verified head), pinned for the whole call. */
  block?: BlockTag;
}

/** The bounds of one verified call. */
export interface CallLimits {
  /** The gas a call gets when it names none, and the most it may name (geth's `RPCGasCap`). */
  gasCap: bigint;
  /** Rounds of fetching after the prefetch (each fetches what one run stopped at). */
  maxRounds: number;
  /** Accounts proven in one call. */
  maxAccounts: number;
  /** Storage slots proven in one call. */
  maxSlots: number;
  /** Accounts taken from a node's access-list hint. */
  hintAccounts: number;
  /** Storage slots taken from a node's access-list hint. */
  hintSlots: number;
}

/** The defaults of {@link CallLimits}. */
export const DEFAULT_CALL_LIMITS: Readonly<CallLimits> = Object.freeze({
  gasCap: 50_000_000n,
  maxRounds: 64,
  maxAccounts: 1_000,
  maxSlots: 10_000,
  hintAccounts: 256,
  hintSlots: 2_048,
});

/** Checks a caller's `callLimits` and fills in the defaults. */
export function callLimitsArg(v: unknown): CallLimits {
  if (v === undefined) return { ...DEFAULT_CALL_LIMITS };
  if (typeof v !== 'object' || v === null) throw new TypeError('callLimits: expected an object');
  const o = v as Partial<Record<keyof CallLimits, unknown>>;
  const out = { ...DEFAULT_CALL_LIMITS };
  for (const k of Object.keys(o) as (keyof CallLimits)[]) {
    if (!(k in DEFAULT_CALL_LIMITS)) throw new TypeError(`callLimits.${k}: unknown limit`);
    const x = o[k];
    if (k === 'gasCap') {
      out.gasCap = quantityArg(x, 'callLimits.gasCap', 64);
      if (out.gasCap < 21_000n) throw new RangeError('callLimits.gasCap: at least 21000');
    } else if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 0) {
      throw new RangeError(`callLimits.${k}: expected a non-negative integer`);
    } else {
      out[k] = x;
    }
  }
  return out;
}

/**
 * A chain's fork schedule in the keys of geth's genesis `config` (paste it whole): London's
 * block, each later fork's timestamp, and the blob schedule. Needed for verified calls on a
 * chain other than mainnet, Sepolia and Hoodi, whose schedules are built in. A block at or after
 * a fork later than Osaka (`amsterdamTime`, `bogotaTime`) is refused: this EVM runs London to
 * Osaka.
 */
export interface ChainConfig {
  londonBlock?: Quantity;
  shanghaiTime?: Quantity;
  cancunTime?: Quantity;
  pragueTime?: Quantity;
  osakaTime?: Quantity;
  amsterdamTime?: Quantity;
  bogotaTime?: Quantity;
  bpo1Time?: Quantity;
  bpo2Time?: Quantity;
  bpo3Time?: Quantity;
  bpo4Time?: Quantity;
  bpo5Time?: Quantity;
  /** Each fork's blob parameters (`cancun`, `prague`, `osaka`, `bpo1`…): their update fraction is read. */
  blobSchedule?: Readonly<Record<string, { baseFeeUpdateFraction: Quantity }>>;
  /**
   * Present on a Clique proof-of-authority chain (its period and epoch are not read): its headers
   * keep Clique's difficulty (1 or 2) under the forks after the merge, and `PREVRANDAO` reads
   * `mixHash` from Paris's rules on. A client anchored by signers (`{genesisHash, signers}`) runs
   * its calls under these rules without it.
   */
  clique?: Readonly<Record<string, unknown>>;
}

const NEVER = 0xffff_ffff_ffff_ffffn;
const BLOB_FORKS = ['cancun', 'prague', 'osaka', 'bpo1', 'bpo2', 'bpo3', 'bpo4', 'bpo5'] as const;

/**
 * A {@link ChainConfig} as the wasm module's schedule: `[londonBlock, shanghaiTime, cancunTime,
 * pragueTime, osakaTime, laterTime, proofOfAuthority, (time, blobFraction)…]`, 2^64 - 1 for
 * "never", `proofOfAuthority` 1 for a Clique chain (`clique` in the config, or
 * `proofOfAuthority`: the client's anchor names signers), else 0.
 */
export function chainConfigArg(v: unknown, field = 'chainConfig', proofOfAuthority = false): bigint[] | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null) throw new TypeError(`${field}: expected geth's genesis config object`);
  const c = v as Record<string, unknown>;
  const clique = c['clique'];
  if (clique !== undefined && clique !== null && typeof clique !== 'object') throw new TypeError(`${field}.clique: expected geth's clique object ({period, epoch})`);
  const at = (k: string) => (c[k] === undefined || c[k] === null ? undefined : quantityArg(c[k], `${field}.${k}`, 64));
  const later = [at('amsterdamTime'), at('bogotaTime')].filter((t): t is bigint => t !== undefined);
  const out = [
    at('londonBlock') ?? NEVER,
    at('shanghaiTime') ?? NEVER,
    at('cancunTime') ?? NEVER,
    at('pragueTime') ?? NEVER,
    at('osakaTime') ?? NEVER,
    later.length > 0 ? later.reduce((a, b) => (a < b ? a : b)) : NEVER,
    proofOfAuthority || (clique !== undefined && clique !== null) ? 1n : 0n,
  ];
  const blobs = c['blobSchedule'];
  if (blobs !== undefined && blobs !== null) {
    if (typeof blobs !== 'object') throw new TypeError(`${field}.blobSchedule: expected an object keyed by fork`);
    const pairs: [bigint, bigint][] = [];
    for (const fork of BLOB_FORKS) {
      const entry = (blobs as Record<string, unknown>)[fork];
      const time = at(`${fork}Time`);
      if (entry === undefined || time === undefined) continue;
      const fraction = quantityArg((entry as { baseFeeUpdateFraction?: unknown }).baseFeeUpdateFraction, `${field}.blobSchedule.${fork}.baseFeeUpdateFraction`, 64);
      if (fraction === 0n) throw new RangeError(`${field}.blobSchedule.${fork}.baseFeeUpdateFraction: must not be 0`);
      pairs.push([time, fraction]);
    }
    pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (const [t, f] of pairs) out.push(t, f);
  }
  return out;
}

/** Which method a verified call answers. */
export type CallMethod = 'call' | 'estimateGas' | 'createAccessList';

/** What `onProgress` hears after each round of a verified call. */
export interface CallProgress {
  direction: 'call';
  method: CallMethod;
  /** Rounds of fetching done, of at most `total` (the hint and prefetch, then `maxRounds`). */
  verified: bigint;
  total: bigint;
  /** Round trips so far (the hint's included). */
  round: number;
  /** Accounts and slots proven so far. */
  accounts: number;
  slots: number;
  /** Bytes of the answers so far. */
  bytes: number;
}

/** What a verified call cost. */
export interface CallStats {
  /** Round trips to the node (the access-list hint, each batch of proofs and code, headers for BLOCKHASH). */
  rounds: number;
  /** Bytes of the node's answers. */
  bytes: number;
  /** Time in WebAssembly: proof and code checks, and every run of the EVM (ms). */
  computeMs: number;
  /** The EVM runs (the last one on proven state alone). */
  runs: number;
  /** What was proven. */
  accounts: number;
  slots: number;
  codes: number;
  codeBytes: number;
  /** Ancestor headers linked for BLOCKHASH. */
  headers: number;
  /** Whether the node gave an access-list hint. */
  hinted: boolean;
  /**
   * Every account proven (lowercase hex, in the order first proven) with the storage slots proven
   * of it: what the call's answer rests on, and what the hint's prefetch added besides.
   */
  proven: { address: string; slots: string[] }[];
}

/**
 * The call's own failure, in the shape geth's JSON-RPC error has (and `asEip1193()` passes on):
 * `code` 3 with `message` "execution reverted" (and the decoded reason) and the revert data in
 * `data`, which ethers and viem decode into reasons and custom errors; `code` -32000 for an
 * exceptional halt ("out of gas", "invalid opcode: INVALID") or a transaction the chain's rules
 * refuse ("insufficient funds for gas * price + value…"). The answer is verified: it is what the
 * call does on proven state.
 */
export class ExecutionError extends Error {
  override readonly name = 'ExecutionError';
  /** The JSON-RPC error code geth answers with: 3 (revert) or -32000. */
  readonly code: number;
  /** The revert data (`0x`-hex), for `code` 3. */
  readonly data: string | undefined;

  constructor(code: number, message: string, data?: string) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/**
 * A verified call went past one of the client's {@link CallLimits} (`limit` names it): nothing
 * unverified was returned. Raise the limit (`callLimits`) to allow it.
 */
export class CallLimitError extends Error {
  override readonly name = 'CallLimitError';
  readonly limit: keyof CallLimits;

  constructor(limit: keyof CallLimits, message: string) {
    super(message);
    this.limit = limit;
  }
}

/** A call request, checked: the wire bytes for the module and the JSON for the node's hint. */
export interface ParsedRequest {
  from: string;
  to: string | undefined;
  wire: Uint8Array;
  json: Record<string, unknown>;
}

/** A non-negative integer of at most `bits` bits, from a bigint, a safe integer or `0x`-hex. */
function quantityArg(v: unknown, field: string, bits: number): bigint {
  let n: bigint;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new RangeError(`${field}: not a safe integer`);
    n = BigInt(v);
  } else if (typeof v === 'string') n = hexToBigInt(v, field, 'argument', bits);
  else throw new TypeError(`${field}: expected a bigint, a number or 0x-hex`);
  if (n < 0n) throw new RangeError(`${field}: must not be negative`);
  if (n >> BigInt(bits) !== 0n) throw new RangeError(`${field}: exceeds ${bits} bits`);
  return n;
}

const ZERO_ADDRESS = '0x' + '00'.repeat(20);
const q = (n: bigint) => '0x' + n.toString(16);

/**
 * Checks a caller's call and encodes it (the wire format of `lightprov_evm::CallRequest`).
 * State overrides, block overrides and EIP-7702 authorizations are refused: no proof covers
 * state the caller makes up.
 */
export function callRequestArg(tx: unknown, field = 'tx'): ParsedRequest {
  if (typeof tx !== 'object' || tx === null) throw new TypeError(`${field}: expected a call object ({ to, data, … })`);
  const t = tx as Record<string, unknown>;
  if (t['authorizationList'] !== undefined && t['authorizationList'] !== null) {
    throw new RangeError(`${field}.authorizationList: EIP-7702 authorizations are not supported in verified calls`);
  }
  for (const k of ['stateOverride', 'stateOverrides', 'blockOverrides']) {
    if (t[k] !== undefined) throw new RangeError(`${field}.${k}: not supported in verified calls (no proof covers state the caller makes up)`);
  }
  const has = (k: string) => t[k] !== undefined && t[k] !== null;
  const addr = (k: string) => bytesToHex(bytesArg(t[k], `${field}.${k}`, 20));
  const from = has('from') ? addr('from') : ZERO_ADDRESS;
  const to = has('to') ? addr('to') : undefined;
  const word = (k: string, bits = 256) => (has(k) ? quantityArg(t[k], `${field}.${k}`, bits) : undefined);
  const data = has('data') ? bytesToHex(hexToBytes(t['data'], `${field}.data`, 'argument')) : undefined;
  const input = has('input') ? bytesToHex(hexToBytes(t['input'], `${field}.input`, 'argument')) : undefined;
  if (data !== undefined && input !== undefined && data !== input) throw new TypeError(`${field}: both data and input are given, and they differ`);
  const calldata = hexToBytes(input ?? data ?? '0x', `${field}.data`, 'argument');
  const gas = word('gas', 64);
  const fees = [word('gasPrice'), word('maxFeePerGas'), word('maxPriorityFeePerGas')] as const;
  const value = word('value') ?? 0n;
  const nonce = word('nonce', 64);
  const chainId = word('chainId', 64);
  let accessList: { address: string; storageKeys: string[] }[] | undefined;
  if (has('accessList')) {
    if (!Array.isArray(t['accessList'])) throw new TypeError(`${field}.accessList: expected an array of { address, storageKeys }`);
    accessList = (t['accessList'] as unknown[]).map((e, i) => {
      const o = (e ?? {}) as { address?: unknown; storageKeys?: unknown };
      const keys = o.storageKeys ?? [];
      if (!Array.isArray(keys)) throw new TypeError(`${field}.accessList[${i}].storageKeys: expected an array`);
      return {
        address: bytesToHex(bytesArg(o.address, `${field}.accessList[${i}].address`, 20)),
        storageKeys: keys.map((k, j) => bytesToHex(bytesArg(k, `${field}.accessList[${i}].storageKeys[${j}]`, 32))),
      };
    });
  }
  let blobs: string[] | undefined;
  if (has('blobVersionedHashes')) {
    if (!Array.isArray(t['blobVersionedHashes'])) throw new TypeError(`${field}.blobVersionedHashes: expected an array`);
    blobs = (t['blobVersionedHashes'] as unknown[]).map((h, i) => bytesToHex(bytesArg(h, `${field}.blobVersionedHashes[${i}]`, 32)));
  }
  const blobFee = word('maxFeePerBlobGas');

  const present = [to, gas, fees[0], fees[1], fees[2], nonce, chainId, accessList, blobs, blobFee].reduce<number>((bits, v, i) => (v === undefined ? bits : bits | (1 << i)), 0);
  const parts: Uint8Array[] = [Uint8Array.of(1, present >> 8, present & 0xff), hexToBytes(from, 'from')];
  const u32 = (n: number) => bigIntToBytes(BigInt(n), 4);
  if (to !== undefined) parts.push(hexToBytes(to, 'to'));
  if (gas !== undefined) parts.push(bigIntToBytes(gas, 8));
  for (const f of fees) if (f !== undefined) parts.push(bigIntToBytes(f, 32));
  parts.push(bigIntToBytes(value, 32));
  if (nonce !== undefined) parts.push(bigIntToBytes(nonce, 8));
  if (chainId !== undefined) parts.push(bigIntToBytes(chainId, 8));
  parts.push(u32(calldata.length), calldata);
  if (accessList !== undefined) {
    parts.push(u32(accessList.length));
    for (const e of accessList) {
      parts.push(hexToBytes(e.address, 'address'), u32(e.storageKeys.length));
      for (const k of e.storageKeys) parts.push(hexToBytes(k, 'storageKey'));
    }
  }
  if (blobs !== undefined) {
    parts.push(u32(blobs.length));
    for (const h of blobs) parts.push(hexToBytes(h, 'blobVersionedHash'));
  }
  if (blobFee !== undefined) parts.push(bigIntToBytes(blobFee, 32));
  const wire = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (wire.set(p, at), at + p.length), 0);

  const json: Record<string, unknown> = { from, data: bytesToHex(calldata), value: q(value) };
  if (to !== undefined) json['to'] = to;
  if (gas !== undefined) json['gas'] = q(gas);
  (['gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas'] as const).forEach((k, i) => {
    const f = fees[i];
    if (f !== undefined) json[k] = q(f);
  });
  if (nonce !== undefined) json['nonce'] = q(nonce);
  if (chainId !== undefined) json['chainId'] = q(chainId);
  if (accessList !== undefined) json['accessList'] = accessList;
  if (blobs !== undefined) json['blobVersionedHashes'] = blobs;
  if (blobFee !== undefined) json['maxFeePerBlobGas'] = q(blobFee);
  return { from, to, wire, json };
}

/** What a verified call needs of its client. */
export interface CallContext {
  net: Transport;
  chain: HeaderChain;
  /** The chain id (`CHAINID`): the trust anchor's. */
  chainId: bigint | undefined;
  /** The chain's fork schedule (`chainConfigArg`), or `undefined` for a built-in one. */
  schedule: bigint[] | undefined;
  limits: CallLimits;
  progress?: ((p: CallProgress) => void) | undefined;
}

/** A missing piece as the module reports it. */
interface Missing {
  kind: 'account' | 'slot' | 'code' | 'blockHash';
  address?: Uint8Array;
  slot?: Uint8Array;
  number?: bigint;
}

/** The module's answer of a method, once it completed. */
export type CallAnswer = Record<string, unknown>;

/** geth's `maxGetProofKeys`: storage keys one `eth_getProof` may ask for. */
const PROOF_KEYS = 1_024;
/** Calls in one JSON-RPC batch (geth's `BatchRequestLimit` is 1000). */
const BATCH_CALLS = 500;

/**
 * Runs `method` of `req` at `block` against one node: the hint, the prefetch, then one round per
 * piece the EVM stops at, until it completes on proven state alone.
 */
export async function verifiedCall(ctx: CallContext, e: Endpoint, method: CallMethod, req: ParsedRequest, block: BlockTag): Promise<{ answer: CallAnswer; header: VerifiedHeader; stats: CallStats }> {
  if (ctx.chainId === undefined) {
    throw new RangeError('trust.chainId: verified calls need the chain id (CHAINID), which no header commits to: give it in trust');
  }
  const chainId = ctx.chainId;
  await loadFamily('evm');
  const wasm = wasmOf('evm');
  const { limits } = ctx;
  const header = await ctx.chain.headerAt(e, block);
  const stats: CallStats = { rounds: 0, bytes: 0, computeMs: 0, runs: 0, accounts: 0, slots: 0, codes: 0, codeBytes: 0, headers: 0, hinted: false, proven: [] };
  const proven = new Map<string, Set<string>>();
  const timed = <T>(f: () => T): T => {
    const t0 = performance.now();
    try {
      return wasmCall(f);
    } finally {
      stats.computeMs += performance.now() - t0;
    }
  };
  const schedule = ctx.schedule === undefined ? undefined : BigUint64Array.from(ctx.schedule);
  const state = timed(() => new wasm.EvmState(headerRlp(header), hexToBytes(header.hash, 'hash'), chainId, schedule));
  const at = { blockHash: header.hash };
  const size = () => state.size() as { accounts: number; slots: number; codes: number; codeBytes: number; headers: number };
  let fetched = 0;
  const report = () => {
    const s = size();
    Object.assign(stats, s);
    fetched += 1;
    ctx.progress?.({ direction: 'call', method, verified: BigInt(fetched), total: BigInt(limits.maxRounds + 1), round: stats.rounds, accounts: s.accounts, slots: s.slots, bytes: stats.bytes });
  };

  /** Fetches and proves the accounts (with their slots) and codes, in batches sent together. */
  const fetch = async (accounts: ReadonlyMap<string, readonly string[]>, codes: readonly string[]) => {
    const s = size();
    const slots = [...accounts.values()].reduce((n, k) => n + k.length, 0);
    if (s.accounts + accounts.size > limits.maxAccounts) {
      throw new CallLimitError('maxAccounts', `the call would prove more than ${limits.maxAccounts} accounts (callLimits.maxAccounts)`);
    }
    if (s.slots + slots > limits.maxSlots) {
      throw new CallLimitError('maxSlots', `the call would prove more than ${limits.maxSlots} storage slots (callLimits.maxSlots)`);
    }
    const calls: { method: string; params: unknown[] }[] = [];
    const plan: ({ address: string; slots: string[] } | { address: string; code: true })[] = [];
    for (const [address, keys] of accounts) {
      for (let i = 0; i === 0 || i < keys.length; i += PROOF_KEYS) {
        const chunk = keys.slice(i, i + PROOF_KEYS);
        calls.push({ method: 'eth_getProof', params: [address, chunk, at] });
        plan.push({ address, slots: chunk });
      }
    }
    for (const address of codes) {
      calls.push({ method: 'eth_getCode', params: [address, at] });
      plan.push({ address, code: true });
    }
    const batches: (typeof calls)[] = [];
    for (let i = 0; i < calls.length; i += BATCH_CALLS) batches.push(calls.slice(i, i + BATCH_CALLS));
    const answers = await Promise.all(batches.map((b) => ctx.net.batchCalls(e, b)));
    stats.rounds += 1;
    const results = answers.flatMap((a) => {
      stats.bytes += a.bytes;
      return a.results;
    });
    // Proofs first: a code is checked against its account's proven code hash.
    const order = plan.map((p, i) => [p, results[i]] as const).sort(([a], [b]) => Number('code' in a) - Number('code' in b));
    for (const [p, r] of order) {
      if (r instanceof RpcError) throw r;
      if ('code' in p) {
        const code = hexToBytes(r, `code[${p.address}]`);
        timed(() => state.addCode(hexToBytes(p.address, 'address'), code));
      } else {
        const proof = encodeAccountProof(parseAccountProof(r));
        const keys = new Uint8Array(32 * p.slots.length);
        p.slots.forEach((k, i) => keys.set(hexToBytes(k, 'slot'), 32 * i));
        timed(() => state.addProof(hexToBytes(p.address, 'address'), keys, proof));
        const slots = proven.get(p.address) ?? new Set<string>();
        for (const k of p.slots) slots.add(k);
        proven.set(p.address, slots);
      }
    }
    stats.proven = [...proven].map(([address, slots]) => ({ address, slots: [...slots] }));
    report();
  };

  try {
    // The hint: the node's access list for the call at the pinned block. Nothing in it is
    // trusted; a node that cannot or will not give one only costs rounds.
    const hinted = new Map<string, string[]>();
    let hintSlots = 0;
    const take = (address: string, keys: readonly string[]) => {
      let list = hinted.get(address);
      if (list === undefined) {
        if (hinted.size >= limits.hintAccounts) return;
        hinted.set(address, (list = []));
      }
      for (const k of keys) {
        if (hintSlots >= limits.hintSlots) return;
        if (!list.includes(k)) {
          list.push(k);
          hintSlots++;
        }
      }
    };
    const hint = await ctx.net.batchCalls(e, [{ method: 'eth_createAccessList', params: [req.json, at] }]);
    stats.rounds += 1;
    stats.bytes += hint.bytes;
    // The accounts every call touches, which geth's list leaves out: first, so no cap drops them.
    for (const a of [req.from, req.to, header.miner]) if (a !== undefined) take(a.toLowerCase(), []);
    const list = (hint.results[0] as { accessList?: unknown } | undefined)?.accessList;
    if (!(hint.results[0] instanceof RpcError) && Array.isArray(list)) {
      stats.hinted = true;
      for (const entry of list) {
        const address = hexOf((entry as { address?: unknown })?.address, 20);
        const keys = (entry as { storageKeys?: unknown })?.storageKeys;
        if (address === undefined) continue;
        take(address, Array.isArray(keys) ? keys.map((k) => hexOf(k, 32)).filter((k): k is string => k !== undefined) : []);
      }
    }
    await fetch(hinted, [...hinted.keys()]);

    for (let round = 0; ; round++) {
      stats.runs += 1;
      const out = timed(() => state[method](req.wire, limits.gasCap)) as CallAnswer & { missing?: Missing };
      const m = out.missing;
      if (m === undefined) {
        Object.assign(stats, size());
        return { answer: out, header, stats };
      }
      if (round >= limits.maxRounds) {
        throw new CallLimitError('maxRounds', `the call still touched unproven state after ${limits.maxRounds} rounds (callLimits.maxRounds)`);
      }
      const address = m.address === undefined ? '' : bytesToHex(m.address);
      switch (m.kind) {
        case 'account':
          await fetch(new Map([[address, []]]), [address]);
          break;
        case 'slot':
          await fetch(new Map([[address, [bytesToHex(m.slot as Uint8Array)]]]), []);
          break;
        case 'code':
          await fetch(new Map(), [address]);
          break;
        case 'blockHash': {
          // Headers from the oldest linked block down to the one after `number`: each one's
          // parentHash is the hash of the block before it.
          const want = BigInt(m.number as bigint);
          stats.rounds += 1;
          for (let n = BigInt(state.oldestKnown()); n > want; n--) {
            const h = await ctx.chain.headerAt(e, n, 'network');
            timed(() => state.addHeader(headerRlp(h)));
          }
          report();
          break;
        }
        default:
          throw new NodeFaultError(method, e.url, 'the EVM module asked for an unknown kind of state');
      }
    }
  } finally {
    state.free();
  }
}

/** A hint's hex value of `n` bytes, or `undefined` (a hint that does not parse is ignored). */
function hexOf(v: unknown, n: number): string | undefined {
  return typeof v === 'string' && v.length === 2 + 2 * n && /^0x[0-9a-fA-F]*$/.test(v) ? v.toLowerCase() : undefined;
}

const REVERT_SELECTOR = '0x08c379a0';
const PANIC_SELECTOR = '0x4e487b71';
/** Solidity's panic codes, worded as geth words them (accounts/abi). */
const PANIC_REASONS: Readonly<Record<number, string>> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
};

/** The reason geth reads from revert data (`Error(string)` or `Panic(uint256)`), if any. */
export function revertReason(data: Uint8Array): string | undefined {
  const selector = bytesToHex(data.subarray(0, 4));
  const body = data.subarray(4);
  const word = (at: number) => (at + 32 <= body.length ? hexToBigInt(bytesToHex(body.subarray(at, at + 32)), 'revert') : undefined);
  if (selector === REVERT_SELECTOR) {
    const offset = word(0);
    if (offset === undefined || offset > BigInt(body.length)) return undefined;
    const len = word(Number(offset));
    if (len === undefined || Number(offset) + 32 + Number(len) > body.length) return undefined;
    const start = Number(offset) + 32;
    return new TextDecoder().decode(body.subarray(start, start + Number(len)));
  }
  if (selector === PANIC_SELECTOR) {
    const code = word(0);
    if (code === undefined) return undefined;
    return PANIC_REASONS[Number(code)] ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}

/** geth's error for a revert: code 3, "execution reverted" with the reason it decodes, the data. */
export function revertError(data: Uint8Array): ExecutionError {
  const reason = revertReason(data);
  return new ExecutionError(3, reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`, bytesToHex(data));
}

/** The result of `eth_call` from the module's answer, or the call's failure as geth words it. */
export function callOutput(a: CallAnswer): { output: string; gasUsed: bigint } {
  if (typeof a['invalid'] === 'string') throw new ExecutionError(-32000, a['invalid']);
  const output = a['output'] as Uint8Array;
  if (a['status'] === 'revert') throw revertError(output);
  if (a['status'] === 'halt') throw new ExecutionError(-32000, String(a['message']));
  return { output: bytesToHex(output), gasUsed: BigInt(a['gasUsed'] as bigint) };
}

/** The gas `eth_estimateGas` answers, or its failure as geth words it. */
export function estimateOutput(a: CallAnswer): bigint {
  if (a['reverted'] instanceof Uint8Array) throw revertError(a['reverted']);
  if (typeof a['failed'] === 'string') throw new ExecutionError(-32000, a['failed']);
  return BigInt(a['gas'] as bigint);
}

/** `eth_createAccessList`'s answer. */
export interface AccessListResult {
  accessList: { address: string; storageKeys: string[] }[];
  gasUsed: bigint;
  /** The call's failure with the list (geth's words: "execution reverted", "out of gas"), if it failed. */
  error?: string;
}

/** The access list from the module's answer, or the call's refusal as geth words it. */
export function accessListOutput(a: CallAnswer): AccessListResult {
  if (typeof a['invalid'] === 'string') throw new ExecutionError(-32000, a['invalid']);
  const entries = a['accessList'] as { address: Uint8Array; storageKeys: Uint8Array[] }[];
  return {
    accessList: entries.map((x) => ({ address: bytesToHex(x.address), storageKeys: x.storageKeys.map(bytesToHex) })),
    gasUsed: BigInt(a['gasUsed'] as bigint),
    ...(typeof a['error'] === 'string' ? { error: a['error'] } : {}),
  };
}
