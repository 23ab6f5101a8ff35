/**
 * A valid input for every precompile of Osaka (0x01–0x11 and P-256 at 0x100), so a call runs
 * each one's success path: ecrecover of a real signature, hashes of "abc", a modexp, BN254
 * addition, multiplication and a pairing that holds, the EIP-152 BLAKE2 vector, a KZG point
 * evaluation of the zero polynomial, the BLS12-381 operations on the point at infinity and a
 * map to the curve, and a real P-256 signature.
 */
import crypto from 'node:crypto';

import { Wallet, hexlify, keccak256, sha256, toUtf8Bytes } from 'ethers';

const word = (n: bigint) => n.toString(16).padStart(64, '0');
const zeros = (bytes: number) => '00'.repeat(bytes);
const address = (n: number) => '0x' + n.toString(16).padStart(40, '0');

/** BN254's base field modulus. */
const P = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;
/** BN254's G2 generator, as EIP-197 encodes it (imaginary part first). */
const G2 = [
  11559732032986387107991004021392285783925812861821192530917403151452391805634n,
  10857046999023057135944570762232829481370756359578518086990519993285655852781n,
  4082367875863433681332203403145435568316851327593401208105741076214120093531n,
  8495653923123431417604973247489272438418190587263600148770280649306958101930n,
]
  .map(word)
  .join('');

/** EIP-152's test vector 5: BLAKE2b-512("abc"), 12 rounds, as a compression. */
function blake2fInput(): string {
  const iv = [0x6a09e667f3bcc908n, 0xbb67ae8584caa73bn, 0x3c6ef372fe94f82bn, 0xa54ff53a5f1d36f1n, 0x510e527fade682d1n, 0x9b05688c2b3e6c1fn, 0x1f83d9abfb41bd6bn, 0x5be0cd19137e2179n];
  const h = iv.map((v, i) => (i === 0 ? v ^ 0x01010040n : v));
  const le = (v: bigint, n: number) => Buffer.from(v.toString(16).padStart(2 * n, '0'), 'hex').reverse().toString('hex');
  const m = Buffer.alloc(128);
  m.write('abc');
  return '0x' + (12).toString(16).padStart(8, '0') + h.map((v) => le(v, 8)).join('') + m.toString('hex') + le(3n, 8) + le(0n, 8) + '01';
}

/** A P-256 signature of sha256("lightprov") with a fresh key: hash ‖ r ‖ s ‖ x ‖ y. */
function p256Input(): string {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const msg = Buffer.from('lightprov');
  const sig = crypto.sign('sha256', msg, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  const hash = crypto.createHash('sha256').update(msg).digest('hex');
  return '0x' + hash + sig.toString('hex') + Buffer.from(jwk.x, 'base64url').toString('hex') + Buffer.from(jwk.y, 'base64url').toString('hex');
}

/** ecrecover of a signature by a fixed key. */
function ecrecoverInput(): string {
  const w = new Wallet(keccak256(toUtf8Bytes('lightprov precompile key')));
  const hash = keccak256(toUtf8Bytes('lightprov'));
  const sig = w.signingKey.sign(hash);
  return '0x' + hash.slice(2) + word(BigInt(sig.v)) + sig.r.slice(2) + sig.s.slice(2);
}

/** KZG point evaluation of the zero polynomial (commitment and proof the point at infinity) at z = 1. */
function pointEvaluationInput(): string {
  const infinity = 'c0' + zeros(47);
  const versioned = '01' + sha256('0x' + infinity).slice(4);
  return '0x' + versioned + word(1n) + word(0n) + infinity + infinity;
}

/** Every precompile of Osaka with an input on its success path. */
export function precompileCalls(): { name: string; to: string; data: string }[] {
  const abc = hexlify(toUtf8Bytes('abc'));
  const g1 = word(1n) + word(2n);
  return [
    { name: 'ecrecover', to: address(0x01), data: ecrecoverInput() },
    { name: 'sha256', to: address(0x02), data: abc },
    { name: 'ripemd160', to: address(0x03), data: abc },
    { name: 'identity', to: address(0x04), data: abc },
    { name: 'modexp', to: address(0x05), data: '0x' + word(1n) + word(1n) + word(1n) + '030507' },
    { name: 'bn254 add', to: address(0x06), data: '0x' + g1 + g1 },
    { name: 'bn254 mul', to: address(0x07), data: '0x' + g1 + word(3n) },
    { name: 'bn254 pairing', to: address(0x08), data: '0x' + g1 + G2 + word(1n) + word(P - 2n) + G2 },
    { name: 'blake2f', to: address(0x09), data: blake2fInput() },
    { name: 'point evaluation', to: address(0x0a), data: pointEvaluationInput() },
    { name: 'bls12-381 g1 add', to: address(0x0b), data: '0x' + zeros(256) },
    { name: 'bls12-381 g1 msm', to: address(0x0c), data: '0x' + zeros(128) + word(5n) },
    { name: 'bls12-381 g2 add', to: address(0x0d), data: '0x' + zeros(512) },
    { name: 'bls12-381 g2 msm', to: address(0x0e), data: '0x' + zeros(256) + word(5n) },
    { name: 'bls12-381 pairing', to: address(0x0f), data: '0x' + zeros(384) },
    { name: 'bls12-381 map fp to g1', to: address(0x10), data: '0x' + zeros(63) + '07' },
    { name: 'bls12-381 map fp2 to g2', to: address(0x11), data: '0x' + zeros(63) + '07' + zeros(63) + '09' },
    { name: 'p256 verify', to: address(0x100), data: p256Input() },
  ];
}
