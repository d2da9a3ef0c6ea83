//! From the units' fingerprints to their fates: the join, the optional
//! verification, and the grouping.
//!
//! The default (greedy grouping, no verification) never holds all pairs: a
//! corpus with large groups of near-duplicates has pairs quadratic in the
//! groups' sizes (400 edited copies of 5,432 articles: 65 million). A first
//! join counts the pairs of each unit with earlier ones, holding none; the
//! units are then cut into slices of at most [`SLICE_PAIRS`] pairs, and one
//! join per slice keeps only the pairs of its units with earlier units that
//! are still kept, which is all the greedy rule needs, since units are
//! numbered in `--keep` order and the fates before a slice are final.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use anyhow::Result;
use neardup_dedup::{Fate, components, keep_first};
use neardup_index::{Bits, Pair, TablePlan, self_join, self_join_where};

/// The most pairs one slice of the greedy grouping holds (12 bytes each,
/// twice while they are sorted): about 200 MB.
pub(super) const SLICE_PAIRS: u64 = 8 << 20;

/// What became of the units, and what the summary says of their pairs.
pub(super) struct Grouped {
    /// Each unit's fate; `of` names a unit.
    pub fates: Vec<Fate>,
    /// Pairs within k, before verification and before `excluded`.
    pub candidates: u64,
    /// Pairs that grouping took into account, by distance.
    pub pairs_by_distance: Vec<u64>,
}

/// The short units, and how far apart they are searched.
pub(super) struct Short<'a> {
    /// A plan for `k`.
    pub plan: &'a TablePlan,
    /// The short units, in increasing order.
    pub units: &'a [u32],
    pub k: u32,
}

/// How the units are grouped.
pub(super) struct Grouping<'a> {
    pub k: u32,
    /// Short units, searched at a larger k (with verification only).
    pub short: Option<Short<'a>>,
    /// Connected components instead of the greedy rule.
    pub components: bool,
    /// Units that take no part (dropped for an indexed document already).
    pub excluded: &'a (dyn Fn(u32) -> bool + Sync),
    /// The most pairs a slice holds ([`SLICE_PAIRS`]).
    pub slice_pairs: u64,
    /// Keeps the pairs that pass verification, if asked for.
    pub verify: Option<&'a (dyn Fn(Vec<Pair>) -> Result<Vec<Pair>> + Sync)>,
}

/// The fates of the units whose fingerprints are `bits` (numbered in keep
/// order), on all cores of the current rayon pool.
pub(super) fn group<B: Bits>(plan: &TablePlan, bits: &[B], how: &Grouping) -> Result<Grouped> {
    if how.verify.is_none() && !how.components {
        return greedy_in_slices(plan, bits, how);
    }
    let units = bits.len();
    let mut pairs = self_join(plan, bits)?;
    let mut max_distance = how.k;
    if let Some(short) = &how.short {
        // The pairs of short units beyond k; those within were found above.
        let short_bits: Vec<B> = short.units.iter().map(|&u| bits[u as usize]).collect();
        let found = self_join(short.plan, &short_bits)?;
        pairs.extend(
            found
                .into_iter()
                .filter(|p| p.distance > how.k)
                .map(|p| Pair {
                    a: short.units[p.a as usize],
                    b: short.units[p.b as usize],
                    distance: p.distance,
                }),
        );
        max_distance = max_distance.max(short.k);
    }
    let candidates = pairs.len() as u64;
    let pairs = match how.verify {
        Some(verify) => verify(pairs)?,
        None => pairs,
    };
    let pairs: Vec<Pair> = pairs
        .into_iter()
        .filter(|p| !(how.excluded)(p.a) && !(how.excluded)(p.b))
        .collect();
    let order: Vec<u32> = (0..units as u32).collect();
    let fates = if how.components {
        component_fates(units, &pairs, |u| bits[u as usize])
    } else {
        keep_first(units, &order, &pairs)
    };
    let mut pairs_by_distance = vec![0u64; max_distance as usize + 1];
    for p in &pairs {
        if let Some(count) = pairs_by_distance.get_mut(p.distance as usize) {
            *count += 1;
        }
    }
    Ok(Grouped {
        fates,
        candidates,
        pairs_by_distance,
    })
}

fn greedy_in_slices<B: Bits>(plan: &TablePlan, bits: &[B], how: &Grouping) -> Result<Grouped> {
    let units = bits.len();
    let excluded = how.excluded;
    // Count, holding nothing: each unit's pairs with earlier units.
    let earlier_pairs: Vec<AtomicU32> = (0..units).map(|_| AtomicU32::new(0)).collect();
    let by_distance: Vec<AtomicU64> = (0..=how.k).map(|_| AtomicU64::new(0)).collect();
    let candidates = AtomicU64::new(0);
    self_join_where(plan, bits, |p| {
        candidates.fetch_add(1, Ordering::Relaxed);
        if !excluded(p.a) && !excluded(p.b) {
            earlier_pairs[p.b as usize].fetch_add(1, Ordering::Relaxed);
            if let Some(count) = by_distance.get(p.distance as usize) {
                count.fetch_add(1, Ordering::Relaxed);
            }
        }
        false
    })?;

    let order: Vec<u32> = (0..units as u32).collect();
    let mut fates = vec![Fate::Kept; units];
    let mut dropped = vec![false; units];
    let mut lo = 0usize;
    while lo < units {
        let mut hi = lo;
        let mut in_slice = 0u64;
        while hi < units {
            let here = u64::from(earlier_pairs[hi].load(Ordering::Relaxed));
            if hi > lo && in_slice + here > how.slice_pairs {
                break;
            }
            in_slice += here;
            hi += 1;
        }
        if in_slice > 0 {
            let (lo32, hi32) = (lo as u32, hi as u32);
            let pairs = self_join_where(plan, bits, |p| {
                (lo32..hi32).contains(&p.b)
                    && (p.a >= lo32 || !dropped[p.a as usize])
                    && !excluded(p.a)
                    && !excluded(p.b)
            })?;
            let slice_fates = keep_first(units, &order, &pairs);
            for u in lo..hi {
                fates[u] = slice_fates[u];
                dropped[u] = fates[u] != Fate::Kept;
            }
        }
        lo = hi;
    }
    Ok(Grouped {
        fates,
        candidates: candidates.into_inner(),
        pairs_by_distance: by_distance.into_iter().map(AtomicU64::into_inner).collect(),
    })
}

/// Components as fates: the first member (in keep order: the smallest
/// number) of each group is kept, the others are its duplicates, at their
/// own distance from it.
fn component_fates<B: Bits>(n: usize, pairs: &[Pair], fingerprint: impl Fn(u32) -> B) -> Vec<Fate> {
    let mut fates = vec![Fate::Kept; n];
    for group in components(n, pairs) {
        // Groups are sorted: the first is the earliest.
        let Some(&keep) = group.first() else {
            continue;
        };
        let kept = fingerprint(keep);
        for &d in &group[1..] {
            let distance = fingerprint(d).distance(kept);
            fates[d as usize] = Fate::Duplicate { of: keep, distance };
        }
    }
    fates
}

#[cfg(test)]
mod tests {
    use neardup_core::Width;

    use super::*;

    #[test]
    fn slices_keep_what_all_pairs_keep() {
        // Clusters of near fingerprints: many pairs per unit.
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 11
        };
        let centres: Vec<u64> = (0..20).map(|_| next()).collect();
        let bits: Vec<u64> = (0..600)
            .map(|i| {
                let flips = (0..(next() % 3)).fold(0u64, |m, _| m | 1 << (next() % 64));
                centres[i % 20] ^ flips
            })
            .collect();
        let plan = TablePlan::pigeonhole(Width::W64, 3).unwrap();
        let none = |u: u32| u % 97 == 5;
        let with = |slice_pairs, components| Grouping {
            k: 3,
            components,
            excluded: &none,
            slice_pairs,
            verify: None,
            short: None,
        };
        let all = self_join(&plan, &bits).unwrap();
        let kept: Vec<Pair> = all
            .iter()
            .copied()
            .filter(|p| !none(p.a) && !none(p.b))
            .collect();
        let order: Vec<u32> = (0..bits.len() as u32).collect();
        let expected = keep_first(bits.len(), &order, &kept);
        for slice_pairs in [1, 50, 1000, SLICE_PAIRS] {
            let grouped = group(&plan, &bits, &with(slice_pairs, false)).unwrap();
            assert_eq!(grouped.fates, expected, "slices of {slice_pairs}");
            assert_eq!(grouped.candidates, all.len() as u64);
            assert_eq!(
                grouped.pairs_by_distance.iter().sum::<u64>(),
                kept.len() as u64
            );
        }
        assert!(expected.iter().filter(|f| **f == Fate::Kept).count() < 100);
        // Components see every pair.
        let components = group(&plan, &bits, &with(SLICE_PAIRS, true)).unwrap();
        assert_eq!(components.pairs_by_distance, {
            let mut by = vec![0u64; 4];
            kept.iter().for_each(|p| by[p.distance as usize] += 1);
            by
        });
    }
}
