//! The state a call runs on: one pinned block, and only what was proven against it.
//!
//! Everything enters through a check. The pinned header must hash to the block hash the
//! caller verified; it gives the state root, the block environment and the parent hash. An
//! account (nonce, balance, code hash, storage root) enters with its EIP-1186 proof against the
//! state root, each storage slot with its proof against that account's proven storage root, a
//! contract's code when its keccak256 is the proven code hash, and an older block's hash when
//! its header hashes to a hash already known, walking parent hashes down from the pinned block.
//! What has not entered is not known: the database reports it missing ([`crate::Need`]), never
//! as zero or empty. The one inference is the trie's own: an account whose proven storage root
//! is the empty trie's holds zero in every slot.

use alloc::collections::BTreeMap;

use lightprov_types::{
    Address, B256, EMPTY_ROOT_HASH, KECCAK_EMPTY,
    header::{Header, HeaderVerifyError},
    mpt::{AccountProofError, AccountProofRef},
};
use lightprov_verifier::{header::verify_header_rlp, keccak256, mpt::verify_account_proof};
use revm::{
    bytecode::Bytecode,
    primitives::{Bytes, U256},
};

use crate::{
    chain::{ChainSpec, Fork},
    error::{EvmError, RequestError, StateError},
};

/// An account as proven against the pinned state root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProvenAccount {
    /// False when the proof shows no account at the address.
    pub exists: bool,
    /// Nonce.
    pub nonce: u64,
    /// Balance in wei.
    pub balance: U256,
    /// keccak256 of its code.
    pub code_hash: B256,
    /// Its storage trie's root.
    pub storage_root: B256,
    /// The slots proven so far.
    pub storage: BTreeMap<U256, U256>,
}

impl ProvenAccount {
    /// The value of `slot`, if proven: every slot of an account with an empty storage trie is
    /// zero.
    pub fn slot(&self, slot: &U256) -> Option<U256> {
        if self.storage_root == EMPTY_ROOT_HASH {
            return Some(U256::ZERO);
        }
        self.storage.get(slot).copied()
    }
}

/// How much a call's state holds: the figures its limits and reports count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StateSize {
    /// Accounts proven.
    pub accounts: usize,
    /// Storage slots proven.
    pub slots: usize,
    /// Contract codes taken (each checked against a code hash).
    pub codes: usize,
    /// Their bytes.
    pub code_bytes: usize,
    /// Ancestor headers linked for `BLOCKHASH`.
    pub headers: usize,
}

/// One block's proven state, and its environment.
#[derive(Clone, Debug)]
pub struct ProvenState {
    header: Header,
    hash: B256,
    chain: ChainSpec,
    fork: Fork,
    accounts: BTreeMap<Address, ProvenAccount>,
    codes: BTreeMap<B256, Bytecode>,
    /// Verified block hashes by number: the pinned block's, and each parent hash of a linked
    /// header.
    hashes: BTreeMap<u64, B256>,
    size: StateSize,
}

impl ProvenState {
    /// Pins the block whose header is `header_rlp`, which must hash to `block_hash` (a hash the
    /// caller verified), and resolves its fork under `chain`.
    pub fn new(header_rlp: &[u8], block_hash: B256, chain: ChainSpec) -> Result<Self, EvmError> {
        let header =
            verify_header_rlp(header_rlp, &block_hash).map_err(|error| StateError::Header {
                number: Header::decode_rlp(header_rlp).map_or(0, |h| h.number),
                error,
            })?;
        let fork = chain.fork_of(&header)?;
        let mut hashes = BTreeMap::new();
        hashes.insert(header.number, block_hash);
        if let Some(parent) = header.number.checked_sub(1) {
            hashes.insert(parent, header.parent_hash);
        }
        Ok(Self {
            header,
            hash: block_hash,
            chain,
            fork,
            accounts: BTreeMap::new(),
            codes: BTreeMap::new(),
            hashes,
            size: StateSize::default(),
        })
    }

    /// The pinned header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The pinned block's hash.
    pub fn block_hash(&self) -> B256 {
        self.hash
    }

    /// The chain's schedule.
    pub fn chain(&self) -> &ChainSpec {
        &self.chain
    }

    /// The pinned block's fork.
    pub fn fork(&self) -> Fork {
        self.fork
    }

    /// What the state holds.
    pub fn size(&self) -> StateSize {
        self.size
    }

    /// The proven account at `address`, if any.
    pub fn account(&self, address: &Address) -> Option<&ProvenAccount> {
        self.accounts.get(address)
    }

    /// The code whose hash is `code_hash`, if taken.
    pub fn code(&self, code_hash: &B256) -> Option<&Bytecode> {
        self.codes.get(code_hash)
    }

    /// An account proven with `code_hash` (whose code to ask a node for).
    pub fn holder_of(&self, code_hash: &B256) -> Option<Address> {
        self.accounts
            .iter()
            .find(|(_, a)| a.code_hash == *code_hash)
            .map(|(address, _)| *address)
    }

    /// The verified hash of block `number`, if known.
    pub fn hash_of(&self, number: u64) -> Option<B256> {
        self.hashes.get(&number).copied()
    }

    /// The oldest block whose hash is known: `BLOCKHASH` of an older one needs the header of
    /// this one (and so on down).
    pub fn oldest_known(&self) -> u64 {
        self.hashes
            .keys()
            .next()
            .copied()
            .unwrap_or(self.header.number)
    }

    /// Verifies an EIP-1186 proof (compact wire format) of `address` with the storage `slots`
    /// asked, in that order, against the pinned state root, and takes the account and slots.
    pub fn add_proof(
        &mut self,
        address: Address,
        slots: &[B256],
        proof: &[u8],
    ) -> Result<(), StateError> {
        let proof = AccountProofRef::decode(proof).map_err(|e| StateError::proof(address, e))?;
        if proof.address != address {
            return Err(StateError::proof(
                address,
                AccountProofError::Address {
                    expected: address,
                    found: proof.address,
                },
            ));
        }
        if let Some(i) = (0..slots.len().max(proof.storage_proof.len()))
            .find(|&i| slots.get(i) != proof.storage_proof.get(i).map(|s| &s.key))
        {
            return Err(StateError::storage_keys(address, i));
        }
        let v = verify_account_proof(&self.header.state_root, &proof)
            .map_err(|error| StateError::Proof { address, error })?;
        // A repeated account proof verified against the same root proves the same account.
        let account = self
            .accounts
            .entry(address)
            .or_insert_with(|| ProvenAccount {
                exists: v.exists,
                nonce: v.nonce,
                balance: U256::from_be_bytes(v.balance),
                code_hash: v.code_hash,
                storage_root: v.storage_hash,
                storage: BTreeMap::new(),
            });
        for (key, value) in v.storage {
            let (key, value) = (U256::from_be_bytes(key.0), U256::from_be_bytes(value));
            if account.storage.insert(key, value).is_none() {
                self.size.slots += 1;
            }
        }
        self.size.accounts = self.accounts.len();
        Ok(())
    }

    /// Takes `code` as the code of `address`, whose account must be proven: its keccak256 must
    /// be the proven code hash.
    pub fn add_code(&mut self, address: Address, code: &[u8]) -> Result<(), EvmError> {
        let Some(account) = self.accounts.get(&address) else {
            return Err(RequestError::new(
                "code",
                alloc::format!("{address} has no proven account yet: add its proof first"),
            )
            .into());
        };
        let found = keccak256(code);
        if found != account.code_hash {
            return Err(StateError::CodeHashMismatch {
                address,
                expected: account.code_hash,
                found,
            }
            .into());
        }
        if found != KECCAK_EMPTY && !self.codes.contains_key(&found) {
            let bytes = Bytes::copy_from_slice(code);
            let code = Bytecode::new_raw_checked(bytes.clone())
                .unwrap_or_else(|_| Bytecode::new_legacy(bytes));
            self.size.codes += 1;
            self.size.code_bytes += code.original_byte_slice().len();
            self.codes.insert(found, code);
        }
        Ok(())
    }

    /// Takes an older header for `BLOCKHASH`: it must hash to a block hash already known (its
    /// child's parent hash), and makes its own parent's hash known.
    pub fn add_header(&mut self, rlp: &[u8]) -> Result<(), EvmError> {
        let header = Header::decode_rlp(rlp).map_err(|e| StateError::Header {
            number: 0,
            error: HeaderVerifyError::Header(e),
        })?;
        let Some(expected) = self.hashes.get(&header.number).copied() else {
            return Err(RequestError::new(
                "headers",
                alloc::format!(
                    "block {} is not linked yet: give the headers from block {} down",
                    header.number,
                    self.oldest_known()
                ),
            )
            .into());
        };
        verify_header_rlp(rlp, &expected).map_err(|error| StateError::Header {
            number: header.number,
            error,
        })?;
        if let Some(parent) = header.number.checked_sub(1)
            && self.hashes.insert(parent, header.parent_hash).is_none()
        {
            self.size.headers += 1;
        }
        Ok(())
    }
}
