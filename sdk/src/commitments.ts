/**
 * Header commitments: where each family's trusted root sits in a block header. The table is
 * defined once, in the Rust core (each family's module of `lightprov_types`, listed by
 * `family::commitments()`), and read here from the wasm module, so the SDK never writes an
 * offset of its own.
 */
import { VerificationError } from './errors.js';
import { bytesToHex, hexToBytes } from './hex.js';
import { wasmOf } from './init.js';

/** One header commitment: a 32-byte root at `offset` in the header field `field`. */
export interface HeaderCommitment {
  /** Its name (`stateRoot`, `coleRoot`, `lvmtRoot`, `lvmtHistoryRoot`, `lvmtParamsId`). */
  readonly name: string;
  /** The header's JSON-RPC field holding it (`stateRoot`, `extraData`, `mixHash`). */
  readonly field: string;
  /** Its first byte in that field. */
  readonly offset: number;
  /** Its length in bytes (32). */
  readonly length: number;
  /** Whether only the genesis header carries it. */
  readonly genesisOnly: boolean;
}

let table: readonly HeaderCommitment[] | undefined;

/** Every header commitment, in header order (needs `await init()`). */
export function headerCommitments(): readonly HeaderCommitment[] {
  table ??= Object.freeze((wasmOf('header').headerCommitments() as HeaderCommitment[]).map((c) => Object.freeze({ ...c })));
  return table;
}

/**
 * The commitment `name` of `header` (any object with the header's JSON-RPC fields, e.g. a
 * `VerifiedHeader`), as 0x-hex. Throws `BAD_HEADER_LAYOUT` if the header's field is too short to
 * hold it, and `RangeError` for a name no family uses.
 */
export function commitmentOf(header: Readonly<Record<string, unknown>>, name: string): string {
  const c = headerCommitments().find((x) => x.name === name);
  if (c === undefined) throw new RangeError(`commitment: no header commitment is named ${JSON.stringify(name)}`);
  const raw = header[c.field];
  if (typeof raw !== 'string') throw new VerificationError('BAD_HEADER_LAYOUT', `${c.field} is missing, so the header holds no ${name}`, { field: c.field });
  const b = hexToBytes(raw, c.field);
  if (b.length < c.offset + c.length) {
    throw new VerificationError('BAD_HEADER_LAYOUT', `${c.field} is too short to hold ${name}`, { field: c.field });
  }
  return bytesToHex(b.subarray(c.offset, c.offset + c.length));
}
