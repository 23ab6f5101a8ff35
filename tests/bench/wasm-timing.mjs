// What the wasm benches share: the proofs a Rust benchmark wrote, loading a module of the SDK
// from its files, and timing verifiers in alternating rounds.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The workspace root. */
export const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A family's wasm module as the SDK ships it (sdk/wasm/<family>), instantiated from its file. */
export async function loadModule(family) {
  const dir = path.join(root, 'sdk', 'wasm', family);
  const m = await import(path.join(dir, 'lightprov_verifier_wasm.js'));
  m.initSync({ module: fs.readFileSync(path.join(dir, 'lightprov_verifier_wasm_bg.wasm')) });
  return m;
}

/**
 * The proofs a Rust benchmark wrote to target/bench/`name`, parsed; when the file is missing, says
 * which benchmark (`what`, run as `--bench bench`) writes it and exits without measuring.
 */
export function proofsFile(name, what, bench) {
  const file = path.join(root, 'target', 'bench', name);
  if (!fs.existsSync(file)) {
    console.log(`no ${path.relative(root, file)}: run the ${what} first (cargo bench -p lightprov-node --bench ${bench})`);
    process.exit(0);
  }
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/**
 * Median µs per call of each function (called with the call's index) over `rounds` alternating
 * rounds of about `roundMs` each, after a warm-up of `warmMs` per function that sizes the rounds.
 */
export function timeAlternating(fns, { rounds = 9, roundMs = 120, warmMs = 300 } = {}) {
  const sizes = fns.map((f) => {
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < warmMs) (f(n++), 0);
    return Math.max(5, Math.round((n / warmMs) * roundMs));
  });
  const samples = fns.map(() => []);
  for (let r = 0; r < rounds; r++) {
    fns.forEach((f, k) => {
      const t0 = performance.now();
      for (let i = 0; i < sizes[k]; i++) f(i);
      samples[k].push(((performance.now() - t0) * 1000) / sizes[k]);
    });
  }
  return samples.map((xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
}
