/**
 * The header chain under concurrent reads and reorganisations: every header it returns hashes to
 * a hash it verified (by a hash link from a head the beacon chain named), and a range read that a
 * reorganisation cuts fails with a retriable `ReorgError`, never with a header nobody checked. A
 * node of made-up headers (tests/lib/fake-chain.ts) answers; it forges a header whenever it is
 * asked for a block by something other than a hash it knows, which no client should ever do.
 */
import { ReorgError, init } from '@lightprov/sdk';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import type { BeaconHead } from '../../sdk/dist/beacon-head.js';
import { HeaderChain, anchorArg } from '../../sdk/dist/chain.js';
import type { VerifiedHeader } from '../../sdk/dist/header.js';
import { Transport } from '../../sdk/dist/transport.js';
import { FakeBeacon, FakeChain, type SeenCall } from '../lib/fake-chain.js';

beforeAll(async () => {
  await init();
});

/** More headers than the chain keeps whole (2,048), so that a long range fetches some again. */
const LENGTH = 2201;

async function setup(batchSize: number) {
  const fake = new FakeChain();
  const main = fake.build(undefined, LENGTH);
  fake.follow(main.at(-1)!);
  const beacon = new FakeBeacon(fake, main.at(-1)!, main[0]!);
  const net = new Transport([fake.url], 10_000, fake.fetch);
  const chain = await HeaderChain.open(net, anchorArg({ checkpoint: { number: 0, hash: main[0]! } }), batchSize, 1_000_000n);
  chain.trackBeacon(beacon as unknown as BeaconHead);
  const e = net.endpoints[0]!;
  await chain.headerAt(e, 'latest'); // adopts the head, walking back to the checkpoint
  return { fake, main, beacon, chain, e };
}

/** Every header is one the node built (never one it forged), and a range is a linked chain. */
function expectVerified(fake: FakeChain, headers: VerifiedHeader[], from?: bigint) {
  for (const h of headers) {
    const built = fake.byHash.get(h.hash);
    expect(built, `header ${h.number} (${h.hash}) is one the node made up`).toBeDefined();
    expect(BigInt(built!['number']!)).toBe(h.number);
    expect(built!['receiptsRoot']).toBe(h.receiptsRoot);
  }
  headers.forEach((h, i) => {
    if (from !== undefined) {
      expect(h.number).toBe(from + BigInt(i));
      if (i > 0) expect(h.parentHash, `block ${h.number} does not link to block ${h.number - 1n} of the same answer`).toBe(headers[i - 1]!.hash);
    }
  });
  expect(fake.forged.size, 'the client asked for a block without a hash it trusts').toBe(0);
}

/** The first by-hash batch of a range read waits until `during` has run. */
function during(fake: FakeChain, f: () => Promise<unknown>) {
  let done = false;
  fake.hold = async (calls: SeenCall[]) => {
    if (!done && calls.length > 1 && calls[0]!.method === 'eth_getBlockByHash') {
      done = true;
      await f();
    }
  };
}

describe('header cache: range reads and reorganisations', () => {
  it('a beacon reorg to a shorter branch while a range is read fails with ReorgError, and no header goes unchecked', async () => {
    const { fake, main, beacon, chain, e } = await setup(16);
    // A branch from block 95 to 120: the numbers above 120 leave the verified chain.
    const short = fake.build(main[95], 25);
    during(fake, async () => {
      beacon.moveTo(short.at(-1)!);
      await chain.headerAt(e, 'latest'); // a concurrent read adopts the new head
    });
    const err = await chain.headersIn(e, 100n, 2200n).then(
      (headers) => {
        expectVerified(fake, headers, 100n);
        return undefined;
      },
      (x: unknown) => x,
    );
    expect(err).toBeInstanceOf(ReorgError);
    expect(fake.forged.size).toBe(0);
    expect(fake.calls.filter((c) => c.method === 'eth_getBlockByHash' && !fake.byHash.has(c.params[0] as string))).toEqual([]);
  });

  it('a range larger than the cache read across a move to a longer branch is one branch, linked, never a mix', async () => {
    const { fake, main, beacon, chain, e } = await setup(16);
    const long = fake.build(main[95], 2200); // 96..2295
    during(fake, async () => {
      beacon.moveTo(long.at(-1)!);
      await chain.headerAt(e, 'latest');
    });
    const headers = await chain.headersIn(e, 100n, 2200n);
    expectVerified(fake, headers, 100n);
    expect(headers.every((h) => h.hash === fake.hashAt(Number(h.number)))).toBe(true);
  });
});

describe("block tags a chain's consensus does not give", () => {
  it("'finalized' and 'safe' on a Clique chain are refused, not answered with the head; a checkpoint alone is its own final block", async () => {
    const fake = new FakeChain();
    const blocks = fake.build(undefined, 8);
    fake.follow(blocks.at(-1)!);
    const open = async (signers: string[]) => {
      const net = new Transport([fake.url], 10_000, fake.fetch);
      const chain = await HeaderChain.open(net, anchorArg({ checkpoint: { number: 7, hash: blocks[7]! }, signers }), 8, 1000n);
      return { chain, e: net.endpoints[0]! };
    };
    const sealed = await open(['0x' + '11'.repeat(20)]);
    for (const tag of ['finalized', 'safe'] as const) {
      await expect(sealed.chain.headerAt(sealed.e, tag)).rejects.toThrow(/proof-of-authority \(Clique\) chain finalizes none/);
    }
    const checkpoint = await open([]);
    expect((await checkpoint.chain.headerAt(checkpoint.e, 'finalized')).hash).toBe(blocks[7]);
  });
});

describe('the chain id a public beacon network pins', () => {
  it("trust: { beacon } on a public network pins its execution chain id from the name, not a node's answer; a different trust.chainId is refused", () => {
    const beacon = (network: unknown, chainId?: number) => anchorArg({ beacon: { network, checkpoint: '0x' + '00'.repeat(32), urls: [] }, ...(chainId === undefined ? {} : { chainId }) });
    expect(beacon('mainnet').chainId).toBe(1n);
    expect(beacon({ name: 'sepolia' }).chainId).toBe(11155111n);
    expect(beacon('hoodi', 560048).chainId).toBe(560048n);
    expect(() => beacon('mainnet', 5)).toThrow(/trust.chainId: mainnet's execution chain id is 1, not 5/);
    // A minimal (simulated) chain names no public network: the chain id is trust.chainId's, or none.
    expect(beacon({ preset: 'minimal' }).chainId).toBeUndefined();
  });
});

describe('header cache: a property over random interleavings', () => {
  it('every header returned is one the client verified, whatever the order of reads, answers and reorgs', async () => {
    // Blocks are named as fractions of the head when the op starts, so that ranges and fork
    // points fall on the chain whatever reorgs ran before.
    type Op = { kind: 'latest' } | { kind: 'at'; at: number } | { kind: 'range'; from: number; to: number } | { kind: 'reorg'; fork: number; len: number };
    const frac = fc.double({ min: 0, max: 1.05, noNaN: true });
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.constant({ kind: 'latest' as const }),
      fc.record({ kind: fc.constant('at' as const), at: frac }),
      fc.record({ kind: fc.constant('range' as const), from: frac, to: frac }),
      fc.record({ kind: fc.constant('reorg' as const), fork: frac, len: fc.integer({ min: 1, max: 2300 }) }),
    );
    // One chain for every run: each run's reorgs leave branches the next run reads across.
    const { fake, beacon, chain, e } = await setup(8);
    const place = (f: number) => Math.floor(f * Number(beacon.head.number));
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(op, { minLength: 2, maxLength: 8 }), async (s, ops) => {
        fake.hold = () => s.schedule(Promise.resolve());
        const results: Promise<void>[] = ops.map((o) => {
          switch (o.kind) {
            case 'latest':
              return s.schedule(Promise.resolve()).then(async () => expectVerified(fake, [await chain.headerAt(e, 'latest')]));
            case 'at':
              return s.schedule(Promise.resolve()).then(async () => expectVerified(fake, [await chain.headerAt(e, BigInt(place(o.at)))]));
            case 'range':
              return s.schedule(Promise.resolve()).then(async () => {
                const [from, to] = [place(Math.min(o.from, o.to)), place(Math.max(o.from, o.to))];
                expectVerified(fake, await chain.headersIn(e, BigInt(from), BigInt(to)), BigInt(from));
              });
            case 'reorg':
              // The beacon chain moves to another branch, and a read adopts it at once.
              return s
                .scheduleFunction(async () => {
                  beacon.moveTo(fake.build(fake.hashAt(Math.min(place(o.fork), Number(beacon.head.number))), o.len).at(-1)!);
                })()
                .then(async () => expectVerified(fake, [await chain.headerAt(e, 'latest')]));
          }
        });
        // Answers arrive through fetch's own asynchrony, so tasks keep being scheduled after
        // any one moment the queue is empty: release them until every read has settled.
        for (const r of await s.waitFor(Promise.allSettled(results))) {
          if (r.status === 'fulfilled') continue;
          const err = r.reason as Error;
          // A read may fail only for a reason that is no one's lie: the range was cut, or the
          // block is past the beacon chain's head. An assertion failure is rethrown.
          if (err instanceof ReorgError || err instanceof RangeError) continue;
          throw err;
        }
        expect(fake.forged.size).toBe(0);
      }),
      { numRuns: 40, seed: 20261127 },
    );
    fake.hold = () => undefined;
  }, 120_000);
});
