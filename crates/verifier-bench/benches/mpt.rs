//! Native speed of the MPT verifier on the real proofs in tests/vectors/mpt/sources.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use std::{fs, path::PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use lightprov_types::mpt::AccountProof;
use lightprov_verifier::keccak256;
use lightprov_verifier::mpt;

fn sources() -> Vec<(AccountProof, [u8; 32])> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/mpt/sources");
    let mut out = vec![];
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "json") {
            let v: serde_json::Value =
                serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
            let root =
                lightprov_types::hex::fixed::<32>(v["stateRoot"].as_str().unwrap(), "stateRoot")
                    .unwrap();
            out.push((AccountProof::from_json(&v).unwrap(), root));
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let proofs = sources();
    c.bench_function("verify_account_proof (all real sources)", |b| {
        b.iter(|| {
            for (p, root) in &proofs {
                mpt::verify_account_proof(&root.into(), &p.as_ref()).unwrap();
            }
        })
    });
    let bytes: usize = proofs
        .iter()
        .map(|(p, _)| p.account_proof.iter().map(Vec::len).sum::<usize>())
        .sum();
    let data: Vec<u8> = proofs
        .iter()
        .flat_map(|(p, _)| p.account_proof.concat())
        .collect();
    c.bench_function(
        &format!("keccak256 of the account proofs' {bytes} bytes, node by node"),
        |b| {
            b.iter(|| {
                for (p, _) in &proofs {
                    for n in &p.account_proof {
                        std::hint::black_box(keccak256(n));
                    }
                }
            })
        },
    );
    c.bench_function("keccak256 of the same bytes in one call", |b| {
        b.iter(|| std::hint::black_box(keccak256(&data)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
