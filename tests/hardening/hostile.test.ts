/**
 * Hostile RPC input: one lightprov-node (small limits, see NODE_ARGS) gets every kind of malformed,
 * oversized or abusive request over raw HTTP, and must answer each with a JSON-RPC error object
 * whose code is the documented one and whose message names the problem (the field, the limit, the
 * flag) — never a hang, a crash or a bare "Invalid request".
 *
 * Then the slow and the idle:
 * - SLOW clients send a request head and dribble its body at 1 byte/s: each gets -32005 (request
 *   timed out, naming --request-timeout and the bytes received) after --request-timeout, while an
 *   honest client's calls are answered promptly all along;
 * - clients dribble request heads: their connections are closed after --idle-timeout, unanswered
 *   (they never made a request);
 * - more silent connections than --max-connections: those over the cap get HTTP 503 with
 *   -32005 naming --max-connections at once; the honest client is refused the same way while the
 *   silent ones hold every slot, and is served again once --idle-timeout has closed them.
 *
 * The node's resident memory (VmRSS, sampled every 50 ms) must stay within a bound (see
 * RSS_GROWTH_MB), and the node must still answer eth_blockNumber at the end.
 *
 * Every request goes over its own connection (node:http without an agent, or node:net), so no
 * client-side connection pool changes what the node sees. Figures: target/hardening/hostile.json.
 */
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningNode, startNode } from '../lib/node-process.js';
import { mine } from '../lib/util.js';
import { MODE, sized, writeFigures } from './figures.js';

/** Rounds of the malformed-request cases (each round sends every case once). */
const ROUNDS = sized(10, 200);
/** Cases in flight at once. */
const PARALLEL = 16;
/** Clients that dribble a body at 1 byte/s. */
const SLOW = sized(50, 200);
/** Clients that dribble a request head. */
const SLOW_HEADS = sized(10, 40);
/** Clients looping expensive calls, and for how long. */
const HEAVY = sized(16, 48);
const HEAVY_MS = sized(3_000, 20_000);
/** Connections over the cap in the idle flood. */
const OVER_CAP = sized(16, 64);
const MAX_CONNECTIONS = Math.max(SLOW + SLOW_HEADS, HEAVY) + 8;
const MAX_BATCH = 100;
const MAX_RESPONSE = 64 * 1024;
const MAX_HISTORY_RANGE = 2;
const REQUEST_TIMEOUT_S = 3;
const IDLE_TIMEOUT_S = 2;
/**
 * The most the storm may add to the node's RSS. The flags bound what requests can hold: a body
 * (≤ 1 MiB, the default --max-request-bytes, plus jsonrpsee's copy) and an answer (≤ MAX_RESPONSE)
 * per connection. The storm has at most PARALLEL requests with bodies open at once (the biggest
 * held: the 1 MB hex strings; bodies over the limit are dropped as they arrive), plus the
 * SLOW dribblers' few bytes each and the per-connection buffers (≤ 64 KiB): about 16 × 2 MB +
 * 68 × 64 KiB ≈ 40 MB in quick mode. 200 MB leaves room for the allocator keeping freed memory
 * and the blocking threads' stacks, and still catches anything that grows with the requests.
 */
const RSS_GROWTH_MB = 200;

const NODE_ARGS = [
  '--max-connections', String(MAX_CONNECTIONS),
  '--max-batch', String(MAX_BATCH),
  '--max-response-bytes', String(MAX_RESPONSE),
  '--max-history-range', String(MAX_HISTORY_RANGE),
  '--request-timeout', `${REQUEST_TIMEOUT_S}s`,
  '--idle-timeout', `${IDLE_TIMEOUT_S}s`,
];

/**
 * `n` storage keys written out in 32 bytes: the node echoes each key as it was asked (as geth
 * does), so 1024 of them make an answer over MAX_RESPONSE whatever the storage holds.
 */
function slotKeys(n: number): string[] {
  return Array.from({ length: n }, (_, i) => '0x' + (i + 1).toString(16).padStart(64, '0'));
}

let node: RunningNode;
let host: string;
let port: number;

beforeAll(async () => {
  node = await startNode({ args: NODE_ARGS });
  const u = new URL(node.url);
  host = u.hostname;
  port = Number(u.port);
  await mine(node.url, 4);
});
afterAll(async () => {
  await node?.stop();
});

interface Answer {
  status: number;
  text: string;
  ms: number;
}

/** One HTTP request on its own connection; rejects if no answer comes within `timeoutMs`. */
function send(opts: { method?: string; body?: string | Buffer; contentType?: string | null; chunked?: boolean; timeoutMs?: number } = {}): Promise<Answer> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body);
    const headers: Record<string, string> = {};
    if (opts.contentType !== null) headers['content-type'] = opts.contentType ?? 'application/json';
    if (body !== undefined && !opts.chunked) headers['content-length'] = String(body.length);
    const req = http.request({ host, port, path: '/', method: opts.method ?? 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t0 }));
      res.on('error', reject);
    });
    req.setTimeout(opts.timeoutMs ?? 20_000, () => req.destroy(new Error('no answer in time')));
    req.on('error', reject);
    if (body !== undefined && opts.chunked) {
      // Several chunks, no Content-Length: the node learns the size only as the body arrives.
      const step = Math.ceil(body.length / 8);
      for (let i = 0; i < body.length; i += step) req.write(body.subarray(i, i + step));
    } else if (body !== undefined) {
      req.write(body);
    }
    req.end();
  });
}

const call = (method: string, params?: unknown, id: unknown = 1) =>
  JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });

interface RpcError {
  code: number;
  message: string;
}

/** The error object of an answer (or of its only entry, for a batch answer of one). */
function errorOf(a: Answer): RpcError {
  let v: unknown;
  try {
    v = JSON.parse(a.text);
  } catch {
    throw new Error(`HTTP ${a.status}: not JSON: ${a.text.slice(0, 200)}`);
  }
  if (Array.isArray(v) && v.length === 1) v = v[0];
  const e = (v as { error?: RpcError }).error;
  if (typeof e?.code !== 'number' || typeof e.message !== 'string') throw new Error(`HTTP ${a.status}: no JSON-RPC error: ${a.text.slice(0, 200)}`);
  return e;
}

const ADDRESS = '0x' + '11'.repeat(20);
const KEY = '0x' + '22'.repeat(32);

interface Case {
  kind: string;
  send: () => Promise<Answer>;
  status?: number;
  code: number;
  message: RegExp;
  /** Extra checks on the answer. */
  also?: (a: Answer, e: RpcError) => void;
}

/** A single call with these params (or this raw body). */
const single = (kind: string, body: string | Buffer, code: number, message: RegExp, extra: Partial<Case> = {}): Case => ({
  kind,
  send: () => send({ body }),
  code,
  message,
  ...extra,
});

/** Messages quote at most a little of the input: a long field is never echoed whole. */
const short = (a: Answer, e: RpcError) => expect(e.message.length, e.message).toBeLessThan(400);

function cases(): Case[] {
  const deepArrays = '['.repeat(100_000) + ']'.repeat(100_000);
  const deepObjects = '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000);
  const hex = (n: number) => '0x' + 'ab'.repeat(n);
  const manyKeys = Array.from({ length: 10_000 }, (_, i) => '0x' + i.toString(16));
  const batchOf = (n: number) => '[' + Array.from({ length: n }, (_, i) => call('eth_blockNumber', [], i)).join(',') + ']';
  const notUtf8 = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
  return [
    // The body.
    single('not JSON', 'hello', -32700, /parse error: expected value at line 1 column 1/, { status: 400 }),
    single('truncated JSON', '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"', -32700, /parse error: EOF while parsing an object/, { status: 400 }),
    single('invalid UTF-8', notUtf8, -32700, /not UTF-8 \(invalid byte at offset 38\)/, { status: 400 }),
    single('empty body', '', -32700, /parse error: empty body/, { status: 400 }),
    single('a bare number', '42', -32600, /expected a JSON-RPC request object, got a number/),
    single('arrays 10^5 deep as the body', deepArrays, -32600, /expected a JSON-RPC request object, got an array/),
    single('objects 5·10^4 deep as the body', deepObjects, -32600, /no "jsonrpc": "2.0"/),
    // The envelope.
    single('JSON-RPC 1.0 (no "jsonrpc")', JSON.stringify({ id: 1, method: 'eth_blockNumber', params: [] }), -32600, /no "jsonrpc": "2.0" member/),
    single('"jsonrpc": "1.0"', JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'eth_blockNumber' }), -32600, /"jsonrpc" must be "2.0", got "1.0"/),
    single('no method', JSON.stringify({ jsonrpc: '2.0', id: 1 }), -32600, /no "method"/),
    single('method a number', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 7 }), -32600, /"method" must be a string, got a number/),
    single('unknown method', call('eth_mineBitcoin', []), -32601, /method not found: eth_mineBitcoin/),
    single('a 100 kB method name', call('m'.repeat(100_000), []), -32601, /method not found: m+… \(100000 bytes\)/, { also: short }),
    single('id an object', JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'eth_blockNumber' }), -32600, /"id" must be a string, a non-negative integer or null, got an object/),
    single('id negative', JSON.stringify({ jsonrpc: '2.0', id: -1, method: 'eth_blockNumber' }), -32600, /"id" must be/),
    single('id twice', '{"jsonrpc":"2.0","id":1,"id":2,"method":"eth_blockNumber"}', -32600, /"id" appears twice/),
    single('params a string', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: 'x' }), -32602, /"params" must be an array \(or an object\), got a string/),
    single('params an object', call('eth_getBalance', { address: ADDRESS }), -32602, /invalid params: expected an array/),
    single('params arrays 10^5 deep', `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":${deepArrays}}`, -32602, /invalid params: recursion limit exceeded/),
    single('params objects 5·10^4 deep', `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":[${deepObjects}]}`, -32602, /invalid params: recursion limit exceeded/),
    single('too many params', call('eth_getBalance', [ADDRESS, 'latest', 1, 2]), -32602, /invalid params: at most 2 parameters/),
    // Parameters.
    single('missing params', call('eth_getBalance'), -32602, /invalid address: missing/),
    single('address null', call('eth_getBalance', [null]), -32602, /invalid address: invalid type: null/),
    single('address a number', call('eth_getBalance', [5]), -32602, /invalid address: invalid type: integer/),
    single('address 1 MB of hex', call('eth_getBalance', [hex(500_000)]), -32602, /invalid address/, { also: short }),
    single('stateKey 1 byte', call('lightprov_getHistory', ['0x00', '0x0', '0x1', 'cole']), -32602, /invalid stateKey: expected 32 bytes \(0x and 64 hex digits\), got 2 digits/),
    single('stateKey 1 MB of hex', call('lightprov_getHistory', [hex(500_000), '0x0', '0x1', 'cole']), -32602, /invalid stateKey: expected 32 bytes .*got 1000000 digits/),
    single('stateKey a number', call('lightprov_getHistory', [7, '0x0', '0x1', 'cole']), -32602, /invalid stateKey: invalid type: integer/),
    single('stateKey an array', call('lightprov_getLvmtProof', [[KEY]]), -32602, /invalid stateKey: invalid type: sequence/),
    single('history to block 2^64−1', call('lightprov_getHistory', [KEY, '0x0', '0xffffffffffffffff', 'cole']), -32001, /toBlock: unknown block 18446744073709551615 \(the head is #\d+\)/),
    single('history to block 2^64', call('lightprov_getHistory', [KEY, '0x0', '0x10000000000000000', 'cole']), -32602, /invalid toBlock/),
    single('history from after to', call('lightprov_getHistory', [KEY, '0x3', '0x1', 'cole']), -32602, /invalid fromBlock: 3 is after toBlock 1/),
    single('history over the range limit', call('lightprov_getHistory', [KEY, '0x0', '0x3', 'cole']), -32005, new RegExp(`limit exceeded: 4 blocks asked, at most ${MAX_HISTORY_RANGE} per call`)),
    single('history, unknown scheme', call('lightprov_getHistory', [KEY, '0x0', '0x1', 'sha1']), -32602, /invalid scheme: `sha1` is not one of/),
    single('history, 100 kB scheme', call('lightprov_getHistory', [KEY, '0x0', '0x1', 's'.repeat(100_000)]), -32602, /invalid scheme/, { also: short }),
    single('history, scheme null', call('lightprov_getHistory', [KEY, '0x0', '0x1', null]), -32602, /invalid scheme: invalid type: null/),
    single('eth_getProof with 10^4 keys', call('eth_getProof', [ADDRESS, manyKeys, 'latest']), -32602, /invalid storageKeys: at most 1024 keys/),
    single('storageKeys an object', call('eth_getProof', [ADDRESS, { a: 1 }, 'latest']), -32602, /invalid storageKeys: invalid type: map/),
    single('storage key a number', call('eth_getProof', [ADDRESS, [1], 'latest']), -32602, /invalid storageKeys\[0\]: expected a hex string/),
    single('slot over 256 bits', call('eth_getStorageAt', [ADDRESS, hex(33), 'latest']), -32602, /invalid slot: quantity exceeds 256 bits/),
    single('block beyond the head', call('eth_getBalance', [ADDRESS, '0xffffff']), -32001, /unknown block 16777215 \(the head is #\d+\)/),
    single('block tag a boolean', call('eth_getBlockByNumber', [true, false]), -32602, /invalid block: invalid type: boolean/),
    single('raw transaction of garbage', call('eth_sendRawTransaction', ['0xdeadbeef']), -32000, /invalid transaction encoding/),
    single('raw transaction 100 kB', call('eth_sendRawTransaction', [hex(50_000)]), -32000, /invalid transaction encoding/, { also: short }),
    single('estimateGas with a string', call('eth_estimateGas', ['x']), -32602, /invalid transaction: expected an object/),
    // Limits.
    {
      kind: 'answer over --max-response-bytes',
      send: () => send({ body: call('eth_getProof', [ADDRESS, slotKeys(1024), 'latest']) }),
      code: -32008,
      message: /Response is too big/,
      also: (a) => expect(a.text).toContain(`Exceeded max limit of ${MAX_RESPONSE}`),
    },
    {
      kind: 'batch answer over --max-response-bytes',
      send: () => send({ body: '[' + Array.from({ length: MAX_BATCH }, (_, i) => call('eth_getBlockByNumber', ['latest', true], i)).join(',') + ']' }),
      code: -32011,
      message: /The batch response was too large/,
    },
    single('body over --max-request-bytes (Content-Length)', Buffer.alloc(2 << 20, 0x20), -32007, /request too big: 2097152 bytes, at most 1048576 \(--max-request-bytes\)/, { status: 413 }),
    {
      kind: 'body over --max-request-bytes (chunked)',
      send: () => send({ body: Buffer.alloc(2 << 20, 0x20), chunked: true }),
      status: 413,
      code: -32007,
      message: /request too big: the body runs past 1048576 bytes, at most 1048576 \(--max-request-bytes\)/,
    },
    single('batch of 10^4 calls', batchOf(10_000), -32010, new RegExp(`batch too large: 10000 calls, at most ${MAX_BATCH} per batch \\(--max-batch\\)`)),
    single('empty batch', '[]', -32600, /invalid request: empty batch/),
    // HTTP.
    { kind: 'HTTP GET', send: () => send({ method: 'GET' }), status: 405, code: -32600, message: /HTTP method GET; JSON-RPC requests are POSTed/ },
    { kind: 'HTTP PUT', send: () => send({ method: 'PUT', body: call('eth_blockNumber', []) }), status: 405, code: -32600, message: /HTTP method PUT/ },
    { kind: 'Content-Type text/plain', send: () => send({ body: call('eth_blockNumber', []), contentType: 'text/plain' }), status: 415, code: -32600, message: /Content-Type must be application\/json, got text\/plain/ },
    { kind: 'no Content-Type', send: () => send({ body: call('eth_blockNumber', []), contentType: null }), status: 415, code: -32600, message: /Content-Type must be application\/json, got none/ },
  ];
}

interface Tally {
  sent: number;
  answered: number;
  unanswered: number;
  kinds: Set<string>;
  failures: string[];
}

const tally: Tally = { sent: 0, answered: 0, unanswered: 0, kinds: new Set(), failures: [] };

/** Sends one case and checks its answer; failures are collected, not thrown, so all are seen. */
async function run(c: Case): Promise<void> {
  tally.sent++;
  tally.kinds.add(c.kind);
  let a: Answer;
  try {
    a = await c.send();
  } catch (e) {
    tally.unanswered++;
    tally.failures.push(`${c.kind}: no answer: ${String(e)}`);
    return;
  }
  try {
    const e = errorOf(a);
    expect(e.code, `${c.kind}: ${e.message}`).toBe(c.code);
    expect(e.message, c.kind).toMatch(c.message);
    if (c.status !== undefined) expect(a.status, c.kind).toBe(c.status);
    c.also?.(a, e);
    tally.answered++;
  } catch (e) {
    tally.failures.push(`${c.kind}: ${String(e).slice(0, 400)}`);
  }
}

/** Runs `tasks` with at most `n` in flight. */
async function pool(tasks: (() => Promise<void>)[], n: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < tasks.length) await (tasks[next++] as () => Promise<void>)();
    }),
  );
}

function rssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Samples the node's RSS every 50 ms until stopped; returns the peak. */
function rssSampler(pid: number): { stop: () => number } {
  let peak = rssMb(pid);
  const t = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      /* the node is gone: the liveness checks say so */
    }
  }, 50);
  return {
    stop() {
      clearInterval(t);
      return peak;
    },
  };
}

async function blockNumber(): Promise<Answer & { result?: string }> {
  const a = await send({ body: call('eth_blockNumber', []), timeoutMs: 10_000 });
  const v = JSON.parse(a.text) as { result?: string };
  return { ...a, ...(v.result === undefined ? {} : { result: v.result }) };
}

/** A raw connection; resolves when the node closes it, with what it answered and when. */
function rawConnection(opts: { onConnect?: (s: net.Socket) => void }): { socket: net.Socket; closed: Promise<{ data: string; ms: number; error?: string }> } {
  const t0 = performance.now();
  const socket = net.connect(port, host);
  let data = '';
  let error: string | undefined;
  socket.on('connect', () => opts.onConnect?.(socket));
  socket.on('data', (d: Buffer) => (data += d.toString('utf8')));
  socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
  const closed = new Promise<{ data: string; ms: number; error?: string }>((resolve) =>
    socket.on('close', () => resolve({ data, ms: performance.now() - t0, ...(error === undefined ? {} : { error }) })),
  );
  return { socket, closed };
}

/** Status and body of a raw HTTP answer. */
function parseRaw(raw: string): Answer {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), text: rest.join('\r\n\r\n'), ms: 0 };
}

const figures: Record<string, unknown> = {};
const lines: string[] = [];
const started = performance.now();
let rssBefore = 0;
let rssPeak = 0;

describe('hostile RPC input', () => {
  it('every malformed request gets a JSON-RPC error with the right code, naming the problem', async () => {
    // Warm up, then measure.
    for (let i = 0; i < 20; i++) expect((await blockNumber()).result).toMatch(/^0x/);
    rssBefore = rssMb(node.pid);
    const sampler = rssSampler(node.pid);
    const all = cases();
    const tasks = Array.from({ length: ROUNDS }, () => all.map((c) => () => run(c))).flat();
    await pool(tasks, PARALLEL);
    rssPeak = Math.max(rssPeak, sampler.stop());
    expect(tally.failures, tally.failures.join('\n')).toEqual([]);
    expect(tally.unanswered).toBe(0);
    expect(tally.answered).toBe(tally.sent);
    figures['cases'] = all.length;
  }, 120_000);

  it('served batches: up to --max-batch calls are each answered; bad entries get their own errors', async () => {
    const full = await send({ body: '[' + Array.from({ length: MAX_BATCH }, (_, i) => call('eth_blockNumber', [], i)).join(',') + ']' });
    const answers = JSON.parse(full.text) as { id: number; result?: string }[];
    expect(answers).toHaveLength(MAX_BATCH);
    expect(new Set(answers.map((a) => a.id)).size).toBe(MAX_BATCH);
    for (const a of answers) expect(a.result).toMatch(/^0x/);

    const mixed = [
      call('eth_blockNumber', [], 'ok'),
      '7',
      JSON.stringify({ jsonrpc: '2.0', id: 'v1', method: 'eth_blockNumber' }).replace('"2.0"', '"1.0"'),
      call('eth_nope', [], 'nope'),
      call('eth_getBalance', [5], 'bad-address'),
      JSON.stringify({ jsonrpc: '2.0', method: 'eth_blockNumber' }), // a notification: no answer
    ];
    tally.sent++;
    tally.kinds.add('batch with bad entries');
    const res = JSON.parse((await send({ body: '[' + mixed.join(',') + ']' })).text) as { id: unknown; result?: unknown; error?: RpcError }[];
    const byId = new Map(res.map((r) => [r.id, r]));
    expect(res).toHaveLength(5);
    expect(byId.get('ok')?.result).toMatch(/^0x/);
    expect(byId.get(null)?.error).toMatchObject({ code: -32600, message: expect.stringMatching(/got a number/) });
    expect(byId.get('v1')?.error).toMatchObject({ code: -32600, message: expect.stringMatching(/"jsonrpc" must be "2.0"/) });
    expect(byId.get('nope')?.error).toMatchObject({ code: -32601, message: expect.stringMatching(/eth_nope/) });
    expect(byId.get('bad-address')?.error).toMatchObject({ code: -32602, message: expect.stringMatching(/invalid address/) });
    tally.answered++;

    // Notifications are acknowledged with an empty answer (and, as jsonrpsee does, not run).
    const head = (await blockNumber()).result;
    const n1 = await send({ body: JSON.stringify({ jsonrpc: '2.0', method: 'evm_mine', params: [] }) });
    const n2 = await send({ body: '[' + JSON.stringify({ jsonrpc: '2.0', method: 'eth_nope' }) + ']' });
    expect([n1.status, n1.text, n2.status, n2.text]).toEqual([200, '', 200, '']);
    expect((await blockNumber()).result).toBe(head);
    figures['notifications'] = 2;
  });

  it(`${SLOW} clients dribbling a body at 1 byte/s time out with -32005; an honest client is answered promptly meanwhile`, async () => {
    const sampler = rssSampler(node.pid);
    const body = call('eth_blockNumber', []);
    const slow = Array.from({ length: SLOW }, (_, i) => {
      let timer: NodeJS.Timeout | undefined;
      const c = rawConnection({
        onConnect: (s) => {
          s.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
          let sent = 0;
          timer = setInterval(() => {
            if (sent < body.length && !s.destroyed) s.write(body.charAt(sent++));
          }, 1000 + (i % 10));
        },
      });
      return c.closed.finally(() => clearInterval(timer));
    });
    // Request heads dribbled byte by byte: closed after --idle-timeout, with no answer.
    const heads = Array.from({ length: SLOW_HEADS }, () => {
      let timer: NodeJS.Timeout | undefined;
      const head = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n';
      const c = rawConnection({
        onConnect: (s) => {
          let sent = 0;
          timer = setInterval(() => {
            if (!s.destroyed) s.write(head.charAt(sent++ % head.length));
          }, 200);
        },
      });
      return c.closed.finally(() => clearInterval(timer));
    });
    // The honest client, all along.
    const latencies: number[] = [];
    let honestDone = false;
    const honest = (async () => {
      await new Promise((r) => setTimeout(r, 300));
      while (!honestDone) {
        const a = await blockNumber();
        expect(a.result, a.text).toMatch(/^0x/);
        latencies.push(a.ms);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const slowEnds = await Promise.all(slow);
    const headEnds = await Promise.all(heads);
    honestDone = true;
    await honest;
    rssPeak = Math.max(rssPeak, sampler.stop());

    for (const end of slowEnds) {
      tally.sent++;
      const a = parseRaw(end.data);
      expect(a.status, end.data).toBe(408);
      const e = errorOf(a);
      expect(e.code).toBe(-32005);
      expect(e.message).toMatch(new RegExp(`request timed out after ${REQUEST_TIMEOUT_S} s \\(--request-timeout\\): the body did not arrive in time \\(\\d+ of ${body.length} bytes received\\)`));
      expect(end.ms).toBeGreaterThan(REQUEST_TIMEOUT_S * 1000 - 200);
      expect(end.ms).toBeLessThan(REQUEST_TIMEOUT_S * 1000 + 3000);
      tally.answered++;
    }
    tally.kinds.add('body dribbled at 1 byte/s');
    for (const end of headEnds) {
      expect(end.data).toBe('');
      expect(end.ms).toBeGreaterThan(IDLE_TIMEOUT_S * 1000 - 200);
      expect(end.ms).toBeLessThan(IDLE_TIMEOUT_S * 1000 + 3000);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const maxMs = sorted.at(-1) ?? Infinity;
    expect(latencies.length).toBeGreaterThan(10);
    expect(maxMs).toBeLessThan(1000);
    figures['slow'] = {
      clients: SLOW,
      timedOutWith32005: slowEnds.length,
      slowHeadsClosed: headEnds.length,
      honestCalls: latencies.length,
      honestP50Ms: Math.round(sorted[sorted.length >> 1] ?? 0),
      honestMaxMs: Math.round(maxMs),
    };
  }, 60_000);

  it(`${HEAVY} clients looping expensive calls: other calls do not wait for them`, async () => {
    const sampler = rssSampler(node.pid);
    const keys = slotKeys(1024);
    const end = performance.now() + HEAVY_MS;
    let expensive = 0;
    const heavy = Array.from({ length: HEAVY }, async () => {
      while (performance.now() < end) {
        // 1024 storage proofs: built, then refused as over --max-response-bytes.
        const a = await send({ body: call('eth_getProof', [node.accounts[0]!.address, keys, 'latest']) });
        expect(errorOf(a).code).toBe(-32008);
        expensive++;
      }
    });
    const latencies: number[] = [];
    const honest = (async () => {
      await new Promise((r) => setTimeout(r, 200));
      while (performance.now() < end) {
        const a = await blockNumber();
        expect(a.result, a.text).toMatch(/^0x/);
        latencies.push(a.ms);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await Promise.all([...heavy, honest]);
    rssPeak = Math.max(rssPeak, sampler.stop());
    const sorted = [...latencies].sort((a, b) => a - b);
    const maxMs = sorted.at(-1) ?? Infinity;
    expect(expensive).toBeGreaterThan(HEAVY);
    expect(latencies.length).toBeGreaterThan(10);
    expect(maxMs).toBeLessThan(1000);
    figures['expensive'] = { clients: HEAVY, calls: expensive, honestCalls: latencies.length, honestP50Ms: Math.round(sorted[sorted.length >> 1] ?? 0), honestMaxMs: Math.round(maxMs) };
  }, 60_000);

  it(`silent connections over --max-connections are refused with 503/-32005; the node serves again after --idle-timeout`, async () => {
    // Connections left from before (a client's kept-alive ones) are closed by now.
    await new Promise((r) => setTimeout(r, IDLE_TIMEOUT_S * 1000 + 500));
    const total = MAX_CONNECTIONS + OVER_CAP;
    const t0 = performance.now();
    const conns = Array.from({ length: total }, () => rawConnection({}));
    // Those over the cap are answered at once.
    await new Promise((r) => setTimeout(r, 500));
    const honestRefused = await send({ body: call('eth_blockNumber', []) });
    expect(honestRefused.status).toBe(503);
    expect(errorOf(honestRefused)).toMatchObject({ code: -32005, message: expect.stringMatching(new RegExp(`too many connections, at most ${MAX_CONNECTIONS} at once \\(--max-connections\\); try again later`)) });
    // Served again once the idle ones are closed.
    let servedAfterMs = NaN;
    for (let i = 0; i < 100; i++) {
      const a = await send({ body: call('eth_blockNumber', []) });
      if (a.status === 200) {
        expect(JSON.parse(a.text).result).toMatch(/^0x/);
        servedAfterMs = performance.now() - t0;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const ends = await Promise.all(conns.map((c) => c.closed));
    const refused = ends.filter((e) => e.data !== '');
    const closedSilently = ends.filter((e) => e.data === '');
    for (const e of refused) {
      tally.sent++;
      const a = parseRaw(e.data);
      expect(a.status).toBe(503);
      expect(errorOf(a).code).toBe(-32005);
      expect(e.ms).toBeLessThan(1500);
      tally.answered++;
    }
    tally.kinds.add('connection over --max-connections');
    expect(refused).toHaveLength(OVER_CAP);
    expect(closedSilently).toHaveLength(MAX_CONNECTIONS);
    for (const e of closedSilently) expect(e.ms).toBeLessThan(IDLE_TIMEOUT_S * 1000 + 3000);
    expect(servedAfterMs).toBeLessThan(IDLE_TIMEOUT_S * 1000 + 3000);
    figures['idle'] = { connections: total, refused503: refused.length, closedAfterIdleTimeout: closedSilently.length, honestServedAgainAfterMs: Math.round(servedAfterMs) };
  }, 60_000);

  it('clients that send a heavy batch and hang up cannot pile up calls beyond --max-connections', async () => {
    // Each round: connect, send a batch of 200 evm_mine calls (a call that is not on the
    // expensive list, and slow: each produces a block under the chain's write lock), hang up
    // 50 ms later. A handler cannot be interrupted, so a call outlives its client; the node must
    // still bound how many run or wait (--max-connections), however fast clients come back.
    const CAP = 4;
    const ROUNDS_HANGUP = sized(40, 120);
    const own = await startNode({ args: ['--engines', 'mpt', '--max-connections', String(CAP), '--request-timeout', '3s'] });
    try {
      const { hostname, port: p } = new URL(own.url);
      const threads = () => Number(/Threads:\s+(\d+)/.exec(fs.readFileSync(`/proc/${own.pid}/status`, 'utf8'))?.[1] ?? NaN);
      const batch = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'evm_mine', params: [] })));
      const request = `POST / HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(batch)}\r\n\r\n${batch}`;
      const before = rssMb(own.pid);
      const sampler = rssSampler(own.pid);
      let maxThreads = threads();
      for (let i = 0; i < ROUNDS_HANGUP; i++) {
        await new Promise<void>((resolve) => {
          // Leave 50 ms after sending: long enough for the node to read the body and start.
          const s = net.connect(Number(p), hostname, () => s.write(request, () => setTimeout(() => s.destroy(), 50)));
          s.on('close', () => resolve());
          s.on('error', () => resolve());
        });
        maxThreads = Math.max(maxThreads, threads());
      }
      // An honest call is answered within its request timeout while the abandoned ones drain.
      const t0 = performance.now();
      const res = await fetch(own.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: call('eth_blockNumber', []) });
      const honestMs = performance.now() - t0;
      const v = (await res.json()) as { result?: string; error?: { code: number } };
      expect(res.status === 200 ? v.result : v.error?.code, `status ${res.status}`).toBeDefined();
      const peak = sampler.stop();
      maxThreads = Math.max(maxThreads, threads());
      // Unbounded, every abandoned batch holds a blocking thread (40 rounds: 40+ threads);
      // bounded, at most CAP calls are alive at once.
      expect(peak - before, `RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MB`).toBeLessThan(60);
      expect(maxThreads, 'threads of the node').toBeLessThan(30);
      figures['hangups'] = { rounds: ROUNDS_HANGUP, maxConnections: CAP, rssBeforeMb: Math.round(before), rssPeakMb: Math.round(peak), maxThreads, honestMs: Math.round(honestMs) };
    } finally {
      await own.stop();
    }
  }, 120_000);

  it('the node is still up, answering, and its memory stayed bounded', async () => {
    const a = await blockNumber();
    expect(a.status).toBe(200);
    expect(a.result).toMatch(/^0x/);
    expect(() => process.kill(node.pid, 0)).not.toThrow();
    const rssAfter = rssMb(node.pid);
    expect(rssPeak - rssBefore, `RSS ${rssBefore.toFixed(0)} → peak ${rssPeak.toFixed(0)} MB`).toBeLessThan(RSS_GROWTH_MB);
    expect(rssAfter - rssBefore).toBeLessThan(RSS_GROWTH_MB);

    const seconds = (performance.now() - started) / 1000;
    const mb = (x: number) => Math.round(x);
    const slow = figures['slow'] as { clients: number; honestCalls: number; honestMaxMs: number };
    const heavy = figures['expensive'] as { clients: number; calls: number; honestMaxMs: number };
    const idle = figures['idle'] as { refused503: number; honestServedAgainAfterMs: number };
    lines.push(
      `hostile rpc: ${tally.sent.toLocaleString('en-US')} malformed requests in ${tally.kinds.size} kinds, ${tally.answered.toLocaleString('en-US')} answered with a JSON-RPC error naming the problem, ${tally.unanswered} unanswered; RSS ${mb(rssBefore)} → ${mb(rssAfter)} MB (peak ${mb(rssPeak)}); node up`,
      `slow clients: ${slow.clients} dribbling bodies timed out with -32005 after ${REQUEST_TIMEOUT_S} s while ${slow.honestCalls} honest calls took at most ${slow.honestMaxMs} ms; ${idle.refused503} connections over the cap refused with 503/-32005, honest client served again after ${(idle.honestServedAgainAfterMs / 1000).toFixed(1)} s`,
      `expensive calls: ${heavy.clients} clients sent ${heavy.calls} eth_getProof of 1024 keys while honest calls took at most ${heavy.honestMaxMs} ms (${seconds.toFixed(0)} s in all, ${MODE})`,
    );
    const hang = figures['hangups'] as { rounds: number; maxConnections: number; rssBeforeMb: number; rssPeakMb: number; maxThreads: number } | undefined;
    if (hang) {
      lines.push(
        `hang-ups: ${hang.rounds} clients sent a slow batch and left (--max-connections ${hang.maxConnections}): RSS ${hang.rssBeforeMb} → peak ${hang.rssPeakMb} MB, at most ${hang.maxThreads} threads`,
      );
    }
    Object.assign(figures, {
      requestsSent: tally.sent,
      answeredWithNamedError: tally.answered,
      unanswered: tally.unanswered,
      kinds: [...tally.kinds],
      rssMb: { before: mb(rssBefore), after: mb(rssAfter), peak: mb(rssPeak), hwm: mb(rssMb(node.pid, 'VmHWM')) },
      limits: { maxConnections: MAX_CONNECTIONS, maxBatch: MAX_BATCH, maxResponseBytes: MAX_RESPONSE, maxRequestBytes: 1 << 20, requestTimeoutS: REQUEST_TIMEOUT_S, idleTimeoutS: IDLE_TIMEOUT_S },
      seconds: Math.round(seconds),
    });
    writeFigures('hostile', lines, figures);
  });
});
