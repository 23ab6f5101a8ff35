//! Second review of the LVMT wire formats: hostile lengths and counts are refused before any
//! allocation or hashing they would ask for.

use lightprov_types::lvmt::{LvmtHistory, LvmtProof};

/// `0x01 depth key kind count`, then `levels` levels of zero versions and identity quotients.
fn head(depth: u8, kind: u8, count: u8) -> Vec<u8> {
    let mut b = vec![1, depth];
    b.extend([7u8; 32]);
    b.extend([kind, count]);
    b
}

fn level0(b: &mut Vec<u8>, depth: u8, versions: [u64; 6]) {
    for v in versions {
        b.extend(v.to_be_bytes());
    }
    for _ in 0..depth {
        let mut id = [0u8; 32];
        id[31] = 0x40;
        b.extend(id);
    }
}

#[test]
fn hostile_lengths_and_counts_are_refused() {
    // A minimal absence proof decodes; each hostile variant does not.
    let mut ok = head(4, 1, 1);
    level0(&mut ok, 4, [0; 6]);
    assert!(LvmtProof::decode(&ok).is_ok());
    for (depth, count) in [
        (0, 1),
        (29, 1),
        (255, 1),
        (4, 0),
        (4, 65),
        (4, 255),
        (16, 17),
    ] {
        let mut b = head(depth, 1, count);
        level0(&mut b, depth.min(28), [0; 6]);
        assert!(
            LvmtProof::decode(&b).is_err(),
            "depth {depth}, {count} levels"
        );
    }
    // A version of 2^40 (it would carry into the next packed slot).
    let mut b = head(4, 1, 1);
    level0(&mut b, 4, [1 << 40, 0, 0, 0, 0, 0]);
    assert!(LvmtProof::decode(&b).is_err());
    // A presence tail whose path claims 65 or 255 hashes, or an index not below its size.
    for (n, index, size) in [(65u8, 0u32, 1u32), (255, 0, 1), (0, 1, 1), (0, 0, 0)] {
        let mut b = head(4, 0, 1);
        level0(&mut b, 4, [0, 1, 0, 0, 0, 0]);
        b.push(1);
        b.extend([0u8; 32]);
        b.extend(0u64.to_be_bytes());
        b.extend(size.to_be_bytes());
        b.extend(index.to_be_bytes());
        b.push(n);
        b.extend(vec![0u8; 32 * usize::from(n)]);
        b.push(0);
        assert!(LvmtProof::decode(&b).is_err(), "n {n}, {index}/{size}");
    }
    // A history whose latest proof claims 4 GiB, and one claiming 2^32 − 1 tuples.
    let mut h = vec![1];
    h.extend(0u64.to_be_bytes());
    h.extend(0u64.to_be_bytes());
    h.extend(u32::MAX.to_be_bytes());
    h.extend(&ok);
    assert!(LvmtHistory::decode(&h).is_err());
    let mut h = vec![1];
    h.extend(0u64.to_be_bytes());
    h.extend(0u64.to_be_bytes());
    h.extend(u32::try_from(ok.len()).unwrap().to_be_bytes());
    h.extend(&ok);
    h.extend(1u64.to_be_bytes());
    h.extend(u32::MAX.to_be_bytes());
    h.extend([0u8; 49]);
    assert!(LvmtHistory::decode(&h).is_err());
}
