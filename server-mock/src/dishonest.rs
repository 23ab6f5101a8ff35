//! Lies on purpose, for tests of clients (`--dishonest MODE`, hidden from `--help`).
//!
//! Each mode corrupts answers the way a faulty or malicious full node could, while every other
//! answer stays honest; a light client must never return data from a corrupted answer, and with
//! several nodes it must fail over to an honest one. The corruptions live here, and the RPC
//! handlers call them at the one place each answer is built.

use serde_json::Value;

/// Misbehaviour for tests of clients: the node corrupts its answers on purpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Dishonest {
    /// Flip one byte of the last account-proof node in every `eth_getProof` answer.
    ProofByte,
    /// Change the stateRoot field of every block answer.
    HeaderField,
    /// Flip one byte in the middle of every `lightprov_getHistory` COLE proof.
    HistoryByte,
    /// Flip one byte in the middle of every LVMT proof (`lightprov_getLvmtProof`, and
    /// `lightprov_getHistory` with `lvmt`).
    LvmtByte,
    /// Serve wrong values with honest proofs: `eth_getProof`'s balance, nonce and storage values
    /// (also inside `lightprov_getHistory` with `mpt`), and `eth_getBalance`,
    /// `eth_getTransactionCount`, `eth_getStorageAt` (methods that carry no proof).
    WrongValue,
    /// Serve stale headers: `eth_getBlockByNumber(n)` answers with block n − 3 (and `latest`
    /// with the head − 3), each a real, sealed header of the chain, just not the one asked for.
    StaleHeader,
    /// Serve proofs for another block: `eth_getProof` at block b answers with block b − 1's
    /// proof; LVMT and COLE answers claim the block before the one they prove.
    OtherBlock,
    /// Truncate proofs: the last node of every MPT proof list is dropped, and COLE and LVMT proof
    /// bytes are cut to half their length.
    Truncated,
    /// Seal a branch of its own: every block this node produces differs from an honest node's
    /// (a later timestamp), validly sealed. Started on a copy of an honest node's data directory,
    /// it forks from it; every answer is honest for its own branch.
    Fork,
}

/// How many blocks `stale-header` lags.
const STALE_BY: u64 = 3;

/// The block whose header is served when block `n` is asked for.
pub fn header_block(mode: Option<Dishonest>, n: u64) -> u64 {
    match mode {
        Some(Dishonest::StaleHeader) => n.saturating_sub(STALE_BY),
        _ => n,
    }
}

/// The block whose state `eth_getProof` proves when block `n` is asked for.
pub fn proof_block(mode: Option<Dishonest>, n: u64) -> u64 {
    match mode {
        Some(Dishonest::OtherBlock) => n.saturating_sub(1),
        _ => n,
    }
}

/// The block an LVMT or COLE answer claims to be against, when it proves against `n`.
pub fn claimed_block(mode: Option<Dishonest>, n: u64) -> u64 {
    proof_block(mode, n)
}

/// A block answer (`eth_getBlockBy*`) as served.
pub fn block(mode: Option<Dishonest>, v: &mut Value) {
    if mode == Some(Dishonest::HeaderField)
        && let Some(o) = v.as_object_mut()
    {
        o.insert(
            "stateRoot".into(),
            Value::String(format!("0x{}", "11".repeat(32))),
        );
    }
}

/// An `eth_getProof` answer (also each one inside an `mpt` history) as served.
pub fn account_proof(mode: Option<Dishonest>, v: &mut Value) {
    match mode {
        Some(Dishonest::ProofByte) => {
            if let Some(Value::String(last)) = v
                .get_mut("accountProof")
                .and_then(Value::as_array_mut)
                .and_then(|l| l.last_mut())
            {
                let flipped = if last.ends_with('0') { '1' } else { '0' };
                last.pop();
                last.push(flipped);
            }
        }
        Some(Dishonest::WrongValue) => {
            for field in ["balance", "nonce"] {
                if let Some(x) = v.get_mut(field) {
                    *x = Value::String(plus_one(x));
                }
            }
            for s in storage_proofs(v) {
                if let Some(x) = s.get_mut("value") {
                    *x = Value::String(plus_one(x));
                }
            }
        }
        Some(Dishonest::Truncated) => {
            if let Some(l) = v.get_mut("accountProof").and_then(Value::as_array_mut) {
                l.pop();
            }
            for s in storage_proofs(v) {
                if let Some(l) = s.get_mut("proof").and_then(Value::as_array_mut) {
                    l.pop();
                }
            }
        }
        _ => {}
    }
}

/// A value answered without a proof (`eth_getBalance`, …) as served.
pub fn unproven_value(mode: Option<Dishonest>, mut word: [u8; 32]) -> [u8; 32] {
    if mode == Some(Dishonest::WrongValue) {
        for b in word.iter_mut().rev() {
            let (next, carry) = b.overflowing_add(1);
            *b = next;
            if !carry {
                break;
            }
        }
    }
    word
}

/// Which proof bytes a corruption applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// A COLE or COLE* history proof.
    Cole,
    /// An LVMT proof or history proof.
    Lvmt,
}

/// COLE or LVMT proof bytes as served.
pub fn proof_bytes(mode: Option<Dishonest>, family: Family, mut bytes: Vec<u8>) -> Vec<u8> {
    let flip = matches!(
        (mode, family),
        (Some(Dishonest::HistoryByte), Family::Cole) | (Some(Dishonest::LvmtByte), Family::Lvmt)
    );
    let middle = bytes.len() / 2;
    if flip && let Some(b) = bytes.get_mut(middle) {
        *b ^= 0x01;
    }
    if mode == Some(Dishonest::Truncated) {
        bytes.truncate(middle);
    }
    bytes
}

fn storage_proofs(v: &mut Value) -> impl Iterator<Item = &mut Value> {
    v.get_mut("storageProof")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
}

/// A hex quantity plus one (wrapping at 2^256), as a hex quantity.
fn plus_one(x: &Value) -> String {
    let n = x
        .as_str()
        .and_then(|s| alloy_primitives::U256::from_str_radix(s.trim_start_matches("0x"), 16).ok())
        .unwrap_or_default();
    format!("0x{:x}", n.wrapping_add(alloy_primitives::U256::from(1)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    fn proof() -> Value {
        json!({
            "balance": "0xff",
            "nonce": "0x0",
            "accountProof": ["0xaa", "0xbb"],
            "storageProof": [{ "key": "0x1", "value": "0x9", "proof": ["0xcc", "0xdd"] }],
        })
    }

    #[test]
    fn honest_mode_changes_nothing() {
        let mut v = proof();
        account_proof(None, &mut v);
        assert_eq!(v, proof());
        assert_eq!(
            proof_bytes(None, Family::Cole, vec![1, 2, 3]),
            vec![1, 2, 3]
        );
        assert_eq!(header_block(None, 9), 9);
        assert_eq!(proof_block(None, 9), 9);
        assert_eq!(unproven_value(None, [7; 32]), [7; 32]);
    }

    #[test]
    fn wrong_value_moves_every_value_by_one() {
        let mut v = proof();
        account_proof(Some(Dishonest::WrongValue), &mut v);
        assert_eq!(v["balance"], "0x100");
        assert_eq!(v["nonce"], "0x1");
        assert_eq!(v["storageProof"][0]["value"], "0xa");
        assert_eq!(v["accountProof"], proof()["accountProof"]);
        let mut w = [0u8; 32];
        w[31] = 0xff;
        let moved = unproven_value(Some(Dishonest::WrongValue), w);
        assert_eq!((moved[30], moved[31]), (1, 0));
    }

    #[test]
    fn truncated_drops_the_last_node_and_half_the_bytes() {
        let mut v = proof();
        account_proof(Some(Dishonest::Truncated), &mut v);
        assert_eq!(v["accountProof"], json!(["0xaa"]));
        assert_eq!(v["storageProof"][0]["proof"], json!(["0xcc"]));
        let bytes = proof_bytes(Some(Dishonest::Truncated), Family::Lvmt, vec![0; 11]);
        assert_eq!(bytes.len(), 5);
    }

    #[test]
    fn stale_and_other_block_lag() {
        assert_eq!(header_block(Some(Dishonest::StaleHeader), 10), 7);
        assert_eq!(header_block(Some(Dishonest::StaleHeader), 1), 0);
        assert_eq!(proof_block(Some(Dishonest::OtherBlock), 10), 9);
        assert_eq!(claimed_block(Some(Dishonest::OtherBlock), 0), 0);
        assert_eq!(header_block(Some(Dishonest::OtherBlock), 10), 10);
    }

    #[test]
    fn byte_flips_hit_their_own_family_only() {
        let b = vec![0u8; 4];
        assert_eq!(
            proof_bytes(Some(Dishonest::HistoryByte), Family::Cole, b.clone())[2],
            1
        );
        assert_eq!(
            proof_bytes(Some(Dishonest::HistoryByte), Family::Lvmt, b.clone()),
            b
        );
        assert_eq!(
            proof_bytes(Some(Dishonest::LvmtByte), Family::Lvmt, b.clone())[2],
            1
        );
        assert_eq!(
            proof_bytes(Some(Dishonest::LvmtByte), Family::Cole, b.clone()),
            b
        );
    }
}
