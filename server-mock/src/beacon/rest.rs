//! The beacon API of the simulated chain, on the node's HTTP port beside JSON-RPC (GET only):
//!
//! | path | answer |
//! |---|---|
//! | `/eth/v1/beacon/genesis` | JSON: genesis time (0), genesis validators root, genesis fork version |
//! | `/eth/v1/beacon/headers/{block_id}` | JSON: the block header, its root and proposer signature |
//! | `/eth/v1/beacon/states/{state_id}/finality_checkpoints` | JSON: justified and finalized checkpoints |
//! | `/eth/v1/beacon/light_client/bootstrap/{block_root}` | SSZ `LightClientBootstrap` |
//! | `/eth/v1/beacon/light_client/updates?start_period=&count=` | SSZ `LightClientUpdate`s, framed |
//! | `/eth/v1/beacon/light_client/finality_update` | SSZ `LightClientFinalityUpdate` |
//! | `/eth/v1/beacon/light_client/optimistic_update` | SSZ `LightClientOptimisticUpdate` |
//! | `/lightprov/v1/beacon/status` | JSON: current slot, period, heads, participation, network |
//!
//! `block_id` and `state_id` are `head`, `finalized`, `justified`, `genesis`, a slot, or a
//! `0x` root (a block root; for states, a state root). SSZ answers carry `Eth-Consensus-Version`;
//! each `updates` chunk is `length(u64 LE) ‖ fork digest(4) ‖ SSZ`, the length counting the digest
//! and the SSZ bytes. Errors are the beacon API's `{"code", "message"}` JSON: 404 for an unknown
//! block or root (or an update not there yet), 400 naming a bad parameter, 406 for an `Accept`
//! that excludes SSZ on the light-client paths.

use std::sync::{Arc, Mutex, MutexGuard};

use lightprov_types::beacon::{BeaconBlockHeader, LightClientUpdate, Root, Slot};
use serde_json::{Value, json};

use super::{
    BeaconChain, COMMITTEE_SIZE, FORK, MAX_REQUEST_LIGHT_CLIENT_UPDATES, PRESET, finality_of,
    optimistic_of,
};
use crate::{
    chain::Chain,
    front::{Rest, RestAnswer},
    handler::Node,
};

/// The API over the node's chain.
pub struct BeaconApi {
    node: Arc<Node>,
    beacon: Mutex<BeaconChain>,
}

impl std::fmt::Debug for BeaconApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BeaconApi").finish_non_exhaustive()
    }
}

const SSZ: &str = "application/octet-stream";

fn hex(b: &[u8]) -> String {
    lightprov_types::hex::encode(b)
}

fn error(status: u16, message: impl Into<String>) -> RestAnswer {
    let message: String = message.into();
    RestAnswer::json(status, &json!({ "code": status, "message": message }))
}

fn internal(e: impl std::fmt::Display) -> RestAnswer {
    tracing::error!("beacon API: {e:#}");
    error(500, format!("internal error: {e:#}"))
}

fn ssz(bytes: Vec<u8>) -> RestAnswer {
    RestAnswer {
        status: 200,
        headers: vec![
            ("content-type", SSZ.to_owned()),
            ("eth-consensus-version", FORK.name().to_owned()),
        ],
        body: bytes,
    }
}

/// Whether `accept` admits SSZ (no header, `*/*` and `application/*` do).
fn accepts_ssz(accept: Option<&str>) -> bool {
    accept.is_none_or(|a| {
        a.split(',').any(|t| {
            let t = t.split(';').next().unwrap_or_default().trim();
            t.eq_ignore_ascii_case(SSZ) || t == "*/*" || t.eq_ignore_ascii_case("application/*")
        })
    })
}

fn root_arg(s: &str, name: &str) -> Result<Root, RestAnswer> {
    lightprov_types::hex::fixed::<32>(s, name).map_err(|e| {
        error(
            400,
            format!("invalid {e} (expected a 0x-prefixed 32-byte hex root)"),
        )
    })
}

/// A query parameter as a u64, naming it when absent or malformed.
fn query_u64(query: Option<&str>, name: &str) -> Result<u64, RestAnswer> {
    let v = query
        .unwrap_or_default()
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
        .ok_or_else(|| error(400, format!("missing query parameter {name}")))?;
    v.parse().map_err(|_| {
        error(
            400,
            format!("invalid query parameter {name}: expected an unsigned integer, got {v:?}"),
        )
    })
}

impl BeaconApi {
    /// The API of `node`'s chain, its beacon chain brought to the head.
    pub fn new(node: Arc<Node>, beacon: BeaconChain) -> Self {
        Self {
            node,
            beacon: Mutex::new(beacon),
        }
    }

    /// Runs `f` on the beacon chain, synced with the execution chain, with the chain
    /// read-locked; returns the beacon chain still locked, the chain's lock released. (The
    /// beacon chain is locked first, then the chain, everywhere.)
    fn locked<T>(
        &self,
        f: impl FnOnce(&mut BeaconChain, &Chain) -> Result<T, RestAnswer>,
    ) -> Result<(MutexGuard<'_, BeaconChain>, T), RestAnswer> {
        let mut beacon = self
            .beacon
            .lock()
            .map_err(|_| internal("beacon lock poisoned"))?;
        let chain = self
            .node
            .chain
            .read()
            .map_err(|_| internal("chain lock poisoned"))?;
        beacon.sync(&chain).map_err(internal)?;
        let t = f(&mut beacon, &chain)?;
        Ok((beacon, t))
    }

    /// [`BeaconApi::locked`]'s result alone.
    fn with<T>(
        &self,
        f: impl FnOnce(&mut BeaconChain, &Chain) -> Result<T, RestAnswer>,
    ) -> Result<T, RestAnswer> {
        self.locked(f).map(|(_, t)| t)
    }

    /// The updates attested at the slots `pick` chooses, with the fork digest of each: built
    /// under the chain's read lock, signed after it is released (the committee's signatures
    /// take some milliseconds per update; block production need not wait for them).
    fn signed_updates(
        &self,
        pick: impl FnOnce(&BeaconChain) -> Result<Vec<Slot>, RestAnswer>,
    ) -> Result<Vec<(LightClientUpdate, [u8; 4])>, RestAnswer> {
        let (mut beacon, unsigned) = self.locked(|b, c| {
            pick(b)?
                .into_iter()
                .map(|a| b.unsigned_update(c, a))
                .collect::<anyhow::Result<Vec<_>>>()
                .map_err(internal)
        })?;
        Ok(unsigned
            .into_iter()
            .map(|mut u| {
                beacon.sign(&mut u);
                let digest = beacon.fork_digest(PRESET.epoch(u.attested_header.beacon.slot));
                (u, digest)
            })
            .collect())
    }

    fn answer(&self, path: &str, query: Option<&str>, accept: Option<&str>) -> RestAnswer {
        let path = path.trim_end_matches('/');
        let result = if let Some(rest) = path.strip_prefix("/eth/v1/beacon/light_client/") {
            if !accepts_ssz(accept) {
                return error(
                    406,
                    "light-client objects are served as SSZ only: send Accept: application/octet-stream",
                );
            }
            self.light_client(rest, query)
        } else if path == "/eth/v1/beacon/genesis" {
            self.with(|b, _| {
                let n = b.network();
                Ok(RestAnswer::json(
                    200,
                    &json!({ "data": {
                        "genesis_time": n.genesis_time.to_string(),
                        "genesis_validators_root": hex(&n.genesis_validators_root),
                        "genesis_fork_version": hex(&n.genesis_fork_version),
                    }}),
                ))
            })
        } else if let Some(id) = path.strip_prefix("/eth/v1/beacon/headers/") {
            self.header(id)
        } else if let Some(id) = path
            .strip_prefix("/eth/v1/beacon/states/")
            .and_then(|r| r.strip_suffix("/finality_checkpoints"))
        {
            self.finality_checkpoints(id)
        } else if path == "/lightprov/v1/beacon/status" {
            self.status()
        } else {
            Err(error(404, format!("no such beacon API path: {path}")))
        };
        result.unwrap_or_else(|e| e)
    }

    fn light_client(&self, what: &str, query: Option<&str>) -> Result<RestAnswer, RestAnswer> {
        if let Some(root) = what.strip_prefix("bootstrap/") {
            let root = root_arg(root, "block_root")?;
            return self.with(|b, c| match b.bootstrap(c, &root).map_err(internal)? {
                Some(boot) => Ok(ssz(boot.encode())),
                None => Err(error(
                    404,
                    format!("no block with root {} (block_root)", hex(&root)),
                )),
            });
        }
        match what {
            "updates" => {
                let start = query_u64(query, "start_period")?;
                let count = query_u64(query, "count")?;
                if count == 0 {
                    return Err(error(
                        400,
                        "invalid query parameter count: must be at least 1",
                    ));
                }
                let count = count.min(MAX_REQUEST_LIGHT_CLIENT_UPDATES);
                let updates = self.signed_updates(|b| {
                    Ok((start..start.saturating_add(count))
                        .map_while(|p| b.period_attested(p))
                        .collect())
                })?;
                let mut body = Vec::new();
                for (u, digest) in updates {
                    let bytes = u.encode();
                    body.extend_from_slice(&((bytes.len() + 4) as u64).to_le_bytes());
                    body.extend_from_slice(&digest);
                    body.extend_from_slice(&bytes);
                }
                Ok(ssz(body))
            }
            "finality_update" | "optimistic_update" => {
                let latest =
                    self.signed_updates(|b| Ok(b.latest_attested().into_iter().collect()))?;
                let Some((u, _)) = latest.into_iter().next() else {
                    let what = what.replace('_', " ");
                    return Err(error(
                        404,
                        format!("no {what} yet: the chain has one block"),
                    ));
                };
                Ok(ssz(if what == "finality_update" {
                    finality_of(u).encode()
                } else {
                    optimistic_of(u).encode()
                }))
            }
            _ => Err(error(
                404,
                format!(
                    "no such light-client object: {what} (bootstrap/{{block_root}}, updates, finality_update, optimistic_update)"
                ),
            )),
        }
    }

    fn header(&self, id: &str) -> Result<RestAnswer, RestAnswer> {
        self.with(|b, _| {
            let slot = block_slot(b, id, "block_id")?;
            let (h, root) = b
                .header(slot)
                .ok_or_else(|| error(404, format!("no block at slot {slot}")))?;
            let finalized = finalized_slot(b)?;
            let signature = b.proposer_signature(slot).map_err(internal)?;
            Ok(about_slot(
                slot,
                finalized,
                json!({
                    "root": hex(&root),
                    "canonical": true,
                    "header": { "message": header_json(&h), "signature": hex(&signature) },
                }),
            ))
        })
    }

    fn finality_checkpoints(&self, id: &str) -> Result<RestAnswer, RestAnswer> {
        self.with(|b, _| {
            let slot = match id.strip_prefix("0x") {
                Some(_) => {
                    let root = root_arg(id, "state_id")?;
                    (0..=b.head_slot().unwrap_or_default())
                        .find(|s| b.header(*s).is_some_and(|(h, _)| h.state_root == root))
                        .ok_or_else(|| {
                            error(404, format!("no state with root {} (state_id)", hex(&root)))
                        })?
                }
                None => block_slot(b, id, "state_id")?,
            };
            let c = b.checkpoints(slot).map_err(internal)?;
            let finalized = finalized_slot(b)?;
            let cp = |c: super::Checkpoint| json!({ "epoch": c.epoch.to_string(), "root": hex(&c.root) });
            Ok(about_slot(
                slot,
                finalized,
                json!({
                    "previous_justified": cp(c.previous_justified),
                    "current_justified": cp(c.current_justified),
                    "finalized": cp(c.finalized),
                }),
            ))
        })
    }

    fn status(&self) -> Result<RestAnswer, RestAnswer> {
        self.with(|b, c| {
            let head = b.head_slot().unwrap_or_default();
            let checkpoints = b.checkpoints(head).map_err(internal)?;
            let fin_slot = finalized_slot(b)?;
            let describe = |slot: Slot| -> Result<Value, RestAnswer> {
                let (_, root) = b
                    .header(slot)
                    .ok_or_else(|| internal(format!("no block at slot {slot}")))?;
                let h = c
                    .header(slot)
                    .map_err(internal)?
                    .ok_or_else(|| internal(format!("no execution block {slot}")))?;
                Ok(json!({
                    "slot": slot.to_string(),
                    "root": hex(&root),
                    "blockNumber": h.number.to_string(),
                    "blockHash": hex(h.hash_slow().as_slice()),
                }))
            };
            let n = b.network();
            Ok(RestAnswer::json(
                200,
                &json!({
                    "currentSlot": head.to_string(),
                    "currentPeriod": PRESET.period(head).to_string(),
                    "head": describe(head)?,
                    "optimistic": match head { 0 => Value::Null, h => describe(h - 1)? },
                    "finalized": describe(fin_slot)?,
                    "finalizedEpoch": checkpoints.finalized.epoch.to_string(),
                    "participation": b.settings().participation,
                    "committeeSize": COMMITTEE_SIZE,
                    "network": {
                        "preset": "minimal",
                        "genesisValidatorsRoot": hex(&n.genesis_validators_root),
                        "lastFork": FORK.name(),
                        "genesisTime": n.genesis_time.to_string(),
                        "secondsPerSlot": n.seconds_per_slot.to_string(),
                        "forkDigest": hex(&b.fork_digest(PRESET.epoch(head))),
                    },
                }),
            ))
        })
    }
}

fn header_json(h: &BeaconBlockHeader) -> Value {
    json!({
        "slot": h.slot.to_string(),
        "proposer_index": h.proposer_index.to_string(),
        "parent_root": hex(&h.parent_root),
        "state_root": hex(&h.state_root),
        "body_root": hex(&h.body_root),
    })
}

/// The first slot of the head's finalized epoch: blocks at or before it are final.
fn finalized_slot(b: &BeaconChain) -> Result<Slot, RestAnswer> {
    let head = b.head_slot().unwrap_or_default();
    Ok(b.checkpoints(head)
        .map_err(internal)?
        .finalized
        .epoch
        .saturating_mul(PRESET.slots_per_epoch))
}

/// A `200` answer of `data` about the block or state at `slot`, with the fields the API puts
/// beside such data (never optimistic; finalized up to the slot `finalized`).
fn about_slot(slot: Slot, finalized: Slot, data: Value) -> RestAnswer {
    RestAnswer::json(
        200,
        &json!({
            "execution_optimistic": false,
            "finalized": slot <= finalized,
            "data": data,
        }),
    )
}

/// The slot a `block_id` (or `state_id` other than a state root) names.
fn block_slot(b: &BeaconChain, id: &str, name: &str) -> Result<Slot, RestAnswer> {
    let head = b.head_slot().unwrap_or_default();
    let checkpoint = |f: fn(&super::Checkpoints) -> super::Checkpoint| {
        b.checkpoints(head)
            .map(|c| f(&c).epoch * PRESET.slots_per_epoch)
            .map_err(internal)
    };
    let slot = match id {
        "head" => head,
        "genesis" => 0,
        "finalized" => checkpoint(|c| c.finalized)?,
        "justified" => checkpoint(|c| c.current_justified)?,
        s if s.starts_with("0x") => {
            let root = root_arg(s, name)?;
            b.slot_of(&root)
                .ok_or_else(|| error(404, format!("no block with root {} ({name})", hex(&root))))?
        }
        s => s.parse().map_err(|_| {
            error(
                400,
                format!("invalid {name}: expected head, finalized, justified, genesis, a slot or a 0x root, got {s:?}"),
            )
        })?,
    };
    if slot > head {
        return Err(error(
            404,
            format!("no block at slot {slot} ({name}): the head is at slot {head}"),
        ));
    }
    Ok(slot)
}

impl Rest for BeaconApi {
    fn get(&self, path: &str, query: Option<&str>, accept: Option<&str>) -> RestAnswer {
        self.answer(path, query, accept)
    }
}
