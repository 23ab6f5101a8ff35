//! A small lightprov-node chain in a temporary directory: the node the `rpc` target sends
//! requests to.

use std::sync::Arc;

use alloy_primitives::{Address, B256};
use lightprov_node::{
    chain::{Chain, Config},
    families::lvmt,
};
use lightprov_testkit::tx::{DEV_CHAIN_ID, raw_transfer};

/// LVMT depth of the dev chain (small: its tables derive in well under a second).
pub(crate) const LVMT_DEPTH: u8 = 4;

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
            let raw = raw_transfer(
                &alice,
                Address::repeat_byte(0xb0),
                1000 + n,
                n,
                DEV_CHAIN_ID,
            );
            chain
                .submit(&raw)
                .map_err(|e| anyhow::anyhow!("submit: {e}"))?;
            chain.produce_block()?;
            txs.push(raw);
        }
        let next_tx = raw_transfer(&alice, Address::repeat_byte(0xb1), 7, blocks, DEV_CHAIN_ID);
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
