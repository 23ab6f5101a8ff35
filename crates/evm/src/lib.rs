#![doc = include_str!("../README.md")]
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

mod call;
mod chain;
mod db;
mod error;
mod prestate;
mod request;
mod run;
mod state;

pub use call::{
    AccessListAnswer, DEFAULT_GAS_CAP, ESTIMATE_ERROR_RATIO, EstimateError, MAX_ACCESS_LIST_ROUNDS,
    MAX_TX_GAS, call, create_access_list, estimate_gas, precompiles,
};
pub use chain::{CANCUN_BLOB_FRACTION, ChainSpec, Fork, ForkError, PRAGUE_BLOB_FRACTION};
pub use db::{Need, Unproven};
pub use error::{EvmError, RequestError, StateError};
pub use prestate::{PrestateConfig, PrestateTrace, TracedAccount, prestate_trace};
pub use request::{AccessList, CallRequest, REQUEST_VERSION};
pub use run::{Executed, Invalid, Outcome, Status, block_env, halt_message};
pub use state::{ProvenAccount, ProvenState, StateSize};

#[cfg(test)]
mod tests;
