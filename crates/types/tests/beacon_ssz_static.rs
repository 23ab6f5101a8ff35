//! The consensus specs' `ssz_static` vectors of the light-client containers, Altair to Fulu: every
//! case decodes, encodes back to the same bytes and has the vector's `hash_tree_root`.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use std::{fs, path::Path};

use lightprov_types::beacon::{
    BeaconBlockHeader, ExecutionPayloadHeader, Fork, LightClientBootstrap,
    LightClientFinalityUpdate, LightClientHeader, LightClientOptimisticUpdate, LightClientUpdate,
    Preset, SyncAggregate, SyncCommittee,
};

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/beacon/tests/minimal"
);

fn snappy(path: &Path) -> Vec<u8> {
    let raw = fs::read(path).unwrap();
    snap::raw::Decoder::new().decompress_vec(&raw).unwrap()
}

fn root_of(path: &Path) -> [u8; 32] {
    let text = fs::read_to_string(path).unwrap();
    let hex = text.split('\'').nth(1).unwrap();
    hex::decode(hex.trim_start_matches("0x"))
        .unwrap()
        .try_into()
        .unwrap()
}

/// The encoding an `encode_to` appends, as a function of the value.
fn encoded<T>(encode_to: impl Fn(&T, &mut Vec<u8>)) -> impl Fn(&T) -> Vec<u8> {
    move |v| {
        let mut o = Vec::new();
        encode_to(v, &mut o);
        o
    }
}

/// Decodes, re-encodes and hashes one value of `ty` in `fork`.
fn round_trip(ty: &str, fork: Fork, bytes: &[u8]) -> (Vec<u8>, [u8; 32]) {
    let p = Preset::MINIMAL;
    macro_rules! rt {
        ($v:expr, $enc:expr, $root:expr) => {{
            let v = $v.unwrap_or_else(|e| panic!("{ty} {fork:?}: {e}"));
            ($enc(&v), $root(&v))
        }};
        // A light-client container: decoded in the fork for the preset.
        ($container:ident) => {
            rt!(
                $container::decode(bytes, fork, &p),
                $container::encode,
                $container::hash_tree_root
            )
        };
    }
    match ty {
        "BeaconBlockHeader" => rt!(
            BeaconBlockHeader::decode(bytes, "header"),
            encoded(BeaconBlockHeader::encode_to),
            BeaconBlockHeader::hash_tree_root
        ),
        "ExecutionPayloadHeader" => rt!(
            ExecutionPayloadHeader::decode(bytes, fork, "execution"),
            encoded(|v: &ExecutionPayloadHeader, o: &mut Vec<u8>| v.encode_to(fork, o)),
            |v: &ExecutionPayloadHeader| v.hash_tree_root(fork)
        ),
        "LightClientHeader" => rt!(
            LightClientHeader::decode(bytes, fork, "header"),
            LightClientHeader::encode,
            LightClientHeader::hash_tree_root
        ),
        "SyncCommittee" => rt!(
            SyncCommittee::decode(bytes, &p, "committee"),
            encoded(SyncCommittee::encode_to),
            SyncCommittee::hash_tree_root
        ),
        "SyncAggregate" => rt!(
            SyncAggregate::decode(bytes, &p, "aggregate"),
            encoded(SyncAggregate::encode_to),
            SyncAggregate::hash_tree_root
        ),
        "LightClientBootstrap" => rt!(LightClientBootstrap),
        "LightClientUpdate" => rt!(LightClientUpdate),
        "LightClientFinalityUpdate" => rt!(LightClientFinalityUpdate),
        "LightClientOptimisticUpdate" => rt!(LightClientOptimisticUpdate),
        other => panic!("no decoder for {other}"),
    }
}

#[test]
fn every_light_client_container_decodes_reencodes_and_hashes_like_the_spec() {
    let mut cases = 0;
    for fork in Fork::ALL {
        let dir = Path::new(FIXTURES).join(fork.name()).join("ssz_static");
        for ty in fs::read_dir(&dir).unwrap() {
            let ty = ty.unwrap();
            let name = ty.file_name().into_string().unwrap();
            for suite in fs::read_dir(ty.path()).unwrap() {
                let case = suite.unwrap().path().join("case_0");
                let bytes = snappy(&case.join("serialized.ssz_snappy"));
                let (encoded, root) = round_trip(&name, fork, &bytes);
                assert!(encoded == bytes, "{}: re-encoding differs", case.display());
                assert_eq!(
                    root,
                    root_of(&case.join("roots.yaml")),
                    "{}",
                    case.display()
                );
                cases += 1;
            }
        }
    }
    // 8 containers x 7 suites in Altair, 9 from Bellatrix on.
    assert_eq!(cases, 7 * (8 + 9 * 5), "ssz_static cases");
}

#[test]
fn decoders_refuse_every_truncation_and_never_panic_on_altered_bytes() {
    let p = Preset::MINIMAL;
    for fork in Fork::ALL {
        let case = Path::new(FIXTURES)
            .join(fork.name())
            .join("ssz_static/LightClientUpdate/ssz_random/case_0");
        let bytes = snappy(&case.join("serialized.ssz_snappy"));
        // Every prefix: decodes to an error or, where only extra_data shrinks, to a value that
        // encodes back to exactly that prefix.
        for n in 0..bytes.len() {
            if let Ok(u) = LightClientUpdate::decode(&bytes[..n], fork, &p) {
                assert_eq!(u.encode(), &bytes[..n], "{fork:?} prefix {n}");
            }
        }
        // Every byte of the fixed part set to 0xff: no panic, and offsets out of place refused.
        for i in 0..bytes.len().min(600) {
            let mut b = bytes.clone();
            b[i] = 0xff;
            if let Ok(u) = LightClientUpdate::decode(&b, fork, &p) {
                assert_eq!(u.encode(), b, "{fork:?} byte {i}");
            }
        }
        // A fixed-size container with a trailing byte is refused (from Capella on, a trailing
        // byte is the last header's extra_data, which the round trip above covers).
        if !fork.has_execution() {
            let longer = [bytes.clone(), vec![0]].concat();
            assert!(LightClientUpdate::decode(&longer, fork, &p).is_err());
        }
    }
}
