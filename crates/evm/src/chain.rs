//! Which fork's rules a block runs under, and its blob base fee: a chain's fork schedule (block
//! numbers before the merge, timestamps after it), as the chain's genesis configuration names
//! them. No header says which fork it belongs to; its layout only bounds it (a Prague-layout
//! header may be Prague or Osaka), so the schedule is chain data: built in for the public
//! networks, given by the application for any other chain.

use alloc::vec::Vec;
use core::fmt;

use lightprov_types::header::Header;
use revm::primitives::hardfork::SpecId;

/// The forks this EVM runs, oldest first: London to Osaka.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fork {
    /// EIP-1559 fees (`BASEFEE`), proof-of-work blocks.
    London,
    /// The merge: `PREVRANDAO` in place of `DIFFICULTY` (a block of difficulty 0).
    Paris,
    /// `PUSH0`, warm coinbase, init-code limits.
    Shanghai,
    /// Transient storage, `MCOPY`, blobs, point evaluation, `SELFDESTRUCT` only in creation.
    Cancun,
    /// BLS12-381 precompiles, EIP-7702 delegations, the calldata floor.
    Prague,
    /// `CLZ`, P-256 verification, the modexp repricing and the transaction gas cap.
    Osaka,
}

impl Fork {
    /// Every fork, oldest first.
    pub const ALL: [Fork; 6] = [
        Fork::London,
        Fork::Paris,
        Fork::Shanghai,
        Fork::Cancun,
        Fork::Prague,
        Fork::Osaka,
    ];

    /// Its name, lowercase, as chain configurations spell it.
    pub const fn name(self) -> &'static str {
        match self {
            Fork::London => "london",
            Fork::Paris => "paris",
            Fork::Shanghai => "shanghai",
            Fork::Cancun => "cancun",
            Fork::Prague => "prague",
            Fork::Osaka => "osaka",
        }
    }

    /// revm's rules for the fork.
    pub const fn spec(self) -> SpecId {
        match self {
            Fork::London => SpecId::LONDON,
            Fork::Paris => SpecId::MERGE,
            Fork::Shanghai => SpecId::SHANGHAI,
            Fork::Cancun => SpecId::CANCUN,
            Fork::Prague => SpecId::PRAGUE,
            Fork::Osaka => SpecId::OSAKA,
        }
    }
}

/// The block's fork is not one this EVM runs, or its header contradicts the chain's schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForkError {
    /// The block is before London (no base fee): this EVM starts at London.
    BeforeLondon {
        /// The block.
        number: u64,
    },
    /// The block is after Osaka: this EVM does not implement its rules.
    AfterOsaka {
        /// The block.
        number: u64,
    },
    /// The schedule puts the block in `fork`, whose headers carry a field this one lacks.
    HeaderLacks {
        /// The fork the schedule names.
        fork: Fork,
        /// The field.
        field: &'static str,
        /// The block.
        number: u64,
    },
}

impl fmt::Display for ForkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BeforeLondon { number } => write!(
                f,
                "block {number} is before London: verified calls run London to Osaka"
            ),
            Self::AfterOsaka { number } => write!(
                f,
                "block {number} is under a fork after Osaka, whose rules this EVM does not implement"
            ),
            Self::HeaderLacks {
                fork,
                field,
                number,
            } => write!(
                f,
                "the chain's fork schedule puts block {number} in {}, but its header has no {field}: the schedule is not this chain's",
                fork.name()
            ),
        }
    }
}

/// EIP-4844's update fraction at Cancun, the default until Prague.
pub const CANCUN_BLOB_FRACTION: u64 = 3_338_477;
/// EIP-7691's update fraction at Prague, the default from then on (later forks inherit the last
/// configured one, as geth's chain configurations do).
pub const PRAGUE_BLOB_FRACTION: u64 = 5_007_716;

/// A chain's fork schedule and blob parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainSpec {
    /// The EIP-155 chain id (`CHAINID`).
    pub chain_id: u64,
    /// London's first block.
    pub london_block: u64,
    /// The first timestamp of each timestamp-scheduled fork (`None`: not scheduled).
    pub shanghai_time: Option<u64>,
    /// Cancun's.
    pub cancun_time: Option<u64>,
    /// Prague's.
    pub prague_time: Option<u64>,
    /// Osaka's.
    pub osaka_time: Option<u64>,
    /// The first fork after Osaka, which this EVM does not implement: its blocks are refused.
    pub later_time: Option<u64>,
    /// `(timestamp, baseFeeUpdateFraction)` from that time on, ascending by time (the blob
    /// parameter forks). Where it says nothing, Cancun's and Prague's defaults apply.
    pub blob_fractions: Vec<(u64, u64)>,
    /// A Clique-style proof-of-authority chain: its headers keep Clique's difficulty (1 or 2,
    /// its fork choice) under the forks after the merge, whose rules it runs from its schedule
    /// alone (`PREVRANDAO` reads `mixHash`).
    pub proof_of_authority: bool,
}

const BPO1: u64 = 8_346_193;
const BPO2: u64 = 11_684_671;

impl ChainSpec {
    /// The schedule of a public network by its chain id (mainnet, Sepolia, Hoodi), as geth
    /// v1.17.10's chain specifications give them.
    pub fn public(chain_id: u64) -> Option<ChainSpec> {
        let spec = |london, times: [Option<u64>; 5], bpo: [u64; 2]| ChainSpec {
            chain_id,
            london_block: london,
            shanghai_time: times[0],
            cancun_time: times[1],
            prague_time: times[2],
            osaka_time: times[3],
            later_time: times[4],
            blob_fractions: alloc::vec![(bpo[0], BPO1), (bpo[1], BPO2)],
            proof_of_authority: false,
        };
        Some(match chain_id {
            1 => spec(
                12_965_000,
                [
                    Some(1_681_338_455),
                    Some(1_710_338_135),
                    Some(1_746_612_311),
                    Some(1_764_798_551),
                    None,
                ],
                [1_765_290_071, 1_767_747_671],
            ),
            11_155_111 => spec(
                0,
                [
                    Some(1_677_557_088),
                    Some(1_706_655_072),
                    Some(1_741_159_776),
                    Some(1_760_427_360),
                    // Amsterdam.
                    Some(1_791_294_816),
                ],
                [1_761_017_184, 1_761_607_008],
            ),
            560_048 => spec(
                0,
                [
                    Some(0),
                    Some(0),
                    Some(1_742_999_832),
                    Some(1_761_677_592),
                    None,
                ],
                [1_762_365_720, 1_762_955_544],
            ),
            _ => return None,
        })
    }

    /// The fork of `header`'s block, checked against the fields its header carries (a schedule
    /// that puts a block in Cancun when its header has no `excessBlobGas` is not this chain's).
    pub fn fork_of(&self, header: &Header) -> Result<Fork, ForkError> {
        let t = header.timestamp;
        let at = |time: Option<u64>| time.is_some_and(|s| t >= s);
        if at(self.later_time) {
            return Err(ForkError::AfterOsaka {
                number: header.number,
            });
        }
        let fork = if at(self.osaka_time) {
            Fork::Osaka
        } else if at(self.prague_time) {
            Fork::Prague
        } else if at(self.cancun_time) {
            Fork::Cancun
        } else if at(self.shanghai_time) {
            Fork::Shanghai
        } else if header.base_fee_per_gas.is_some()
            && header.difficulty == [0; 32]
            && !self.proof_of_authority
        {
            Fork::Paris
        } else if header.number >= self.london_block {
            Fork::London
        } else {
            return Err(ForkError::BeforeLondon {
                number: header.number,
            });
        };
        let missing = if header.base_fee_per_gas.is_none() {
            Some("baseFeePerGas")
        } else if fork >= Fork::Shanghai && header.withdrawals_root.is_none() {
            Some("withdrawalsRoot")
        } else if fork >= Fork::Cancun && header.excess_blob_gas.is_none() {
            Some("excessBlobGas")
        } else if fork >= Fork::Prague && header.requests_hash.is_none() {
            Some("requestsHash")
        } else {
            None
        };
        if let Some(field) = missing {
            return Err(ForkError::HeaderLacks {
                fork,
                field,
                number: header.number,
            });
        }
        if fork >= Fork::Paris && header.difficulty != [0; 32] && !self.proof_of_authority {
            return Err(ForkError::HeaderLacks {
                fork,
                field: "difficulty 0",
                number: header.number,
            });
        }
        Ok(fork)
    }

    /// The blob base fee update fraction at time `t` under `fork` (Cancun or later).
    pub fn blob_fraction(&self, fork: Fork, t: u64) -> u64 {
        let default = if fork >= Fork::Prague {
            PRAGUE_BLOB_FRACTION
        } else {
            CANCUN_BLOB_FRACTION
        };
        self.blob_fractions
            .iter()
            .rev()
            .find(|(from, _)| t >= *from)
            .map_or(default, |(_, f)| *f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(number: u64, timestamp: u64, layout_fields: usize) -> Header {
        Header {
            number,
            gas_limit: 30_000_000,
            timestamp,
            base_fee_per_gas: (layout_fields >= 16).then_some([0; 32]),
            withdrawals_root: (layout_fields >= 17).then(Default::default),
            blob_gas_used: (layout_fields >= 20).then_some(0),
            excess_blob_gas: (layout_fields >= 20).then_some(0),
            parent_beacon_block_root: (layout_fields >= 20).then(Default::default),
            requests_hash: (layout_fields >= 21).then(Default::default),
            ..Header::default()
        }
    }

    #[test]
    fn mainnet_forks_follow_the_timestamps() {
        let m = ChainSpec::public(1).unwrap();
        assert_eq!(
            m.fork_of(&header(24_000_000, 1_764_798_551, 21)),
            Ok(Fork::Osaka)
        );
        assert_eq!(
            m.fork_of(&header(24_000_000, 1_764_798_550, 21)),
            Ok(Fork::Prague)
        );
        assert_eq!(
            m.fork_of(&header(19_500_000, 1_710_338_135, 20)),
            Ok(Fork::Cancun)
        );
        assert_eq!(
            m.fork_of(&header(17_100_000, 1_681_338_455, 17)),
            Ok(Fork::Shanghai)
        );
        assert_eq!(
            m.fork_of(&header(16_000_000, 1_670_000_000, 16)),
            Ok(Fork::Paris)
        );
        let mut pow = header(13_000_000, 1_630_000_000, 16);
        pow.difficulty[31] = 1;
        assert_eq!(m.fork_of(&pow), Ok(Fork::London));
        pow.number = 12_964_999;
        assert_eq!(
            m.fork_of(&pow),
            Err(ForkError::BeforeLondon { number: 12_964_999 })
        );
    }

    #[test]
    fn refuses_a_schedule_the_header_contradicts() {
        let m = ChainSpec::public(1).unwrap();
        // A Cancun block by time whose header has Shanghai's layout.
        assert_eq!(
            m.fork_of(&header(19_500_000, 1_710_338_135, 17)),
            Err(ForkError::HeaderLacks {
                fork: Fork::Cancun,
                field: "excessBlobGas",
                number: 19_500_000
            })
        );
    }

    #[test]
    fn a_proof_of_authority_chain_keeps_cliques_difficulty_after_the_merge() {
        let mut spec = ChainSpec {
            chain_id: 1337,
            london_block: 0,
            shanghai_time: Some(0),
            cancun_time: Some(0),
            prague_time: Some(100),
            osaka_time: None,
            later_time: None,
            blob_fractions: Vec::new(),
            proof_of_authority: false,
        };
        // A Clique block: in turn, difficulty 2.
        let mut clique = header(5, 200, 21);
        clique.difficulty[31] = 2;
        assert_eq!(
            spec.fork_of(&clique),
            Err(ForkError::HeaderLacks {
                fork: Fork::Prague,
                field: "difficulty 0",
                number: 5
            })
        );
        spec.proof_of_authority = true;
        assert_eq!(spec.fork_of(&clique), Ok(Fork::Prague));
        clique.timestamp = 50;
        assert_eq!(spec.fork_of(&clique), Ok(Fork::Cancun));
        // Before Shanghai, a proof-of-authority block of difficulty 0 is still London's, not
        // Paris's: its difficulty is no sign of the merge.
        spec.shanghai_time = None;
        spec.cancun_time = None;
        spec.prague_time = None;
        let zero = header(5, 50, 16);
        assert_eq!(spec.fork_of(&zero), Ok(Fork::London));
    }

    #[test]
    fn refuses_blocks_after_osaka() {
        let s = ChainSpec::public(11_155_111).unwrap();
        assert_eq!(
            s.fork_of(&header(9_000_000, 1_791_294_816, 21)),
            Err(ForkError::AfterOsaka { number: 9_000_000 })
        );
    }

    #[test]
    fn blob_fractions_follow_the_parameter_forks() {
        let m = ChainSpec::public(1).unwrap();
        assert_eq!(
            m.blob_fraction(Fork::Cancun, 1_710_338_135),
            CANCUN_BLOB_FRACTION
        );
        assert_eq!(
            m.blob_fraction(Fork::Prague, 1_746_612_311),
            PRAGUE_BLOB_FRACTION
        );
        assert_eq!(
            m.blob_fraction(Fork::Osaka, 1_765_290_070),
            PRAGUE_BLOB_FRACTION
        );
        assert_eq!(m.blob_fraction(Fork::Osaka, 1_765_290_071), BPO1);
        assert_eq!(m.blob_fraction(Fork::Osaka, 1_767_747_671), BPO2);
    }
}
