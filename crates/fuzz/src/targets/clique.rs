//! Clique-sealed headers for the `header` target, made here rather than by a node: a chain of
//! [`BLOCKS`] blocks after genesis in the shape lightprov-node seals them — one EIP-1559
//! transfer per block (its transaction and receipt roots), the commitments table in
//! `extraData` (coleRoot, lvmtRoot, lvmtHistoryRoot), then the 65-byte seal `r ‖ s ‖ v`
//! (v ∈ {0, 1}) over the header hashed without it, signed with the dev chain's signer key.
//!
//! The seal hash is computed with alloy-consensus, not with the verifier under test. Every
//! value is fixed (timestamps included), so the seeds are the same on every run.

use alloy_consensus::{
    Header, Receipt, ReceiptEnvelope, ReceiptWithBloom, constants::EMPTY_OMMER_ROOT_HASH, proofs,
};
use alloy_primitives::{Address, B256, Bloom, Bytes, U256, keccak256};
use alloy_rlp::Encodable as _;
use alloy_signer::SignerSync as _;
use alloy_signer_local::PrivateKeySigner;
use lightprov_testkit::tx::{BASE_FEE, DEV_CHAIN_ID, TRANSFER_GAS, transfer};
use lightprov_types::family;

/// Blocks sealed after genesis.
pub const BLOCKS: u64 = 4;

/// The node's gas limit.
const GAS_LIMIT: u64 = 30_000_000;
/// The dev chain's genesis time; a block every 2 s after it.
const GENESIS_TIME: u64 = 1_700_000_000;

/// One sealed header: its RLP, its hash and its parent's hash.
#[derive(Clone, Debug)]
pub struct Sealed {
    /// The header's RLP.
    pub rlp: Vec<u8>,
    /// keccak256 of it.
    pub hash: B256,
    /// The parent's hash.
    pub parent: B256,
}

/// The chain's signer (the dev chain's: its key is keccak256 of a public string, insecure by
/// design).
pub fn signer() -> anyhow::Result<PrivateKeySigner> {
    Ok(PrivateKeySigner::from_bytes(&keccak256(
        "lightprov dev signer",
    ))?)
}

/// Genesis (unsealed, as the parent of block 1) and blocks 1 to [`BLOCKS`], sealed by
/// [`signer`]: the sealed ones, in order.
pub fn chain() -> anyhow::Result<Vec<Sealed>> {
    let signer = signer()?;
    let sender = PrivateKeySigner::from_bytes(&keccak256("lightprov dev account 0"))?;
    let mut parent = B256::ZERO;
    let mut out = Vec::new();
    for number in 0..=BLOCKS {
        let txs = if number == 0 {
            Vec::new()
        } else {
            vec![transfer(
                &sender,
                Address::repeat_byte(0xb0),
                1000 + number,
                number - 1,
                DEV_CHAIN_ID,
            )?]
        };
        let receipts: Vec<ReceiptEnvelope> = txs
            .iter()
            .map(|_| {
                ReceiptEnvelope::Eip1559(ReceiptWithBloom::new(
                    Receipt {
                        status: true.into(),
                        cumulative_gas_used: TRANSFER_GAS,
                        logs: vec![],
                    },
                    Bloom::ZERO,
                ))
            })
            .collect();
        // The commitments table, each root where the node puts it (values fixed and distinct).
        let mut extra = vec![0u8; family::EXTRA_COMMITMENTS_LEN];
        let root = |what: &str| keccak256(format!("{what} {number}"));
        let placed = lightprov_types::cole::COLE_ROOT.write(&mut extra, &root("coleRoot").0)
            && lightprov_types::lvmt::LVMT_ROOT.write(&mut extra, &root("lvmtRoot").0)
            && lightprov_types::lvmt::LVMT_HISTORY_ROOT
                .write(&mut extra, &root("lvmtHistoryRoot").0);
        anyhow::ensure!(placed, "the commitments table does not hold its roots");
        let mut header = Header {
            parent_hash: parent,
            ommers_hash: EMPTY_OMMER_ROOT_HASH,
            beneficiary: signer.address(),
            state_root: root("stateRoot"),
            transactions_root: proofs::calculate_transaction_root(&txs),
            receipts_root: proofs::calculate_receipt_root(&receipts),
            logs_bloom: Bloom::ZERO,
            difficulty: U256::from(1),
            number,
            gas_limit: GAS_LIMIT,
            gas_used: TRANSFER_GAS * txs.len() as u64,
            timestamp: GENESIS_TIME + 2 * number,
            extra_data: Bytes::from(extra.clone()),
            mix_hash: B256::ZERO,
            nonce: Default::default(),
            base_fee_per_gas: Some(BASE_FEE),
            ..Default::default()
        };
        // The seal signs the header hashed with extraData cut to the commitments table.
        let sig = signer.sign_hash_sync(&header.hash_slow())?;
        extra.extend_from_slice(&sig.r().to_be_bytes::<32>());
        extra.extend_from_slice(&sig.s().to_be_bytes::<32>());
        extra.push(u8::from(sig.v()));
        header.extra_data = extra.into();
        let mut rlp = Vec::new();
        header.encode(&mut rlp);
        let hash = keccak256(&rlp);
        if number > 0 {
            out.push(Sealed { rlp, hash, parent });
        }
        parent = hash;
    }
    Ok(out)
}
