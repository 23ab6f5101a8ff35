//! The node's ECDSA signatures: its workload's and dev transfers' transactions and its Clique
//! seals, by libsecp256k1.
//!
//! The keys are alloy's [`PrivateKeySigner`]s, whose own signing runs k256's generic ECDSA code;
//! instantiated in this crate, that code is compiled at the crate's optimisation level, which is
//! 0 in the debug build the tests run: about 0.2 ms a signature there, a hundred a block.
//! libsecp256k1 is compiled with its own optimisation in every build. Both sign by RFC 6979 with
//! low `s`, so the signatures (and with them every transaction hash, root and block) are the
//! same; [`tests::same_signatures_as_alloys_signer`] checks it.

use alloy_primitives::{B256, Signature, U256};
use alloy_signer_local::PrivateKeySigner;
use secp256k1::{Message, SECP256K1, SecretKey};

/// `key`'s signature of `hash` (a prehashed message: a transaction's signing hash, a seal hash).
pub fn sign_hash(key: &PrivateKeySigner, hash: &B256) -> anyhow::Result<Signature> {
    let secret = SecretKey::from_byte_array(key.to_bytes().0)?;
    let (id, rs) = SECP256K1
        .sign_ecdsa_recoverable(Message::from_digest(hash.0), &secret)
        .serialize_compact();
    let (r, s) = rs.split_at(32);
    Ok(Signature::new(
        U256::from_be_slice(r),
        U256::from_be_slice(s),
        i32::from(id) != 0,
    ))
}

#[cfg(test)]
mod tests {
    use alloy_primitives::keccak256;
    use alloy_signer::SignerSync;

    use super::*;

    #[test]
    fn same_signatures_as_alloys_signer() {
        for k in 0..8u8 {
            let key = PrivateKeySigner::from_bytes(&keccak256([k])).expect("a valid key");
            for m in 0..16u8 {
                let hash = keccak256([k, m]);
                let ours = sign_hash(&key, &hash).expect("signs");
                assert_eq!(
                    ours,
                    key.sign_hash_sync(&hash).expect("signs"),
                    "key {k}, message {m}"
                );
                assert_eq!(
                    ours.recover_address_from_prehash(&hash).ok(),
                    Some(key.address())
                );
            }
        }
    }
}
