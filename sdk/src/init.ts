/**
 * Loads the WebAssembly verifiers: one module per proof family (`header`, `mpt`, `cole`,
 * `lvmt`, `forkless`, `beacon`), each on first use and once. An app that verifies only MPT
 * proofs downloads only the MPT module (and the header module, if it follows headers with
 * `LightClient`). A page that asks for several families at once (`await init()`, or
 * `init({ families })`) gets the module with every family instead when that is the smaller
 * download (sizes from the build). A family outside that module ({@link IN_ALL}: the beacon
 * light client, whose BLS12-381 would weigh on every page) loads from its own module, and only
 * when named.
 *
 * `await init()` loads every family of {@link IN_ALL}; `await init({ families: ['mpt'] })`
 * only those named.
 * `LightClient` loads what it needs by itself. Verification is synchronous once a family's
 * module is loaded.
 *
 * In browsers each `.wasm` file is fetched next to this module (bundlers such as Vite emit it as
 * an asset and compile it streaming); in Node it is read from disk.
 */
import { GZIP_BYTES, IN_ALL, LOADERS, WASM_FAMILIES, type WasmFamily, type WasmModuleName, type WasmModules } from '../wasm/modules.js';

// The modules, their loaders and their types come from sdk/wasm/modules.js, which the build
// writes from the features of crates/verifier-wasm: one module per family, and `all`.
export { IN_ALL, WASM_FAMILIES };
export type { WasmFamily, WasmModuleName, WasmModules };

/** What `init` accepts instead of a bundled file: a URL, a Response, bytes or a compiled module. */
export type WasmSource = URL | string | Response | BufferSource | WebAssembly.Module;

/**
 * The modules to download for `families`, given those already loaded (or loading): each
 * missing family's own module, or the module with every family when that is fewer bytes for
 * those it carries; a family `all` does not carry ({@link IN_ALL}) always gets its own.
 */
export function modulesFor(families: readonly WasmFamily[], loaded: ReadonlySet<WasmFamily> = new Set()): WasmModuleName[] {
  const missing = [...new Set(families)].filter((f) => !loaded.has(f));
  const shared = missing.filter((f) => IN_ALL.includes(f));
  const own = missing.filter((f) => !IN_ALL.includes(f));
  const separate = shared.reduce((n, f) => n + GZIP_BYTES[f], 0);
  return shared.length > 1 && GZIP_BYTES.all < separate ? ['all', ...own] : missing;
}

const loading = new Map<WasmFamily, Promise<void>>();
const ready: Partial<WasmModules> = {};

/** Options of {@link init}. */
export interface InitOptions {
  /** The families to load (default: those of {@link IN_ALL}). */
  families?: readonly WasmFamily[];
  /** Where to get a module's `.wasm` instead of next to this module. */
  locate?: (module: WasmModuleName) => WasmSource | undefined;
}

let locate: InitOptions['locate'];

/** A `.wasm` next to a module: the URL in browsers, the file's bytes in Node. */
export async function read(url: URL): Promise<WasmSource> {
  if (url.protocol !== 'file:') return url;
  const fs = 'node:fs/promises';
  const { readFile } = (await import(/* @vite-ignore */ fs)) as { readFile(path: URL): Promise<Uint8Array> };
  return readFile(url);
}

/** Downloads and instantiates one module, then serves `families` from it. */
function loadModule(name: WasmModuleName, families: readonly WasmFamily[]): Promise<void> {
  const loader = LOADERS[name];
  const p = (async () => {
    const glue = await loader.glue();
    await glue.default({ module_or_path: locate?.(name) ?? (await read(loader.wasm())) });
    for (const f of families) (ready as Record<WasmFamily, unknown>)[f] = glue;
  })();
  for (const f of families) {
    const mine = p.catch((e: unknown) => {
      if (loading.get(f) === mine) loading.delete(f);
      throw e;
    });
    mine.catch(() => undefined); // awaited by whoever asked for `f`; not an unhandled rejection
    loading.set(f, mine);
  }
  return p;
}

function checkFamily(family: unknown): asserts family is WasmFamily {
  if (!WASM_FAMILIES.includes(family as WasmFamily)) throw new TypeError(`family: no wasm module is named ${JSON.stringify(family)}`);
}

/** Loads the modules of `families` (each once; concurrent calls share the load). */
function loadFamilies(families: readonly WasmFamily[]): Promise<void> {
  try {
    families.forEach(checkFamily);
  } catch (e) {
    return Promise.reject(e);
  }
  for (const m of modulesFor(families, new Set(loading.keys()))) {
    loadModule(m, m === 'all' ? IN_ALL.filter((f) => !loading.has(f)) : [m]).catch(() => undefined);
  }
  return Promise.all(families.map((f) => loading.get(f))).then(() => undefined);
}

/** Loads one family's module (once; concurrent calls share the load). */
export function loadFamily(family: WasmFamily): Promise<void> {
  return loadFamilies([family]);
}

let all: Promise<void> | undefined;

/**
 * Loads the wasm modules (every family of {@link IN_ALL} unless `families` says which; the
 * beacon light client only when named, e.g. by `loadBeacon()` of `@lightprov/sdk/beacon`).
 * Cheap to call again: `init()` returns the same promise each time until a load fails.
 */
export function init(options: InitOptions = {}): Promise<void> {
  if (typeof options !== 'object' || options === null) return Promise.reject(new TypeError('options: expected { families?, locate? }'));
  if (options.locate !== undefined) locate = options.locate;
  if (options.families !== undefined) return loadFamilies(options.families);
  all ??= loadFamilies(IN_ALL).catch((e: unknown) => {
    all = undefined;
    throw e;
  });
  return all;
}

/** keccak256 from whichever loaded module has it (header, MPT or the one with every family). */
export function keccak256(data: Uint8Array): Uint8Array {
  const m = ready.header ?? ready.mpt;
  if (m === undefined) throw new Error("lightprov: call `await init()` (or init({ families: ['header'] })) before hashing state keys");
  return m.keccak256(data);
}

/** A loaded family's wasm exports; throws if its module has not been loaded. */
export function wasmOf<K extends WasmFamily>(family: K): WasmModules[K] {
  const m = ready[family];
  if (m === undefined) throw new Error(`lightprov: call \`await init()\` (or init({ families: ['${family}'] })) before verifying ${family} proofs`);
  return m as WasmModules[K];
}
