/**
 * Starts `lightprov-node` (the debug build in target/) on a free loopback port with its own data
 * directory, and stops it by its PID.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const NODE_BIN = process.env.LIGHTPROV_NODE_BIN ?? path.join(repo, 'target', 'debug', 'lightprov-node');

export interface RunningNode {
  url: string;
  pid: number;
  dataDir: string;
  genesisHash: string;
  signer: string;
  /** Dev accounts: address and private key. */
  accounts: { address: string; key: string }[];
  output: string[];
  /** SIGTERM (or SIGKILL), then wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A `data` listener that calls `onLine` with each complete line of a child's output. */
export function byLine(onLine: (line: string) => void): (chunk: Buffer) => void {
  let buffer = '';
  return (chunk) => {
    buffer += chunk.toString();
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      onLine(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
  };
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'lightprov-node-'));
}

/** Where test nodes cache LVMT's derived tables (shared by every test node). */
export const LVMT_TABLES = path.join(repo, 'target', 'lvmt-tables');

/**
 * Starts a node. Unless `args` say otherwise: blocks on demand, and LVMT at depth 8 (cheap
 * tables; tests of D = 16 pass `--lvmt-depth 16` and a longer `startTimeoutMs`).
 */
export async function startNode(opts: { dataDir?: string; args?: string[]; startTimeoutMs?: number } = {}): Promise<RunningNode> {
  const dataDir = opts.dataDir ?? tempDataDir();
  const extra = opts.args ?? [];
  const defaults = [
    ...(extra.includes('--block-time') ? [] : ['--block-time', '0']),
    ...(extra.includes('--lvmt-depth') ? [] : ['--lvmt-depth', '8']),
    ...(extra.includes('--lvmt-tables') ? [] : ['--lvmt-tables', LVMT_TABLES]),
  ];
  const child: ChildProcess = spawn(NODE_BIN, ['--data-dir', dataDir, '--port', '0', ...defaults, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RUST_LOG: 'warn' },
  });
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const info = await new Promise<Record<string, string>>((resolve, reject) => {
    const fields: Record<string, string> = {};
    const accounts: string[] = [];
    const timer = setTimeout(() => reject(new Error(`lightprov-node did not start:\n${output.join('\n')}`)), opts.startTimeoutMs ?? 30_000);
    const onData = byLine((line) => {
      output.push(line);
      const m = /^(genesis hash|signer|json-rpc)\s+(\S+)/.exec(line);
      if (m) fields[m[1] as string] = m[2] as string;
      const a = /^account \d+\s+(0x[0-9a-fA-F]{40}) key (0x[0-9a-f]{64})/.exec(line);
      if (a) accounts.push(`${a[1]} ${a[2]}`);
      if (fields['json-rpc']) {
        clearTimeout(timer);
        fields['accounts'] = accounts.join(',');
        resolve(fields);
      }
    });
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
    child.once('exit', (code) => reject(new Error(`lightprov-node exited with ${code}:\n${output.join('\n')}`)));
  });
  const pid = child.pid as number;
  return {
    url: info['json-rpc'] as string,
    pid,
    dataDir,
    genesisHash: info['genesis hash'] as string,
    signer: info['signer'] as string,
    accounts: (info['accounts'] as string).split(',').map((s) => {
      const [address, key] = s.split(' ') as [string, string];
      return { address, key };
    }),
    output,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) process.kill(pid, signal);
      await exited;
    },
  };
}
