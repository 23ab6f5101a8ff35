//! The registry of proof families, and what every family has in common.
//!
//! A *family* is one kind of proof with its own wire format, error enum and header commitment:
//! the block header itself, Ethereum's Merkle-Patricia trie (`eth_getProof`), COLE provenance
//! proofs and LVMT proofs. Each is one module of this crate (`header`, `mpt`, `cole`, `lvmt`)
//! with the same files — `codec.rs` (wire format, size caps), `error.rs` (why a proof is
//! rejected, with evidence), `mod.rs` (the family's [`Family`] entry) — and one line in
//! [`FAMILIES`]. Tests, the fuzz driver, the wasm glue and the SDK iterate this list, so a family
//! that is registered but lacks vectors, a conformance run or a tamper list fails the suite.
//!
//! Where each family's trusted commitment sits in a block header is data too ([`Commitment`],
//! declared in the family's module and listed by [`commitments`]): the node writes headers from
//! it and the SDK reads them from it (through the wasm module), so no offset is written twice.

use alloc::string::String;
use core::fmt;

use crate::{ErrorCode, FAMILIES, hex::Hex};

/// One proof family.
#[derive(Debug)]
pub struct Family {
    /// The family's name, also its folder in every layer (`crates/types/src/<name>/`,
    /// `tests/vectors/<name>/`, `sdk/src/families/<name>.ts`).
    pub name: &'static str,
    /// One line on what its proofs prove.
    pub about: &'static str,
    /// The header commitments its proofs are checked against.
    pub commitments: &'static [&'static Commitment],
    /// The most blocks one history proof of its format covers (`None`: the format sets no
    /// bound, or the family proves no history). A longer range takes several proofs, which the
    /// SDK joins; a node may bound the range of one call further (`--max-history-range`).
    pub max_history_blocks: Option<u64>,
    /// Every code its verifier can return (for `header`, also the SDK's checks of its anchor).
    pub codes: &'static [ErrorCode],
    /// Every way of breaking an honest proof that the shared vectors exercise, with the code the
    /// verifier must answer. Vector files are named `…-<tamper>.json` after these.
    pub tampers: &'static [Tamper],
}

impl Tamper {
    /// A class answered by `code`.
    pub const fn new(name: &'static str, code: ErrorCode, about: &'static str) -> Self {
        Self {
            name,
            code,
            alt: None,
            about,
        }
    }

    /// The class answered by `alt` instead where the forgery meets an edge case.
    pub const fn or(self, alt: ErrorCode) -> Self {
        Self {
            alt: Some(alt),
            ..self
        }
    }

    /// The proof's encoding cut short: a class of every family with a byte wire format.
    pub const TRUNCATED: Tamper =
        Tamper::new("truncated", ErrorCode::BadEncoding, "the proof cut short");

    /// A byte appended to the proof's encoding.
    pub const TRAILING_BYTE: Tamper =
        Tamper::new("trailing-byte", ErrorCode::BadEncoding, "a byte appended");

    /// A history proof checked for another block range than it answers.
    pub const OTHER_RANGE: Tamper = Tamper::new(
        "other-range",
        ErrorCode::RangeMismatch,
        "checked for another block range",
    );

    /// Whether `code` is an answer of this class.
    pub fn answers(&self, code: ErrorCode) -> bool {
        self.code == code || self.alt == Some(code)
    }
}

impl Family {
    /// The tamper class named `name`.
    pub fn tamper(&self, name: &str) -> Option<&'static Tamper> {
        self.tampers.iter().find(|t| t.name == name)
    }
}

/// One class of forgery: how an honest proof is broken, and the code that rejects it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tamper {
    /// Kebab-case name, the suffix of the vector files of this class.
    pub name: &'static str,
    /// The code the verifier answers.
    pub code: ErrorCode,
    /// The code it answers instead where the forgery meets an edge case (a wrong root over an
    /// empty proof is a truncated proof).
    pub alt: Option<ErrorCode>,
    /// What the forgery does.
    pub about: &'static str,
}

/// The family named `name`.
pub fn family(name: &str) -> Option<&'static Family> {
    FAMILIES.iter().copied().find(|f| f.name == name)
}

/// The header field a commitment is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderField {
    /// `stateRoot`.
    StateRoot,
    /// `extraData` (the commitments of lightprov chains, before the seal).
    ExtraData,
    /// `mixHash` (of the genesis header only, on lightprov chains).
    MixHash,
}

impl HeaderField {
    /// The JSON-RPC name of the field.
    pub const fn name(self) -> &'static str {
        match self {
            Self::StateRoot => "stateRoot",
            Self::ExtraData => "extraData",
            Self::MixHash => "mixHash",
        }
    }
}

/// Where a trusted 32-byte commitment sits in a block header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Commitment {
    /// Its name, as the SDK and the docs call it (`coleRoot`).
    pub name: &'static str,
    /// The header field holding it.
    pub field: HeaderField,
    /// Its first byte in that field.
    pub offset: usize,
    /// Whether only the genesis header carries it (parameters pinned once per chain).
    pub genesis_only: bool,
}

impl Commitment {
    /// Bytes of every commitment.
    pub const LEN: usize = 32;

    /// A commitment every header carries, at `offset` in `field`.
    pub const fn at(name: &'static str, field: HeaderField, offset: usize) -> Self {
        Self {
            name,
            field,
            offset,
            genesis_only: false,
        }
    }

    /// A commitment only the genesis header carries (parameters pinned once per chain).
    pub const fn at_genesis(name: &'static str, field: HeaderField, offset: usize) -> Self {
        Self {
            genesis_only: true,
            ..Self::at(name, field, offset)
        }
    }

    /// The commitment's bytes in `field_bytes` (the bytes of [`Commitment::field`]), or `None` if
    /// the field is too short to hold it.
    pub fn read(&self, field_bytes: &[u8]) -> Option<[u8; 32]> {
        let end = self.offset.checked_add(Self::LEN)?;
        field_bytes.get(self.offset..end)?.try_into().ok()
    }

    /// Writes `value` at the commitment's place in `field_bytes`; `false` if it does not fit.
    pub fn write(&self, field_bytes: &mut [u8], value: &[u8; 32]) -> bool {
        let Some(end) = self.offset.checked_add(Self::LEN) else {
            return false;
        };
        match field_bytes.get_mut(self.offset..end) {
            Some(dst) => {
                dst.copy_from_slice(value);
                true
            }
            None => false,
        }
    }
}

/// Every header commitment, in registry order (each family's own [`Family::commitments`], a
/// commitment two families share listed once). Each family places its commitments in its own
/// module; a test checks that no two overlap and that they fill extraData from its start.
pub fn commitments() -> alloc::vec::Vec<&'static Commitment> {
    let mut out: alloc::vec::Vec<&'static Commitment> = alloc::vec::Vec::new();
    for c in FAMILIES.iter().flat_map(|f| f.commitments.iter().copied()) {
        if !out.iter().any(|o| o.name == c.name) {
            out.push(c);
        }
    }
    out
}

/// Bytes of a lightprov header's extraData before the seal: every extraData commitment.
// Evaluated at compile time: an index out of bounds fails the build, it cannot panic at run time.
#[allow(clippy::indexing_slicing)]
pub const EXTRA_COMMITMENTS_LEN: usize = {
    let mut end = 0;
    let mut i = 0;
    while i < FAMILIES.len() {
        let cs = FAMILIES[i].commitments;
        let mut j = 0;
        while j < cs.len() {
            let c = cs[j];
            if matches!(c.field, HeaderField::ExtraData) && c.offset + Commitment::LEN > end {
                end = c.offset + Commitment::LEN;
            }
            j += 1;
        }
        i += 1;
    }
    end
};

/// The commitment named `name`.
pub fn commitment(name: &str) -> Option<&'static Commitment> {
    FAMILIES
        .iter()
        .flat_map(|f| f.commitments.iter().copied())
        .find(|c| c.name == name)
}

/// What a rejection shows: the field of the input at fault (a dotted path such as
/// `proof.parts[2].tree` or `storageProof[0].proof[3]`), and what the verifier expected and
/// found there, when there is one value of each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Evidence {
    /// The field path.
    pub field: String,
    /// What the check wanted.
    pub expected: Option<String>,
    /// What the input holds.
    pub found: Option<String>,
}

impl Evidence {
    /// Evidence naming only a field.
    pub fn at(field: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            expected: None,
            found: None,
        }
    }

    /// Evidence with the expected and found values.
    pub fn diff(
        field: impl Into<String>,
        expected: impl fmt::Display,
        found: impl fmt::Display,
    ) -> Self {
        Self {
            field: field.into(),
            expected: Some(alloc::format!("{expected}")),
            found: Some(alloc::format!("{found}")),
        }
    }

    /// Evidence with the expected and found bytes (hashes, keys, roots), as lowercase `0x`-hex.
    pub fn diff_hex(
        field: impl Into<String>,
        expected: impl AsRef<[u8]>,
        found: impl AsRef<[u8]>,
    ) -> Self {
        Self::diff(field, Hex(expected.as_ref()), Hex(found.as_ref()))
    }
}

/// What every family's error enum offers: a stable code and the evidence. The wasm glue turns
/// any rejection into a JS `Error` with `code`, `field`, `expected` and `found` through this
/// trait alone.
pub trait Rejection: fmt::Display {
    /// The stable code.
    fn code(&self) -> ErrorCode;
    /// Where and why.
    fn evidence(&self) -> Evidence;
}

impl Rejection for crate::DecodeError {
    fn code(&self) -> ErrorCode {
        ErrorCode::BadEncoding
    }

    fn evidence(&self) -> Evidence {
        Evidence::at(self.field.clone())
    }
}

/// Declares a family's error enum, each variant tagged with the stable code it answers:
/// `#[code(RootMismatch)]` (an [`ErrorCode`]), or `#[code(via field)]` (the `code()` of the
/// variant's field `field`, `0` for a tuple variant: a nested rejection or a fault kind). The
/// attributes after the code are the variant's own: its message (`#[error(...)]`, as
/// `thiserror` reads it, which also writes `Display`, `std::error::Error` and the `#[from]`
/// conversions).
///
/// The rejections several families answer in the same words are written once here and named in
/// an enum by `#[shared] KeyMismatch` (the proof is for another 32-byte state key: `expected`,
/// `found`) or `#[shared] RangeMismatch` (it answers another block range: `expected`, `found`,
/// each `(lo, hi)`); where each points stays the family's own, in its `evidence`.
///
/// The enum derives `thiserror::Error` itself (the derive must come with the enum's tokens for
/// `thiserror` to read `.field` arguments). Besides the enum the macro writes what every family's
/// error has in the same shape: `const fn code()` from the tags and the [`Rejection`] impl, whose
/// evidence is the enum's own `fn evidence(&self) -> Evidence`, written beside it (where each
/// rejection points differs in every family).
macro_rules! rejection {
    ($(#[$($attr:tt)*])* pub enum $name:ident { $($body:tt)* }) => {
        $crate::family::rejection!(@variant $name [$(#[$($attr)*])*] [] []; $($body)*);
    };
    // The shared variants.
    (@variant $name:ident $docs:tt $v:tt $arms:tt; #[shared] KeyMismatch, $($rest:tt)*) => {
        $crate::family::rejection!(@variant $name $docs $v $arms;
            /// The proof is for another state key.
            #[code(KeyMismatch)]
            #[error(
                "the proof is for state key {}, not {}",
                $crate::hex::hex(.found),
                $crate::hex::hex(.expected),
            )]
            KeyMismatch {
                /// The key asked for.
                expected: $crate::B256,
                /// The proof's key.
                found: $crate::B256,
            }, $($rest)*);
    };
    (@variant $name:ident $docs:tt $v:tt $arms:tt; #[shared] RangeMismatch, $($rest:tt)*) => {
        $crate::family::rejection!(@variant $name $docs $v $arms;
            /// The proof answers another block range.
            #[code(RangeMismatch)]
            #[error(
                "the proof answers blocks {}, not {}",
                $crate::family::Range(*.found),
                $crate::family::Range(*.expected),
            )]
            RangeMismatch {
                /// The range asked for (or the one the trusted roots cover).
                expected: (u64, u64),
                /// The proof's range.
                found: (u64, u64),
            }, $($rest)*);
    };
    // One variant: unit, tuple or struct, its code, its attributes.
    (@variant $name:ident $docs:tt [$($v:tt)*] $arms:tt;
        $(#[doc = $d:literal])* #[code($($code:tt)+)] $(#[$($attr:tt)*])*
        $V:ident $(($($t:tt)*))? $({$($f:tt)*})?, $($rest:tt)*
    ) => {
        $crate::family::rejection!(@arm $name $docs
            [$($v)* $(#[doc = $d])* $(#[$($attr)*])* $V $(($($t)*))? $({$($f)*})?,] $arms
            ($($code)+) $V; $($rest)*);
    };
    // The code of the variant just read: a field's own code, or an `ErrorCode`.
    (@arm $name:ident $docs:tt $v:tt [$($arm:tt)*] (via $field:tt) $V:ident; $($rest:tt)*) => {
        $crate::family::rejection!(@variant $name $docs $v
            [$($arm)* Self::$V { $field: inner, .. } => inner.code(),]; $($rest)*);
    };
    (@arm $name:ident $docs:tt $v:tt [$($arm:tt)*] ($code:ident) $V:ident; $($rest:tt)*) => {
        $crate::family::rejection!(@variant $name $docs $v
            [$($arm)* Self::$V { .. } => $crate::ErrorCode::$code,]; $($rest)*);
    };
    // Every variant read.
    (@variant $name:ident [$($attr:tt)*] [$($v:tt)*] [$($arm:tt)*];) => {
        $($attr)*
        pub enum $name {
            $($v)*
        }

        impl $name {
            /// The stable code.
            pub const fn code(&self) -> $crate::ErrorCode {
                match self {
                    $($arm)*
                }
            }
        }

        impl $crate::family::Rejection for $name {
            fn code(&self) -> $crate::ErrorCode {
                $name::code(self)
            }

            fn evidence(&self) -> $crate::family::Evidence {
                $name::evidence(self)
            }
        }
    };
}

pub(crate) use rejection;

/// A block range as rejections show it: `lo..=hi`.
pub(crate) struct Range(pub(crate) (u64, u64));

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..={}", self.0.0, self.0.1)
    }
}

/// A value, key or hash that may be absent, as rejections show it: `0x`-hex, or `absent`.
pub(crate) struct OrAbsent<'a, T>(pub(crate) &'a Option<T>);

impl<T: AsRef<[u8]>> fmt::Display for OrAbsent<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(v) => Hex(v.as_ref()).fmt(f),
            None => f.write_str("absent"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_tampers_use_codes_of_their_family() {
        for (i, f) in FAMILIES.iter().enumerate() {
            assert!(FAMILIES[..i].iter().all(|o| o.name != f.name), "{}", f.name);
            assert!(!f.tampers.is_empty(), "{} lists no tamper class", f.name);
            for (j, t) in f.tampers.iter().enumerate() {
                assert!(
                    f.tampers[..j].iter().all(|o| o.name != t.name),
                    "{}: tamper {} twice",
                    f.name,
                    t.name
                );
                assert!(
                    f.codes.contains(&t.code) && t.alt.is_none_or(|a| f.codes.contains(&a)),
                    "{}: tamper {} answers {} which the family does not list",
                    f.name,
                    t.name,
                    t.code
                );
            }
        }
    }

    #[test]
    fn extra_data_commitments_do_not_overlap_and_fill_it_from_the_start() {
        let all = commitments();
        let extra: alloc::vec::Vec<_> = all
            .iter()
            .filter(|c| c.field == HeaderField::ExtraData)
            .collect();
        for (i, a) in extra.iter().enumerate() {
            for b in &extra[..i] {
                assert!(
                    a.offset + Commitment::LEN <= b.offset
                        || b.offset + Commitment::LEN <= a.offset,
                    "{} overlaps {}",
                    a.name,
                    b.name
                );
            }
        }
        // No gap: the commitments tile extraData's first EXTRA_COMMITMENTS_LEN bytes.
        assert_eq!(extra.len() * Commitment::LEN, EXTRA_COMMITMENTS_LEN);
        assert_eq!(EXTRA_COMMITMENTS_LEN, 224);
        // A commitment two families list is the same place in both.
        for f in FAMILIES {
            for c in f.commitments {
                assert_eq!(commitment(c.name), Some(*c), "{}", c.name);
            }
        }
        let names: alloc::vec::Vec<_> = all.iter().map(|c| c.name).collect();
        assert_eq!(
            names,
            [
                "stateRoot",
                "coleRoot",
                "lvmtRoot",
                "lvmtHistoryRoot",
                "lvmtParamsId",
                "forklessRoot",
                "mbtRoot",
                "mbtParams",
                "posRoot"
            ]
        );
    }

    #[test]
    fn commitments_read_what_they_write() {
        use crate::{
            cole::COLE_ROOT,
            lvmt::{LVMT_HISTORY_ROOT, LVMT_ROOT},
        };
        let mut extra = [0u8; 96 + 65];
        assert!(LVMT_ROOT.write(&mut extra, &[7; 32]));
        assert_eq!(LVMT_ROOT.read(&extra), Some([7; 32]));
        assert_eq!(COLE_ROOT.read(&extra), Some([0; 32]));
        assert_eq!(LVMT_HISTORY_ROOT.read(&extra[..95]), None);
        assert!(!LVMT_HISTORY_ROOT.write(&mut extra[..90], &[1; 32]));
    }
}
