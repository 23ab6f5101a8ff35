//! Signed EIP-1559 transfers in the dev chain's shape: lightprov-node's transfer gas, and a fee
//! cap of three times its base fee with its base fee as the tip (the node's constants, which
//! lightprov-node's tests check these against).

use alloy_consensus::{SignableTransaction as _, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718 as _;
use alloy_primitives::{Address, TxKind, U256};
use alloy_signer::SignerSync as _;
use alloy_signer_local::PrivateKeySigner;

/// The dev chain's base fee (1 gwei): lightprov-node's `chain::BASE_FEE`.
pub const BASE_FEE: u64 = 1_000_000_000;
/// The gas of a plain transfer: lightprov-node's `chain::TRANSFER_GAS`.
pub const TRANSFER_GAS: u64 = 21_000;
/// The dev chain's id.
pub const DEV_CHAIN_ID: u64 = 1337;

/// A transfer of `value` wei from `from` to `to` at `nonce` on chain `chain_id`, signed.
pub fn transfer(
    from: &PrivateKeySigner,
    to: Address,
    value: u64,
    nonce: u64,
    chain_id: u64,
) -> Result<TxEnvelope, alloy_signer::Error> {
    let tx = TxEip1559 {
        chain_id,
        nonce,
        gas_limit: TRANSFER_GAS,
        max_fee_per_gas: u128::from(3 * BASE_FEE),
        max_priority_fee_per_gas: u128::from(BASE_FEE),
        to: TxKind::Call(to),
        value: U256::from(value),
        ..Default::default()
    };
    let sig = from.sign_hash_sync(&tx.signature_hash())?;
    Ok(TxEnvelope::from(tx.into_signed(sig)))
}

/// [`transfer`] encoded as `eth_sendRawTransaction` takes it (signing with a local key does not
/// fail).
pub fn raw_transfer(
    from: &PrivateKeySigner,
    to: Address,
    value: u64,
    nonce: u64,
    chain_id: u64,
) -> Vec<u8> {
    transfer(from, to, value, nonce, chain_id)
        .expect("signing with a local key")
        .encoded_2718()
}
