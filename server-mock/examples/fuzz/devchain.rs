//! A small lightprov-node chain in a temporary directory: the node the `rpc` target sends
//! requests to.

// Signing with a local key cannot fail: a harness may insist.
#![allow(clippy::expect_used)]

use std::sync::Arc;

use alloy_consensus::{SignableTransaction as _, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718 as _;
use alloy_primitives::{Address, B256, TxKind, U256};
use alloy_signer::SignerSync as _;
use alloy_signer_local::PrivateKeySigner;
use lightprov_node::{
    chain::{BASE_FEE, Chain, Config, TRANSFER_GAS},
    families::lvmt,
};

/// LVMT depth of the dev chain (small: its tables derive in well under a second).
pub(crate) const LVMT_DEPTH: u8 = 4;

/// A signed EIP-1559 transfer.
pub(crate) fn transfer(from: &PrivateKeySigner, to: Address, value: u64, nonce: u64) -> Vec<u8> {
    let tx = TxEip1559 {
        chain_id: 1337,
        nonce,
        gas_limit: TRANSFER_GAS,
        max_fee_per_gas: u128::from(3 * BASE_FEE),
        max_priority_fee_per_gas: u128::from(BASE_FEE),
        to: TxKind::Call(to),
        value: U256::from(value),
        ..Default::default()
    };
    let sig = from
        .sign_hash_sync(&tx.signature_hash())
        .expect("signing with a local key");
    TxEnvelope::from(tx.into_signed(sig)).encoded_2718()
}

/// A dev chain with `blocks` blocks after genesis, each with one transfer, running every
/// engine (LVMT at [`LVMT_DEPTH`], every key proven).
pub(crate) struct DevChain {
    /// Keeps the chain's files.
    pub(crate) dir: tempfile::TempDir,
    /// The chain.
    pub(crate) chain: Chain,
    /// Its configuration.
    pub(crate) config: Config,
    /// The raw transactions included, in order.
    pub(crate) txs: Vec<Vec<u8>>,
    /// A transfer signed for the next nonce, not submitted.
    pub(crate) next_tx: Vec<u8>,
}

impl std::fmt::Debug for DevChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DevChain").finish_non_exhaustive()
    }
}

impl DevChain {
    /// Builds it.
    pub(crate) fn new(blocks: u64) -> anyhow::Result<Self> {
        let dir = tempfile::tempdir()?;
        let mut config = Config::dev(None)?;
        let setup = lightprov_engine_lvmt::setup::Setup::dev_insecure(LVMT_DEPTH, b"fuzz")
            .map_err(|e| anyhow::anyhow!("LVMT dev setup: {e}"))?;
        config.set(lvmt::Settings {
            setup: Arc::new(setup),
            proofs: lightprov_engine_lvmt::amt::Proofs::All,
        });
        let mut chain = Chain::open(dir.path(), config.clone())?;
        let alice = config
            .dev_accounts
            .first()
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("no dev account"))?;
        let mut txs = Vec::new();
        for n in 0..blocks {
            let raw = transfer(&alice, Address::repeat_byte(0xb0), 1000 + n, n);
            chain
                .submit(&raw)
                .map_err(|e| anyhow::anyhow!("submit: {e}"))?;
            chain.produce_block()?;
            txs.push(raw);
        }
        let next_tx = transfer(&alice, Address::repeat_byte(0xb1), 7, blocks);
        Ok(Self {
            dir,
            chain,
            config,
            txs,
            next_tx,
        })
    }

    /// Block `n`'s header RLP and hash.
    pub(crate) fn header(&self, n: u64) -> anyhow::Result<(Vec<u8>, B256)> {
        let record = self
            .chain
            .block(n)?
            .ok_or_else(|| anyhow::anyhow!("no block {n}"))?;
        let rlp = record.header.to_vec();
        Ok((rlp.clone(), lightprov_verifier::keccak256(&rlp)))
    }
}
