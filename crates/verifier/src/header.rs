//! Block header check: keccak256(RLP(header)) must equal the trusted block hash.

use crate::keccak256;
use alloy_primitives::B256;
pub use lightprov_types::header::{Header, HeaderError, HeaderVerifyError};

/// Checks that `header` hashes to `expected`.
pub fn verify_header(header: &Header, expected: &B256) -> Result<(), HeaderVerifyError> {
    let got = keccak256(header.rlp()?);
    if got == *expected {
        Ok(())
    } else {
        Err(HeaderVerifyError::HashMismatch {
            expected: *expected,
            got,
        })
    }
}

/// Decodes a header from its canonical RLP and checks that it hashes to `expected`.
pub fn verify_header_rlp(rlp: &[u8], expected: &B256) -> Result<Header, HeaderVerifyError> {
    let header = Header::decode_rlp(rlp)?;
    let got = keccak256(rlp);
    if got == *expected {
        Ok(header)
    } else {
        Err(HeaderVerifyError::HashMismatch {
            expected: *expected,
            got,
        })
    }
}

/// Clique-style proof-of-authority seals, as lightprov-node signs its headers: the last 65
/// bytes of `extraData` are `r ‖ s ‖ v` (v ∈ {0, 1}) over keccak256 of the header's RLP with
/// those 65 bytes removed.
#[cfg(feature = "clique")]
pub mod clique {
    use alloc::vec::Vec;

    use alloy_primitives::{Address, B256};
    use k256::ecdsa::{RecoveryId, Signature, VerifyingKey};
    use lightprov_types::header::Header;

    use super::HeaderVerifyError;
    use crate::keccak256;

    /// Length of the seal at the end of `extraData`.
    pub const SEAL_LEN: usize = 65;

    /// The hash the seal signs.
    pub fn seal_hash(header: &Header) -> Result<B256, HeaderVerifyError> {
        let keep =
            header
                .extra_data
                .len()
                .checked_sub(SEAL_LEN)
                .ok_or(HeaderVerifyError::BadSeal {
                    reason: "extraData is shorter than a 65-byte seal",
                })?;
        let mut unsealed = header.clone();
        unsealed.extra_data.truncate(keep);
        Ok(keccak256(unsealed.rlp()?))
    }

    /// The address that sealed `header`. Rejects malformed seals and high-s signatures (one
    /// encoding per signature).
    pub fn signer(header: &Header) -> Result<Address, HeaderVerifyError> {
        let hash = seal_hash(header)?;
        let seal = header
            .extra_data
            .get(header.extra_data.len() - SEAL_LEN..)
            .unwrap_or_default();
        recover(&hash, seal)
    }

    /// The address whose key signed the 32-byte `prehash` with `sig` (`r ‖ s ‖ v`, v ∈ {0, 1}):
    /// Ethereum's `ecrecover`, refusing high-s signatures (one encoding per signature), as
    /// transactions since Homestead require.
    pub fn recover(prehash: &B256, sig: &[u8]) -> Result<Address, HeaderVerifyError> {
        let bad = |reason| HeaderVerifyError::BadSeal { reason };
        if sig.len() != SEAL_LEN {
            return Err(bad("a signature is 65 bytes: r, s and the recovery byte"));
        }
        let (rs, v) = sig.split_at(64);
        let hash = prehash;
        let sig = Signature::from_slice(rs)
            .map_err(|_| bad("r or s is zero or not below the curve order"))?;
        if sig.normalize_s().is_some() {
            return Err(bad("s is in the upper half of the curve order"));
        }
        let recid = match v {
            [0] => RecoveryId::new(false, false),
            [1] => RecoveryId::new(true, false),
            _ => return Err(bad("the recovery byte is not 0 or 1")),
        };
        let key = VerifyingKey::recover_from_prehash(hash.as_slice(), &sig, recid)
            .map_err(|_| bad("the signature does not recover a key"))?;
        let point = key.to_encoded_point(false);
        let xy = point.as_bytes().get(1..).unwrap_or_default();
        Ok(Address::from_slice(
            keccak256(xy).get(12..).unwrap_or_default(),
        ))
    }

    /// Checks one link of a header chain: the header decodes (canonical RLP), its parentHash is
    /// `parent` (when given), and it is sealed by one of `signers` (when any are given).
    /// Returns the header and its hash.
    pub fn verify_link(
        rlp: &[u8],
        parent: Option<&B256>,
        signers: &[Address],
    ) -> Result<(Header, B256), HeaderVerifyError> {
        verify_sealed(rlp, parent, signers).map(|(h, hash, _)| (h, hash))
    }

    /// [`verify_link`], also giving the signer (when `signers` is not empty; else `None`).
    pub fn verify_sealed(
        rlp: &[u8],
        parent: Option<&B256>,
        signers: &[Address],
    ) -> Result<(Header, B256, Option<Address>), HeaderVerifyError> {
        let header = Header::decode_rlp(rlp)?;
        if let Some(p) = parent
            && header.parent_hash != *p
        {
            return Err(HeaderVerifyError::ParentMismatch {
                expected: *p,
                got: header.parent_hash,
            });
        }
        let mut sealed_by = None;
        if !signers.is_empty() {
            let s = signer(&header)?;
            if !signers.contains(&s) {
                return Err(HeaderVerifyError::UnknownSigner { signer: s });
            }
            sealed_by = Some(s);
        }
        Ok((header, keccak256(rlp), sealed_by))
    }

    /// Parses a packed signer list (20 bytes each).
    pub fn signers_from_bytes(b: &[u8]) -> Option<Vec<Address>> {
        b.len()
            .is_multiple_of(20)
            .then(|| b.chunks_exact(20).map(Address::from_slice).collect())
    }
}

#[cfg(all(test, feature = "clique"))]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use alloc::vec;

    use alloy_primitives::{Address, B256};
    use k256::ecdsa::SigningKey;
    use lightprov_types::{ErrorCode, header::Header};

    use super::clique::{seal_hash, signer, signers_from_bytes, verify_link};
    use crate::keccak256;

    fn header(parent: B256) -> Header {
        Header {
            parent_hash: parent,
            state_root: B256::repeat_byte(4),
            number: 7,
            gas_limit: 30_000_000,
            timestamp: 1_700_000_007,
            extra_data: vec![0; 96 + 65],
            base_fee_per_gas: Some([1; 32]),
            ..Header::default()
        }
    }

    fn address(key: &SigningKey) -> Address {
        let p = key.verifying_key().to_encoded_point(false);
        Address::from_slice(&keccak256(&p.as_bytes()[1..])[12..])
    }

    fn sealed(key: &SigningKey, parent: B256) -> Header {
        let mut h = header(parent);
        let (sig, recid) = key
            .sign_prehash_recoverable(seal_hash(&h).unwrap().as_slice())
            .unwrap();
        h.extra_data[96..160].copy_from_slice(&sig.to_bytes());
        h.extra_data[160] = recid.to_byte();
        h
    }

    #[test]
    fn recovers_the_signer_and_checks_the_link() {
        let key = SigningKey::from_slice(&[7; 32]).unwrap();
        let parent = B256::repeat_byte(1);
        let h = sealed(&key, parent);
        assert_eq!(signer(&h), Ok(address(&key)));
        let rlp = h.rlp().unwrap();
        let (_, hash) = verify_link(&rlp, Some(&parent), &[address(&key)]).unwrap();
        assert_eq!(hash, keccak256(&rlp));
        let code = |r: Result<_, super::HeaderVerifyError>| r.map(|_| ()).map_err(|e| e.code());
        assert_eq!(
            code(verify_link(&rlp, Some(&B256::ZERO), &[address(&key)])),
            Err(ErrorCode::ParentMismatch)
        );
        assert_eq!(
            code(verify_link(&rlp, None, &[Address::ZERO])),
            Err(ErrorCode::UnknownSigner)
        );
        assert_eq!(code(verify_link(&rlp, None, &[])), Ok(()));
    }

    #[test]
    fn rejects_malformed_and_malleable_seals() {
        let key = SigningKey::from_slice(&[9; 32]).unwrap();
        let good = sealed(&key, B256::ZERO);
        let code = |h: &Header| signer(h).map_err(|e| e.code());
        let mut v2 = good.clone();
        v2.extra_data[160] = 2;
        assert_eq!(code(&v2), Err(ErrorCode::BadSeal));
        let mut short = good.clone();
        short.extra_data.truncate(40);
        assert_eq!(code(&short), Err(ErrorCode::BadSeal));
        let mut zero = good.clone();
        zero.extra_data[96..160].fill(0);
        assert_eq!(code(&zero), Err(ErrorCode::BadSeal));
        // The same signature with s' = n - s and the other recovery id also recovers the key:
        // accepted by plain ecrecover, rejected here (one encoding per signature).
        let sig = k256::ecdsa::Signature::from_slice(&good.extra_data[96..160]).unwrap();
        let (r, s) = sig.split_scalars();
        let high = k256::ecdsa::Signature::from_scalars(r, -*s).unwrap();
        let mut malleable = good.clone();
        malleable.extra_data[96..160].copy_from_slice(&high.to_bytes());
        malleable.extra_data[160] ^= 1;
        assert_eq!(code(&malleable), Err(ErrorCode::BadSeal));
        // Tampering with any signed field changes the recovered address.
        let mut tampered = good.clone();
        tampered.state_root = B256::repeat_byte(0xee);
        assert_ne!(signer(&tampered).ok(), Some(address(&key)));
        assert_eq!(signers_from_bytes(&[0; 41]), None);
        assert_eq!(signers_from_bytes(&[0; 40]).map(|v| v.len()), Some(2));
    }
}

crate::family::verify_shape! {
    /// A header (canonical RLP) against the block hash it must hash to, in the one verify shape.
    pub struct HeaderRlp: &lightprov_types::header::FAMILY;
    fn verify(hash: &B256, _: &(), rlp) -> Result<Header, HeaderVerifyError> {
        verify_header_rlp(rlp, hash)
    }
}
