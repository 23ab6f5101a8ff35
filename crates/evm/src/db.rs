//! revm's database over a [`ProvenState`]: it answers from proven values only. Anything else
//! is an error that names what is missing ([`Need`]); revm stops the transaction at it, and the
//! caller fetches exactly that, proves it, and runs again.

use core::fmt;

use lightprov_types::{Address, B256};
use revm::{
    Database,
    bytecode::Bytecode,
    database_interface::DBErrorMarker,
    primitives::{StorageKey, StorageValue, U256},
    state::AccountInfo,
};

use crate::state::ProvenState;

/// A piece of state a run touched that is not proven yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Need {
    /// An account (`eth_getProof` of the address).
    Account(Address),
    /// A storage slot of a proven account (`eth_getProof` of the address with the slot).
    Slot(Address, U256),
    /// The code of a proven account (`eth_getCode`, checked against its code hash).
    Code(Address),
    /// The hash of block `n`: the headers from the oldest linked block down to `n + 1`.
    BlockHash(u64),
}

/// The database's only error: execution touched state that is not proven.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unproven(pub Need);

impl fmt::Display for Unproven {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not proven yet: {:?}", self.0)
    }
}

impl core::error::Error for Unproven {}

impl DBErrorMarker for Unproven {}

/// The proven state as revm's database.
#[derive(Debug)]
pub(crate) struct ProvenDb<'a>(pub(crate) &'a ProvenState);

impl Database for ProvenDb<'_> {
    type Error = Unproven;

    fn basic(&mut self, address: Address) -> Result<Option<AccountInfo>, Unproven> {
        let a = self
            .0
            .account(&address)
            .ok_or(Unproven(Need::Account(address)))?;
        if !a.exists {
            return Ok(None);
        }
        Ok(Some(AccountInfo {
            balance: a.balance,
            nonce: a.nonce,
            code_hash: a.code_hash,
            account_id: None,
            // Code loads lazily, through `code_by_hash`, only when a run needs it.
            code: self.0.code(&a.code_hash).cloned(),
        }))
    }

    fn code_by_hash(&mut self, code_hash: B256) -> Result<Bytecode, Unproven> {
        if code_hash == lightprov_types::KECCAK_EMPTY {
            return Ok(Bytecode::default());
        }
        if let Some(code) = self.0.code(&code_hash) {
            return Ok(code.clone());
        }
        // revm asks by hash only for an account it loaded from here, so one holds the hash.
        let holder = self.0.holder_of(&code_hash).unwrap_or_default();
        Err(Unproven(Need::Code(holder)))
    }

    fn storage(&mut self, address: Address, index: StorageKey) -> Result<StorageValue, Unproven> {
        let a = self
            .0
            .account(&address)
            .ok_or(Unproven(Need::Account(address)))?;
        a.slot(&index).ok_or(Unproven(Need::Slot(address, index)))
    }

    fn block_hash(&mut self, number: u64) -> Result<B256, Unproven> {
        self.0
            .hash_of(number)
            .ok_or(Unproven(Need::BlockHash(number)))
    }
}
