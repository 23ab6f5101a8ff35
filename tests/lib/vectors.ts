/**
 * Runs one shared vector (tests/vectors) through the SDK. Used by the Node tests and by the
 * page that runs the same vectors in Chromium, so both check exactly the same thing.
 */
import {
  type ErrorCode,
  VerificationError,
  hexToBytes,
  verifyAccountProof,
  verifyHeader,
  verifyMptProof,
} from '@lightprov/sdk';

export interface Vector {
  description: string;
  inputs: Record<string, unknown>;
  expected: { ok: true; [k: string]: unknown } | { error: ErrorCode; field?: string };
}

const quantity = (v: bigint): string => '0x' + v.toString(16);

function run(v: Vector): unknown {
  const i = v.inputs;
  if (typeof i['proof'] === 'object' && !Array.isArray(i['proof'])) {
    const a = verifyAccountProof(i['proof'], i['stateRoot'] as string);
    return {
      ok: true,
      exists: a.exists,
      balance: quantity(a.balance),
      nonce: quantity(a.nonce),
      codeHash: a.codeHash,
      storageHash: a.storageHash,
      storage: a.storage.map((s) => ({ key: s.key, value: quantity(s.value) })),
    };
  }
  if ('key' in i) {
    const proof = (i['proof'] as string[]).map((n) => hexToBytes(n, 'proof'));
    const value = i['value'] === null ? null : hexToBytes(i['value'], 'value');
    verifyMptProof(i['root'] as string, hexToBytes(i['key'], 'key'), proof, value);
    return { ok: true };
  }
  const h = verifyHeader(i['header'], i['expectedHash'] as string);
  return { ok: true, layout: h.layout, number: quantity(h.number) };
}

/** `null` if the SDK did what the vector expects, otherwise what went wrong. */
export function checkVector(v: Vector): string | null {
  let got: unknown;
  try {
    got = run(v);
  } catch (e) {
    if (!(e instanceof VerificationError)) return `threw ${String(e)}`;
    if (!('error' in v.expected)) return `rejected (${e.code}: ${e.message}), expected acceptance`;
    if (e.code !== v.expected.error) return `code ${e.code} (${e.message}), expected ${v.expected.error}`;
    if (v.expected.field !== undefined && e.field !== v.expected.field) {
      return `field ${String(e.field)}, expected ${v.expected.field}`;
    }
    return null;
  }
  if ('error' in v.expected) return `accepted, expected ${v.expected.error}`;
  const a = JSON.stringify(got);
  const b = JSON.stringify(v.expected);
  return a === b ? null : `got ${a}, expected ${b}`;
}
