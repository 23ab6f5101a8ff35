import { RpcError, VerificationError, type WasmModuleName } from '@lightprov/sdk';

/** The error a promise rejects with; fails the test if it resolves. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

/** One JSON-RPC call; an error answer throws an `RpcError` with its code. */
export async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
  if (body.error) throw new RpcError(method, body.error.code, body.error.message);
  return body.result;
}

/** Produces `n` blocks (`evm_mine`). */
export async function mine(url: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await rpc(url, 'evm_mine', []);
}

/** What `f` throws (it must throw). */
export function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

/** The `VerificationError` `f` throws; any other throw propagates, and a return fails the test. */
export function verificationError(f: () => unknown): VerificationError {
  try {
    f();
  } catch (e) {
    if (e instanceof VerificationError) return e;
    throw e;
  }
  throw new Error('accepted');
}

/** A `locate` for `init()` that records each module the SDK asks for (and lets it load them from their default place). */
export function recordingLocate(): { asked: WasmModuleName[]; locate: (m: WasmModuleName) => undefined } {
  const asked: WasmModuleName[] = [];
  return { asked, locate: (m) => (asked.push(m), undefined) };
}
