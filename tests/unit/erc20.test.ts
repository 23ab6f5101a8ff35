/**
 * Token balances as state keys, without a node: a mapping entry's slot is Solidity's
 * keccak256(pad32(key) ‖ pad32(index)) — checked against a real mainnet storage proof of WETH9's
 * `balanceOf` mapping (slot index 3) and against ethers' ABI encoding — and the probe's choice
 * of a slot from a verified balance and the proven candidates.
 */
import fs from 'node:fs';
import path from 'node:path';

import { SlotProbeError, init, slotFromProbe, stateKeys, verifyAccountProof } from '@lightprov/sdk';
import { AbiCoder, Wallet, keccak256 } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';

import { thrown } from '../lib/util.js';
import { VECTORS } from './load.js';

beforeAll(() => init());

const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
/** The holder whose WETH balance nimbus-eth1's verified-proxy test reads with `balanceOf`; the vector proves its entry. */
const WETH_HOLDER = '0xDe5ae63A348C4d63343C8E20Fb6286909418c8A4';
const wethProof = JSON.parse(fs.readFileSync(path.join(VECTORS, 'mpt', 'sources', 'mainnet-23223655-weth-storage.json'), 'utf8')) as {
  stateRoot: string;
  storageProof: { key: string; value: string }[];
};
const abi = AbiCoder.defaultAbiCoder();

describe('stateKeys.mapping', () => {
  it("gives WETH9's balanceOf slot of a holder as a real mainnet storage proof names it", () => {
    const key = stateKeys.mapping(WETH, 3, WETH_HOLDER);
    expect(key.slot).toBe(wethProof.storageProof[0]?.key);
    expect(key.address).toBe(WETH);
    expect(key.kind).toBe('storage');
    // The storage key is the storage slot's, and the proof proves the holder's balance there.
    expect(key.stateKey).toBe(stateKeys.storage(WETH, key.slot!).stateKey);
    const account = verifyAccountProof(wethProof, wethProof.stateRoot);
    expect(account.storage.find((s) => s.key === key.slot)?.value).toBe(0x288a82d13c3d1600n);
    // Another index is another slot.
    expect(stateKeys.mapping(WETH, 0, WETH_HOLDER).slot).not.toBe(key.slot);
  });

  it("is keccak256 of the ABI encoding (address, uint256), as Solidity lays a mapping out", () => {
    // keccak256 of 64 zero bytes: the zero address's entry of a mapping at slot 0.
    expect(stateKeys.mapping(WETH, 0, '0x' + '00'.repeat(20)).slot).toBe('0xad3228b676f7d3cd4284a5443f17f1962b36e491b30a40b2405849e597ba5fb5');
    for (const [i, index] of [0n, 1n, 9n, 51n, 2n ** 255n].entries()) {
      const owner = Wallet.createRandom().address;
      expect(stateKeys.mapping(WETH, index, owner).slot, `#${i}`).toBe(keccak256(abi.encode(['address', 'uint256'], [owner, index])));
      // A 32-byte key (a bytes32 or uint256 mapping) is taken as it is.
      const word = keccak256(owner);
      expect(stateKeys.mapping(WETH, index, word).slot).toBe(keccak256(abi.encode(['bytes32', 'uint256'], [word, index])));
    }
  });

  it('names the argument at fault', () => {
    const e1 = thrown(() => stateKeys.mapping(WETH, 3, '0x1234'));
    expect(e1).toBeInstanceOf(RangeError);
    expect(String(e1)).toMatch(/^RangeError: key: expected 32 bytes/);
    expect(String(thrown(() => stateKeys.mapping(WETH, -1, WETH_HOLDER)))).toMatch(/^RangeError: index: out of range/);
    expect(String(thrown(() => stateKeys.mapping('0x12', 3, WETH_HOLDER)))).toMatch(/^RangeError: address: expected 20 bytes/);
    expect(String(thrown(() => stateKeys.mapping(WETH, 3, 7 as unknown as string)))).toMatch(/^TypeError: key:/);
  });
});

describe('slotFromProbe', () => {
  it('takes the one candidate that holds the verified balance', () => {
    expect(slotFromProbe(5n, [0n, 7n, 0n, 5n, 1n], 9n)).toBe(3n);
    expect(slotFromProbe(5n, [5n], 9n)).toBe(0n);
  });

  it('refuses a zero balance, no match and several matches, naming options.slot', () => {
    const refusal = (balance: bigint, values: bigint[]) => thrown(() => slotFromProbe(balance, values, 42n)) as SlotProbeError;
    const zero = refusal(0n, [0n, 0n, 3n]);
    expect(zero).toBeInstanceOf(SlotProbeError);
    expect(zero.reason).toBe('zero-balance');
    expect(zero.field).toBe('options.slot');
    expect(zero.block).toBe(42n);
    expect(zero.message).toMatch(/^options\.slot: balanceOf\(owner\) is 0 at block 42/);
    const none = refusal(5n, [0n, 4n, 6n]);
    expect([none.reason, none.field, none.balance]).toEqual(['no-match', 'options.slot', 5n]);
    expect(none.message).toMatch(/slots 0\.\.2/);
    const two = refusal(5n, [5n, 0n, 5n]);
    expect([two.reason, two.field, two.matches]).toEqual(['ambiguous', 'options.slot', [0n, 2n]]);
  });
});
