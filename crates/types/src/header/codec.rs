//! The header family's wire format and hashing rules (documented on the family module).

use alloc::vec::Vec;

use alloy_rlp::{Encodable, Header as RlpHeader};

use super::HeaderError;
use crate::{Address, B256, DecodeError, Word};

/// The field layouts this crate knows, oldest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layout {
    /// 15 fields (Frontier, Homestead, …, Berlin).
    Frontier,
    /// + baseFeePerGas (London, Paris).
    London,
    /// + withdrawalsRoot.
    Shanghai,
    /// + blobGasUsed, excessBlobGas, parentBeaconBlockRoot.
    Cancun,
    /// + requestsHash.
    Prague,
}

impl Layout {
    /// The number of RLP fields of this layout.
    pub const fn field_count(self) -> usize {
        match self {
            Self::Frontier => 15,
            Self::London => 16,
            Self::Shanghai => 17,
            Self::Cancun => 20,
            Self::Prague => 21,
        }
    }

    /// The layout with `n` fields.
    pub const fn from_field_count(n: usize) -> Option<Self> {
        match n {
            15 => Some(Self::Frontier),
            16 => Some(Self::London),
            17 => Some(Self::Shanghai),
            20 => Some(Self::Cancun),
            21 => Some(Self::Prague),
            _ => None,
        }
    }
}

/// A block header. Optional fields are present exactly when the layout has them.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Header {
    pub parent_hash: B256,
    pub ommers_hash: B256,
    pub beneficiary: Address,
    pub state_root: B256,
    pub transactions_root: B256,
    pub receipts_root: B256,
    pub logs_bloom: [u8; 256],
    pub difficulty: Word,
    pub number: u64,
    pub gas_limit: u64,
    pub gas_used: u64,
    pub timestamp: u64,
    pub extra_data: Vec<u8>,
    pub mix_hash: B256,
    pub nonce: [u8; 8],
    pub base_fee_per_gas: Option<Word>,
    pub withdrawals_root: Option<B256>,
    pub blob_gas_used: Option<u64>,
    pub excess_blob_gas: Option<u64>,
    pub parent_beacon_block_root: Option<B256>,
    pub requests_hash: Option<B256>,
}

impl Default for Header {
    /// The zero header of Frontier's layout: every hash, number and byte zero, no optional field.
    fn default() -> Self {
        Self {
            parent_hash: B256::ZERO,
            ommers_hash: B256::ZERO,
            beneficiary: Address::ZERO,
            state_root: B256::ZERO,
            transactions_root: B256::ZERO,
            receipts_root: B256::ZERO,
            logs_bloom: [0; 256],
            difficulty: [0; 32],
            number: 0,
            gas_limit: 0,
            gas_used: 0,
            timestamp: 0,
            extra_data: Vec::new(),
            mix_hash: B256::ZERO,
            nonce: [0; 8],
            base_fee_per_gas: None,
            withdrawals_root: None,
            blob_gas_used: None,
            excess_blob_gas: None,
            parent_beacon_block_root: None,
            requests_hash: None,
        }
    }
}

/// RLP of a big-endian word as an integer: leading zero bytes stripped.
fn trimmed(w: &[u8]) -> &[u8] {
    let start = w.iter().position(|&b| b != 0).unwrap_or(w.len());
    w.get(start..).unwrap_or_default()
}

impl Header {
    /// The layout given by the optional fields present, or an error if they form none.
    pub fn layout(&self) -> Result<Layout, HeaderError> {
        let present = [
            self.base_fee_per_gas.is_some(),
            self.withdrawals_root.is_some(),
            self.blob_gas_used.is_some(),
            self.excess_blob_gas.is_some(),
            self.parent_beacon_block_root.is_some(),
            self.requests_hash.is_some(),
        ];
        let n = present.iter().take_while(|p| **p).count();
        let fields = 15 + present.iter().filter(|p| **p).count();
        match Layout::from_field_count(15 + n) {
            Some(l) if present.iter().skip(n).all(|p| !p) => Ok(l),
            _ => Err(HeaderError::Layout { fields }),
        }
    }

    /// The canonical RLP encoding, whose keccak256 is the block hash.
    pub fn rlp(&self) -> Result<Vec<u8>, HeaderError> {
        self.layout()?;
        let mut payload = Vec::with_capacity(640);
        let out = &mut payload;
        self.parent_hash.encode(out);
        self.ommers_hash.encode(out);
        self.beneficiary.encode(out);
        self.state_root.encode(out);
        self.transactions_root.encode(out);
        self.receipts_root.encode(out);
        self.logs_bloom.as_slice().encode(out);
        trimmed(&self.difficulty).encode(out);
        self.number.encode(out);
        self.gas_limit.encode(out);
        self.gas_used.encode(out);
        self.timestamp.encode(out);
        self.extra_data.as_slice().encode(out);
        self.mix_hash.encode(out);
        self.nonce.as_slice().encode(out);
        if let Some(v) = &self.base_fee_per_gas {
            trimmed(v).encode(out);
        }
        if let Some(v) = &self.withdrawals_root {
            v.encode(out);
        }
        if let Some(v) = self.blob_gas_used {
            v.encode(out);
        }
        if let Some(v) = self.excess_blob_gas {
            v.encode(out);
        }
        if let Some(v) = &self.parent_beacon_block_root {
            v.encode(out);
        }
        if let Some(v) = &self.requests_hash {
            v.encode(out);
        }
        let mut rlp = Vec::with_capacity(payload.len() + 3);
        RlpHeader {
            list: true,
            payload_length: payload.len(),
        }
        .encode(&mut rlp);
        rlp.extend_from_slice(&payload);
        Ok(rlp)
    }

    /// Decodes a header from its RLP, accepting only the canonical encoding of a known layout.
    // Indices below are < items.len(): a known layout has at least 15 fields (checked before
    // any index), and the optional ones are read only when `opt(i)` says they are there.
    #[allow(clippy::indexing_slicing)]
    pub fn decode_rlp(buf: &[u8]) -> Result<Self, HeaderError> {
        const NAMES: [&str; 21] = [
            "parentHash",
            "sha3Uncles",
            "miner",
            "stateRoot",
            "transactionsRoot",
            "receiptsRoot",
            "logsBloom",
            "difficulty",
            "number",
            "gasLimit",
            "gasUsed",
            "timestamp",
            "extraData",
            "mixHash",
            "nonce",
            "baseFeePerGas",
            "withdrawalsRoot",
            "blobGasUsed",
            "excessBlobGas",
            "parentBeaconBlockRoot",
            "requestsHash",
        ];
        let rlp_err = |field: &'static str| move |_| DecodeError::new(field, "invalid RLP");
        let mut b = buf;
        let mut payload = RlpHeader::decode_bytes(&mut b, true).map_err(rlp_err("header"))?;
        if !b.is_empty() {
            return Err(DecodeError::new("header", "trailing bytes").into());
        }
        let mut items: Vec<&[u8]> = Vec::with_capacity(21);
        while !payload.is_empty() {
            let name = NAMES.get(items.len()).copied().unwrap_or("header");
            if items.len() == NAMES.len() {
                return Err(HeaderError::Layout {
                    fields: items.len() + 1,
                });
            }
            items.push(RlpHeader::decode_bytes(&mut payload, false).map_err(rlp_err(name))?);
        }
        let Some(_) = Layout::from_field_count(items.len()) else {
            return Err(HeaderError::Layout {
                fields: items.len(),
            });
        };
        let fixed = |i: usize| -> Result<&[u8], DecodeError> { Ok(items[i]) };
        let exact = |i: usize, n: usize| -> Result<&[u8], DecodeError> {
            let v = fixed(i)?;
            if v.len() == n {
                Ok(v)
            } else {
                Err(DecodeError::new(NAMES[i], "wrong length"))
            }
        };
        let hash = |i: usize| exact(i, 32).map(B256::from_slice);
        let word = |i: usize| -> Result<Word, DecodeError> {
            let v = fixed(i)?;
            if v.len() > 32 {
                return Err(DecodeError::new(NAMES[i], "integer exceeds 256 bits"));
            }
            if v.first() == Some(&0) {
                return Err(DecodeError::new(NAMES[i], "integer has leading zeros"));
            }
            let mut w = [0u8; 32];
            w[32 - v.len()..].copy_from_slice(v);
            Ok(w)
        };
        let int = |i: usize| -> Result<u64, DecodeError> {
            let w = word(i)?;
            if w[..24].iter().any(|&x| x != 0) {
                return Err(DecodeError::new(NAMES[i], "integer exceeds 64 bits"));
            }
            let mut b8 = [0u8; 8];
            b8.copy_from_slice(&w[24..]);
            Ok(u64::from_be_bytes(b8))
        };
        let opt = |i: usize| items.len() > i;
        let mut logs_bloom = [0u8; 256];
        logs_bloom.copy_from_slice(exact(6, 256)?);
        let mut nonce = [0u8; 8];
        nonce.copy_from_slice(exact(14, 8)?);
        Ok(Self {
            parent_hash: hash(0)?,
            ommers_hash: hash(1)?,
            beneficiary: Address::from_slice(exact(2, 20)?),
            state_root: hash(3)?,
            transactions_root: hash(4)?,
            receipts_root: hash(5)?,
            logs_bloom,
            difficulty: word(7)?,
            number: int(8)?,
            gas_limit: int(9)?,
            gas_used: int(10)?,
            timestamp: int(11)?,
            extra_data: items[12].to_vec(),
            mix_hash: hash(13)?,
            nonce,
            base_fee_per_gas: if opt(15) { Some(word(15)?) } else { None },
            withdrawals_root: if opt(16) { Some(hash(16)?) } else { None },
            blob_gas_used: if opt(17) { Some(int(17)?) } else { None },
            excess_blob_gas: if opt(18) { Some(int(18)?) } else { None },
            parent_beacon_block_root: if opt(19) { Some(hash(19)?) } else { None },
            requests_hash: if opt(20) { Some(hash(20)?) } else { None },
        })
    }
}

#[cfg(feature = "serde")]
mod json {
    use super::*;
    use crate::{hex, mpt::str_field};
    use serde_json::{Map, Value};

    fn opt<'v>(
        o: &'v Map<alloc::string::String, Value>,
        name: &str,
    ) -> Result<Option<&'v str>, DecodeError> {
        match o.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(DecodeError::new(name, "expected a hex string")),
        }
    }

    impl Header {
        /// Parses a block object from `eth_getBlockByNumber` / `eth_getBlockByHash`.
        ///
        /// Fields that are not part of the header (`hash`, `transactions`, `size`, …) are
        /// ignored; an optional field set to `null` counts as absent.
        pub fn from_json(v: &Value) -> Result<Self, HeaderError> {
            let o = v
                .as_object()
                .ok_or_else(|| DecodeError::new("header", "expected an object"))?;
            let s = |n: &str| str_field(o, n, "");
            let h = |n: &str| -> Result<B256, DecodeError> {
                hex::fixed::<32>(s(n)?, n).map(B256::from)
            };
            let oh = |n: &str| -> Result<Option<B256>, DecodeError> {
                opt(o, n)?
                    .map(|x| hex::fixed::<32>(x, n).map(B256::from))
                    .transpose()
            };
            let header = Self {
                parent_hash: h("parentHash")?,
                ommers_hash: h("sha3Uncles")?,
                beneficiary: Address::from(hex::fixed::<20>(s("miner")?, "miner")?),
                state_root: h("stateRoot")?,
                transactions_root: h("transactionsRoot")?,
                receipts_root: h("receiptsRoot")?,
                logs_bloom: hex::fixed::<256>(s("logsBloom")?, "logsBloom")?,
                difficulty: hex::word(s("difficulty")?, "difficulty")?,
                number: hex::u64(s("number")?, "number")?,
                gas_limit: hex::u64(s("gasLimit")?, "gasLimit")?,
                gas_used: hex::u64(s("gasUsed")?, "gasUsed")?,
                timestamp: hex::u64(s("timestamp")?, "timestamp")?,
                extra_data: hex::data(s("extraData")?, "extraData")?,
                mix_hash: h("mixHash")?,
                nonce: hex::fixed::<8>(s("nonce")?, "nonce")?,
                base_fee_per_gas: opt(o, "baseFeePerGas")?
                    .map(|x| hex::word(x, "baseFeePerGas"))
                    .transpose()?,
                withdrawals_root: oh("withdrawalsRoot")?,
                blob_gas_used: opt(o, "blobGasUsed")?
                    .map(|x| hex::u64(x, "blobGasUsed"))
                    .transpose()?,
                excess_blob_gas: opt(o, "excessBlobGas")?
                    .map(|x| hex::u64(x, "excessBlobGas"))
                    .transpose()?,
                parent_beacon_block_root: oh("parentBeaconBlockRoot")?,
                requests_hash: oh("requestsHash")?,
            };
            header.layout()?;
            Ok(header)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frontier() -> Header {
        Header {
            parent_hash: B256::repeat_byte(1),
            ommers_hash: B256::repeat_byte(2),
            beneficiary: Address::repeat_byte(3),
            state_root: B256::repeat_byte(4),
            transactions_root: B256::repeat_byte(5),
            receipts_root: B256::repeat_byte(6),
            number: 1,
            gas_limit: 30_000_000,
            timestamp: 1_700_000_000,
            extra_data: alloc::vec![0xab; 3],
            ..Header::default()
        }
    }

    fn with_layout(l: Layout) -> Header {
        let mut h = frontier();
        if l >= Layout::London {
            h.base_fee_per_gas = Some([0x11; 32]);
        }
        if l >= Layout::Shanghai {
            h.withdrawals_root = Some(B256::repeat_byte(7));
        }
        if l >= Layout::Cancun {
            h.blob_gas_used = Some(0);
            h.excess_blob_gas = Some(1 << 40);
            h.parent_beacon_block_root = Some(B256::repeat_byte(8));
        }
        if l >= Layout::Prague {
            h.requests_hash = Some(B256::repeat_byte(9));
        }
        h
    }

    #[test]
    fn rlp_round_trips_every_layout() {
        for l in [
            Layout::Frontier,
            Layout::London,
            Layout::Shanghai,
            Layout::Cancun,
            Layout::Prague,
        ] {
            let h = with_layout(l);
            assert_eq!(h.layout(), Ok(l));
            let rlp = h.rlp().unwrap();
            assert_eq!(Header::decode_rlp(&rlp), Ok(h));
        }
    }

    #[test]
    fn rejects_gaps_in_the_layout() {
        let mut h = with_layout(Layout::Cancun);
        h.withdrawals_root = None;
        assert_eq!(h.layout(), Err(HeaderError::Layout { fields: 19 }));
        let mut h = with_layout(Layout::Shanghai);
        h.blob_gas_used = Some(1);
        assert_eq!(h.layout(), Err(HeaderError::Layout { fields: 18 }));
    }

    #[test]
    fn decode_rejects_non_canonical_integers_and_trailing_bytes() {
        let mut rlp = frontier().rlp().unwrap();
        rlp.push(0);
        assert!(Header::decode_rlp(&rlp).is_err());
        // number = 1 encoded as the string 0x0001 (leading zero) instead of 0x01.
        let mut h = frontier();
        h.number = 0x0101;
        let good = h.rlp().unwrap();
        let bad: Vec<u8> = {
            let pos = good
                .windows(3)
                .position(|w| w == [0x82, 0x01, 0x01])
                .unwrap();
            let mut v = good.clone();
            v[pos..pos + 3].copy_from_slice(&[0x82, 0x00, 0x01]);
            v
        };
        assert_eq!(
            Header::decode_rlp(&bad),
            Err(HeaderError::Decode(DecodeError::new(
                "number",
                "integer has leading zeros"
            )))
        );
    }
}
