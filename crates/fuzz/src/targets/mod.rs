//! The targets, and the list the `lightprov-fuzz` binary runs (a new target: its module,
//! its name in [`TARGETS`] and its line in [`entries`]).

pub mod beacon;
pub mod clique;
pub mod cole;
pub mod forkless;
pub mod header;
pub mod lvmt;
pub mod mbt;
pub mod mpt;
pub mod params;
pub mod pos;

/// The names of every target, in run order.
pub const TARGETS: [&str; 9] = [
    "mpt", "header", "cole", "lvmt", "forkless", "mbt", "pos", "beacon", "params",
];

/// Every target, in run order, for [`crate::cli::run`].
pub fn entries() -> Vec<crate::cli::Entry> {
    use crate::cli::Entry;
    vec![
        Entry::new("mpt", || Ok(Box::new(mpt::Mpt::new()?))),
        Entry::new("header", || Ok(Box::new(header::HeaderTarget::new()?))),
        Entry::new("cole", || Ok(Box::new(cole::Cole::new()?))),
        Entry::new("lvmt", || Ok(Box::new(lvmt::LvmtTarget::new()?))),
        Entry::new("forkless", || Ok(Box::new(forkless::Forkless::new()?))),
        Entry::new("mbt", || Ok(Box::new(mbt::Mbt::new()?))),
        Entry::new("pos", || Ok(Box::new(pos::Pos::new()?))),
        Entry::new("beacon", || Ok(Box::new(beacon::Beacon::new()?))),
        Entry::new("params", || Ok(Box::new(params::ParamsTarget::new()?))),
    ]
}
