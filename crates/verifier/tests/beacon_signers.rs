//! The signers' key of a sync-committee signature, as the store computes it — the sum of the
//! signers' keys below half the committee, the committee's `aggregate_pubkey` less the absent
//! members' keys above — against the specification's `eth_fast_aggregate_verify` over the
//! signers' keys: at half and just above it, with every member, with keys that repeat (a
//! committee is sampled with replacement), and with signers whose keys sum to the point at
//! infinity (FastAggregateVerify's KeyValidate of the aggregate refuses it, whatever the
//! signature). Signatures are zkcrypto's, independent of the verifier.

use bls12_381::Scalar;
use lightprov_verifier::beacon::{BeaconError, LightClientUpdate};

use crate::beacon_head::{Chain, minimal};

/// Whether a fresh store of `c` accepts `u` (attesting `start + 1`).
fn accepts(c: &Chain, u: &LightClientUpdate) -> Result<(), BeaconError> {
    let (mut store, _) = c.fresh();
    store.validate_update(u, c.start + 2)
}

/// `u` with member `i`'s participation bit flipped (the signature unchanged).
fn flipped(u: &LightClientUpdate, i: usize) -> LightClientUpdate {
    let mut u = u.clone();
    u.sync_aggregate.sync_committee_bits[i / 8] ^= 1 << (i % 8);
    u
}

fn assert_bad_signature(r: Result<(), BeaconError>, what: &str) {
    assert!(
        matches!(r, Err(BeaconError::BadSyncSignature { .. })),
        "{what}: {r:?}"
    );
}

/// Half the committee (the sum of the signers' keys), one more (the aggregate less the absent),
/// all but one, and all: each signature verifies, and with any one bit flipped it does not —
/// an absent member counted as a signer, or a signer counted as absent.
#[test]
fn participation_at_half_above_half_and_full() {
    let c = minimal();
    let size = c.network.preset.sync_committee_size;
    for n in [size / 2 - 1, size / 2, size / 2 + 1, size - 1, size] {
        let u = c.update_by(1, 0x11, &(0..n).collect::<Vec<_>>());
        accepts(&c, &u).unwrap_or_else(|e| panic!("{n} signers: {e:?}"));
        for i in [0, n - 1, n % size, size - 1] {
            assert_bad_signature(
                accepts(&c, &flipped(&u, i)),
                &format!("{n} signers, bit {i}"),
            );
        }
    }
}

/// A committee whose members 0 and 1 hold one key, and 2 and 3 another: each member counts on
/// its own, present or absent, whichever way the key is computed.
#[test]
fn repeated_keys_count_once_per_member() {
    let base = minimal();
    let size = base.network.preset.sync_committee_size;
    let mut keys: Vec<Scalar> = (1..=size as u64).map(Scalar::from).collect();
    keys[1] = keys[0];
    keys[3] = keys[2];
    let c = Chain::with_keys(base.network, base.start, keys);
    let all: Vec<usize> = (0..size).collect();
    let without = |gone: &[usize]| -> Vec<usize> {
        all.iter().copied().filter(|i| !gone.contains(i)).collect()
    };
    for signers in [
        all.clone(),
        without(&[1]),
        without(&[0, 1]),
        without(&[1, 3]),
        vec![0, 1],
        vec![0, 5],
        vec![1, 2, 3],
    ] {
        let u = c.update_by(1, 0x11, &signers);
        accepts(&c, &u).unwrap_or_else(|e| panic!("{signers:?}: {e:?}"));
        // The twin of a signer, counted as absent, or the twin of an absent one as a signer.
        for twin in [0, 1, 2, 3] {
            assert_bad_signature(
                accepts(&c, &flipped(&u, twin)),
                &format!("{signers:?}, bit {twin}"),
            );
        }
    }
}

/// Signers whose keys sum to the point at infinity sign with the signature at infinity, which
/// the pairing equation alone would accept for any message: refused, both below half (two
/// members with opposite keys) and above (the last signer's key the negated sum of the others).
#[test]
fn signers_whose_keys_sum_to_infinity_are_refused() {
    let base = minimal();
    let size = base.network.preset.sync_committee_size;
    let majority = size / 2 + 1;
    let mut keys: Vec<Scalar> = (1..=size as u64).map(Scalar::from).collect();
    // Members 0 and 1: k and −k.
    keys[1] = -keys[0];
    // Members 2..majority + 2 sum to zero.
    let last = majority + 1;
    keys[last] = -(2..last).fold(Scalar::zero(), |acc, i| acc + keys[i]);
    let c = Chain::with_keys(base.network, base.start, keys);
    for signers in [vec![0, 1], (2..=last).collect::<Vec<_>>()] {
        let u = c.update_by(1, 0x11, &signers);
        assert_eq!(
            u.sync_aggregate.sync_committee_signature[0], 0xc0,
            "the signature is at infinity"
        );
        assert_bad_signature(accepts(&c, &u), &format!("{signers:?}"));
        // With one more signer the key is that member's, and the signature verifies.
        let mut more = signers.clone();
        more.push(size - 1);
        accepts(&c, &c.update_by(1, 0x11, &more)).unwrap();
    }
}
