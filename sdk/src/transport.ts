/**
 * JSON-RPC to untrusted nodes: single calls and batches over `fetch` with a timeout, and
 * failover across nodes. A node that errs, times out or cannot serve a read is skipped for the
 * call; a node whose data fails verification, or whose numbers contradict themselves, is marked
 * faulty for the transport's life and not asked again. When no node can answer, one error lists
 * each node's fault.
 */
import { FailoverError, NodeFaultError, RpcError, VerificationError, isVerificationError } from './errors.js';

/** One node. */
export interface Endpoint {
  readonly url: string;
  /** The failure that marked it faulty, if any. */
  faulty: VerificationError | NodeFaultError | undefined;
}

let nextId = 1;

/** The nodes a client talks to. */
export class Transport {
  readonly endpoints: Endpoint[];

  constructor(
    urls: readonly string[],
    private readonly timeoutMs: number,
    private readonly fetchFn: typeof fetch,
    field = 'rpc',
  ) {
    if (urls.length === 0 || !urls.every((u) => typeof u === 'string' && /^https?:\/\//.test(u))) {
      throw new TypeError(`${field}: expected one or more http(s) URLs`);
    }
    this.endpoints = urls.map((url) => ({ url, faulty: undefined }));
  }

  /** URLs that served data that did not verify (or contradicted itself), with the error. */
  faultyNodes(): { url: string; error: VerificationError | NodeFaultError }[] {
    return this.endpoints.flatMap((e) => (e.faulty ? [{ url: e.url, error: e.faulty }] : []));
  }

  /**
   * Runs `f` against each usable endpoint until one succeeds. With one node, its error is thrown
   * as it is; with several, a {@link FailoverError} lists each node's. Errors that are neither a
   * node's fault nor a failed call (a bug, a caller's bad argument) are thrown at once.
   */
  async withFailover<T>(f: (e: Endpoint) => Promise<T>): Promise<T> {
    const faults: { url: string; error: VerificationError | RpcError }[] = [];
    let failedNow: VerificationError | RpcError | undefined;
    for (const e of this.endpoints) {
      if (e.faulty) {
        faults.push({ url: e.url, error: e.faulty });
        continue;
      }
      try {
        return await f(e);
      } catch (err) {
        if (isVerificationError(err) || err instanceof NodeFaultError) {
          e.faulty = err;
        } else if (!(err instanceof RpcError)) {
          throw err; // a bug or bad argument: do not hide it behind failover
        }
        faults.push({ url: e.url, error: err });
        failedNow = err;
      }
    }
    if (this.endpoints.length === 1 && failedNow) throw failedNow;
    throw new FailoverError(faults);
  }

  /** One call to one node; the result, or an `RpcError`. */
  async call(e: Endpoint, method: string, params: unknown[]): Promise<unknown> {
    return unwrap(method, await this.post(e, { jsonrpc: '2.0', id: nextId++, method, params }, method));
  }

  /**
   * One batch of calls of any methods to one node: each call's result, or the `RpcError` of its
   * error answer, in the order of `calls`, and the bytes of the answer. Only a batch that gets no
   * well-formed answer throws.
   */
  async batchCalls(e: Endpoint, calls: readonly { method: string; params: unknown[] }[]): Promise<{ results: unknown[]; bytes: number }> {
    const first = nextId;
    nextId += calls.length;
    const what = calls[0]?.method ?? 'batch';
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params }));
    const { json, bytes } = await this.postSized(e, body, what);
    if (!Array.isArray(json)) throw new RpcError(what, -1, 'malformed JSON-RPC batch response');
    const byId = new Map(json.map((r: { id?: unknown }) => [r?.id, r]));
    const results = calls.map((c, i) => {
      try {
        return unwrap(c.method, byId.get(first + i));
      } catch (err) {
        return err;
      }
    });
    return { results, bytes };
  }

  /** One batch of calls of `method` to one node; the results in the order of `paramsList`. */
  async batch(e: Endpoint, method: string, paramsList: unknown[][]): Promise<unknown[]> {
    const first = nextId;
    nextId += paramsList.length;
    const body = paramsList.map((params, i) => ({ jsonrpc: '2.0', id: first + i, method, params }));
    const res = await this.post(e, body, method);
    if (!Array.isArray(res)) throw new RpcError(method, -1, 'malformed JSON-RPC batch response');
    const byId = new Map(res.map((r: { id?: unknown }) => [r?.id, r]));
    return paramsList.map((_, i) => unwrap(method, byId.get(first + i)));
  }

  /**
   * A REST `GET` of `path` (from the endpoint's URL) asking for SSZ (`application/octet-stream`):
   * the body's bytes and the `Eth-Consensus-Version` header (lowercase; `undefined` when absent
   * or not exposed to the page). A 404 is an `RpcError` with code 404; any other failure an
   * `RpcError` with the HTTP status, naming `path`.
   */
  async getBytes(e: Endpoint, path: string): Promise<{ body: Uint8Array; version: string | undefined }> {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), this.timeoutMs);
    const url = e.url.replace(/\/+$/, '') + path;
    try {
      const res = await this.fetchFn(url, { headers: { accept: 'application/octet-stream' }, signal: ctl.signal });
      if (!res.ok) {
        const why = (await res.json().catch(() => undefined)) as { message?: unknown } | undefined;
        const message = typeof why?.message === 'string' ? `: ${printable(why.message)}` : '';
        throw new RpcError(path, res.status === 404 ? 404 : -1, `HTTP ${res.status} from ${e.url}${message}`);
      }
      const body = new Uint8Array(await res.arrayBuffer());
      const version = res.headers.get('eth-consensus-version')?.toLowerCase() ?? undefined;
      return { body, version };
    } catch (err) {
      if (err instanceof RpcError) throw err;
      const aborted = ctl.signal.aborted ? ` (no answer within ${this.timeoutMs} ms)` : '';
      throw new RpcError(path, -1, `${e.url}: ${err instanceof Error ? err.message : String(err)}${aborted}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  private async post(e: Endpoint, body: unknown, method: string): Promise<unknown> {
    return (await this.postSized(e, body, method)).json;
  }

  /** {@link Transport.post}, with the answer's length in bytes (of its text). */
  private async postSized(e: Endpoint, body: unknown, method: string): Promise<{ json: unknown; bytes: number }> {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), this.timeoutMs);
    try {
      const res = await this.fetchFn(e.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: ctl.signal,
      });
      if (!res.ok) {
        // A node refusing at the HTTP level (busy, too big, too slow) may say why in a JSON-RPC
        // error object: keep its code and message.
        const why = (await res.json().catch(() => undefined)) as { error?: { code?: unknown; message?: unknown; data?: unknown } } | undefined;
        const code = typeof why?.error?.code === 'number' ? why.error.code : -1;
        const nodeMessage = typeof why?.error?.message === 'string' ? why.error.message : undefined;
        const message = nodeMessage !== undefined ? `: ${printable(nodeMessage)}` : '';
        throw new RpcError(method, code, `HTTP ${res.status} from ${e.url}${message}`, {
          ...(nodeMessage !== undefined ? { nodeMessage } : {}),
          ...(why?.error?.data !== undefined ? { data: why.error.data } : {}),
        });
      }
      const text = await res.text();
      try {
        return { json: JSON.parse(text) as unknown, bytes: text.length };
      } catch {
        throw new RpcError(method, -1, `${e.url}: the answer is not JSON-RPC (${JSON.stringify(text.slice(0, 40))}${text.length > 40 ? '…' : ''})`);
      }
    } catch (err) {
      if (err instanceof RpcError) throw err;
      // fetch's own message ("fetch failed") hides the reason in its cause (ECONNREFUSED, …).
      const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
      const why = typeof cause?.code === 'string' ? ` (${cause.code})` : typeof cause?.message === 'string' ? ` (${cause.message})` : '';
      const aborted = ctl.signal.aborted ? ` (no answer within ${this.timeoutMs} ms)` : '';
      throw new RpcError(method, -1, `${e.url}: ${err instanceof Error ? err.message : String(err)}${why || aborted}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }
}

function unwrap(method: string, r: unknown): unknown {
  if (typeof r !== 'object' || r === null) throw new RpcError(method, -1, 'malformed JSON-RPC response');
  const { result, error } = r as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  if (error) {
    // The node's answer, kept whole (code, message, data) for apps that read it through asEip1193().
    const message = String(error.message ?? 'error');
    // The node's text is its word, shown to users by apps that print `message`: cut to 200
    // characters without control characters there; kept whole in `nodeMessage`.
    throw new RpcError(method, typeof error.code === 'number' ? error.code : -1, printable(message), { nodeMessage: message, ...(error.data !== undefined ? { data: error.data } : {}) });
  }
  if (result === undefined) throw new RpcError(method, -1, 'JSON-RPC response without a result');
  return result;
}

/** A node's text as a message may show it: control characters replaced, at most 200 characters. */
function printable(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, ' ');
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}
