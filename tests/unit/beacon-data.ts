// Real mainnet light-client data (sync committee periods 862..867, tests/fixtures/beacon/real) as
// the beacon tests use it: the SSZ objects of the spec-layout case, its steps, and the finality and
// optimistic updates its last two updates were made from.
import fs from 'node:fs';
import path from 'node:path';

import type { BeaconFork } from '@lightprov/sdk/beacon';

import { VECTORS } from './load.js';

export const REAL = path.join(VECTORS, '..', 'fixtures', 'beacon', 'real');
export const CASE = path.join(REAL, 'sync', 'helios_capella_periods_862_867');
export const TRUSTED_ROOT = '0x5afc212a7924789b2bc86acad3ab3a6ffb1f6e97253ea50bee7f4f51422c9275';

/** Snappy's raw (block) format, as the spec's `*.ssz_snappy` files hold it. */
export function unsnappy(src: Uint8Array): Uint8Array {
  let at = 0;
  let len = 0;
  for (let shift = 0; ; shift += 7) {
    const b = src[at++] as number;
    len |= (b & 0x7f) << shift;
    if (b < 0x80) break;
  }
  const out = new Uint8Array(len);
  let n = 0;
  const le = (k: number) => {
    let v = 0;
    for (let j = 0; j < k; j++) v |= (src[at + j] as number) << (8 * j);
    at += k;
    return v >>> 0;
  };
  while (at < src.length) {
    const tag = src[at++] as number;
    const kind = tag & 3;
    if (kind === 0) {
      let l = tag >> 2;
      if (l >= 60) l = le(l - 59);
      l += 1;
      out.set(src.subarray(at, at + l), n);
      at += l;
      n += l;
      continue;
    }
    let l: number;
    let off: number;
    if (kind === 1) {
      l = ((tag >> 2) & 7) + 4;
      off = ((tag >> 5) << 8) | (src[at++] as number);
    } else {
      l = (tag >> 2) + 1;
      off = le(kind === 2 ? 2 : 4);
    }
    for (let j = 0; j < l; j++, n++) out[n] = out[n - off] as number;
  }
  if (n !== len) throw new Error(`snappy: ${n} bytes, expected ${len}`);
  return out;
}

export const ssz = (file: string) => unsnappy(fs.readFileSync(path.join(CASE, `${file}.ssz_snappy`)));

/** The case's steps: each update file, its current slot and the headers the spec computed. */
export interface Step {
  update: string;
  currentSlot: bigint;
  finalized: { slot: bigint; beaconRoot: string; executionRoot: string };
  optimistic: { slot: bigint; beaconRoot: string; executionRoot: string };
}
export function steps(): Step[] {
  const text = fs.readFileSync(path.join(CASE, 'steps.yaml'), 'utf8');
  return text
    .split('- process_update:')
    .slice(1)
    .map((s) => {
      const header = (name: string) => {
        const m = new RegExp(`${name}:\\s+slot: (\\d+)\\s+beacon_root: '(0x[0-9a-f]{64})'\\s+execution_root: '(0x[0-9a-f]{64})'`).exec(s);
        if (!m) throw new Error(`steps.yaml: no ${name}`);
        return { slot: BigInt(m[1] as string), beaconRoot: m[2] as string, executionRoot: m[3] as string };
      };
      return {
        update: (/update:\s+(update_0x[0-9a-f]{64}_[a-z]{2})/.exec(s) as RegExpExecArray)[1] as string,
        currentSlot: BigInt((/current_slot: (\d+)/.exec(s) as RegExpExecArray)[1] as string),
        finalized: header('finalized_header'),
        optimistic: header('optimistic_header'),
      };
    });
}

const u32 = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset + at, 4).getUint32(0, true);

/**
 * The `LightClientFinalityUpdate` / `LightClientOptimisticUpdate` a Capella mainnet
 * `LightClientUpdate` was built from (the case stores those two as updates, as the spec's
 * process_light_client_finality_update builds them): the same fields without the next sync
 * committee (512 keys and the aggregate, 24,624 bytes) and its branch (5 × 32).
 */
export function asFinalityUpdate(u: Uint8Array): Uint8Array {
  const fixed = 4 + 24_624 + 160; // attested offset, next committee, its branch
  const finalizedAt = u32(u, fixed);
  const rest = u.subarray(fixed + 4, fixed + 4 + 192 + 160 + 8); // finality branch, aggregate, signature slot
  const attested = u.subarray(u32(u, 0), finalizedAt);
  const finalized = u.subarray(finalizedAt);
  const head = 8 + rest.length;
  const out = new Uint8Array(head + attested.length + finalized.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, head, true);
  dv.setUint32(4, head + attested.length, true);
  out.set(rest, 8);
  out.set(attested, head);
  out.set(finalized, head + attested.length);
  return out;
}
export function asOptimisticUpdate(u: Uint8Array): Uint8Array {
  const fixed = 4 + 24_624 + 160;
  const aggregateAndSlot = u.subarray(fixed + 4 + 192, fixed + 4 + 192 + 160 + 8);
  const attested = u.subarray(u32(u, 0), u32(u, fixed));
  const head = 4 + aggregateAndSlot.length;
  const out = new Uint8Array(head + attested.length);
  new DataView(out.buffer).setUint32(0, head, true);
  out.set(aggregateAndSlot, 4);
  out.set(attested, head);
  return out;
}

export const raw = (file: string) => JSON.parse(fs.readFileSync(path.join(REAL, 'raw', 'helios', file), 'utf8')) as { data: Record<string, { beacon: { slot: string }; execution: Record<string, string> }> };
export const capella = (bytes: Uint8Array, currentSlot?: bigint) => ({ fork: 'capella' as BeaconFork, ssz: bytes, ...(currentSlot === undefined ? {} : { currentSlot }) });
export const bootstrapArgs = () => ({ network: 'mainnet', trustedBlockRoot: TRUSTED_ROOT, bootstrap: capella(ssz('bootstrap')) });

