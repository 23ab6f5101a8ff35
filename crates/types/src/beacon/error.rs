//! Why a bootstrap or a light-client update is rejected. Each variant names the field of the
//! input at fault (`update.finality_branch`, `bootstrap.header.beacon`, …) and, where there is
//! one value of each, what the check expected and what the input holds; [`BeaconError::code`]
//! gives the stable code. The checks are those of the specification's
//! `initialize_light_client_store`, `validate_light_client_update` and
//! `is_valid_light_client_header`.

use super::{Root, Slot};
use crate::{
    DecodeError, ErrorCode,
    family::{Evidence, rejection},
    hex::hex,
};

/// Which Merkle branch failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    /// The finality branch of an update (to the attested state root).
    Finality,
    /// The current sync committee branch of a bootstrap (to the header's state root).
    CurrentSyncCommittee,
    /// The next sync committee branch of an update (to the attested state root).
    NextSyncCommittee,
    /// A header's execution branch (to its block body root).
    Execution,
}

impl Branch {
    /// What the branch proves.
    pub const fn about(self) -> &'static str {
        match self {
            Branch::Finality => "finality branch",
            Branch::CurrentSyncCommittee => "current sync committee branch",
            Branch::NextSyncCommittee => "next sync committee branch",
            Branch::Execution => "execution branch",
        }
    }

    /// The code a mismatch of this branch answers.
    pub const fn code(self) -> ErrorCode {
        match self {
            Branch::Finality => ErrorCode::FinalityBranchMismatch,
            Branch::CurrentSyncCommittee | Branch::NextSyncCommittee => {
                ErrorCode::SyncCommitteeBranchMismatch
            }
            Branch::Execution => ErrorCode::ExecutionBranchMismatch,
        }
    }
}

rejection! {
    /// Why a bootstrap or an update was rejected.
    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    pub enum BeaconError {
        /// The SSZ bytes are not the container's encoding.
        #[code(BadEncoding)]
        #[error(transparent)]
        Decode(#[from] DecodeError),
        /// The bootstrap's beacon header hashes to `found`, not to the trusted checkpoint.
        #[code(CheckpointMismatch)]
        #[error(
            "the bootstrap's header root is {}, not the checkpoint {}",
            hex(.found),
            hex(.expected),
        )]
        CheckpointMismatch {
            /// The trusted block root.
            expected: Root,
            /// The bootstrap header's root.
            found: Root,
        },
        /// Fewer members signed than the protocol's minimum.
        #[code(LowParticipation)]
        #[error("{participants} sync committee members signed, fewer than {min}")]
        LowParticipation {
            /// Members who signed.
            participants: usize,
            /// `MIN_SYNC_COMMITTEE_PARTICIPANTS`.
            min: usize,
        },
        /// The slots break `current ≥ signature > attested ≥ finalized`; `field` names the first
        /// slot out of order.
        #[code(SlotOrder)]
        #[error("{field} is {slot}, out of order against {bound}")]
        SlotOrder {
            /// The field at fault.
            field: &'static str,
            /// The bound it breaks.
            bound: Slot,
            /// Its slot.
            slot: Slot,
        },
        /// Signed, or finalizing, in a period the store has no committee for.
        #[code(PeriodMismatch)]
        #[error(
            "{field} is in period {found}; the store accepts {}..={}",
            .accepted.0,
            .accepted.1,
        )]
        PeriodMismatch {
            /// The field whose period is wrong.
            field: &'static str,
            /// The periods the store accepts (first, last).
            accepted: (u64, u64),
            /// The period found.
            found: u64,
        },
        /// The attested header is not newer than the finalized one, and no next committee is needed.
        #[code(StaleUpdate)]
        #[error(
            "the attested slot {attested_slot} is not after the finalized slot {finalized_slot} and no next sync committee is needed",
        )]
        StaleUpdate {
            /// The store's finalized slot.
            finalized_slot: Slot,
            /// The update's attested slot.
            attested_slot: Slot,
        },
        /// A field that must be empty is set.
        #[code(UnexpectedField)]
        #[error("{field} must be empty: {reason}")]
        UnexpectedField {
            /// The field.
            field: &'static str,
            /// Why it must be empty.
            reason: &'static str,
        },
        /// A Merkle branch leads to `found`, not to the root it must prove against.
        #[code(via branch)]
        #[error(
            "{field}: the {} leads to {}, not to {}",
            .branch.about(),
            hex(.found),
            hex(.expected),
        )]
        BranchMismatch {
            /// Which branch.
            branch: Branch,
            /// The field of the branch in the input.
            field: &'static str,
            /// The root it must lead to (a state root or a body root).
            expected: Root,
            /// The root it leads to.
            found: Root,
        },
        /// The update's next sync committee differs from the one the store verified.
        #[code(SyncCommitteeMismatch)]
        #[error(
            "the next sync committee's root is {}, not the verified {}",
            hex(.found),
            hex(.expected),
        )]
        SyncCommitteeMismatch {
            /// The root of the store's next committee.
            expected: Root,
            /// The root of the update's.
            found: Root,
        },
        /// The aggregate signature does not verify; `field` names what is at fault.
        #[code(BadSyncSignature)]
        #[error("{field}: {reason}")]
        BadSyncSignature {
            /// The field (`…sync_committee_signature`, or a committee key).
            field: &'static str,
            /// What is wrong.
            reason: &'static str,
        },
    }
}

impl BeaconError {
    /// Where the rejection points: the field at fault, and what was expected and found there.
    fn evidence(&self) -> Evidence {
        match self {
            Self::Decode(d) => Evidence::at(d.field.clone()),
            Self::CheckpointMismatch { expected, found } => {
                Evidence::diff_hex("bootstrap.header.beacon", expected, found)
            }
            Self::LowParticipation { participants, min } => Evidence::diff(
                "update.sync_aggregate.sync_committee_bits",
                alloc::format!("at least {min} participants"),
                participants,
            ),
            Self::SlotOrder { field, bound, slot } => {
                Evidence::diff(*field, alloc::format!("in order against {bound}"), slot)
            }
            Self::PeriodMismatch {
                field,
                accepted,
                found,
            } => Evidence::diff(
                *field,
                alloc::format!("period {}..={}", accepted.0, accepted.1),
                found,
            ),
            Self::StaleUpdate {
                finalized_slot,
                attested_slot,
            } => Evidence::diff(
                "update.attested_header.beacon.slot",
                alloc::format!("after {finalized_slot}"),
                attested_slot,
            ),
            Self::UnexpectedField { field, reason } => Evidence::diff(*field, "empty", reason),
            Self::BranchMismatch {
                field,
                expected,
                found,
                ..
            } => Evidence::diff_hex(*field, expected, found),
            Self::SyncCommitteeMismatch { expected, found } => {
                Evidence::diff_hex("update.next_sync_committee", expected, found)
            }
            Self::BadSyncSignature { field, reason } => {
                Evidence::diff(*field, "a valid aggregate signature", reason)
            }
        }
    }
}
