// `@noble/curves`' BLS12-381 (pure JavaScript) behind the part of `@chainsafe/bls`'s interface
// that lodestar's light client calls, so that the light client runs the very same checks (SSZ,
// Merkle branches, signing root) with noble's pairing in place of herumi's: the beacon benchmark
// (beacon.mjs) installs it on `@chainsafe/bls`'s implementation object.
//
// The ciphersuite is the sync committee's (proof of possession, signatures in G2); keys and
// signatures are decompressed with their subgroup checks (noble's `fromBytes` asserts both), a
// key at infinity is refused (KeyValidate), and so is an aggregate at infinity.
import { bls12_381 } from '@noble/curves/bls12-381.js';

const DST = 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_';
const sigs = bls12_381.longSignatures;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;

class PublicKey {
  constructor(point) {
    this.point = point;
  }
  static fromBytes(bytes) {
    const p = G1.fromBytes(bytes);
    if (p.is0()) throw new Error('public key at infinity');
    return new PublicKey(p);
  }
  static aggregate(keys) {
    if (keys.length === 0) throw new Error('no public keys to aggregate');
    return new PublicKey(keys.reduce((acc, k) => acc.add(k.point), G1.ZERO));
  }
  toBytes() {
    return this.point.toBytes();
  }
}

class Signature {
  constructor(point) {
    this.point = point;
  }
  static fromBytes(bytes) {
    return new Signature(G2.fromBytes(bytes));
  }
  verify(publicKey, message) {
    if (publicKey.point.is0()) return false;
    return sigs.verify(this.point, sigs.hash(message, DST), publicKey.point);
  }
  toBytes() {
    return this.point.toBytes();
  }
}

const unused = (name) => () => {
  throw new Error(`${name}: not used by the light client, not provided over @noble/curves`);
};

/** The members of `@chainsafe/bls`'s implementation object, over `@noble/curves`. */
export const nobleBls = {
  implementation: 'noble',
  PublicKey,
  Signature,
  SecretKey: { fromBytes: unused('SecretKey.fromBytes') },
  sign: unused('sign'),
  aggregatePublicKeys: (keys) => PublicKey.aggregate(keys.map((k) => PublicKey.fromBytes(k))).toBytes(),
  aggregateSignatures: unused('aggregateSignatures'),
  verify: (key, message, sig) => Signature.fromBytes(sig).verify(PublicKey.fromBytes(key), message),
  verifyAggregate: (keys, message, sig) =>
    Signature.fromBytes(sig).verify(PublicKey.aggregate(keys.map((k) => PublicKey.fromBytes(k))), message),
  verifyMultiple: unused('verifyMultiple'),
  verifyMultipleSignatures: unused('verifyMultipleSignatures'),
  secretKeyToPublicKey: unused('secretKeyToPublicKey'),
};
