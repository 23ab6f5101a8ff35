/**
 * The test contracts, compiled: ABI and bytecode as checked in under build/ (written by
 * compile.mjs from src/ with the pinned solc; tests/unit/contracts.test.ts checks they equal a
 * fresh compile).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type ContractName = 'Child' | 'Emitter' | 'Multicall' | 'Probe' | 'Store' | 'Token';

export interface Artifact {
  contractName: ContractName;
  source: string;
  compiler: string;
  abi: readonly Record<string, unknown>[];
  /** Creation code (constructor arguments are appended ABI-encoded). */
  bytecode: string;
  deployedBytecode: string;
}

const BUILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'build');

export function artifact(name: ContractName): Artifact {
  return JSON.parse(fs.readFileSync(path.join(BUILD, `${name}.json`), 'utf8')) as Artifact;
}
