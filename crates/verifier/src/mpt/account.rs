//! EIP-1186 account proofs: the account leaf against the state root, then each storage slot
//! against the account's storage root.

use alloc::vec::Vec;

use crate::keccak256;
use alloy_primitives::B256;
use alloy_rlp::Header;
use lightprov_types::{EMPTY_ROOT_HASH, KECCAK_EMPTY, Word, mpt::AccountProofRef};

use super::{AccountField, AccountProofError, MptError, Proven, prove};

/// An account as proven against a state root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedAccount {
    /// False when the proof shows the address has no account (all fields are then the empty
    /// account's).
    pub exists: bool,
    /// Nonce.
    pub nonce: u64,
    /// Balance in wei, big-endian.
    pub balance: Word,
    /// keccak256 of the code.
    pub code_hash: B256,
    /// Storage trie root.
    pub storage_hash: B256,
    /// Each requested slot with its proven value, in the proof's order.
    pub storage: Vec<(B256, Word)>,
}

struct Account {
    nonce: u64,
    balance: Word,
    storage_root: B256,
    code_hash: B256,
}

const fn malformed(reason: &'static str, index: usize) -> MptError {
    MptError::MalformedNode { index, reason }
}

/// Decodes a canonical RLP unsigned integer of at most 32 bytes into a word.
fn uint(buf: &mut &[u8]) -> Result<Word, &'static str> {
    let v = Header::decode_bytes(buf, false).map_err(|_| "invalid RLP")?;
    if v.len() > 32 {
        return Err("an integer exceeds 256 bits");
    }
    if v.first() == Some(&0) {
        return Err("an integer has leading zeros");
    }
    let mut w = [0u8; 32];
    w.get_mut(32 - v.len()..)
        .ok_or("an integer exceeds 256 bits")?
        .copy_from_slice(v);
    Ok(w)
}

fn hash(buf: &mut &[u8]) -> Result<B256, &'static str> {
    let v = Header::decode_bytes(buf, false).map_err(|_| "invalid RLP")?;
    B256::try_from(v).map_err(|_| "a hash is not 32 bytes")
}

/// RLP([nonce, balance, storageRoot, codeHash]), canonical, nothing after it.
fn decode_account(mut leaf: &[u8]) -> Result<Account, &'static str> {
    let mut body =
        Header::decode_bytes(&mut leaf, true).map_err(|_| "the account is not an RLP list")?;
    if !leaf.is_empty() {
        return Err("trailing bytes after the account");
    }
    let nonce = uint(&mut body)?;
    if nonce[..24].iter().any(|&b| b != 0) {
        return Err("the nonce exceeds 64 bits");
    }
    let mut n8 = [0u8; 8];
    n8.copy_from_slice(&nonce[24..]);
    let account = Account {
        nonce: u64::from_be_bytes(n8),
        balance: uint(&mut body)?,
        storage_root: hash(&mut body)?,
        code_hash: hash(&mut body)?,
    };
    if !body.is_empty() {
        return Err("the account has more than four fields");
    }
    Ok(account)
}

/// The RLP of a storage word as the trie stores it: the integer without leading zero bytes.
fn storage_rlp(value: &Word, out: &mut Vec<u8>) {
    let start = value.iter().position(|&b| b != 0).unwrap_or(32);
    let v = value.get(start..).unwrap_or_default();
    out.clear();
    alloy_rlp::Encodable::encode(&v, out);
}

/// Verifies an EIP-1186 proof against a trusted state root and returns the proven account.
///
/// For an absent account the claim must be the empty account: nonce 0, balance 0, and code
/// and storage hashes either the empty ones (keccak256 of "" and the empty-trie root) or zero,
/// as some clients send; its storage proofs must prove every slot zero in the empty trie.
pub fn verify_account_proof(
    state_root: &B256,
    proof: &AccountProofRef<'_>,
) -> Result<VerifiedAccount, AccountProofError> {
    let path = keccak256(proof.address);
    let last = proof.account_proof.len().saturating_sub(1);
    let proven = prove(state_root, path.as_slice(), &proof.account_proof)
        .map_err(AccountProofError::Account)?;
    let field = |field, absent| AccountProofError::Field { field, absent };
    let (exists, storage_root) = match proven {
        Proven::Present(leaf) => {
            let a =
                decode_account(leaf).map_err(|r| AccountProofError::Account(malformed(r, last)))?;
            if a.nonce != proof.nonce {
                return Err(field(AccountField::Nonce, false));
            }
            if a.balance != proof.balance {
                return Err(field(AccountField::Balance, false));
            }
            if a.storage_root != proof.storage_hash {
                return Err(field(AccountField::StorageHash, false));
            }
            if a.code_hash != proof.code_hash {
                return Err(field(AccountField::CodeHash, false));
            }
            (true, a.storage_root)
        }
        Proven::Absent(_) => {
            if proof.nonce != 0 {
                return Err(field(AccountField::Nonce, true));
            }
            if proof.balance != [0; 32] {
                return Err(field(AccountField::Balance, true));
            }
            if proof.code_hash != KECCAK_EMPTY && proof.code_hash != B256::ZERO {
                return Err(field(AccountField::CodeHash, true));
            }
            if proof.storage_hash != EMPTY_ROOT_HASH && proof.storage_hash != B256::ZERO {
                return Err(field(AccountField::StorageHash, true));
            }
            (false, EMPTY_ROOT_HASH)
        }
    };

    let mut storage = Vec::with_capacity(proof.storage_proof.len());
    let mut want = Vec::with_capacity(34);
    for (index, s) in proof.storage_proof.iter().enumerate() {
        let err = |error| AccountProofError::Storage { index, error };
        let claim = (s.value != [0; 32]).then(|| {
            storage_rlp(&s.value, &mut want);
            want.as_slice()
        });
        super::verify_proof(&storage_root, keccak256(s.key).as_slice(), claim, &s.proof)
            .map_err(err)?;
        storage.push((s.key, s.value));
    }

    Ok(VerifiedAccount {
        exists,
        nonce: proof.nonce,
        balance: proof.balance,
        code_hash: if exists {
            proof.code_hash
        } else {
            KECCAK_EMPTY
        },
        storage_hash: storage_root,
        storage,
    })
}
