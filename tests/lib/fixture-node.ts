/**
 * A JSON-RPC node on 127.0.0.1 that answers from recorded mainnet data (tests/vectors/mpt/sources):
 * `eth_getBlockByHash` and `eth_getProof` for the blocks and accounts recorded there. A `lie` hook
 * lets a test rewrite any answer, to play a dishonest node.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { AccountProofJson } from '@lightprov/sdk';

const SOURCES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'vectors', 'mpt', 'sources');

/** A recorded `eth_getProof` answer, with the block it was taken at. */
type ProofSource = AccountProofJson & { blockHash?: string | null };

export type Lie = (method: string, params: unknown[], answer: unknown) => unknown;

export interface FixtureNode {
  url: string;
  lie: Lie | undefined;
  calls: string[];
  close(): Promise<void>;
}

function loadData() {
  const blocks = new Map<string, Record<string, unknown>>();
  for (const f of fs.readdirSync(path.join(SOURCES, 'headers'))) {
    const { header } = JSON.parse(fs.readFileSync(path.join(SOURCES, 'headers', f), 'utf8')) as { header: Record<string, unknown> };
    blocks.set(String(header['hash']).toLowerCase(), header);
  }
  const proofs = new Map<string, ProofSource>();
  for (const f of fs.readdirSync(SOURCES).filter((x) => x.endsWith('.json'))) {
    const p = JSON.parse(fs.readFileSync(path.join(SOURCES, f), 'utf8')) as ProofSource;
    if (p.blockHash) proofs.set(`${p.blockHash.toLowerCase()}:${p.address.toLowerCase()}`, p);
  }
  return { blocks, proofs };
}

const pad32 = (k: string): string => '0x' + BigInt(k).toString(16).padStart(64, '0');

export async function startFixtureNode(): Promise<FixtureNode> {
  const { blocks, proofs } = loadData();
  const node: FixtureNode = { url: '', lie: undefined, calls: [], close: async () => {} };

  const answer = (method: string, params: unknown[]): unknown => {
    switch (method) {
      case 'eth_chainId':
        return '0x1';
      case 'eth_getBlockByHash':
        return blocks.get(String(params[0]).toLowerCase()) ?? null;
      case 'eth_getProof': {
        const [address, keys, tag] = params as [string, string[], { blockHash: string }];
        const p = proofs.get(`${tag.blockHash.toLowerCase()}:${address.toLowerCase()}`);
        if (!p) throw Object.assign(new Error('no recorded proof for this account and block'), { code: -32001 });
        const storageProof = keys.map((k) => {
          const s = p.storageProof.find((x) => pad32(x.key) === pad32(k));
          if (!s) throw Object.assign(new Error(`no recorded proof for slot ${k}`), { code: -32001 });
          return s;
        });
        const { blockHash: _drop, ...rest } = p;
        const out = { ...rest, storageProof } as Record<string, unknown>;
        for (const k of ['source', 'chain', 'blockNumber', 'stateRoot', 'notes', 'headerRlp']) delete out[k];
        return out;
      }
      default:
        throw Object.assign(new Error(`method ${method} not found`), { code: -32601 });
    }
  };

  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const reqs = JSON.parse(body) as { id: number; method: string; params: unknown[] } | { id: number; method: string; params: unknown[] }[];
      const one = (r: { id: number; method: string; params: unknown[] }) => {
        node.calls.push(r.method);
        try {
          const a = answer(r.method, r.params);
          return { jsonrpc: '2.0', id: r.id, result: node.lie ? node.lie(r.method, r.params, structuredClone(a)) : a };
        } catch (e) {
          const err = e as Error & { code?: number };
          return { jsonrpc: '2.0', id: r.id, error: { code: err.code ?? -32000, message: err.message } };
        }
      };
      const out = Array.isArray(reqs) ? reqs.map(one) : one(reqs);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node.close = () => new Promise((resolve) => server.close(() => resolve()));
  return node;
}
