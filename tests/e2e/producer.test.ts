/**
 * Calls to lightprov-node while its blocks take longer to produce than its block time (100
 * transactions a block every 20 ms, in the debug build). A request's calls (a batch's all
 * together) run between two blocks, and after each block the node leaves a whole block time.
 * Before, each call of a batch took the chain on its own and the producer took it between two of
 * them, back to back: a batch of 100 `eth_getBlockByNumber` spanned 50 to 100 blocks (a minute
 * here; on a loaded machine, past the request timeout, whose answer is one error object, not a
 * list).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { rpc } from '../lib/util.js';

const CALLS = 100;
const quantity = (n: number) => '0x' + n.toString(16);
const head = async (url: string) => Number(await rpc(url, 'eth_blockNumber', []));

let node: RunningNode;

beforeAll(async () => {
  node = await startNode({ args: ['--block-time', '20ms', '--workload', 'kvstore', '--seed', '1', '--tx-per-block', '100'] });
  while ((await head(node.url)) < 10) await new Promise((r) => setTimeout(r, 100));
}, 120_000);

afterAll(async () => {
  await node?.stop();
});

describe('block production waits for the requests in flight', () => {
  it('a batch of 100 block reads is answered as a list within a few blocks', async () => {
    const spans: number[] = [];
    for (let round = 0; round < 3; round++) {
      const before = await head(node.url);
      const body = Array.from({ length: CALLS }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_getBlockByNumber', params: [quantity(id % (before + 1)), false] }));
      const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answers = (await res.json()) as { id: number; result?: { number: string } }[];
      expect(Array.isArray(answers), `round ${round}: ${JSON.stringify(answers).slice(0, 200)}`).toBe(true);
      expect([...answers].sort((a, b) => a.id - b.id).map((a) => Number(a.result?.number))).toEqual(body.map((c) => Number(c.params[0])));
      spans.push((await head(node.url)) - before);
    }
    // A batch is answered between two blocks (a block or two may pass while it is sent).
    expect(Math.max(...spans), `blocks produced during each batch: ${spans.join(', ')}`).toBeLessThan(CALLS / 4);
  }, 120_000);
});
