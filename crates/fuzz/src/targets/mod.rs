//! The targets, and the list the `lightprov-fuzz` binary runs (a new target: its module,
//! its name in [`TARGETS`] and its line in [`entries`]). A proof family's target is a
//! [`proof::ProofTarget`] of what its seeds ask: its module supplies only what differs.

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
pub mod proof;

/// The names of every target, in run order.
pub const TARGETS: [&str; 9] = [
    "mpt", "header", "cole", "lvmt", "forkless", "mbt", "pos", "beacon", "params",
];

/// Every target, in run order, for [`crate::cli::run`].
pub fn entries() -> Vec<crate::cli::Entry> {
    use crate::cli::Entry;
    use proof::ProofTarget;
    vec![
        Entry::new("mpt", || Ok(Box::new(mpt::Mpt::new()?))),
        Entry::new("header", || Ok(Box::new(header::HeaderTarget::new()?))),
        Entry::new("cole", || Ok(Box::new(ProofTarget::<cole::Query>::new()?))),
        Entry::new("lvmt", || Ok(Box::new(ProofTarget::<lvmt::Query>::new()?))),
        Entry::new("forkless", || {
            Ok(Box::new(ProofTarget::<forkless::Query>::new()?))
        }),
        Entry::new("mbt", || Ok(Box::new(ProofTarget::<mbt::Query>::new()?))),
        Entry::new("pos", || Ok(Box::new(ProofTarget::<pos::Ask>::new()?))),
        Entry::new("beacon", || {
            Ok(Box::new(ProofTarget::<beacon::Step>::new()?))
        }),
        Entry::new("params", || Ok(Box::new(params::ParamsTarget::new()?))),
    ]
}
