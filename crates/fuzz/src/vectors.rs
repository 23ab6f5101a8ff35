//! The shared vectors (`tests/vectors`), read as seeds, and the regression files written back.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use lightprov_types::{B256, hex};
use serde_json::Value;

/// The repository root (the fuzz crate sits in `crates/fuzz`).
pub fn repo_root() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    p.canonicalize().unwrap_or(p)
}

/// `tests/vectors`.
pub fn vectors_dir() -> PathBuf {
    repo_root().join("tests/vectors")
}

/// Every vector of `family/kind`, sorted by file name: (name, vector).
pub fn load(family: &str, kind: &str) -> anyhow::Result<Vec<(String, Value)>> {
    let dir = vectors_dir().join(family).join(kind);
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let p = e?.path();
        if p.extension().is_some_and(|x| x == "json") {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&p)?)
                .with_context(|| format!("parsing {}", p.display()))?;
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.push((name, v));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// A string field of the vector's inputs.
pub fn s<'a>(inputs: &'a Value, field: &str) -> anyhow::Result<&'a str> {
    inputs[field]
        .as_str()
        .with_context(|| format!("inputs.{field} is not a string"))
}

/// A 32-byte hash field.
pub fn b256(inputs: &Value, field: &str) -> anyhow::Result<B256> {
    Ok(B256::from(hex::fixed::<32>(s(inputs, field)?, field)?))
}

/// A field holding a list of 32-byte hashes.
pub fn b256_list(inputs: &Value, field: &str) -> anyhow::Result<Vec<B256>> {
    inputs[field]
        .as_array()
        .with_context(|| format!("inputs.{field} is not an array"))?
        .iter()
        .map(|h| {
            let h = h
                .as_str()
                .with_context(|| format!("inputs.{field}: not hex"))?;
            Ok(B256::from(hex::fixed::<32>(h, field)?))
        })
        .collect()
}

/// A hex data field.
pub fn data(inputs: &Value, field: &str) -> anyhow::Result<Vec<u8>> {
    Ok(hex::data(s(inputs, field)?, field)?)
}

/// A hex quantity field.
pub fn u64(inputs: &Value, field: &str) -> anyhow::Result<u64> {
    Ok(hex::u64(s(inputs, field)?, field)?)
}

/// A regression vector for `family/invalid`: the seed vector's other fields, `inputs` as
/// given, and an `expected` error to be filled in once the cause is fixed (the runners fail on
/// `FIXME` until then, which is the point: the input broke the verifier). Its name ends in
/// `-fuzz`, which is no tamper class: the registry test also fails until the file is renamed
/// after the class of `lightprov_types::FAMILIES` it belongs to (or a new class is registered),
/// so fuzzing, the vectors and the demo keep one list of tamper names.
pub fn regression_vector(
    family: &'static str,
    target: &str,
    seed_name: &str,
    inputs: Value,
    why: &str,
    data: &[u8],
) -> crate::Regression {
    let name = format!("{target}-{}-fuzz", crate::short_hash(data));
    let vector = serde_json::json!({
        "description": format!(
            "{name}: found by the {target} fuzz target from seed {seed_name}: {why}; rename the \
             file to end in its tamper class (lightprov_types::FAMILIES) and set `expected`"
        ),
        "expected": { "error": "FIXME" },
        "generator": "crates/fuzz (scripts/fuzz)",
        "inputs": inputs,
    });
    crate::Regression {
        path: PathBuf::from(format!("tests/vectors/{family}/invalid/{name}.json")),
        content: serde_json::to_string_pretty(&vector).unwrap_or_default() + "\n",
        count_family: Some(family),
    }
}
