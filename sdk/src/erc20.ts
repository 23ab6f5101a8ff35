/**
 * A token balance as a state key: `client.keys.erc20Balance(token, owner, { slot })` is the entry
 * for `owner` of the token's balances mapping — storage slot keccak256(pad32(owner) ‖
 * pad32(slot)) of `token` under Solidity's layout (`stateKeys.mapping`) — so that
 * `getHistory` draws a token balance by any family, as it draws any storage slot.
 *
 * The slot index is the caller's, or found by a verified probe: `balanceOf(owner)` run by a
 * verified call at one block, and the candidate slots 0..probeSlots-1 read by one verified
 * storage proof at the same block; the one slot whose proven value equals the call's result is
 * taken. The probe proves that, at that block, the slot held what `balanceOf` returned, and that
 * no other candidate did. It does not prove that `balanceOf` reads that slot, nor that the token
 * keeps its balances there at other blocks (an upgradeable proxy can move them; a rebasing token
 * computes balances from other state): the history drawn is always the verified history of that
 * storage slot, and its meaning as a balance rests on the token's layout.
 */
import { type BlockTag, blockTagArg, objectArg } from './args.js';
import type { CallRequest, CallOptions, CallStats } from './evm.js';
import type { VerifiedAccount } from './families/mpt.js';
import type { VerifiedHeader } from './header.js';
import { bytesArg, bytesToHex, hexToBytes, slotToHex } from './hex.js';
import { type StateKey, stateKeys } from './history.js';

/** `balanceOf(address)`'s selector. */
const BALANCE_OF = '0x70a08231';
/** Candidate slot indexes the probe reads by default: 0..31. */
export const DEFAULT_PROBE_SLOTS = 32;
/** The most candidates one probe reads (geth's `maxGetProofKeys`: one `eth_getProof`). */
const MAX_PROBE_SLOTS = 1_024;

/** What {@link LightClient.keys}' `erc20Balance` takes. */
export interface Erc20BalanceOptions {
  /**
   * The slot index of the token's balances mapping (OpenZeppelin's ERC-20: 0). Given, it is
   * taken as it is: no call is made and nothing is checked (the history drawn is that slot's,
   * whatever it holds). Omitted, a verified probe finds it.
   */
  slot?: bigint | number;
  /** The block the probe runs at (default: the verified head). */
  block?: BlockTag;
  /** How many candidate slot indexes the probe reads: 0..probeSlots-1 (default 32, at most 1,024). */
  probeSlots?: number;
}

/** What the probe saw, all of it verified against one header. */
export interface Erc20Probe {
  /** The verified header the call ran and the candidates were proven against. */
  header: VerifiedHeader;
  /** `balanceOf(owner)` at that block, by a verified call. */
  balance: bigint;
  /** Candidate slot indexes read (0..candidates-1). */
  candidates: number;
  /** What the verified `balanceOf` call cost (round trips, accounts and slots proven, …). */
  call: CallStats;
}

/** A token balance's state key: a storage key of `token`, with what it was derived from. */
export interface Erc20BalanceKey extends StateKey {
  kind: 'storage';
  slot: string;
  /** The token (lowercase hex; also `address`). */
  token: string;
  /** The holder (lowercase hex). */
  owner: string;
  /** The slot index of the balances mapping. */
  slotIndex: bigint;
  /** The probe that found `slotIndex`; `undefined` when the caller gave it. */
  probe: Erc20Probe | undefined;
}

/** The keys a client builds: `stateKeys`' and `erc20Balance`. */
export type ClientKeys = typeof stateKeys & {
  /**
   * The history key of `owner`'s balance of `token`: with `{ slot }`, derived at once; without,
   * the slot index found by a verified probe ({@link Erc20BalanceOptions}). Throws
   * {@link SlotProbeError} when the probe cannot tell the slot.
   */
  erc20Balance(token: string, owner: string, options?: Erc20BalanceOptions): Promise<Erc20BalanceKey>;
};

/** Why a probe found no slot. */
export type SlotProbeReason = 'not-a-uint256' | 'zero-balance' | 'no-match' | 'ambiguous';

/**
 * The probe could not tell the token's balances slot: `balanceOf` did not return one word
 * (`not-a-uint256`, `field` `token`); it returned 0, which every unwritten slot holds
 * (`zero-balance`); no candidate held its result (`no-match`); or several did (`ambiguous`).
 * Nothing is wrong with the node: the answers verified. Give `options.slot` (`field`), probe with
 * a holder of the token and reuse its `slotIndex`, or read more candidates (`probeSlots`).
 */
export class SlotProbeError extends Error {
  override readonly name = 'SlotProbeError';
  readonly reason: SlotProbeReason;
  /** The argument to give instead: `options.slot`, or `token` when it is not an ERC-20. */
  readonly field: 'options.slot' | 'token';
  /** The verified `balanceOf` result, when it was one word. */
  readonly balance: bigint | undefined;
  /** The block the probe ran at. */
  readonly block: bigint;
  /** The candidate slot indexes that held the balance. */
  readonly matches: readonly bigint[];
  /** What the verified `balanceOf` call cost and proved. */
  readonly call: CallStats | undefined;

  constructor(reason: SlotProbeReason, message: string, o: { balance?: bigint; block: bigint; matches?: readonly bigint[]; call?: CallStats | undefined }) {
    super(message);
    this.reason = reason;
    this.field = reason === 'not-a-uint256' ? 'token' : 'options.slot';
    this.balance = o.balance;
    this.block = o.block;
    this.matches = o.matches ?? [];
    this.call = o.call;
  }
}

/** What the probe asks of a client (its verified reads). */
export interface ProbeReads {
  callDetailed(tx: CallRequest, options: CallOptions): Promise<{ output: string; header: VerifiedHeader; stats: CallStats }>;
  getAccount(address: string, slots: readonly (string | bigint | number)[], block: BlockTag): Promise<VerifiedAccount>;
}

/**
 * The slot index the probe takes: the one candidate (index `i` at `values[i]`) whose proven value
 * equals the verified `balance`, or a {@link SlotProbeError} naming why there is none (carrying
 * `call`, the stats of the call that gave `balance`).
 */
export function slotFromProbe(balance: bigint, values: readonly bigint[], block: bigint, call?: CallStats): bigint {
  const span = `slots 0..${values.length - 1}`;
  if (balance === 0n) {
    throw new SlotProbeError(
      'zero-balance',
      `options.slot: balanceOf(owner) is 0 at block ${block}, and every unwritten slot holds 0, so the probe cannot tell the balances mapping's slot: give options.slot, or probe with a holder of the token and reuse its slotIndex`,
      { balance, block, call },
    );
  }
  const matches = values.flatMap((v, i) => (v === balance ? [BigInt(i)] : []));
  if (matches.length === 0) {
    throw new SlotProbeError(
      'no-match',
      `options.slot: no candidate mapping entry (${span}) holds balanceOf(owner) = ${balance} at block ${block}: the token keeps balances elsewhere (another slot: give options.slot or more probeSlots; or no Solidity mapping at all)`,
      { balance, block, call },
    );
  }
  if (matches.length > 1) {
    throw new SlotProbeError('ambiguous', `options.slot: mapping entries at slots ${matches.join(', ')} all hold balanceOf(owner) = ${balance} at block ${block}: give options.slot`, {
      balance,
      block,
      matches,
      call,
    });
  }
  return matches[0] as bigint;
}

/** `client.keys.erc20Balance`: the key, with the slot index given or found by a verified probe. */
export async function erc20BalanceKey(reads: ProbeReads, token: string, owner: string, options: Erc20BalanceOptions = {}): Promise<Erc20BalanceKey> {
  const t = bytesToHex(bytesArg(token, 'token', 20));
  const o = bytesToHex(bytesArg(owner, 'owner', 20));
  const opts = objectArg<Erc20BalanceOptions>(options, 'options', '{ slot } or { block, probeSlots }');
  for (const k of Object.keys(opts)) {
    if (!['slot', 'block', 'probeSlots'].includes(k)) throw new TypeError(`options.${k}: unknown option (erc20Balance takes { slot } or { block, probeSlots })`);
  }
  const keyOf = (index: bigint, probe: Erc20Probe | undefined): Erc20BalanceKey => {
    const k = stateKeys.mapping(t, index, o);
    return { ...k, kind: 'storage', slot: k.slot as string, token: t, owner: o, slotIndex: index, probe };
  };
  if (opts.slot !== undefined) {
    for (const k of ['block', 'probeSlots'] as const) {
      if (opts[k] !== undefined) throw new TypeError(`options.${k}: only for the probe, which a given options.slot skips`);
    }
    return keyOf(BigInt(slotToHex(opts.slot, 'options.slot')), undefined);
  }
  const n = opts.probeSlots ?? DEFAULT_PROBE_SLOTS;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_PROBE_SLOTS) throw new RangeError(`options.probeSlots: expected an integer from 1 to ${MAX_PROBE_SLOTS}`);
  const block = opts.block === undefined ? 'latest' : blockTagArg(opts.block, 'options.block');

  // The call pins its block; the candidates are proven against that same header.
  const call = await reads.callDetailed({ to: t, data: BALANCE_OF + o.slice(2).padStart(64, '0') }, { block });
  const { header } = call;
  const output = hexToBytes(call.output, 'output');
  if (output.length !== 32) {
    throw new SlotProbeError('not-a-uint256', `token: balanceOf(owner) returned ${output.length} bytes at block ${header.number}, not one uint256: is ${t} an ERC-20?`, { block: header.number, call: call.stats });
  }
  const balance = BigInt(call.output);
  const candidates = Array.from({ length: n }, (_, i) => stateKeys.mapping(t, i, o).slot as string);
  const account = await reads.getAccount(t, candidates, { blockHash: header.hash });
  const proven = new Map(account.storage.map((s) => [s.key, s.value]));
  const values = candidates.map((c) => proven.get(c) ?? 0n);
  const index = slotFromProbe(balance, values, header.number, call.stats);
  return keyOf(index, { header, balance, candidates: n, call: call.stats });
}
