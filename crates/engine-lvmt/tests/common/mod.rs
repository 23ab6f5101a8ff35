//! What the LVMT tests and the vector generator share (each uses a part of it): a tree's
//! trusted roots as the verifier takes them, and the workload of the committed test vectors,
//! which the on-disk store must reproduce byte for byte.

// Test support: a broken fixture should fail the test loudly.
#![allow(
    dead_code,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing
)]

use std::{collections::BTreeMap, sync::Arc};

use alloy_primitives::{B256, keccak256};
use lightprov_engine_lvmt::{
    setup::Setup,
    tree::{Lvmt, colliding_keys, in_key_order},
};
use lightprov_types::Word;
use lightprov_verifier::lvmt::proof::Trusted;

/// What a client trusts of `t`: its parameters, both roots and its block count.
pub(crate) fn trusted(t: &Lvmt) -> Trusted<'_> {
    Trusted {
        params: t.setup().params(),
        aroot: t.aroot(),
        history_root: t.history_root(),
        blocks: t.blocks(),
    }
}

/// The committed vectors' setup: the insecure dev setup at D = 4.
pub(crate) fn vector_setup() -> Arc<Setup> {
    Arc::new(Setup::dev_insecure(4, b"lightprov test vectors").expect("the dev setup"))
}

/// The committed vectors' keys: 14 forced into levels 0, 1 and 2 (sharing 8 bits), then 6
/// scattered ones.
pub(crate) fn vector_keys() -> Vec<B256> {
    let mut keys = colliding_keys(0xe1, 8, 14);
    keys.extend((0..6u64).map(|i| keccak256((i + 500).to_be_bytes())));
    keys
}

/// Block `b`'s writes to `keys` (the first 14 forced onto one path): every key in its first
/// three blocks, then every `every`-th key in turn, key `i`'s value the byte `b * step + i`.
pub(crate) fn rotating_writes(
    keys: &[B256],
    b: u64,
    every: u64,
    step: u64,
) -> BTreeMap<B256, Word> {
    keys.iter()
        .enumerate()
        .filter(|(i, _)| (*i as u64 + b).is_multiple_of(every) || (b < 3 && *i < 14))
        .map(|(i, k)| (*k, [(b * step + i as u64) as u8; 32]))
        .collect()
}

/// The committed vectors' 24 blocks of writes, each in key order.
pub(crate) fn vector_blocks() -> Vec<Vec<(B256, Word)>> {
    let keys = vector_keys();
    (0..24u64)
        .map(|b| in_key_order(&rotating_writes(&keys, b, 3, 5)))
        .collect()
}
