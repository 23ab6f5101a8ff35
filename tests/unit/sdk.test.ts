import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

import {
  LightClient,
  LvmtParams,
  RpcError,
  VerificationError,
  encodeHeader,
  hexToBytes,
  init,
  isVerificationError,
  verifyAccountProof,
  verifyColeHistory,
  verifyHeader,
  verifyMptProof,
} from '@lightprov/sdk';
import { beforeAll, describe, expect, it } from 'vitest';

import { thrown } from '../lib/util.js';
import { VECTORS } from './load.js';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const source = JSON.parse(fs.readFileSync(path.join(VECTORS, 'mpt', 'sources', 'mainnet-eoa-500000.json'), 'utf8')) as Record<string, unknown> & {
  stateRoot: string;
};
const header = (JSON.parse(fs.readFileSync(path.join(VECTORS, 'mpt', 'sources', 'headers', 'mainnet-500000.json'), 'utf8')) as { header: Record<string, string> }).header;

describe('before init()', () => {
  // Runs first in this file; vitest isolates test files, so the wasm is not loaded yet.
  it('verification refuses to run and says why', () => {
    expect(() => verifyAccountProof(source, source.stateRoot)).toThrow(/await init\(\)/);
  });
});

describe('SDK edges', () => {
  beforeAll(() => init());

  it('init() is idempotent and concurrent-safe', async () => {
    const [a, b] = [init(), init()];
    expect(a).toBe(b);
    await a;
  });

  it('verifies a real proof and returns bigints', () => {
    const a = verifyAccountProof(source, source.stateRoot);
    expect(a.nonce).toBe(8n);
    expect(typeof a.balance).toBe('bigint');
    expect(a.exists).toBe(true);
  });

  it('throws TypeError / RangeError for caller mistakes, naming the argument', () => {
    expect(thrown(() => verifyAccountProof(source, 42 as unknown as string))).toBeInstanceOf(TypeError);
    const short = thrown(() => verifyAccountProof(source, '0x1234'));
    expect(short).toBeInstanceOf(RangeError);
    expect(String(short)).toMatch(/stateRoot/);
    expect(thrown(() => verifyMptProof(source.stateRoot, 'nope' as unknown as Uint8Array, [], null))).toBeInstanceOf(TypeError);
    expect(thrown(() => verifyHeader(header, new Uint8Array(31)))).toBeInstanceOf(RangeError);
    const root = source.stateRoot;
    expect(thrown(() => verifyMptProof(root, new Uint8Array(33), [], null))).toBeInstanceOf(RangeError);
    expect(thrown(() => verifyMptProof(root, new Uint8Array(32), [], '0x01' as unknown as Uint8Array))).toBeInstanceOf(TypeError);
    expect(thrown(() => verifyMptProof(root, new Uint8Array(32), [], 0 as unknown as Uint8Array))).toBeInstanceOf(TypeError);
  });

  it('refuses more storage proofs than the wire format counts, naming the field', () => {
    const slot = { key: '0x1', value: '0x0', proof: [] };
    const e = thrown(() => verifyAccountProof({ ...source, storageProof: Array(65536).fill(slot) }, source.stateRoot));
    expect(isVerificationError(e, 'BAD_ENCODING')).toBe(true);
    expect((e as VerificationError).field).toBe('storageProof');
  });

  it('rejects malformed network data as BAD_ENCODING naming the field', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...source, nonce: '0x10000000000000000' }, 'nonce'],
      [{ ...source, balance: '0x1' + '0'.repeat(64) }, 'balance'],
      [{ ...source, balance: '0x' }, 'balance'],
      [{ ...source, balance: '0x１' }, 'balance'],
      [{ ...source, codeHash: 'c5d2' }, 'codeHash'],
      [{ ...source, accountProof: 'nope' }, 'accountProof'],
      [{ ...source, accountProof: ['0xzz'] }, 'accountProof[0]'],
      [{ ...source, storageProof: [{ key: '0x1', value: '0x0' }] }, 'storageProof[0].proof'],
      [{ ...source, storageProof: [null] }, 'storageProof[0]'],
    ];
    for (const [p, field] of cases) {
      const e = thrown(() => verifyAccountProof(p, source.stateRoot));
      expect(isVerificationError(e, 'BAD_ENCODING'), `${field}: ${String(e)}`).toBe(true);
      expect((e as VerificationError).field).toBe(field);
    }
    expect(isVerificationError(thrown(() => verifyAccountProof(null, source.stateRoot)), 'BAD_ENCODING')).toBe(true);
  });

  it('hex decoding accepts either case and rejects characters outside ASCII hex', () => {
    expect(hexToBytes('0xAbCd', 'x')).toEqual(Uint8Array.of(0xab, 0xcd));
    expect(hexToBytes('0XaB', 'x')).toEqual(Uint8Array.of(0xab));
    for (const bad of ['0xgg', '0x\u0130a', 'ab', '0x0', 0x12]) {
      expect(isVerificationError(thrown(() => hexToBytes(bad, 'x')), 'BAD_ENCODING')).toBe(true);
    }
  });

  it('verifyHeader returns the fields of the header it hashed', () => {
    const h = verifyHeader(header, header['hash'] as string);
    expect(h.layout).toBe('frontier');
    expect(h.number).toBe(500000n);
    expect(h.stateRoot).toBe(source.stateRoot);
    expect(encodeHeader(header).rlp[0]).toBe(0xf9);
  });

  it('error classes carry their codes and are distinguishable', () => {
    const e = new VerificationError('ROOT_MISMATCH', 'x', { field: 'accountProof' });
    expect(isVerificationError(e)).toBe(true);
    expect(isVerificationError(e, 'VALUE_MISMATCH')).toBe(false);
    expect(e.name).toBe('VerificationError');
    const r = new RpcError('eth_getProof', -32000, 'boom');
    expect(isVerificationError(r)).toBe(false);
    expect(r.message).toBe('eth_getProof: boom');
  });

  it('an HTTP refusal keeps the JSON-RPC error the node sent with it', async () => {
    const refuse = (status: number, body: string) => async () => new Response(body, { status, headers: { 'content-type': 'application/json' } });
    const trust = { genesisHash: '0x' + '11'.repeat(32), signers: ['0x' + '22'.repeat(20)] };
    const busy = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32005, message: 'too many connections, at most 100 at once' } });
    const e = await LightClient.connect({ rpc: 'http://127.0.0.1:1', trust, fetch: refuse(503, busy) }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RpcError);
    expect((e as RpcError).code).toBe(-32005);
    expect((e as RpcError).message).toMatch(/HTTP 503 from http:\/\/127\.0\.0\.1:1: too many connections/);
    // Without a JSON-RPC error in the body: the status alone, code -1.
    const bare = await LightClient.connect({ rpc: 'http://127.0.0.1:1', trust, fetch: refuse(502, '<html>bad gateway</html>') }).catch((x: unknown) => x);
    expect(bare).toBeInstanceOf(RpcError);
    expect((bare as RpcError).code).toBe(-1);
    expect((bare as RpcError).message).toMatch(/HTTP 502 from http:\/\/127\.0\.0\.1:1$/);
  });

  it("a node's error text reaches message printable and cut (control and bidi characters out, 200 characters at most), whole in nodeMessage", async () => {
    const trust = { genesisHash: '0x' + '11'.repeat(32), signers: ['0x' + '22'.repeat(20)] };
    const text = 'block not found\u001b[2J\u202eevila.com\n' + 'x'.repeat(400);
    const answer = async () => new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: text } }), { headers: { 'content-type': 'application/json' } });
    const e = (await LightClient.connect({ rpc: 'http://127.0.0.1:1', trust, fetch: answer }).catch((x: unknown) => x)) as RpcError;
    expect(e).toBeInstanceOf(RpcError);
    expect(e.message).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(e.message).toMatch(/block not found \[2J evila\.com x+…$/);
    expect(e.message.length).toBeLessThan(260);
    expect(e.nodeMessage).toBe(text);
  });
});

describe('bounded and pinned inputs', () => {
  const lvmtVector = JSON.parse(fs.readFileSync(path.join(VECTORS, 'lvmt', 'valid', 'history-0.json'), 'utf8')) as { inputs: { params: string } };
  const paramsHex = lvmtVector.inputs.params;

  it('LvmtParams.fromBytes refuses parameters without a pinned id (whoever knows their τ forges every proof)', () => {
    const e = thrown(() => (LvmtParams.fromBytes as (b: string, id?: string) => LvmtParams)(paramsHex));
    expect(e).toBeInstanceOf(TypeError);
    expect((e as Error).message).toMatch(/^pinnedId: required/);
  });

  it('LvmtParams.fromBytes takes parameters whose id is the pinned one, and no others', () => {
    const shipped = LvmtParams.shipped(paramsHex);
    expect(LvmtParams.fromBytes(paramsHex, shipped.id).id).toBe(shipped.id);
    const e = thrown(() => LvmtParams.fromBytes(paramsHex, '0x' + '11'.repeat(32)));
    expect(isVerificationError(e) && e.code).toBe('ROOT_MISMATCH');
    expect(thrown(() => LvmtParams.fromBytes(paramsHex, '0x1234'))).toBeInstanceOf(RangeError);
  });

  /** A COLE proof of `n` skipped structures: version, key, lo, hi, fanout, count, parts. */
  const coleProof = (n: number): Uint8Array => {
    const b = new Uint8Array(1 + 32 + 8 + 8 + 1 + 2 + n * 33);
    b[0] = 1;
    b[48] = 9; // hi = 9
    b[49] = 4; // fanout
    b[50] = n >> 8;
    b[51] = n & 0xff;
    for (let i = 0; i < n; i++) b[52 + i * 33] = 2;
    return b;
  };
  const coleArgs = (proof: Uint8Array) => ({
    coleRoot: '0x' + '00'.repeat(32),
    siblingRoot: '0x' + '00'.repeat(32),
    scheme: 'cole' as const,
    stateKey: '0x' + '00'.repeat(32),
    fromBlock: 0n,
    toBlock: 9n,
    proof,
  });

  it('a COLE proof holds at most 1024 parts (docs/proofs.md): 1025 is refused while decoding, naming count', () => {
    const over = thrown(() => verifyColeHistory(coleArgs(coleProof(1025))));
    expect(isVerificationError(over) && [over.code, over.field]).toEqual(['BAD_ENCODING', 'proof.count']);
    // 1024 decodes: what rejects it is the root, not the decoder.
    const at = thrown(() => verifyColeHistory(coleArgs(coleProof(1024))));
    expect(isVerificationError(at) && at.code).not.toBe('BAD_ENCODING');
  });
});

describe('wasm size budget', () => {
  // A budget, not a speed: the MPT module must stay small enough for a page to load.
  it('the MPT module (post-bindgen wasm) is at most 40 KB gzip', () => {
    const f = path.join(repo, 'sdk', 'wasm', 'mpt', 'lightprov_verifier_wasm_bg.wasm');
    const gz = zlib.gzipSync(fs.readFileSync(f), { level: 9 }).length;
    expect(gz).toBeLessThanOrEqual(40 * 1024);
  });
});
