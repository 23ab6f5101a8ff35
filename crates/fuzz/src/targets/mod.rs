//! The targets.

pub mod clique;
pub mod cole;
pub mod header;
pub mod lvmt;
pub mod mpt;
pub mod params;
