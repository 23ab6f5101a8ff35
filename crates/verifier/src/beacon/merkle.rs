//! SSZ Merkle branches (consensus specs, `phase0/beacon-chain.md` `is_valid_merkle_branch`,
//! `electra/light-client/sync-protocol.md` `is_valid_normalized_merkle_branch`): a leaf, its
//! sibling nodes from the bottom up, and the generalized index that fixes the path.

use lightprov_types::beacon::{Root, hash_pair};

/// The root that `branch` leads to from `leaf` at `index` (the position among the leaves at
/// depth `branch.len()`): the bit `i` of `index` says whether node `i` is the left sibling.
pub fn branch_root(leaf: &Root, branch: &[Root], index: u64) -> Root {
    let mut value = *leaf;
    for (i, node) in branch.iter().enumerate() {
        value = if (index >> i) & 1 == 1 {
            hash_pair(node, &value)
        } else {
            hash_pair(&value, node)
        };
    }
    value
}

/// `floorlog2(gindex)` and `gindex`'s index among the leaves at that depth (`(0, 0)` for the
/// root, 1, and for 0, which names no node).
pub const fn depth_and_index(gindex: u64) -> (usize, u64) {
    if gindex == 0 {
        return (0, 0);
    }
    let depth = 63 - gindex.leading_zeros() as usize;
    (depth, gindex ^ (1 << depth))
}

/// What is wrong with a normalized branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BranchFault {
    /// Fewer nodes than the generalized index's depth.
    TooShort,
    /// A node above the index's depth (the padding of an older fork's branch) is not zero.
    NonZeroPadding,
    /// It leads to this root instead.
    Leads(Root),
}

/// `is_valid_normalized_merkle_branch(leaf, branch, gindex, root)`: `branch` may be longer than
/// `gindex`'s depth (a later fork's container), its extra nodes first and zero.
pub fn check_normalized(
    leaf: &Root,
    branch: &[Root],
    gindex: u64,
    root: &Root,
) -> Result<(), BranchFault> {
    let (depth, index) = depth_and_index(gindex);
    let extra = branch
        .len()
        .checked_sub(depth)
        .ok_or(BranchFault::TooShort)?;
    let (padding, path) = branch.split_at(extra);
    if padding.iter().any(|n| *n != [0; 32]) {
        return Err(BranchFault::NonZeroPadding);
    }
    let got = branch_root(leaf, path, index);
    if got == *root {
        Ok(())
    } else {
        Err(BranchFault::Leads(got))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generalized_indices_split_into_depth_and_index() {
        assert_eq!(depth_and_index(105), (6, 41));
        assert_eq!(depth_and_index(169), (7, 41));
        assert_eq!(depth_and_index(55), (5, 23));
        assert_eq!(depth_and_index(87), (6, 23));
        assert_eq!(depth_and_index(25), (4, 9));
        assert_eq!(depth_and_index(1), (0, 0));
        assert_eq!(depth_and_index(0), (0, 0));
    }

    #[test]
    fn a_branch_proves_its_leaf_and_no_other() {
        let (a, b, c, d) = ([1; 32], [2; 32], [3; 32], [4; 32]);
        let root = hash_pair(&hash_pair(&a, &b), &hash_pair(&c, &d));
        // c is leaf 2 of 4: gindex 6.
        let branch = [d, hash_pair(&a, &b)];
        assert_eq!(check_normalized(&c, &branch, 6, &root), Ok(()));
        assert!(check_normalized(&d, &branch, 6, &root).is_err());
        assert!(check_normalized(&c, &branch, 7, &root).is_err());
        assert_eq!(
            check_normalized(&c, &[[0; 32], d, hash_pair(&a, &b)], 6, &root),
            Ok(())
        );
        assert_eq!(
            check_normalized(&c, &[[9; 32], d, hash_pair(&a, &b)], 6, &root),
            Err(BranchFault::NonZeroPadding)
        );
        assert_eq!(
            check_normalized(&c, &[d], 6, &root),
            Err(BranchFault::TooShort)
        );
    }
}
