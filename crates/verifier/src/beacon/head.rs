//! The head a client takes as the chain's, beside the specification's store.
//!
//! The store's optimistic header is not it: `process_light_client_update` moves it for any
//! update signed by more members than the safety threshold, half the most participation seen
//! in the last two periods — zero on a fresh store, so one member's signature moves it, and
//! from Capella on the signer chooses the block body, so the execution payload it carries is
//! anything that member wants. [`SignedHead`] keeps the store as the specification has it and
//! follows, instead, the newest attested header of the updates the store took (their
//! signature checked over exactly the members their bits name) that a supermajority of the
//! committee signed — what the specification asks before it moves the finalized header — or as
//! many members as [`SignedHead::set_min_participants`] says, or the finalized header when that
//! is newer.

use lightprov_types::beacon::{BeaconError, LightClientHeader, LightClientUpdate, Slot};

use super::store::{LightClientStore, Progress, is_supermajority};

/// The newest header enough of the committee signed, over a [`LightClientStore`]: feed every
/// update through [`SignedHead::process`].
#[derive(Clone, Debug, Default)]
pub struct SignedHead {
    /// Members a header needs; 0: a supermajority.
    min_participants: usize,
    header: Option<LightClientHeader>,
    last: (usize, usize),
}

impl SignedHead {
    /// Follows the headers a supermajority of the committee signed ([`is_supermajority`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Follows the headers at least `n` members signed instead (at least one: the store
    /// refuses fewer). Below a supermajority, a header fewer members vouch for can become the
    /// head.
    pub fn set_min_participants(&mut self, n: usize) {
        self.min_participants = n.max(1);
    }

    /// Whether `participants` of a committee of `size` are enough to follow their header.
    pub fn enough(&self, participants: usize, size: usize) -> bool {
        match self.min_participants {
            0 => is_supermajority(participants, size),
            n => participants >= n,
        }
    }

    /// `process_light_client_update` on `store`, unchanged; then, if the store took the update
    /// (it verified its signature), its attested header becomes the head when enough members
    /// signed it ([`SignedHead::enough`]) and it is newer than the head.
    pub fn process(
        &mut self,
        store: &mut LightClientStore,
        update: LightClientUpdate,
        current_slot: Slot,
    ) -> Result<Progress, BeaconError> {
        let aggregate = &update.sync_aggregate;
        let (signed, size) = (aggregate.participants(), aggregate.committee_size());
        let attested = update.attested_header.clone();
        let progress = store.process_update(update, current_slot)?;
        self.last = (signed, size);
        if self.enough(signed, size) && attested.beacon.slot > self.header(store).beacon.slot {
            self.header = Some(attested);
        }
        Ok(progress)
    }

    /// The head: the newest of the store's finalized header and the attested header followed.
    pub fn header<'a>(&'a self, store: &'a LightClientStore) -> &'a LightClientHeader {
        let finalized = store.finalized_header();
        match &self.header {
            Some(h) if h.beacon.slot > finalized.beacon.slot => h,
            _ => finalized,
        }
    }

    /// How many members signed the last update the store took, and the committee's size
    /// (`(0, 0)` before any).
    pub fn participation(&self) -> (usize, usize) {
        self.last
    }
}
