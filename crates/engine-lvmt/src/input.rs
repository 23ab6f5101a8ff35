//! What the setup's inputs must satisfy, for [`crate::setup`] and the `.ptau` reader
//! ([`crate::ptau`]) alike: a depth up to [`MAX_DEPTH`], points that are usable
//! ([`check_point`]), and the error ([`SetupError`]) that names the part of an input at fault.
//! It uses neither of them, so each can use it and the setup can use the reader.

use ark_ec::AffineRepr;

/// Setup failures.
#[derive(Debug)]
pub enum SetupError {
    /// The depth is outside what the engine supports.
    Depth(u8),
    /// τ hit a root of unity (only for a pathological seed or ceremony).
    DegenerateTau,
    /// Reading or writing a file failed.
    Io(std::io::Error),
    /// An input (a `.ptau` file, a table cache, caller-supplied powers) is malformed; `field`
    /// names the part (`header.power`, `section 2 (tauG1)`, `tauG1[17]`, `checksum`, …).
    Format {
        /// The offending field or section.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl SetupError {
    pub(crate) fn format(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Format {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Depth(d) => write!(f, "AMT depth {d} is outside 1..={MAX_DEPTH}"),
            Self::DegenerateTau => f.write_str("τ is a root of unity of the domain"),
            Self::Io(e) => write!(f, "setup file I/O: {e}"),
            Self::Format { field, reason } => write!(f, "{field}: {reason}"),
        }
    }
}

impl std::error::Error for SetupError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for SetupError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e)
    }
}

/// The deepest AMT the engine builds tables for.
pub const MAX_DEPTH: u8 = 20;

/// A point the tables may use: not the identity, on the curve, in the prime-order subgroup.
pub(crate) fn check_point<P: ark_ec::short_weierstrass::SWCurveConfig>(
    p: &ark_ec::short_weierstrass::Affine<P>,
    field: &str,
    group: &str,
) -> Result<(), SetupError> {
    if p.is_zero() {
        return Err(SetupError::format(field, "is the point at infinity"));
    }
    if !p.is_on_curve() {
        return Err(SetupError::format(
            field,
            format!("is not on the BN254 {group} curve"),
        ));
    }
    if !p.is_in_correct_subgroup_assuming_on_curve() {
        return Err(SetupError::format(
            field,
            "is not in the prime-order subgroup",
        ));
    }
    Ok(())
}
