/**
 * Errors in words a user understands, with the stable code beside them. Verification failures
 * (`VerificationError`) mean the node's data did not check out; `RpcError`s mean the node did
 * not answer as asked; anything else is a bad input or a bug in the page.
 */
import { type ErrorCode, ExecutionError, RpcError, SlotProbeError, VerificationError } from '@lightprov/sdk';

export interface Explained {
  /** Short headline. */
  title: string;
  /** One or two sentences in plain words. */
  words: string;
  /** The stable code (`ROOT_MISMATCH`, `RPC -32005`, …). */
  code: string;
  /** The library's own message, for the curious. */
  detail: string;
  /** True when the node served data that failed a check (as opposed to a network problem). */
  rejected: boolean;
}

/** Plain words for the codes a user is likely to meet (others fall back to a generic line). */
const VERIFICATION: Partial<Record<ErrorCode, string>> = {
  BAD_ENCODING: 'The answer is not in the expected format, so nothing in it can be checked.',
  MALFORMED_NODE: 'A trie node in the proof is malformed (not the one canonical encoding).',
  ROOT_MISMATCH: 'The proof does not lead to the root committed in the verified header: its data was altered or belongs to other state.',
  NODE_HASH_MISMATCH: 'A node of the proof does not hash to the reference its parent holds: the proof was altered.',
  DUPLICATE_NODE: 'The proof lists the same node twice.',
  NODES_OUT_OF_ORDER: 'The proof nodes are not in root-to-leaf order.',
  EXTRA_NODES: 'The proof carries nodes beyond the end of the path.',
  TRUNCATED_PROOF: 'The proof stops before reaching the key: nodes are missing.',
  KEY_MISMATCH: 'The proof is for a different key than the one asked for.',
  VALUE_MISMATCH: 'The claimed value differs from the value the proof commits to.',
  HEADER_HASH_MISMATCH: 'The header does not hash to the trusted hash.',
  BAD_HEADER_LAYOUT: 'The header has fields no known Ethereum header layout has.',
  PARENT_MISMATCH: 'A header does not link to its verified parent.',
  BAD_SEAL: 'A header’s seal (signature) is malformed.',
  UNKNOWN_SIGNER: 'A header was sealed by a key that is not a trusted signer.',
  BAD_SHAPE: 'The proof’s tree has an impossible shape for the structure it claims to be.',
  INCOMPLETE_RANGE: 'Versions inside the asked block range are missing from the proof.',
  RESULTS_OUT_OF_ORDER: 'The proof’s versions are out of order, or an older structure claims a newer version.',
  EXTRA_RESULTS: 'The proof carries results beyond the asked range.',
  WRONG_EARLY_STOP: 'The search stopped at the wrong structure: a version may be hidden.',
  RANGE_MISMATCH: 'The proof answers a different block range than the one asked for.',
  PAIRING_CHECK_FAILED: 'The AMT openings do not match the commitment in the header (pairing check failed).',
  HISTORY_MISMATCH: 'A tuple does not lead to the header’s history root: it is stale or altered.',
  LEVEL_MISMATCH: 'The proof’s AMT levels do not follow where the key must be placed.',
  UNSUPPORTED_SCHEME: 'The trusted chain does not commit to the roots this scheme’s proofs are checked against, so no node could prove it.',
  TRANSACTION_HASH_MISMATCH: 'The transaction the proof shows at that place in the block is not the one asked for.',
  RECEIPT_MISMATCH: 'The receipt proven at a transaction’s place does not belong with it (one is missing, or their types differ).',
};

const RPC: Record<number, string> = {
  [-1]: 'The node could not be reached or sent no usable answer. Is it still running?',
  [-32001]: 'The node does not know that block (yet). When connecting: is the genesis hash the one this node printed?',
  [-32005]: 'The block range is longer than the node answers in one query.',
  [-32006]: 'This node does not serve LVMT proofs for this key (proof shard).',
  [-32602]: 'The node refused a parameter of the request.',
  [-32000]: 'The node refused the transaction.',
};

/** Why the balances-slot probe could not tell the slot (every answer verified: no one is at fault). */
const PROBE: Record<SlotProbeError['reason'], string> = {
  'zero-balance': 'balanceOf returned 0, and every slot the token never wrote holds 0: any candidate would match, so the probe names none.',
  'no-match': 'No candidate mapping entry holds the balance balanceOf returned: the token keeps balances in another slot or another way.',
  ambiguous: 'Several candidate mapping entries hold the balance balanceOf returned: the probe cannot tell which is the balances mapping.',
  'not-a-uint256': 'balanceOf did not return one 32-byte word: the address is not an ERC-20.',
};

export function explain(e: unknown): Explained {
  if (e instanceof ExecutionError) {
    return {
      title: 'The call failed',
      words: `Run over proven state, the call ${e.code === 3 ? 'reverted' : 'stopped'}: ${e.message}. That is what the contract does at that block, verified.`,
      code: `EXEC ${e.code}`,
      detail: e.data ? `${e.message} (data: ${e.data})` : e.message,
      rejected: false,
    };
  }
  if (e instanceof SlotProbeError) {
    return { title: 'The balances slot cannot be told', words: PROBE[e.reason], code: `PROBE ${e.reason}`, detail: `${e.message} (field: ${e.field})`, rejected: false };
  }
  if (e instanceof VerificationError) {
    return {
      title: 'Rejected: the data did not verify',
      words: VERIFICATION[e.code] ?? 'The data failed a check.',
      code: e.code,
      detail: e.field ? `${e.message} (field: ${e.field})` : e.message,
      rejected: true,
    };
  }
  if (e instanceof RpcError) {
    return {
      title: 'The node did not answer as asked',
      words: RPC[e.code] ?? 'The node answered with an error.',
      code: `RPC ${e.code}`,
      detail: e.message,
      rejected: false,
    };
  }
  const message = e instanceof Error ? e.message : String(e);
  // ethers wraps node errors: surface the node's words.
  const ethersCode = (e as { code?: unknown } | null)?.code;
  if (typeof ethersCode === 'string') {
    const short = (e as { shortMessage?: unknown }).shortMessage;
    return {
      title: 'The transaction did not go through',
      words: typeof short === 'string' ? short : message,
      code: ethersCode,
      detail: message,
      rejected: false,
    };
  }
  if (e instanceof TypeError || e instanceof RangeError) {
    return { title: 'That input is not valid', words: message, code: 'INPUT', detail: message, rejected: false };
  }
  return { title: 'Something went wrong', words: message, code: 'ERROR', detail: message, rejected: false };
}
