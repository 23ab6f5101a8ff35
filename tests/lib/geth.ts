/**
 * Starts geth (`--dev`: a one-node chain with a simulated beacon and a funded, unlocked dev
 * account) on a free loopback port with a temporary data directory, and stops it by its PID.
 * `scripts/setup` builds the pinned version into `.tools/`; `LIGHTPROV_GETH_BIN` names another
 * binary.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { byLine } from './node-process.js';
import { rpc } from './util.js';

export const GETH_VERSION = '1.17.10';
const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where scripts/setup builds the pinned geth. */
const SETUP_GETH = path.join(repo, '.tools', `geth-v${GETH_VERSION}`, 'geth');
export const GETH_BIN = process.env.LIGHTPROV_GETH_BIN ?? SETUP_GETH;

/** The namespaces a test geth serves unless told otherwise (`dev`: `dev_addWithdrawal`). */
export const GETH_APIS = ['eth', 'debug', 'net', 'web3', 'dev'];

export interface RunningGeth {
  url: string;
  pid: number;
  dataDir: string;
  /** The funded, unlocked dev account (`eth_accounts[0]`). */
  dev: string;
  output: string[];
  /** SIGTERM (or SIGKILL), then wait for the exit; removes the data directory. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Throws a clear error when the pinned geth is not installed. */
export function requireGeth(): void {
  const why = `geth ${GETH_VERSION} is needed for the tests against a real execution client: run scripts/setup (it builds ${SETUP_GETH}), or set LIGHTPROV_GETH_BIN to a geth ${GETH_VERSION}`;
  if (!fs.existsSync(GETH_BIN)) throw new Error(`${why}; ${GETH_BIN} does not exist`);
  const v = spawnSync(GETH_BIN, ['version'], { encoding: 'utf8' });
  if (!new RegExp(`^Version: ${GETH_VERSION.replace(/\./g, '\\.')}-`, 'm').test(v.stdout ?? '')) {
    throw new Error(`${why}; ${GETH_BIN} is ${(/^Version: (\S+)/m.exec(v.stdout ?? '') ?? [])[1] ?? 'not a geth that answers `version`'}`);
  }
}

/** geth's dev account: the address of its fixed developer key, which `--dev` imports. */
export const GETH_DEV_ACCOUNT = '0x71562b71999873db5b286df957af199ec94617f7';

/**
 * Which rules a test geth runs. `osaka` (the default): geth --dev's own genesis with its later
 * fork (`bogotaTime`, Amsterdam's rules in geth 1.17.10) left out, written with `geth init`,
 * so the chain runs Osaka from block 0 — the last fork the SDK's EVM implements, so verified
 * calls and geth's own `eth_call` run the same rules. `dev`: geth --dev as it comes (Osaka, then
 * Bogota, at block 0).
 */
export type GethFork = 'osaka' | 'dev';

/** geth --dev's genesis, pinned to Osaka, with the dev account funded as --dev funds it. */
export function osakaGenesis(): { config: Record<string, unknown> } & Record<string, unknown> {
  const dumped = spawnSync(GETH_BIN, ['--dev', 'dumpgenesis'], { encoding: 'utf8' });
  if (dumped.status !== 0) throw new Error(`geth --dev dumpgenesis failed: ${dumped.stderr}`);
  const genesis = JSON.parse(dumped.stdout) as { config: Record<string, unknown>; alloc: Record<string, unknown> } & Record<string, unknown>;
  delete genesis.config['bogotaTime'];
  genesis.alloc[GETH_DEV_ACCOUNT.slice(2)] = { balance: '0x' + ((1n << 256n) - 9n).toString(16) };
  // Header fields of later forks that geth's dump writes as null: not in an Osaka genesis.
  for (const k of Object.keys(genesis)) if (genesis[k] === null) delete genesis[k];
  return genesis;
}

/** The chain config of the `osaka` geth, for `LightClient.connect({ chainConfig })`. */
export function osakaChainConfig(): Record<string, unknown> {
  return osakaGenesis().config;
}

/**
 * Starts `geth --dev`. `period` 0 (the default) seals a block whenever transactions or
 * withdrawals arrive; `apis` are the HTTP namespaces; `fork` the rules (see {@link GethFork}).
 */
export async function startGeth(opts: { apis?: readonly string[]; period?: number; args?: readonly string[]; startTimeoutMs?: number; fork?: GethFork } = {}): Promise<RunningGeth> {
  requireGeth();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lightprov-geth-'));
  if ((opts.fork ?? 'osaka') === 'osaka') {
    const file = path.join(dataDir, 'genesis.json');
    fs.writeFileSync(file, JSON.stringify(osakaGenesis()));
    const init = spawnSync(GETH_BIN, ['init', '--datadir', dataDir, file], { encoding: 'utf8' });
    if (init.status !== 0) {
      fs.rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`geth init failed: ${init.stderr.split('\n').slice(-5).join('\n')}`);
    }
  }
  const args = [
    '--dev',
    '--dev.period',
    String(opts.period ?? 0),
    '--datadir',
    dataDir,
    '--ipcdisable',
    '--http',
    '--http.addr',
    '127.0.0.1',
    // Port 0: the kernel picks a free one, which geth logs.
    '--http.port',
    '0',
    '--http.api',
    (opts.apis ?? GETH_APIS).join(','),
    '--verbosity',
    '3',
    ...(opts.args ?? []),
  ];
  const child: ChildProcess = spawn(GETH_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`geth did not start:\n${output.slice(-30).join('\n')}`)), opts.startTimeoutMs ?? 60_000);
    const onData = byLine((line) => {
      if (output.length < 2000) output.push(line);
      const m = /HTTP server started\s+endpoint=(127\.0\.0\.1:\d+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(`http://${m[1]}`);
      }
    });
    // geth logs to stderr.
    child.stderr?.on('data', onData);
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`geth exited with ${code}:\n${output.slice(-30).join('\n')}`));
    });
  });
  const pid = child.pid as number;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) process.kill(pid, signal);
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const [dev] = (await rpc(url, 'eth_accounts', [])) as string[];
    if (!dev) throw new Error('geth --dev has no dev account');
    return { url, pid, dataDir, dev, output, stop };
  } catch (e) {
    await stop('SIGKILL');
    throw e;
  }
}

/** Polls until `hash` has a receipt (geth --dev seals on demand), and returns it. */
export async function receiptOf(url: string, hash: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    // Right after start, geth answers "transaction indexing is in progress" for a while.
    const r = (await rpc(url, 'eth_getTransactionReceipt', [hash]).catch((e: Error) => {
      if (/indexing is in progress/.test(e.message)) return null;
      throw e;
    })) as Record<string, unknown> | null;
    if (r) return r;
    if (Date.now() > until) throw new Error(`no receipt for ${hash} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `eth_sendTransaction` from the dev account; waits for its receipt. */
export async function devSend(g: RunningGeth, tx: Record<string, unknown>): Promise<Record<string, unknown>> {
  const hash = (await rpc(g.url, 'eth_sendTransaction', [{ from: g.dev, ...tx }])) as string;
  return receiptOf(g.url, hash);
}

/** The head as a checkpoint, taken from geth (as a user takes one from a source they trust). */
export async function checkpointOf(url: string, block: string = 'latest'): Promise<{ number: bigint; hash: string }> {
  const b = (await rpc(url, 'eth_getBlockByNumber', [block, false])) as { number: string; hash: string };
  return { number: BigInt(b.number), hash: b.hash };
}
