/**
 * The MPT family's inspector room: `eth_getProof` answers drawn as their trie paths (by the
 * inspector's wasm module, crates/inspect `mpt.rs`), and forged here, as JSON, with the code
 * from the MPT verifier.
 */
import { RLP } from '@ethereumjs/rlp';

import { type ErrorCode, isVerificationError, wasmCall } from '../errors.js';
import { families } from '../families/index.js';
import { type AccountProofJson, encodeAccountProof, parseAccountProof, verifyAccountProof } from '../families/mpt.js';
import { bytesArg, bytesToHex } from '../hex.js';
import { keccak256, loadFamily } from '../init.js';
import { type FamilyInspector, type Forgery, type ForgeryKind, type ProofOutline, inspector, parsed, proofOf } from './inspector.js';

/**
 * Draws an `eth_getProof` answer: the account's trie path (`branch`/`extension` nodes with the
 * nibble taken, the `leaf`, each with its keccak256), then each storage slot's path; the
 * account found is compared with the claimed fields. `root` compares keccak256 of the first
 * account node with the header's `stateRoot`; `roots` adds each slot's storage root against the
 * claimed `storageHash`. Ranges are in the packed wire form (`encodeAccountProof`).
 */
export async function outlineMptProof(args: { proof: AccountProofJson | unknown; stateRoot: string | Uint8Array }): Promise<ProofOutline> {
  const stateRoot = bytesArg(args.stateRoot, 'stateRoot', 32);
  const wire = encodeAccountProof(parseAccountProof(args.proof));
  const wasm = await inspector();
  return parsed(wasmCall(() => wasm.outlineMptProof(wire, stateRoot)));
}

type Rlp = Uint8Array | Rlp[];

const EMPTY_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

/**
 * MPT's inspector. A history's proof is the `eth_getProof` answer for its range's last block,
 * drawn against that block's header (the history's anchor). Forgeries (`proof`: `eth_getProof`
 * JSON, returned as a new object; the MPT verifier's and the header module's wasm loaded on
 * demand): `account-truncated` (the last account node dropped), `wrong-balance` (balance + 1 ETH),
 * `account-flipped-byte-in-last-node` (a byte of a hash or value inside the last account node
 * flipped, so it still decodes; not for a one-node proof, whose only node is the root).
 */
export const mpt: FamilyInspector<'mpt'> = {
  family: 'mpt',
  schemes: ['mpt'],
  forgeries: [
    { kind: 'account-truncated', label: 'Drop the last trie node' },
    { kind: 'wrong-balance', label: 'Claim a different balance' },
    { kind: 'account-flipped-byte-in-last-node', label: 'Flip a byte inside the last trie node' },
  ],
  outlineHistory: (h, proof) => outlineMptProof({ proof: proofOf(h, proof), stateRoot: h.anchor.stateRoot }),
  async forge({ kind, proof }) {
    // Tampered as JSON here; the code comes from the MPT verifier and the class from the
    // registry (their modules loaded on demand).
    await Promise.all([loadFamily('mpt'), loadFamily('header')]);
    return forgeMpt(kind, proof);
  },
};

function forgeMpt(kind: ForgeryKind, json: unknown): Forgery<AccountProofJson> {
  const offered = mpt.forgeries.map((f) => f.kind);
  const tamper = families()
    .find((f) => f.name === mpt.family)
    ?.tampers.find((t) => t.name === kind);
  if (!tamper || !offered.includes(kind)) throw new RangeError(`${String(kind)}: not an MPT forgery (${offered.join(', ')})`);
  const honest = parseAccountProof(json);
  const first = honest.accountProof[0];
  const root = first ? bytesToHex(keccak256(first)) : EMPTY_ROOT;
  const forged = JSON.parse(JSON.stringify(json)) as { -readonly [K in keyof AccountProofJson]: AccountProofJson[K] } & { accountProof: string[] };
  let description: string;
  switch (kind) {
    case 'account-truncated': {
      const n = forged.accountProof.length;
      if (n === 0) throw new RangeError('account-truncated: the account proof has no node');
      forged.accountProof = forged.accountProof.slice(0, -1);
      description = `dropped the last of the ${n} account proof nodes`;
      break;
    }
    case 'wrong-balance': {
      const raised = honest.balance + 10n ** 18n;
      forged.balance = '0x' + raised.toString(16);
      description = `claimed balance ${raised} instead of ${honest.balance} (+1 ETH)`;
      break;
    }
    default: {
      // account-flipped-byte-in-last-node: the last node is checked against the reference its
      // parent holds, so a proof of one node (the root) has no such node.
      const n = honest.accountProof.length;
      const last = honest.accountProof[n - 1];
      if (!last || n < 2) throw new RangeError(`${kind}: the account proof has ${n} node${n === 1 ? '' : 's'}, its last node is the root`);
      const node = last.slice();
      const at = flipTarget(node);
      node[at] = (node[at] as number) ^ 0x01;
      forged.accountProof = [...forged.accountProof.slice(0, -1), bytesToHex(node)];
      description = `flipped byte ${at} of account node ${n - 1} (inside ${at === node.length - 1 ? 'its last item' : 'a child hash'})`;
      break;
    }
  }
  const expectedCode = rejection(() => verifyAccountProof(forged, root));
  if (expectedCode !== tamper.code && expectedCode !== tamper.alt) {
    throw new RangeError(`${kind}: the verifier answers this proof's forgery with ${expectedCode}, not the class's ${tamper.code}${tamper.alt ? ` or ${tamper.alt}` : ''}`);
  }
  return { proof: forged, description, expectedCode };
}

/** A byte of a node whose flip keeps it decodable: the last byte of a branch's first hash child, else the last byte. */
function flipTarget(node: Uint8Array): number {
  let items: Rlp;
  try {
    items = RLP.decode(node) as Rlp;
  } catch {
    return node.length - 1;
  }
  if (Array.isArray(items) && items.length === 17) {
    const child = items.find((c): c is Uint8Array => c instanceof Uint8Array && c.length === 32);
    if (child) {
      const hex = bytesToHex(node);
      const at = hex.indexOf('a0' + bytesToHex(child).slice(2), 2);
      if (at > 0 && at % 2 === 0) return (at - 2) / 2 + 32;
    }
  }
  return node.length - 1;
}

function rejection(f: () => unknown): ErrorCode {
  try {
    f();
  } catch (e) {
    if (isVerificationError(e)) return e.code;
    throw e;
  }
  throw new RangeError('the verifier accepts this tamper of this proof');
}
