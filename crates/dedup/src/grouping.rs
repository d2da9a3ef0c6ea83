//! Keeping one document of each group of near-duplicates.

use neardup_index::Pair;

/// What becomes of a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Kept.
    Kept,
    /// Dropped as a near-duplicate of kept document `of`, `distance` bits
    /// away.
    Duplicate {
        /// The kept document it duplicates.
        of: u32,
        /// Their distance.
        distance: u32,
    },
    /// Dropped as a near-duplicate of a document an earlier run kept, in
    /// the index the run was against.
    DuplicateOfIndexed {
        /// Its entry in the index ([`crate::Outcome::indexed_name`]).
        entry: u32,
        /// Their distance.
        distance: u32,
    },
}

impl Fate {
    /// The document of this run it duplicates, if any.
    ///
    /// ```
    /// use neardup_dedup::Fate;
    ///
    /// assert_eq!(Fate::Duplicate { of: 3, distance: 1 }.duplicate_of(), Some(3));
    /// assert_eq!(Fate::Kept.duplicate_of(), None);
    /// ```
    pub fn duplicate_of(self) -> Option<u32> {
        match self {
            Fate::Duplicate { of, .. } => Some(of),
            _ => None,
        }
    }

    /// Its distance from the document it duplicates, if it is dropped.
    pub fn distance(self) -> Option<u32> {
        match self {
            Fate::Kept => None,
            Fate::Duplicate { distance, .. } | Fate::DuplicateOfIndexed { distance, .. } => {
                Some(distance)
            }
        }
    }
}

/// A [`Fate`] in 8 bytes, for arrays of one per document that may live in
/// a file: the kind in the top two bits (0, all zeros, is kept), the
/// distance in the next 30, the document or entry in the low 32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct PackedFate(u64);

// SAFETY: a transparent u64: no padding, and any bits are a fate (kinds 2
// and 3 both read as an indexed duplicate).
unsafe impl bytemuck::Zeroable for PackedFate {}
// SAFETY: as above; PackedFate is Copy and 'static.
unsafe impl bytemuck::Pod for PackedFate {}

impl From<Fate> for PackedFate {
    fn from(fate: Fate) -> PackedFate {
        // Distances are at most the width, 128: 30 bits hold them.
        let pack = |kind: u64, distance: u32, at: u32| {
            PackedFate(kind << 62 | u64::from(distance.min(DISTANCE_MASK)) << 32 | u64::from(at))
        };
        match fate {
            Fate::Kept => PackedFate(0),
            Fate::Duplicate { of, distance } => pack(1, distance, of),
            Fate::DuplicateOfIndexed { entry, distance } => pack(2, distance, entry),
        }
    }
}

impl From<PackedFate> for Fate {
    fn from(PackedFate(bits): PackedFate) -> Fate {
        let (at, distance) = (bits as u32, (bits >> 32) as u32 & DISTANCE_MASK);
        match bits >> 62 {
            0 => Fate::Kept,
            1 => Fate::Duplicate { of: at, distance },
            _ => Fate::DuplicateOfIndexed {
                entry: at,
                distance,
            },
        }
    }
}

/// The bits of a distance in a [`PackedFate`].
const DISTANCE_MASK: u32 = (1 << 30) - 1;

/// The fate of each of `n` documents: in `order` (a permutation of
/// `0..n`), each is kept unless one of its `pairs` is with an already kept
/// document; then it is a duplicate of the nearest of those (the earliest in
/// `order` among equally near ones).
///
/// ```
/// use neardup_dedup::{Fate, keep_first};
/// use neardup_index::Pair;
///
/// // Document 1 first (say it is the longest): 0 is its duplicate.
/// let fates = keep_first(2, &[1, 0], &[Pair { a: 0, b: 1, distance: 2 }]);
/// assert_eq!(fates, [Fate::Duplicate { of: 1, distance: 2 }, Fate::Kept]);
/// ```
pub fn keep_first(n: usize, order: &[u32], pairs: &[Pair]) -> Vec<Fate> {
    let mut rank = vec![u32::MAX; n];
    for (r, &doc) in order.iter().enumerate() {
        if let Some(slot) = rank.get_mut(doc as usize) {
            *slot = r as u32;
        }
    }
    // Each pair as (later rank, distance, earlier rank), sorted: a
    // document's links to earlier ones come together, nearest first, and
    // documents come in order, so the fate of every earlier document is
    // settled when a later one looks at it. 12 bytes a pair, no lists per
    // document.
    let mut links: Vec<(u32, u32, u32)> = pairs
        .iter()
        .filter_map(|p| {
            let (ra, rb) = (*rank.get(p.a as usize)?, *rank.get(p.b as usize)?);
            if ra == u32::MAX || rb == u32::MAX || ra == rb {
                return None;
            }
            Some((ra.max(rb), p.distance, ra.min(rb)))
        })
        .collect();
    links.sort_unstable();
    let mut fates = vec![Fate::Kept; n];
    let mut decided = u32::MAX;
    for &(later, distance, earlier) in &links {
        if later == decided {
            continue;
        }
        let of = order[earlier as usize];
        if fates[of as usize] == Fate::Kept {
            fates[order[later as usize] as usize] = Fate::Duplicate { of, distance };
            decided = later;
        }
    }
    fates
}

/// The groups of two or more documents that `pairs` connect, directly or
/// through others, each sorted, in order of their first document.
///
/// ```
/// use neardup_dedup::components;
/// use neardup_index::Pair;
///
/// let pairs = [Pair { a: 0, b: 1, distance: 1 }, Pair { a: 1, b: 3, distance: 2 }];
/// assert_eq!(components(4, &pairs), [vec![0, 1, 3]]);
/// ```
pub fn components(n: usize, pairs: &[Pair]) -> Vec<Vec<u32>> {
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let up = parent[parent[x as usize] as usize];
            parent[x as usize] = up;
            x = up;
        }
        x
    }
    for p in pairs {
        if (p.a as usize) < n && (p.b as usize) < n {
            let (ra, rb) = (root(&mut parent, p.a), root(&mut parent, p.b));
            // The smaller number becomes the root, so roots are first members.
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            parent[hi as usize] = lo;
        }
    }
    let mut groups: Vec<Vec<u32>> = vec![Vec::new(); n];
    for x in 0..n as u32 {
        let r = root(&mut parent, x);
        groups[r as usize].push(x);
    }
    groups.into_iter().filter(|g| g.len() > 1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pair(a: u32, b: u32, distance: u32) -> Pair {
        Pair { a, b, distance }
    }

    proptest! {
        /// A fate packed in 8 bytes unpacks to itself.
        #[test]
        fn a_packed_fate_unpacks_to_itself(at in any::<u32>(), distance in 0u32..=128, kind in 0..3) {
            let fate = match kind {
                0 => Fate::Kept,
                1 => Fate::Duplicate { of: at, distance },
                _ => Fate::DuplicateOfIndexed { entry: at, distance },
            };
            prop_assert_eq!(Fate::from(PackedFate::from(fate)), fate);
        }

        /// Every kept document is far from every other kept one; every
        /// duplicate is near its kept document, which comes earlier.
        #[test]
        fn kept_documents_are_far_apart(
            edges in prop::collection::vec((0u32..30, 0u32..30, 0u32..4), 0..80)
        ) {
            let pairs: Vec<Pair> = edges
                .iter()
                .filter(|(a, b, _)| a < b)
                .map(|&(a, b, d)| pair(a, b, d))
                .collect();
            let order: Vec<u32> = (0..30).rev().collect();
            let fates = keep_first(30, &order, &pairs);
            // The definition, document by document: the nearest earlier
            // kept one (the earliest among equals), if any.
            let mut naive = vec![Fate::Kept; 30];
            for (r, &d) in order.iter().enumerate() {
                let best = order[..r]
                    .iter()
                    .enumerate()
                    .filter(|&(_, &e)| naive[e as usize] == Fate::Kept)
                    .filter_map(|(re, &e)| {
                        pairs
                            .iter()
                            .filter(|p| (p.a, p.b) == (d.min(e), d.max(e)))
                            .map(|p| (p.distance, re, e))
                            .min()
                    })
                    .min();
                if let Some((distance, _, of)) = best {
                    naive[d as usize] = Fate::Duplicate { of, distance };
                }
            }
            prop_assert_eq!(&fates, &naive);
            for p in &pairs {
                let both_kept = fates[p.a as usize] == Fate::Kept && fates[p.b as usize] == Fate::Kept;
                prop_assert!(!both_kept, "{p:?}");
            }
            for (doc, fate) in fates.iter().enumerate() {
                if let Fate::Duplicate { of, distance } = *fate {
                    prop_assert_eq!(fates[of as usize], Fate::Kept);
                    prop_assert!(of as usize > doc, "kept earlier in the reversed order");
                    let near = |p: &Pair| {
                        p.distance == distance
                            && ((p.a == of && p.b as usize == doc) || (p.b == of && p.a as usize == doc))
                    };
                    prop_assert!(pairs.iter().any(near), "doc {} of {}", doc, of);
                }
            }
            // Components cover exactly the documents in some pair.
            let groups = components(30, &pairs);
            let mut seen: Vec<u32> = groups.concat();
            seen.sort_unstable();
            let mut paired: Vec<u32> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
            paired.sort_unstable();
            paired.dedup();
            prop_assert_eq!(seen, paired);
        }
    }

    #[test]
    fn the_nearest_kept_document_is_chosen() {
        let pairs = [pair(0, 2, 3), pair(1, 2, 1)];
        let fates = keep_first(3, &[0, 1, 2], &pairs);
        assert_eq!(fates[2], Fate::Duplicate { of: 1, distance: 1 });
    }
}
