/**
 * Field-by-field comparison of two JSON-RPC answers: every path where they differ, a key one of
 * them lacks included.
 */

/** The paths (`transactions[2].gasPrice`, `logs[0]`) where `a` and `b` differ. */
export function differences(a: unknown, b: unknown, path = ''): string[] {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return [`${path || '.'} (length ${a.length} vs ${b.length})`];
    return a.flatMap((x, i) => differences(x, b[i], `${path}[${i}]`));
  }
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => {
      const p = path ? `${path}.${k}` : k;
      if (!(k in a)) return [`${p} (only geth's)`];
      if (!(k in b)) return [`${p} (only ours)`];
      return differences(a[k], b[k], p);
    });
  }
  return a === b ? [] : [`${path || '.'} (${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)})`];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `o` without the keys `drop` (at the top level). */
export function without(o: unknown, drop: readonly string[]): unknown {
  if (!isObject(o)) return o;
  return Object.fromEntries(Object.entries(o).filter(([k]) => !drop.includes(k)));
}
