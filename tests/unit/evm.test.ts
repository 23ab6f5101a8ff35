/**
 * The SDK's side of verified calls that needs no node: the call's checks and encoding, the chain
 * configuration and limits a client takes, and geth's reading of revert data.
 */
import { DEFAULT_CALL_LIMITS, revertReason } from '@lightprov/sdk';
import { AbiCoder, id } from 'ethers';
import { describe, expect, it } from 'vitest';

import { callLimitsArg, callRequestArg, chainConfigArg } from '../../sdk/dist/evm.js';
import { thrown } from '../lib/util.js';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));
const selector = (sig: string) => id(sig).slice(0, 10);
const abi = AbiCoder.defaultAbiCoder();

describe('revert data, as geth reads it', () => {
  it("names Error(string)'s reason and Panic(uint256)'s code as geth words them", () => {
    expect(revertReason(bytes(selector('Error(string)') + abi.encode(['string'], ['x is zero']).slice(2)))).toBe('x is zero');
    expect(revertReason(bytes(selector('Panic(uint256)') + abi.encode(['uint256'], [0x11]).slice(2)))).toBe('arithmetic underflow or overflow');
    expect(revertReason(bytes(selector('Panic(uint256)') + abi.encode(['uint256'], [0x99]).slice(2)))).toBe('unknown panic code: 0x99');
  });

  it('reads nothing from a custom error, a truncated reason or a string past the data', () => {
    expect(revertReason(bytes(selector('Refused(address,uint256)') + abi.encode(['address', 'uint256'], ['0x' + '11'.repeat(20), 5]).slice(2)))).toBeUndefined();
    const reason = selector('Error(string)') + abi.encode(['string'], ['x is zero']).slice(2);
    expect(revertReason(bytes(reason.slice(0, reason.length - 64)))).toBeUndefined();
    expect(revertReason(bytes(selector('Error(string)') + abi.encode(['uint256', 'uint256'], [32, 1000]).slice(2)))).toBeUndefined();
    expect(revertReason(new Uint8Array(0))).toBeUndefined();
  });
});

describe('chainConfig: a fork schedule in geth genesis config keys', () => {
  const never = 0xffff_ffff_ffff_ffffn;

  it("takes geth's config as it is: forks by time, blob fractions by fork, ascending", () => {
    const config = { chainId: 1337, londonBlock: 0, shanghaiTime: 0, cancunTime: 0, pragueTime: 10, osakaTime: 20, bpo1Time: 30, blobSchedule: { prague: { baseFeeUpdateFraction: 5007716 }, cancun: { baseFeeUpdateFraction: 3338477 }, bpo1: { baseFeeUpdateFraction: 8346193 } } };
    expect(chainConfigArg(config)).toEqual([0n, 0n, 0n, 10n, 20n, never, 0n, 0n, 3338477n, 10n, 5007716n, 30n, 8346193n]);
  });

  it('refuses blocks from the first fork after Osaka on (Amsterdam, or geth --dev’s Bogota)', () => {
    expect(chainConfigArg({ osakaTime: 0, amsterdamTime: 500, bogotaTime: 90 })?.[5]).toBe(90n);
    expect(chainConfigArg({ londonBlock: '0x10' })).toEqual([16n, never, never, never, never, never, 0n]);
  });

  it("marks a Clique chain: geth's clique object, or an anchor with signers", () => {
    expect(chainConfigArg({ londonBlock: 0, clique: { period: 1, epoch: 30000 } })?.[6]).toBe(1n);
    expect(chainConfigArg({ londonBlock: 0 }, 'chainConfig', true)?.[6]).toBe(1n);
    expect(chainConfigArg({ londonBlock: 0 })?.[6]).toBe(0n);
    expect(() => chainConfigArg({ londonBlock: 0, clique: 5 })).toThrow(/chainConfig.clique: expected/);
  });

  it('names the field of a bad value', () => {
    expect(() => chainConfigArg({ cancunTime: -1 })).toThrow(/chainConfig.cancunTime: must not be negative/);
    expect(() => chainConfigArg({ cancunTime: 0, blobSchedule: { cancun: { baseFeeUpdateFraction: 0 } } })).toThrow(RangeError);
    expect(() => chainConfigArg('mainnet')).toThrow(TypeError);
  });
});

describe('callLimits', () => {
  it('fills in the documented defaults and refuses unknown or negative limits', () => {
    expect(callLimitsArg(undefined)).toEqual(DEFAULT_CALL_LIMITS);
    expect(DEFAULT_CALL_LIMITS).toEqual({ gasCap: 50_000_000n, maxRounds: 64, maxAccounts: 1_000, maxSlots: 10_000, hintAccounts: 256, hintSlots: 2_048 });
    expect(callLimitsArg({ maxSlots: 5 }).maxSlots).toBe(5);
    expect(() => callLimitsArg({ maxSlot: 5 })).toThrow(/callLimits.maxSlot: unknown limit/);
    expect(() => callLimitsArg({ maxRounds: -1 })).toThrow(RangeError);
    expect(() => callLimitsArg({ gasCap: 20_000 })).toThrow(/at least 21000/);
  });
});

describe('a call request', () => {
  const to = '0x' + '22'.repeat(20);

  it('is encoded in the wire format the EVM module decodes', () => {
    const r = callRequestArg({ to, data: '0xabcd', gas: 30_000, value: '0x5' });
    // version 1, fields present: to and gas; from the zero address.
    expect(Array.from(r.wire.subarray(0, 3))).toEqual([1, 0, 0b11]);
    expect(r.from).toBe('0x' + '00'.repeat(20));
    expect(r.json).toEqual({ from: r.from, to, data: '0xabcd', value: '0x5', gas: '0x7530' });
  });

  it('refuses what no proof covers: state and block overrides, EIP-7702 authorizations', () => {
    expect(thrown(() => callRequestArg({ to, stateOverride: {} }))).toBeInstanceOf(RangeError);
    expect(thrown(() => callRequestArg({ to, blockOverrides: {} }))).toBeInstanceOf(RangeError);
    expect(String(thrown(() => callRequestArg({ to, authorizationList: [] })))).toMatch(/tx.authorizationList: EIP-7702 authorizations are not supported/);
  });

  it('names the field of a bad value', () => {
    expect(String(thrown(() => callRequestArg({ to: '0x1234' })))).toMatch(/tx.to: expected 20 bytes/);
    expect(String(thrown(() => callRequestArg({ to, data: '0x01', input: '0x02' })))).toMatch(/both data and input are given, and they differ/);
    expect(String(thrown(() => callRequestArg({ to, gas: 2n ** 64n })))).toMatch(/tx.gas: exceeds 64 bits/);
  });
});
