//! The consensus specs' `light_client/single_merkle_proof` vectors: the finality, current and
//! next sync committee branches of a `BeaconState` and the execution branch of a
//! `BeaconBlockBody`, for every fork from Altair to Fulu (minimal preset) and Deneb to Fulu
//! (mainnet preset). Each branch must lead from its leaf to `hash_tree_root` of the object, and
//! the verifier's generalized indices must be the vector's.
//!
//! The light client never holds a whole state or block body, so their SSZ schemas live here,
//! in the test only: a small generic `hash_tree_root` over a type description.

use std::fs;

use crate::beacon_common::{bytes, fixtures, root, snappy, uint, yaml};
use lightprov_types::beacon::{Fork, Root, merkleize, mix_in_length};
use lightprov_verifier::beacon::{branch_root, depth_and_index};

/// An SSZ type.
#[derive(Clone)]
enum T {
    /// `uintN` (N/8 bytes; `boolean` is 1).
    Uint(usize),
    /// `ByteVector[N]`.
    Bytes(usize),
    /// `ByteList[N]`.
    ByteList(usize),
    /// `Bitvector[N]`.
    Bits(usize),
    /// `Bitlist[N]`.
    BitList(usize),
    /// `Vector[T, N]`.
    Vector(Box<T>, usize),
    /// `List[T, N]`.
    List(Box<T>, usize),
    /// A container.
    Container(Vec<T>),
}

use T::*;

fn u64_() -> T {
    Uint(8)
}
fn b32() -> T {
    Bytes(32)
}
fn vector(t: T, n: usize) -> T {
    Vector(Box::new(t), n)
}
fn list(t: T, n: usize) -> T {
    List(Box::new(t), n)
}

impl T {
    /// The size of a fixed-size type, `None` for a variable one.
    fn fixed(&self) -> Option<usize> {
        match self {
            Uint(n) | Bytes(n) => Some(*n),
            Bits(n) => Some(n.div_ceil(8)),
            ByteList(_) | BitList(_) | List(..) => None,
            Vector(t, n) => t.fixed().map(|s| s * n),
            Container(fs) => fs.iter().map(T::fixed).sum(),
        }
    }

    fn is_basic(&self) -> bool {
        matches!(self, Uint(_))
    }

    /// The elements of a sequence of `t`: fixed-size ones back to back, variable ones by offset.
    fn elements<'a>(t: &T, b: &'a [u8]) -> Vec<&'a [u8]> {
        if let Some(s) = t.fixed() {
            return b.chunks(s).collect();
        }
        if b.is_empty() {
            return Vec::new();
        }
        let first = u32::from_le_bytes(b[..4].try_into().unwrap()) as usize;
        let offsets: Vec<usize> = (0..first / 4)
            .map(|i| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()) as usize)
            .collect();
        (0..offsets.len())
            .map(|i| &b[offsets[i]..offsets.get(i + 1).copied().unwrap_or(b.len())])
            .collect()
    }

    /// The fields of a container's encoding.
    fn fields<'a>(fs: &[T], b: &'a [u8]) -> Vec<&'a [u8]> {
        let mut pos = 0;
        let mut out = Vec::new();
        let mut var = Vec::new();
        for (i, f) in fs.iter().enumerate() {
            match f.fixed() {
                Some(s) => {
                    out.push(&b[pos..pos + s]);
                    pos += s;
                }
                None => {
                    var.push((
                        i,
                        u32::from_le_bytes(b[pos..pos + 4].try_into().unwrap()) as usize,
                    ));
                    out.push(&b[0..0]);
                    pos += 4;
                }
            }
        }
        for (k, (i, start)) in var.iter().enumerate() {
            let end = var.get(k + 1).map_or(b.len(), |v| v.1);
            out[*i] = &b[*start..end];
        }
        out
    }

    fn chunks(b: &[u8]) -> Vec<Root> {
        b.chunks(32)
            .map(|c| {
                let mut r = [0u8; 32];
                r[..c.len()].copy_from_slice(c);
                r
            })
            .collect()
    }

    fn root(&self, b: &[u8]) -> Root {
        match self {
            Uint(_) => Self::chunks(b).first().copied().unwrap_or([0; 32]),
            Bytes(n) => merkleize(&Self::chunks(b), n.div_ceil(32)),
            ByteList(n) => mix_in_length(&merkleize(&Self::chunks(b), n.div_ceil(32)), b.len()),
            Bits(n) => merkleize(&Self::chunks(b), n.div_ceil(256)),
            BitList(n) => {
                // The highest set bit of the last byte ends the list.
                let last = *b.last().unwrap();
                let top = 7 - last.leading_zeros() as usize;
                let len = (b.len() - 1) * 8 + top;
                let mut bits = b.to_vec();
                *bits.last_mut().unwrap() ^= 1 << top;
                while bits.len() > len.div_ceil(8) {
                    bits.pop();
                }
                mix_in_length(&merkleize(&Self::chunks(&bits), n.div_ceil(256)), len)
            }
            Vector(t, n) if t.is_basic() => {
                merkleize(&Self::chunks(b), (t.fixed().unwrap() * n).div_ceil(32))
            }
            Vector(t, n) => {
                let roots: Vec<Root> = Self::elements(t, b).iter().map(|e| t.root(e)).collect();
                merkleize(&roots, *n)
            }
            List(t, n) if t.is_basic() => {
                let size = t.fixed().unwrap();
                mix_in_length(
                    &merkleize(&Self::chunks(b), (size * n).div_ceil(32)),
                    b.len() / size,
                )
            }
            List(t, n) => {
                let roots: Vec<Root> = Self::elements(t, b).iter().map(|e| t.root(e)).collect();
                mix_in_length(&merkleize(&roots, *n), roots.len())
            }
            Container(fs) => {
                let roots: Vec<Root> = fs
                    .iter()
                    .zip(Self::fields(fs, b))
                    .map(|(f, e)| f.root(e))
                    .collect();
                merkleize(&roots, roots.len())
            }
        }
    }
}

/// The preset values the state and body schemas read.
struct P {
    slots_per_epoch: usize,
    historical_root: usize,
    historical_vector: usize,
    slashings_vector: usize,
    eth1_votes: usize,
    sync_size: usize,
    withdrawals: usize,
    committees_per_slot: usize,
}

const MINIMAL: P = P {
    slots_per_epoch: 8,
    historical_root: 64,
    historical_vector: 64,
    slashings_vector: 64,
    eth1_votes: 4 * 8,
    sync_size: 32,
    withdrawals: 4,
    committees_per_slot: 4,
};

const MAINNET: P = P {
    slots_per_epoch: 32,
    historical_root: 8192,
    historical_vector: 65536,
    slashings_vector: 8192,
    eth1_votes: 64 * 32,
    sync_size: 512,
    withdrawals: 16,
    committees_per_slot: 64,
};

fn checkpoint() -> T {
    Container(vec![u64_(), b32()])
}

fn eth1_data() -> T {
    Container(vec![b32(), u64_(), b32()])
}

fn block_header() -> T {
    Container(vec![u64_(), u64_(), b32(), b32(), b32()])
}

/// The fields an execution payload and its header share, up to `block_hash`.
fn payload_common() -> Vec<T> {
    vec![
        b32(),
        Bytes(20),
        b32(),
        b32(),
        Bytes(256),
        b32(),
        u64_(),
        u64_(),
        u64_(),
        u64_(),
        ByteList(32),
        Uint(32),
        b32(),
    ]
}

fn payload_header(fork: Fork) -> T {
    let mut f = payload_common();
    f.push(b32());
    if fork >= Fork::Capella {
        f.push(b32());
    }
    if fork >= Fork::Deneb {
        f.extend([u64_(), u64_()]);
    }
    Container(f)
}

fn state(fork: Fork, p: &P) -> T {
    let registry = 1 << 40;
    let validator = Container(vec![
        Bytes(48),
        b32(),
        u64_(),
        Uint(1),
        u64_(),
        u64_(),
        u64_(),
        u64_(),
    ]);
    let committee = Container(vec![vector(Bytes(48), p.sync_size), Bytes(48)]);
    let mut f = vec![
        u64_(),
        b32(),
        u64_(),
        Container(vec![Bytes(4), Bytes(4), u64_()]),
        block_header(),
        vector(b32(), p.historical_root),
        vector(b32(), p.historical_root),
        list(b32(), 1 << 24),
        eth1_data(),
        list(eth1_data(), p.eth1_votes),
        u64_(),
        list(validator, registry),
        list(u64_(), registry),
        vector(b32(), p.historical_vector),
        vector(u64_(), p.slashings_vector),
        list(Uint(1), registry),
        list(Uint(1), registry),
        Bits(4),
        checkpoint(),
        checkpoint(),
        checkpoint(),
        list(u64_(), registry),
        committee.clone(),
        committee,
    ];
    if fork >= Fork::Bellatrix {
        f.push(payload_header(fork));
    }
    if fork >= Fork::Capella {
        f.extend([u64_(), u64_(), list(Container(vec![b32(), b32()]), 1 << 24)]);
    }
    if fork >= Fork::Electra {
        let mainnet = p.sync_size == 512;
        f.extend([u64_(), u64_(), u64_(), u64_(), u64_(), u64_()]);
        f.push(list(
            Container(vec![Bytes(48), b32(), u64_(), Bytes(96), u64_()]),
            1 << 27,
        ));
        f.push(list(
            Container(vec![u64_(), u64_(), u64_()]),
            if mainnet { 1 << 27 } else { 64 },
        ));
        f.push(list(
            Container(vec![u64_(), u64_()]),
            if mainnet { 1 << 18 } else { 64 },
        ));
    }
    if fork >= Fork::Fulu {
        f.push(vector(u64_(), 2 * p.slots_per_epoch));
    }
    Container(f)
}

fn body(fork: Fork, p: &P) -> T {
    let electra = fork >= Fork::Electra;
    let attestation_data = Container(vec![u64_(), u64_(), b32(), checkpoint(), checkpoint()]);
    let validators_per_committee = 2048;
    let indexed = Container(vec![
        list(
            u64_(),
            validators_per_committee * if electra { p.committees_per_slot } else { 1 },
        ),
        attestation_data.clone(),
        Bytes(96),
    ]);
    let signed_header = Container(vec![block_header(), Bytes(96)]);
    let mut attestation = vec![
        BitList(validators_per_committee * if electra { p.committees_per_slot } else { 1 }),
        attestation_data,
        Bytes(96),
    ];
    if electra {
        attestation.push(Bits(p.committees_per_slot));
    }
    let mut payload = payload_common();
    payload.extend([
        list(ByteList(1 << 30), 1 << 20),
        list(
            Container(vec![u64_(), u64_(), Bytes(20), u64_()]),
            p.withdrawals,
        ),
    ]);
    if fork >= Fork::Deneb {
        payload.extend([u64_(), u64_()]);
    }
    let mut f = vec![
        Bytes(96),
        eth1_data(),
        b32(),
        list(Container(vec![signed_header.clone(), signed_header]), 16),
        list(
            Container(vec![indexed.clone(), indexed]),
            if electra { 1 } else { 2 },
        ),
        list(Container(attestation), if electra { 8 } else { 128 }),
        list(
            Container(vec![
                vector(b32(), 33),
                Container(vec![Bytes(48), b32(), u64_(), Bytes(96)]),
            ]),
            16,
        ),
        list(
            Container(vec![Container(vec![u64_(), u64_()]), Bytes(96)]),
            16,
        ),
        Container(vec![Bits(p.sync_size), Bytes(96)]),
        Container(payload),
        list(
            Container(vec![
                Container(vec![u64_(), Bytes(48), Bytes(20)]),
                Bytes(96),
            ]),
            16,
        ),
    ];
    if fork >= Fork::Deneb {
        f.push(list(Bytes(48), 4096));
    }
    if electra {
        f.push(Container(vec![
            list(
                Container(vec![Bytes(48), b32(), u64_(), Bytes(96), u64_()]),
                8192,
            ),
            list(Container(vec![Bytes(20), Bytes(48), u64_()]), 16),
            list(Container(vec![Bytes(20), Bytes(48), Bytes(48)]), 2),
        ]));
    }
    Container(f)
}

/// The generalized index the verifier uses for a case of `fork`.
fn verifier_gindex(case: &str, fork: Fork) -> u64 {
    match case {
        "finality_root_merkle_proof" => fork.finalized_root_gindex(),
        "current_sync_committee_merkle_proof" => fork.current_sync_committee_gindex(),
        "next_sync_committee_merkle_proof" => fork.next_sync_committee_gindex(),
        "execution_merkle_proof" => lightprov_types::beacon::EXECUTION_PAYLOAD_GINDEX,
        other => panic!("unknown case {other}"),
    }
}

fn run(preset: &str, forks: &[Fork], p: &P) -> usize {
    let mut n = 0;
    for &fork in forks {
        for (ty, schema) in [
            ("BeaconState", state(fork, p)),
            ("BeaconBlockBody", body(fork, p)),
        ] {
            let dir = fixtures().join(format!(
                "tests/{preset}/{}/light_client/single_merkle_proof/{ty}",
                fork.name()
            ));
            let Ok(cases) = fs::read_dir(&dir) else {
                continue;
            };
            for case in cases {
                let case = case.unwrap().path();
                let name = case.file_name().unwrap().to_string_lossy().into_owned();
                let object = snappy(&case.join("object.ssz_snappy"));
                let proof = yaml(&case.join("proof.yaml"));
                let gindex = uint(&proof["leaf_index"]);
                let branch: Vec<Root> =
                    proof["branch"].as_vec().unwrap().iter().map(root).collect();
                let (depth, index) = depth_and_index(gindex);
                assert_eq!(branch.len(), depth, "{}", case.display());
                assert_eq!(gindex, verifier_gindex(&name, fork), "{}", case.display());
                let leaf: Root = bytes(&proof["leaf"]).try_into().unwrap();
                assert_eq!(
                    branch_root(&leaf, &branch, index),
                    schema.root(&object),
                    "{}",
                    case.display()
                );
                n += 1;
            }
        }
    }
    n
}

#[test]
fn minimal_branches_lead_to_the_objects_root_at_the_verifiers_indices() {
    // Three state branches per fork, and the execution branch from Capella on.
    assert_eq!(run("minimal", &Fork::ALL, &MINIMAL), 6 * 3 + 4);
}

#[test]
fn mainnet_branches_lead_to_the_objects_root_at_the_verifiers_indices() {
    assert_eq!(
        run(
            "mainnet",
            &[Fork::Deneb, Fork::Electra, Fork::Fulu],
            &MAINNET
        ),
        3 * 4
    );
}
