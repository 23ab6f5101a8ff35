// lightprov-node for the benchmarks: start it on a data directory (port chosen by the OS), call
// it, stop it by its PID.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The node binary: LIGHTPROV_NODE_BIN, or the release build. */
export const NODE_BIN = process.env.LIGHTPROV_NODE_BIN ?? path.join(ROOT, 'target', 'release', 'lightprov-node');

/** Starts `bin` on `dataDir` with `args`; resolves once it listens, with what it printed. */
export function startNode(bin, dataDir, args) {
  const child = spawn(bin, ['--data-dir', dataDir, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, RUST_LOG: 'warn' } });
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (c) => {
      buf += c;
      const info = Object.fromEntries([...buf.matchAll(/^(genesis hash|signer|json-rpc)\s+(\S+)/gm)].map((m) => [m[1], m[2]]));
      if (info['json-rpc']) resolve({ url: info['json-rpc'], genesisHash: info['genesis hash'], signer: info['signer'], pid: child.pid, exited: new Promise((r) => child.once('exit', r)) });
    });
    child.once('exit', (code) => reject(new Error(`lightprov-node exited (${code})`)));
  });
}

/** One JSON-RPC call; a JSON-RPC error throws. */
export async function rpc(url, method, params) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const j = await res.json();
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
}

/** Stops the node (SIGTERM to its PID) and waits for it to exit. */
export async function stopNode(node) {
  process.kill(node.pid, 'SIGTERM');
  await node.exited;
}

/** Waits until the node's head reaches `blocks`. */
export async function waitForBlocks(node, blocks) {
  while (Number(await rpc(node.url, 'eth_blockNumber', [])) < blocks) await new Promise((r) => setTimeout(r, 50));
}

/** Fills a chain: `start(['--block-time', '5ms'])`, until the head reaches `blocks`, then stops the node; the seconds the blocks took. */
export async function fillChain(start, blocks) {
  const node = await start(['--block-time', '5ms']);
  const t0 = Date.now();
  await waitForBlocks(node, blocks);
  await stopNode(node);
  return (Date.now() - t0) / 1000;
}
