#!/usr/bin/env node
/**
 * Compiles the test contracts (src/*.sol) with the pinned solc from npm and writes each one's ABI
 * and bytecode to build/<Name>.json. `--check` compiles and compares with the files instead
 * (exit 1 on any difference); tests/unit/contracts.test.ts runs the same comparison.
 *
 *   node tests/contracts/compile.mjs          # after changing a source
 *   node tests/contracts/compile.mjs --check
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import solc from 'solc';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
export const SRC = path.join(here, 'src');
export const BUILD = path.join(here, 'build');
/** The EVM the bytecode targets: geth --dev runs later forks, which keep Prague's opcodes. */
export const EVM_VERSION = 'prague';

/** Imports of npm packages (`@openzeppelin/contracts/...`), read from node_modules. */
function findImports(name) {
  try {
    return { contents: fs.readFileSync(require.resolve(name), 'utf8') };
  } catch (e) {
    return { error: `${name}: ${e.message}` };
  }
}

/** Every contract of src/, as the JSON written to build/ (sorted keys: stable diffs). */
export function compile() {
  const sources = Object.fromEntries(
    fs
      .readdirSync(SRC)
      .filter((f) => f.endsWith('.sol'))
      .sort()
      .map((f) => [f, { content: fs.readFileSync(path.join(SRC, f), 'utf8') }]),
  );
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: EVM_VERSION,
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contracts = {};
  for (const file of Object.keys(sources)) {
    for (const [name, c] of Object.entries(out.contracts[file] ?? {})) {
      contracts[name] = {
        contractName: name,
        source: `src/${file}`,
        compiler: `solc ${solc.version()}`,
        evmVersion: EVM_VERSION,
        abi: c.abi,
        bytecode: '0x' + c.evm.bytecode.object,
        deployedBytecode: '0x' + c.evm.deployedBytecode.object,
      };
    }
  }
  return Object.fromEntries(Object.entries(contracts).map(([name, c]) => [`${name}.json`, JSON.stringify(c, null, 2) + '\n']));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = compile();
  if (process.argv.includes('--check')) {
    const have = fs.readdirSync(BUILD).filter((f) => f.endsWith('.json')).sort();
    const stale = [...new Set([...have, ...Object.keys(files)])].filter((f) => !fs.existsSync(path.join(BUILD, f)) || fs.readFileSync(path.join(BUILD, f), 'utf8') !== files[f]);
    if (stale.length > 0) {
      console.error(`contracts: build/ differs from a fresh compile: ${stale.join(', ')} (run node tests/contracts/compile.mjs)`);
      process.exit(1);
    }
    console.log(`contracts: build/ equals a fresh compile (${have.length} contracts)`);
  } else {
    fs.mkdirSync(BUILD, { recursive: true });
    for (const f of fs.readdirSync(BUILD)) if (f.endsWith('.json') && !(f in files)) fs.rmSync(path.join(BUILD, f));
    for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(BUILD, f), text);
    console.log(`contracts: wrote ${Object.keys(files).join(', ')} to build/`);
  }
}
