/**
 * The SDK under lying nodes. Every `--dishonest` mode of lightprov-node — wrong values, stale
 * headers, proofs for another block, truncated proofs, flipped bytes — and a proxy that cuts
 * HTTP responses short, each serving the same chain as an honest node (a copy of its data
 * directory). For every mode and every read the SDK offers:
 *  - alone against the liar, the SDK returns nothing it did not verify: the read throws, or
 *    (where the mode does not touch that read) returns exactly the honest answer;
 *  - the reads a mode targets are caught (they throw);
 *  - with the liar listed first and the honest node second, every read returns the honest answer,
 *    and a liar caught by verification is reported by `faultyNodes()`.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { LightClient, RpcError, type StateKey, init, isVerificationError, stateKeys } from '@lightprov/sdk';
import { keccak256, toBeHex } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode, tempDataDir } from '../lib/node-process.js';
import { mine, rpc } from '../lib/util.js';
import { writeFigures } from './figures.js';

const KVSTORE = '0x' + 'cc'.repeat(20);
const ARGS = ['--workload', 'kvstore', '--tx-per-block', '40', '--cole-l0-capacity', '48', '--cole-size-ratio', '3'];
const BLOCKS = 24;

type Read = 'header' | 'balance' | 'storage' | 'lvmt-value' | 'lvmt-past' | 'cole' | 'cole-star' | 'lvmt-history' | 'mpt-history';
const READS: Read[] = ['header', 'balance', 'storage', 'lvmt-value', 'lvmt-past', 'cole', 'cole-star', 'lvmt-history', 'mpt-history'];
const MPT_READS: Read[] = ['balance', 'storage', 'mpt-history'];

/** Each lie, and the reads it must be caught on (the others it leaves honest). */
const LIES: { mode: string; caught: Read[]; faulty: boolean }[] = [
  { mode: 'wrong-value', caught: MPT_READS, faulty: true },
  { mode: 'stale-header', caught: READS, faulty: true },
  { mode: 'other-block', caught: READS.filter((r) => r !== 'header'), faulty: true },
  { mode: 'truncated', caught: READS.filter((r) => r !== 'header'), faulty: true },
  { mode: 'proof-byte', caught: MPT_READS, faulty: true },
  { mode: 'header-field', caught: READS, faulty: true },
  { mode: 'history-byte', caught: ['cole', 'cole-star'], faulty: true },
  { mode: 'lvmt-byte', caught: ['lvmt-value', 'lvmt-past', 'lvmt-history'], faulty: true },
];

let honest: RunningNode;
let chainDir: string;
let head: bigint;
let record: StateKey;
let account: string;
const expected = new Map<Read, unknown>();
const figures: Record<string, { caught: number; unchanged: number; failedOver: number; faulty: string[] }> = {};

/** The data of an answer, without timings or raw proofs. */
function data(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(data);
  const o = v as Record<string, unknown>;
  if ('points' in o) return data(o['points']);
  if ('value' in o && 'scheme' in o) return { value: o['value'], present: o['present'], version: o['version'], writtenAt: o['writtenAt'], block: o['block'] };
  if ('hash' in o && 'stateRoot' in o) return { hash: o['hash'], number: o['number'] };
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, data(x)]));
}

async function read(client: LightClient, r: Read): Promise<unknown> {
  const mid = head / 2n;
  switch (r) {
    case 'header':
      return data(await client.getHeader(head));
    case 'balance':
      return client.getBalance(account, mid);
    case 'storage':
      return client.getStorageAt(KVSTORE, record.slot!, head);
    case 'lvmt-value':
      return data(await client.getValueDetailed(record, { scheme: 'lvmt' }));
    case 'lvmt-past':
      return data(await client.getValueDetailed(record, { scheme: 'lvmt', block: mid }));
    case 'cole':
    case 'cole-star':
      return data(await client.getHistory(record, { scheme: r, fromBlock: 0n, toBlock: head }));
    case 'lvmt-history':
      return data(await client.getHistory(record, { scheme: 'lvmt', fromBlock: 1n, toBlock: head }));
    case 'mpt-history':
      return data(await client.getHistory(record, { scheme: 'mpt', fromBlock: head - 4n, toBlock: head }));
  }
}

/** A fresh client per read, so one read's lie does not decide the next read's path. */
async function attempt(urls: string[], r: Read): Promise<{ value?: unknown; error?: unknown; client?: LightClient }> {
  let client: LightClient | undefined;
  try {
    client = await LightClient.connect({ rpc: urls, trust: { genesisHash: honest.genesisHash, signers: [honest.signer] }, timeoutMs: 5_000 });
    return { value: await read(client, r), client };
  } catch (error) {
    return { error, ...(client ? { client } : {}) };
  }
}

beforeAll(async () => {
  await init();
  // One chain, mined once; every node below serves a copy of it.
  const seed = await startNode({ args: ARGS });
  await mine(seed.url, BLOCKS);
  account = seed.accounts[0]!.address;
  await seed.stop();
  chainDir = seed.dataDir;
  honest = await startNode({ dataDir: copy(chainDir), args: ARGS });
  head = BigInt(await rpc(honest.url, 'eth_blockNumber', []) as string);
  const client = await LightClient.connect({ rpc: honest.url, trust: { genesisHash: honest.genesisHash, signers: [honest.signer] } });
  // A record the workload wrote, so its history has points in every scheme.
  for (let k = 0; k < 10_000; k++) {
    const key = stateKeys.storage(KVSTORE, keccak256(toBeHex(k, 8)));
    if ((await client.getStorageAt(KVSTORE, key.slot!, 1n)) !== (await client.getStorageAt(KVSTORE, key.slot!, head))) {
      record = key;
      break;
    }
  }
  expect(record, 'no kvstore record moved').toBeDefined();
  for (const r of READS) expected.set(r, await read(client, r));
  expect((expected.get('cole') as unknown[]).length).toBeGreaterThan(1);
}, 120_000);

afterAll(async () => {
  await honest?.stop();
  const lines = Object.entries(figures).map(
    ([mode, f]) =>
      `liar ${mode}: ${f.caught} reads caught, ${f.unchanged} untouched reads honest, ${f.failedOver}/${READS.length} reads failed over to the honest node` +
      (f.faulty.length ? ` (liar marked faulty by ${codes(f.faulty)})` : ''),
  );
  const total = Object.values(figures).reduce((s, f) => s + f.caught, 0);
  lines.unshift(`lying nodes: ${Object.keys(figures).length} modes, ${total} lies caught, 0 unverified answers returned`);
  writeFigures('liars', lines, figures);
});

/** `read CODE` entries as `CODE ×n, …`. */
function codes(entries: string[]): string {
  const count = new Map<string, number>();
  for (const e of entries) {
    const code = e.split(' ')[1] ?? e;
    count.set(code, (count.get(code) ?? 0) + 1);
  }
  return [...count].map(([c, n]) => (n > 1 ? `${c} ×${n}` : c)).join(', ');
}

function copy(dir: string): string {
  const to = tempDataDir();
  fs.cpSync(dir, to, { recursive: true });
  return to;
}

/** Checks one liar (a URL serving the honest chain with lies) against every read. */
async function checkLiar(name: string, liarUrl: string, caught: readonly Read[], markedFaulty: boolean): Promise<void> {
  const f = { caught: 0, unchanged: 0, failedOver: 0, faulty: [] as string[] };
  for (const r of READS) {
    const alone = await attempt([liarUrl], r);
    if (caught.includes(r)) {
      expect(alone.error, `${name}: ${r} from the liar alone returned ${String(alone.value)}`).toBeDefined();
      expect(alone.error instanceof RpcError || isVerificationError(alone.error), `${name}: ${r} failed with ${String(alone.error)}`).toBe(true);
      f.caught++;
    } else {
      // Untouched by this lie: the answer verifies, and equals the honest one.
      expect(alone.error, `${name}: ${r} should be untouched`).toBeUndefined();
      expect(alone.value, `${name}: ${r}`).toEqual(expected.get(r));
      f.unchanged++;
    }
    const both = await attempt([liarUrl, honest.url], r);
    expect(both.error, `${name}: ${r} with failover threw ${String(both.error)}`).toBeUndefined();
    expect(both.value, `${name}: ${r} with failover`).toEqual(expected.get(r));
    f.failedOver++;
    const faulty = both.client?.faultyNodes() ?? [];
    expect(faulty.every((x) => x.url === liarUrl), `${name}: the honest node was marked faulty`).toBe(true);
    if (caught.includes(r) && markedFaulty && isVerificationError(alone.error)) {
      expect(faulty.map((x) => x.url), `${name}: ${r}`).toEqual([liarUrl]);
      f.faulty.push(`${r} ${(alone.error as { code: string }).code}`);
    }
  }
  figures[name] = f;
}

describe('the SDK under a lying node', () => {
  for (const lie of LIES) {
    it(`--dishonest ${lie.mode}: no unverified answer, failover to the honest node`, async () => {
      const liar = await startNode({ dataDir: copy(chainDir), args: [...ARGS, '--dishonest', lie.mode] });
      try {
        await checkLiar(lie.mode, liar.url, lie.caught, lie.faulty);
      } finally {
        await liar.stop();
      }
    }, 120_000);
  }

  it('truncated HTTP responses (a proxy cuts every body in half) are refused, and failed over', async () => {
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void fetch(honest.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
          .then((r) => r.arrayBuffer())
          .then((body) => {
            const half = Buffer.from(body).subarray(0, Math.floor(body.byteLength / 2));
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(half);
          })
          .catch(() => res.destroy());
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      // A cut-off body does not parse: the connect itself cannot verify the anchor.
      await checkLiar('http-truncated', url, READS, false);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  }, 120_000);
});
