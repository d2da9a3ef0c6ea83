//! From the units' fingerprints to their fates: the join, the optional
//! verification, and the grouping.
//!
//! Greedy grouping (the default) never holds all pairs: a corpus with large
//! groups of near-duplicates has pairs quadratic in the groups' sizes (400
//! edited copies of 5,432 articles: 65 million). A first join counts the
//! pairs of each unit with earlier ones, holding none; the units are then
//! cut into slices of at most [`SLICE_PAIRS`] pairs, and one join per slice
//! keeps only the pairs of its units with earlier units that are still
//! kept, which is all the greedy rule needs, since units are numbered in
//! `--keep` order and the fates before a slice are final. Each slice's
//! pairs are verified before its fates are decided. Short units are joined
//! once more, at their larger k, in the same passes.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use anyhow::Result;
use neardup_dedup::{Fate, components, keep_first};
use neardup_index::{Bits, Pair, TablePlan, self_join_where};

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
    let candidates = Candidates::new(plan, bits, how);
    if !how.components {
        return greedy_in_slices(&candidates, how);
    }
    let units = bits.len();
    let pairs = candidates.find(&|_| true)?;
    let count = pairs.len() as u64;
    let pairs = match how.verify {
        Some(verify) => verify(pairs)?,
        None => pairs,
    };
    let pairs: Vec<Pair> = pairs
        .into_iter()
        .filter(|p| !(how.excluded)(p.a) && !(how.excluded)(p.b))
        .collect();
    let fates = component_fates(units, &pairs, |u| bits[u as usize]);
    let mut pairs_by_distance = vec![0u64; candidates.max_distance() as usize + 1];
    for p in &pairs {
        if let Some(count) = pairs_by_distance.get_mut(p.distance as usize) {
            *count += 1;
        }
    }
    Ok(Grouped {
        fates,
        candidates: count,
        pairs_by_distance,
    })
}

/// The candidate pairs: within k, and, for short units, within their k.
struct Candidates<'a, B> {
    plan: &'a TablePlan,
    bits: &'a [B],
    k: u32,
    /// The short units, their fingerprints, and their plan.
    short: Option<(&'a Short<'a>, Vec<B>)>,
}

impl<'a, B: Bits> Candidates<'a, B> {
    fn new(plan: &'a TablePlan, bits: &'a [B], how: &'a Grouping<'a>) -> Self {
        let short = how.short.as_ref().map(|s| {
            let short_bits = s.units.iter().map(|&u| bits[u as usize]).collect();
            (s, short_bits)
        });
        Candidates {
            plan,
            bits,
            k: how.k,
            short,
        }
    }

    fn max_distance(&self) -> u32 {
        self.short.as_ref().map_or(self.k, |(s, _)| s.k.max(self.k))
    }

    /// The candidate pairs that `keep` accepts (it sees each pair once).
    fn find(&self, keep: &(dyn Fn(&Pair) -> bool + Sync)) -> Result<Vec<Pair>> {
        let mut pairs = self_join_where(self.plan, self.bits, keep)?;
        if let Some((short, short_bits)) = &self.short {
            // Pairs of short units beyond k; those within were found above.
            let as_units = |p: &Pair| Pair {
                a: short.units[p.a as usize],
                b: short.units[p.b as usize],
                distance: p.distance,
            };
            let found = self_join_where(short.plan, short_bits, |p| {
                p.distance > self.k && keep(&as_units(p))
            })?;
            pairs.extend(found.iter().map(as_units));
        }
        Ok(pairs)
    }
}

fn greedy_in_slices<B: Bits>(candidates: &Candidates<'_, B>, how: &Grouping) -> Result<Grouped> {
    let units = candidates.bits.len();
    let excluded = how.excluded;
    // Count, holding nothing: each unit's pairs with earlier units.
    let earlier_pairs: Vec<AtomicU32> = (0..units).map(|_| AtomicU32::new(0)).collect();
    let by_distance: Vec<AtomicU64> = (0..=candidates.max_distance())
        .map(|_| AtomicU64::new(0))
        .collect();
    let count = AtomicU64::new(0);
    candidates.find(&|p| {
        count.fetch_add(1, Ordering::Relaxed);
        if !excluded(p.a) && !excluded(p.b) {
            earlier_pairs[p.b as usize].fetch_add(1, Ordering::Relaxed);
            if how.verify.is_none()
                && let Some(count) = by_distance.get(p.distance as usize)
            {
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
            let pairs = candidates.find(&|p| {
                (lo32..hi32).contains(&p.b)
                    && (p.a >= lo32 || !dropped[p.a as usize])
                    && !excluded(p.a)
                    && !excluded(p.b)
            })?;
            let pairs = match how.verify {
                Some(verify) => {
                    // Verified pairs are counted as grouping sees them:
                    // those with earlier units still kept.
                    let verified = verify(pairs)?;
                    for p in &verified {
                        if let Some(count) = by_distance.get(p.distance as usize) {
                            count.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    verified
                }
                None => pairs,
            };
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
        candidates: count.into_inner(),
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
    use neardup_index::self_join;

    use super::*;

    /// `n` fingerprints around `centres` centres, each with up to
    /// `flips - 1` bits flipped: many pairs per unit.
    fn clustered(seed: u64, n: usize, centres: usize, flips: usize) -> Vec<u64> {
        let mut rng = neardup_eval::Rng::new(seed);
        let centres: Vec<u64> = (0..centres).map(|_| rng.next_u64()).collect();
        (0..n)
            .map(|i| {
                let flipped = (0..rng.below(flips)).fold(0u64, |m, _| m | 1 << rng.below(64));
                centres[i % centres.len()] ^ flipped
            })
            .collect()
    }

    #[test]
    fn slices_keep_what_all_pairs_keep() {
        let bits = clustered(7, 600, 20, 3);
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

    #[test]
    fn slices_with_verification_and_short_units_keep_what_all_pairs_keep() {
        let bits = clustered(11, 450, 15, 6);
        let plan = TablePlan::pigeonhole(Width::W64, 3).unwrap();
        let short_plan = TablePlan::pigeonhole(Width::W64, 6).unwrap();
        let short_units: Vec<u32> = (0..450).filter(|u| u % 4 == 1).collect();
        let none = |u: u32| u % 89 == 7;
        // A verification that refuses a third of the pairs.
        let verify = |pairs: Vec<Pair>| -> Result<Vec<Pair>> {
            Ok(pairs.into_iter().filter(|p| (p.a + p.b) % 3 != 0).collect())
        };
        // Every pair the rule asks for, verified, by brute force.
        let is_short = |u: u32| short_units.binary_search(&u).is_ok();
        let mut expected_pairs = Vec::new();
        for a in 0..450u32 {
            for b in a + 1..450 {
                let distance = (bits[a as usize] ^ bits[b as usize]).count_ones();
                let within = distance <= 3 || (is_short(a) && is_short(b) && distance <= 6);
                if within && !none(a) && !none(b) && (a + b) % 3 != 0 {
                    expected_pairs.push(Pair { a, b, distance });
                }
            }
        }
        let order: Vec<u32> = (0..450).collect();
        let expected = keep_first(450, &order, &expected_pairs);
        assert!(expected.iter().filter(|f| **f == Fate::Kept).count() < 300);
        for slice_pairs in [1, 40, SLICE_PAIRS] {
            let how = Grouping {
                k: 3,
                short: Some(Short {
                    plan: &short_plan,
                    units: &short_units,
                    k: 6,
                }),
                components: false,
                excluded: &none,
                slice_pairs,
                verify: Some(&verify),
            };
            let grouped = group(&plan, &bits, &how).unwrap();
            assert_eq!(grouped.fates, expected, "slices of {slice_pairs}");
        }
    }
}
