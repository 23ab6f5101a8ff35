//! A call as `eth_call`, `eth_estimateGas` and `eth_createAccessList` take it (geth's
//! `TransactionArgs`, without state overrides and authorization lists), and its wire format
//! from the SDK.
//!
//! Wire format (big-endian): `version:u8 = 1`, `present:u16` (bit 0 `to`, 1 `gas`, 2
//! `gasPrice`, 3 `maxFeePerGas`, 4 `maxPriorityFeePerGas`, 5 `nonce`, 6 `chainId`, 7
//! `accessList`, 8 `blobVersionedHashes`, 9 `maxFeePerBlobGas`; the others zero), `from:20`,
//! then each present field in that order — `to:20`, `gas:u64`, the three fees `:32` each —
//! then `value:32`, `nonce:u64`, `chainId:u64` when present, `input` (`len:u32 ‖ bytes`),
//! `accessList` (`count:u32`, then per entry `address:20 ‖ count:u32 ‖ key:32 …`),
//! `blobVersionedHashes` (`count:u32 ‖ hash:32 …`), `maxFeePerBlobGas:32`.

use alloc::vec::Vec;

use lightprov_types::{Address, B256, DecodeError, codec::Reader};
use revm::primitives::{Bytes, U256};

/// Version byte of the wire format.
pub const REQUEST_VERSION: u8 = 1;

/// An access list: addresses with their storage keys, in order.
pub type AccessList = Vec<(Address, Vec<B256>)>;

/// A call to run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallRequest {
    /// The sender (geth's default: the zero address).
    pub from: Address,
    /// The callee; `None` runs `input` as init code.
    pub to: Option<Address>,
    /// The gas limit (default: the gas cap; `eth_estimateGas`: the block's).
    pub gas: Option<u64>,
    /// A legacy gas price (excludes the two below).
    pub gas_price: Option<U256>,
    /// EIP-1559 fee cap.
    pub max_fee_per_gas: Option<U256>,
    /// EIP-1559 tip cap.
    pub max_priority_fee_per_gas: Option<U256>,
    /// Wei sent.
    pub value: U256,
    /// Calldata, or init code.
    pub input: Bytes,
    /// A nonce (calls skip the nonce check; access lists use it for a creation's address).
    pub nonce: Option<u64>,
    /// A chain id, which must be the chain's.
    pub chain_id: Option<u64>,
    /// An EIP-2930 access list.
    pub access_list: Option<AccessList>,
    /// EIP-4844 versioned hashes.
    pub blob_hashes: Option<Vec<B256>>,
    /// EIP-4844 blob fee cap.
    pub max_fee_per_blob_gas: Option<U256>,
}

const F_TO: u16 = 1;
const F_GAS: u16 = 1 << 1;
const F_GAS_PRICE: u16 = 1 << 2;
const F_MAX_FEE: u16 = 1 << 3;
const F_PRIORITY: u16 = 1 << 4;
const F_NONCE: u16 = 1 << 5;
const F_CHAIN_ID: u16 = 1 << 6;
const F_ACCESS_LIST: u16 = 1 << 7;
const F_BLOBS: u16 = 1 << 8;
const F_BLOB_FEE: u16 = 1 << 9;
const F_ALL: u16 = (1 << 10) - 1;

fn word(r: &mut Reader<'_>, field: &str) -> Result<U256, DecodeError> {
    Ok(U256::from_be_bytes(r.array::<32>(field)?))
}

fn count(r: &mut Reader<'_>, field: &str, size: usize) -> Result<usize, DecodeError> {
    let n = r.u32(field)? as usize;
    // Every entry takes at least `size` bytes: a count the input cannot hold is refused before
    // anything is allocated for it.
    if n.saturating_mul(size) > r.remaining() {
        return Err(DecodeError::new(field, "more entries than the input holds"));
    }
    Ok(n)
}

impl CallRequest {
    /// Decodes the wire format.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        if r.u8("version")? != REQUEST_VERSION {
            return Err(DecodeError::new("version", "unknown version"));
        }
        let present = r.u16("present")?;
        if present & !F_ALL != 0 {
            return Err(DecodeError::new("present", "unknown field bits"));
        }
        let has = |bit| present & bit != 0;
        let from = Address::from(r.array::<20>("from")?);
        let to = has(F_TO)
            .then(|| r.array::<20>("to").map(Address::from))
            .transpose()?;
        let gas = has(F_GAS).then(|| r.u64("gas")).transpose()?;
        let gas_price = has(F_GAS_PRICE)
            .then(|| word(&mut r, "gasPrice"))
            .transpose()?;
        let max_fee_per_gas = has(F_MAX_FEE)
            .then(|| word(&mut r, "maxFeePerGas"))
            .transpose()?;
        let max_priority_fee_per_gas = has(F_PRIORITY)
            .then(|| word(&mut r, "maxPriorityFeePerGas"))
            .transpose()?;
        let value = word(&mut r, "value")?;
        let nonce = has(F_NONCE).then(|| r.u64("nonce")).transpose()?;
        let chain_id = has(F_CHAIN_ID).then(|| r.u64("chainId")).transpose()?;
        let input = Bytes::copy_from_slice(r.bytes("input")?);
        let access_list = if has(F_ACCESS_LIST) {
            let n = count(&mut r, "accessList", 24)?;
            let mut list = Vec::with_capacity(n);
            for _ in 0..n {
                let address = Address::from(r.array::<20>("accessList.address")?);
                let k = count(&mut r, "accessList.storageKeys", 32)?;
                let mut keys = Vec::with_capacity(k);
                for _ in 0..k {
                    keys.push(B256::from(r.array::<32>("accessList.storageKeys")?));
                }
                list.push((address, keys));
            }
            Some(list)
        } else {
            None
        };
        let blob_hashes = if has(F_BLOBS) {
            let n = count(&mut r, "blobVersionedHashes", 32)?;
            let mut hashes = Vec::with_capacity(n);
            for _ in 0..n {
                hashes.push(B256::from(r.array::<32>("blobVersionedHashes")?));
            }
            Some(hashes)
        } else {
            None
        };
        let max_fee_per_blob_gas = has(F_BLOB_FEE)
            .then(|| word(&mut r, "maxFeePerBlobGas"))
            .transpose()?;
        r.finish("request")?;
        Ok(Self {
            from,
            to,
            gas,
            gas_price,
            max_fee_per_gas,
            max_priority_fee_per_gas,
            value,
            input,
            nonce,
            chain_id,
            access_list,
            blob_hashes,
            max_fee_per_blob_gas,
        })
    }

    /// Encodes the wire format (for tests and native callers; the SDK writes the same bytes).
    pub fn encode(&self) -> Vec<u8> {
        let mut present = 0u16;
        let mut set = |bit, on: bool| {
            if on {
                present |= bit;
            }
        };
        set(F_TO, self.to.is_some());
        set(F_GAS, self.gas.is_some());
        set(F_GAS_PRICE, self.gas_price.is_some());
        set(F_MAX_FEE, self.max_fee_per_gas.is_some());
        set(F_PRIORITY, self.max_priority_fee_per_gas.is_some());
        set(F_NONCE, self.nonce.is_some());
        set(F_CHAIN_ID, self.chain_id.is_some());
        set(F_ACCESS_LIST, self.access_list.is_some());
        set(F_BLOBS, self.blob_hashes.is_some());
        set(F_BLOB_FEE, self.max_fee_per_blob_gas.is_some());
        let mut out = Vec::with_capacity(128 + self.input.len());
        out.push(REQUEST_VERSION);
        out.extend_from_slice(&present.to_be_bytes());
        out.extend_from_slice(self.from.as_slice());
        if let Some(to) = self.to {
            out.extend_from_slice(to.as_slice());
        }
        if let Some(g) = self.gas {
            out.extend_from_slice(&g.to_be_bytes());
        }
        for w in [
            self.gas_price,
            self.max_fee_per_gas,
            self.max_priority_fee_per_gas,
        ]
        .into_iter()
        .flatten()
        {
            out.extend_from_slice(&w.to_be_bytes::<32>());
        }
        out.extend_from_slice(&self.value.to_be_bytes::<32>());
        for n in [self.nonce, self.chain_id].into_iter().flatten() {
            out.extend_from_slice(&n.to_be_bytes());
        }
        let len = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_be_bytes();
        out.extend_from_slice(&len(self.input.len()));
        out.extend_from_slice(&self.input);
        if let Some(list) = &self.access_list {
            out.extend_from_slice(&len(list.len()));
            for (address, keys) in list {
                out.extend_from_slice(address.as_slice());
                out.extend_from_slice(&len(keys.len()));
                for k in keys {
                    out.extend_from_slice(k.as_slice());
                }
            }
        }
        if let Some(hashes) = &self.blob_hashes {
            out.extend_from_slice(&len(hashes.len()));
            for h in hashes {
                out.extend_from_slice(h.as_slice());
            }
        }
        if let Some(w) = self.max_fee_per_blob_gas {
            out.extend_from_slice(&w.to_be_bytes::<32>());
        }
        out
    }
}
