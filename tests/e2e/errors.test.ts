/**
 * The errors a new user meets first, each with the class, code and message that name the
 * argument or the node at fault (the table in sdk/README.md lists them).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { FailoverError, LightClient, RpcError, historySchemes, init, stateKeys } from '@lightprov/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { mine, rejection } from '../lib/util.js';

let node: RunningNode;
let garbage: http.Server;
let garbageUrl: string;
/** A port nothing listens on. */
let closedUrl: string;

beforeAll(async () => {
  await init();
  node = await startNode();
  await mine(node.url, 3);
  // A server that answers every request with 200 and a body that is not JSON-RPC.
  garbage = http.createServer((_req, res) => res.end('<html>hello</html>'));
  await new Promise<void>((r) => garbage.listen(0, '127.0.0.1', r));
  garbageUrl = `http://127.0.0.1:${(garbage.address() as AddressInfo).port}`;
  const probe = http.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((r) => probe.close(() => r()));
}, 120_000);
afterAll(async () => {
  garbage?.close();
  await node?.stop();
});

const trust = () => ({ genesisHash: node.genesisHash, signers: [node.signer] });

describe('clear errors', () => {
  it('a wrong address format: RangeError (wrong length) or TypeError (not hex) naming address', async () => {
    const c = await LightClient.connect({ rpc: node.url, trust: trust() });
    const e = await rejection(c.getBalance('0x1234'));
    expect(e).toBeInstanceOf(RangeError);
    expect(String(e)).toMatch(/^RangeError: address: expected 20 bytes/);
    const e2 = await rejection(c.getBalance('vitalik.eth'));
    expect(e2).toBeInstanceOf(TypeError);
    expect(String(e2)).toMatch(/^TypeError: address: /);
  });

  it('fromBlock after toBlock: RangeError naming fromBlock', async () => {
    const c = await LightClient.connect({ rpc: node.url, trust: trust() });
    const e = await rejection(c.getHistory(stateKeys.balance(node.accounts[0]!.address), { fromBlock: 3, toBlock: 1, scheme: 'cole' }));
    expect(e).toBeInstanceOf(RangeError);
    expect(String(e)).toMatch(/^RangeError: fromBlock 3 is after toBlock 1/);
  });

  it('a future block: RpcError naming the block and the node head', async () => {
    const c = await LightClient.connect({ rpc: node.url, trust: trust() });
    const e = await rejection(c.getBalance(node.accounts[0]!.address, 1000n));
    expect(e).toBeInstanceOf(RpcError);
    expect((e as RpcError).code).toBe(-32001);
    expect((e as Error).message).toContain(`unknown block 1000 (${node.url} is at `);
  });

  it('an unknown scheme: TypeError naming scheme and the known ones', async () => {
    const c = await LightClient.connect({ rpc: node.url, trust: trust() });
    const e = await rejection(c.getHistory(stateKeys.balance(node.accounts[0]!.address), { fromBlock: 0, scheme: 'amt' as never }));
    expect(e).toBeInstanceOf(TypeError);
    // Every registered history scheme, in the registry's order.
    const known = historySchemes().map((x) => `'${x.id}'`);
    expect(known).toEqual(expect.arrayContaining(["'cole'", "'cole-star'", "'lvmt'", "'mpt'"]));
    expect(String(e)).toBe(`TypeError: scheme: expected ${known.join(', ')}, got amt`);
  });

  it('a wrong genesis hash: RpcError -32001 at connect, naming trust.genesisHash and the node', async () => {
    const e = await rejection(LightClient.connect({ rpc: node.url, trust: { genesisHash: '0x' + '11'.repeat(32), signers: [node.signer] } }));
    // The node has no block with that hash: the error names the argument and the node.
    expect(e).toBeInstanceOf(RpcError);
    expect((e as Error).message).toContain(`${node.url} has no block 0x${'11'.repeat(32)} (trust.genesisHash)`);
  });

  it('an unreachable RPC URL: RpcError naming the URL', async () => {
    const e = await rejection(LightClient.connect({ rpc: closedUrl, trust: trust(), timeoutMs: 2000 }));
    expect(e).toBeInstanceOf(RpcError);
    expect((e as Error).message).toContain(`${closedUrl}: fetch failed (ECONNREFUSED)`);
  });

  it('a node that returns garbage: RpcError naming the node; with a good node listed too, the read succeeds', async () => {
    const e = await rejection(LightClient.connect({ rpc: garbageUrl, trust: trust() }));
    expect(e).toBeInstanceOf(RpcError);
    expect((e as Error).message).toContain(`${garbageUrl}: the answer is not JSON-RPC ("<html>hello</html>")`);
    const c = await LightClient.connect({ rpc: [garbageUrl, node.url], trust: trust() });
    expect(await c.getBalance(node.accounts[0]!.address, 0n)).toBe(10n ** 24n);
    const both = await rejection(LightClient.connect({ rpc: [garbageUrl, closedUrl], trust: trust(), timeoutMs: 2000 }));
    expect(both).toBeInstanceOf(FailoverError);
    expect((both as FailoverError).faults.map((f) => f.url)).toEqual([garbageUrl, closedUrl]);
    expect((both as Error).message).toMatch(/no node could answer — .*not JSON-RPC.*; .*ECONNREFUSED/);
  });

});
