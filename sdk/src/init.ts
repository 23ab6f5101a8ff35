/**
 * Loads the WebAssembly verifier once. Call `await init()` before any verification; it is
 * cheap to call again (the load is cached) and safe to call concurrently.
 *
 * In browsers the `.wasm` file is fetched next to this module (bundlers such as Vite emit it
 * as an asset and compile it streaming); in Node it is read from disk.
 */
import initWasm, * as wasm from '../wasm/lightprov_verifier_wasm.js';

/** What `init` accepts instead of the bundled file: a URL, a Response, bytes or a compiled module. */
export type WasmSource = URL | string | Response | BufferSource | WebAssembly.Module;

let loading: Promise<void> | undefined;
let ready = false;

export function init(source?: WasmSource): Promise<void> {
  loading ??= (async () => {
    let input = source;
    if (input === undefined) {
      const url = new URL('../wasm/lightprov_verifier_wasm_bg.wasm', import.meta.url);
      if (url.protocol === 'file:') {
        const fs = 'node:fs/promises';
        const { readFile } = (await import(/* @vite-ignore */ fs)) as {
          readFile(path: URL): Promise<Uint8Array>;
        };
        input = await readFile(url);
      } else {
        input = url;
      }
    }
    await initWasm({ module_or_path: input });
    ready = true;
  })().catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

/** The wasm exports; throws if `init()` has not completed. */
export function verifier(): typeof wasm {
  if (!ready) throw new Error('lightprov: call `await init()` before verifying');
  return wasm;
}
