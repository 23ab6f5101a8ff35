/**
 * Errors of the SDK. Every failure to verify is a {@link VerificationError} with a stable
 * `code`; transport failures are {@link RpcError}s. Never branch on message text.
 */

import { ERROR_CODES } from '../wasm/modules.js';

/**
 * The stable codes, as the core lists them (the build reads them from the wasm header module);
 * tests check them against each family's `tests/vectors/<family>/error-codes.json`. Codes are
 * API: added, never renamed.
 */
export { ERROR_CODES };

/** Why a proof, header or response was rejected. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Data from the network failed a check; nothing of it was returned. */
export class VerificationError extends Error {
  override readonly name = 'VerificationError';
  /** Stable reason, e.g. `ROOT_MISMATCH`. */
  readonly code: ErrorCode;
  /**
   * The input field at fault, as a path (`accountProof`, `storageProof[1]`, `balance`,
   * `proof.parts[2].tree`, `proof.levels[1].commitment`, `history.tuples[0]`), if known.
   */
  readonly field: string | undefined;
  /** What the check expected at `field`, when it compares one value with another. */
  readonly expected: string | undefined;
  /** What it found there. */
  readonly found: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { field?: string; expected?: string; found?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.field = options.field;
    this.expected = options.expected;
    this.found = options.found;
  }
}

/** A JSON-RPC call failed (transport error, error response, or an answer of the wrong shape). */
export class RpcError extends Error {
  override readonly name: string = 'RpcError';
  /** The JSON-RPC error code, or `-1` when the call did not get an answer. */
  readonly code: number;
  /** The method that failed. */
  readonly method: string;
  /**
   * The node's own `error.message` when it answered with a JSON-RPC error object (`message`
   * adds the method); `undefined` when the call got no such answer.
   */
  readonly nodeMessage: string | undefined;
  /** The node's `error.data`, as sent (a revert's ABI-encoded reason or custom error, …). */
  readonly data: unknown;

  constructor(method: string, code: number, message: string, options: { cause?: unknown; nodeMessage?: string; data?: unknown } = {}) {
    super(`${method}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.method = method;
    this.code = code;
    this.nodeMessage = options.nodeMessage;
    this.data = options.data;
  }
}

/**
 * A node answered with a number or claim that contradicts itself or the verified chain, caught
 * before any proof is checked — e.g. a proof "against" a block after the head the node itself
 * reports. Like a {@link VerificationError}, it marks the node faulty.
 */
export class NodeFaultError extends RpcError {
  override readonly name: string = 'NodeFaultError';
  /** The node at fault. */
  readonly url: string;

  constructor(method: string, url: string, message: string) {
    super(method, -1, `${url}: ${message}`);
    this.url = url;
  }
}

/**
 * The verified chain reorganised while a read was under way (the beacon chain's head moved to
 * another branch, or a heavier Clique branch replaced blocks the read needed), more often than
 * the read restarts for: nothing unverified was returned, and nobody is at fault — retry the
 * read. Failover asks the next node, as for any {@link RpcError}.
 */
export class ReorgError extends RpcError {
  override readonly name: string = 'ReorgError';

  constructor(message: string, options: { cause?: unknown } = {}) {
    super('headers', -1, message, options);
  }
}

/**
 * Every node failed one read: `faults` holds each node's error (a {@link VerificationError} or
 * {@link NodeFaultError} for a node marked faulty, now or before; an {@link RpcError} for one
 * that was down, refused or could not serve this read), and the message lists them.
 */
export class FailoverError extends RpcError {
  override readonly name: string = 'FailoverError';
  /** Each node's fault, in the order the nodes are listed. */
  readonly faults: readonly { url: string; error: VerificationError | RpcError }[];

  constructor(faults: readonly { url: string; error: VerificationError | RpcError }[]) {
    const what = (url: string, e: VerificationError | RpcError) => {
      const m = e instanceof VerificationError ? `${e.code}: ${e.message}` : e.message;
      return m.includes(url) ? m : `${url}: ${m}`;
    };
    super('request', -1, `no node could answer — ${faults.map((f) => what(f.url, f.error)).join('; ')}`);
    this.faults = faults;
  }
}

/**
 * The head a beacon follower verified is older than its bound (`trust.beacon.maxHeadAge`):
 * every beacon node asked is behind, withholds a period, or is unreachable, so `latest`,
 * `safe` and `finalized` would name old blocks as the chain's newest. Nothing failed a check:
 * the head is still a verified one, and reads by block number or hash still work. Code
 * `STALE_HEAD`, an SDK condition (not one of the core's {@link ERROR_CODES}); thrown as is,
 * never hidden behind a failover, since no execution node is at fault.
 */
export class StaleHeadError extends Error {
  override readonly name = 'StaleHeadError';
  /** Stable reason. */
  readonly code = 'STALE_HEAD' as const;
  /** The followed head's beacon slot. */
  readonly slot: bigint;
  /** The slot of the follower's clock. */
  readonly currentSlot: bigint;
  /** The head's age: the slots between it and the clock, in seconds. */
  readonly ageSeconds: number;
  /** The bound it passed, in seconds. */
  readonly maxAgeSeconds: number;

  constructor(slot: bigint, currentSlot: bigint, ageSeconds: number, maxAgeSeconds: number) {
    super(
      `STALE_HEAD: the beacon head the sync committee signed (slot ${slot}) is ${ageSeconds} s behind the clock (slot ${currentSlot}), ` +
        `more than maxHeadAge ${maxAgeSeconds} s: the beacon nodes are behind or withhold updates; add another beacon node, or read by block number`,
    );
    this.slot = slot;
    this.currentSlot = currentSlot;
    this.ageSeconds = ageSeconds;
    this.maxAgeSeconds = maxAgeSeconds;
  }
}

/** True if `e` is a {@link VerificationError}, and, when given, of that `code`. */
export function isVerificationError(e: unknown, code?: ErrorCode): e is VerificationError {
  return e instanceof VerificationError && (code === undefined || e.code === code);
}

function isErrorCode(c: unknown): c is ErrorCode {
  return typeof c === 'string' && (ERROR_CODES as readonly string[]).includes(c);
}

/**
 * Runs a wasm call and turns the JS `Error` it throws (which carries `code`, `field` and, where
 * there are, `expected` and `found`) into a {@link VerificationError}.
 */
export function wasmCall<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof Error) {
      const { code, field, expected, found } = e as Error & Record<'code' | 'field' | 'expected' | 'found', unknown>;
      if (isErrorCode(code)) {
        throw new VerificationError(code, e.message, {
          ...(typeof field === 'string' ? { field } : {}),
          ...(typeof expected === 'string' ? { expected } : {}),
          ...(typeof found === 'string' ? { found } : {}),
          cause: e,
        });
      }
    }
    throw e;
  }
}
