/**
 * Scripted nodes for tests of the SDK's failover: a `fetch` that answers for made-up URLs by
 * forwarding each call to a real node and letting the script rewrite the answer (a lie about a
 * number, a claim that contradicts another), one call or batch at a time.
 */

/** Rewrites one call's answer: `result` is the real node's; return what the liar says instead. */
export type Script = (method: string, params: unknown[], result: unknown) => unknown;

interface Call {
  id: unknown;
  method: string;
  params: unknown[];
}

/**
 * A `fetch` for `LightClient.connect({ fetch })`: a URL in `liars` forwards to its `target` with
 * its `script` applied; every other URL is fetched as usual.
 */
export function scriptedFetch(liars: Record<string, { target: string; script: Script }>): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const liar = liars[url];
    if (!liar) return fetch(input, init);
    const body = JSON.parse(String(init?.body)) as Call | Call[];
    const res = await fetch(liar.target, { ...init, body: JSON.stringify(body) });
    const real = (await res.json()) as { id: unknown; result?: unknown } | { id: unknown; result?: unknown }[];
    const calls = Array.isArray(body) ? body : [body];
    const answers = Array.isArray(real) ? real : [real];
    const out = answers.map((a) => {
      const call = calls.find((c) => c.id === a.id);
      return call && 'result' in a ? { ...a, result: liar.script(call.method, call.params, a.result) } : a;
    });
    return new Response(JSON.stringify(Array.isArray(real) ? out : out[0]), { status: res.status, headers: { 'content-type': 'application/json' } });
  };
}

/**
 * A `fetch` for `LightClient.connect({ fetch })` that forwards to the node at each URL but
 * answers calls of `methods` as a node without them does (geth's -32601 and message), counting
 * every call by method in `calls`.
 */
export function withoutMethods(methods: readonly string[], calls: Map<string, number> = new Map()): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const body = JSON.parse(String(init?.body)) as Call | Call[];
    const list = Array.isArray(body) ? body : [body];
    for (const c of list) calls.set(c.method, (calls.get(c.method) ?? 0) + 1);
    const refused = list.filter((c) => methods.includes(c.method));
    const asked = list.filter((c) => !methods.includes(c.method));
    const answers: unknown[] = [];
    if (asked.length > 0) {
      const res = await fetch(url, { ...init, body: JSON.stringify(Array.isArray(body) ? asked : asked[0]) });
      const real = (await res.json()) as unknown;
      answers.push(...(Array.isArray(real) ? real : [real]));
    }
    for (const c of refused) answers.push({ jsonrpc: '2.0', id: c.id, error: { code: -32601, message: `the method ${c.method} does not exist/is not available` } });
    return new Response(JSON.stringify(Array.isArray(body) ? answers : answers[0]), { status: 200, headers: { 'content-type': 'application/json' } });
  };
}
