//! The shared vectors of tests/vectors, read as the other runners read them.
#![allow(unreachable_pub)]

use std::path::PathBuf;

use lightprov_inspect::{Outline, cole, lvmt::Anchor};
use lightprov_types::B256;
use serde_json::Value;

pub struct Vector {
    pub name: String,
    pub inputs: Value,
    pub expected: Value,
}

impl Vector {
    pub fn str(&self, name: &str) -> &str {
        self.inputs[name]
            .as_str()
            .unwrap_or_else(|| panic!("{}: inputs.{name}", self.name))
    }

    pub fn bytes(&self, name: &str) -> Vec<u8> {
        hex(self.str(name))
    }

    pub fn b256(&self, name: &str) -> B256 {
        B256::from_slice(&self.bytes(name))
    }

    pub fn num(&self, name: &str) -> u64 {
        number(&self.inputs[name])
    }

    pub fn anchor(&self) -> Anchor {
        Anchor {
            aroot: self.b256("lvmtRoot").0,
            history_root: self.b256("lvmtHistoryRoot"),
            blocks: self.num("number") + 1,
        }
    }
}

/// The outline of `proof` as a COLE vector asks it (its key, range, roots and scheme).
pub fn cole_outline(v: &Vector, proof: &[u8]) -> Outline {
    cole::outline(
        proof,
        &v.b256("stateKey"),
        v.num("fromBlock"),
        v.num("toBlock"),
        &v.b256("coleRoot"),
        &v.b256("siblingRoot"),
        cole::Scheme::parse(v.str("scheme")).unwrap(),
    )
    .unwrap()
}

/// Every comparison of `o` holds, its main one too: the outline of an honest proof.
pub fn roots_match(o: &Outline, name: &str) {
    assert!(o.root.matches, "{name}: {:?}", o.root);
    assert!(o.roots.iter().all(|r| r.matches), "{name}: {:?}", o.roots);
}

/// A vector's `roots` (one per block).
pub fn roots(v: &Vector) -> Vec<B256> {
    v.inputs["roots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| B256::from_slice(&hex(r.as_str().unwrap())))
        .collect()
}

pub fn number(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
}

/// `0x`-hex to bytes (an odd number of digits is read as a number: a zero is prepended).
pub fn hex(s: &str) -> Vec<u8> {
    let s = s.trim_start_matches("0x");
    let padded = format!("0{s}");
    let s = if s.len() % 2 == 1 { padded.as_str() } else { s };
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The valid vectors of `family` whose file name starts with `prefix`, sorted by name.
pub fn valid(family: &str, prefix: &str) -> Vec<Vector> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/vectors")
        .join(family)
        .join("valid");
    let mut out: Vec<Vector> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".json"))
        })
        .map(|p| {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            Vector {
                name: p.file_stem().unwrap().to_str().unwrap().to_string(),
                inputs: v["inputs"].clone(),
                expected: v["expected"].clone(),
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(!out.is_empty(), "no {family} vectors named {prefix}*");
    out
}
