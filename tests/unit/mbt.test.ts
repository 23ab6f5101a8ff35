/**
 * The SDK's mbt verify functions beyond the shared vectors: each argument is checked and an
 * error names it; the roots of a history must cover its range; a claimed value is checked.
 */
import { init } from '@lightprov/sdk';
import { verifyMbtDiff, verifyMbtHistory, verifyMbtValue } from '@lightprov/sdk/mbt';
import { beforeAll, describe, expect, it } from 'vitest';

import { verificationError as rejected } from '../lib/util.js';
import { loadVectors } from './load.js';

beforeAll(() => init());

const valid = Object.fromEntries(loadVectors('mbt', 'valid').map(([name, v]) => [name.replace(/\.json$/, ''), v.inputs as Record<string, unknown>]));
const params = (i: Record<string, unknown>) => ({ bucketBits: i['bucketBits'] as number, fanout: i['fanout'] as number });

describe('verifyMbtValue', () => {
  const i = valid['value-present']!;
  const args = { proof: i['proof'] as string, stateKey: i['stateKey'] as string, mbtRoot: i['root'] as string, params: params(i) };

  it('proves the value, and checks a claimed one', () => {
    const v = verifyMbtValue(args);
    expect(v.present).toBe(true);
    expect(verifyMbtValue({ ...args, claimed: v.value })).toEqual(v);
    const e = rejected(() => verifyMbtValue({ ...args, claimed: v.value + 1n }));
    expect([e.code, e.field]).toEqual(['VALUE_MISMATCH', 'value']);
    expect(rejected(() => verifyMbtValue({ ...args, claimed: 0n })).code).toBe('VALUE_MISMATCH');
  });

  it('names the argument at fault', () => {
    expect(() => verifyMbtValue({ ...args, params: undefined as never })).toThrow(/^params: /);
    expect(() => verifyMbtValue({ ...args, params: { bucketBits: 5.5, fanout: 3 } })).toThrow(/^params\.bucketBits: /);
    expect(() => verifyMbtValue({ ...args, params: { bucketBits: 5, fanout: 300 } })).toThrow(/^params\.fanout: /);
    expect(() => verifyMbtValue({ ...args, mbtRoot: '0x12' })).toThrow(/mbtRoot/);
    expect(() => verifyMbtValue({ ...args, stateKey: new Uint8Array(31) })).toThrow(/stateKey/);
    expect(() => verifyMbtValue({ ...args, claimed: -1n })).toThrow(/^claimed: /);
    // Parameters out of the verifier's bounds: named by the core.
    const e = rejected(() => verifyMbtValue({ ...args, params: { bucketBits: 25, fanout: 3 } }));
    expect([e.code, e.field]).toEqual(['BAD_ENCODING', 'bucketBits']);
    // Other parameters than the proof's.
    expect(rejected(() => verifyMbtValue({ ...args, params: { bucketBits: 6, fanout: 3 } })).code).toBe('PARAMS_MISMATCH');
  });
});

describe('verifyMbtHistory', () => {
  const i = valid['history-present-6-16']!;
  const args = {
    proof: i['proof'] as string,
    stateKey: i['stateKey'] as string,
    fromBlock: BigInt(i['fromBlock'] as string),
    toBlock: BigInt(i['toBlock'] as string),
    roots: i['roots'] as string[],
    params: params(i),
  };

  it('gives one value per block of the range', () => {
    expect(verifyMbtHistory(args)).toHaveLength(Number(args.toBlock - args.fromBlock) + 1);
  });

  it('needs the root of every block of the range, each named when malformed', () => {
    expect(rejected(() => verifyMbtHistory({ ...args, roots: args.roots.slice(1) })).code).toBe('RANGE_MISMATCH');
    expect(() => verifyMbtHistory({ ...args, roots: [args.roots[0]!, '0x00'] })).toThrow(/roots\[1\]/);
    expect(() => verifyMbtHistory({ ...args, roots: 'x' as never })).toThrow(/^roots: /);
    expect(() => verifyMbtHistory({ ...args, fromBlock: -1 })).toThrow(/fromBlock/);
  });
});

describe('verifyMbtDiff', () => {
  const i = valid['diff-9-14']!;
  const args = { proof: i['proof'] as string, oldRoot: i['oldRoot'] as string, newRoot: i['newRoot'] as string, params: params(i) };

  it('gives every change, and fails against swapped roots', () => {
    const changes = verifyMbtDiff(args);
    expect(changes.length).toBeGreaterThan(0);
    for (const c of changes) expect(c.old).not.toBe(c.new);
    const e = rejected(() => verifyMbtDiff({ ...args, oldRoot: args.newRoot, newRoot: args.oldRoot }));
    expect([e.code, e.field]).toEqual(['ROOT_MISMATCH', 'oldRoot']);
    expect(() => verifyMbtDiff({ ...args, newRoot: new Uint8Array(3) })).toThrow(/newRoot/);
  });
});
