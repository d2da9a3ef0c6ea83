//! The join taken apart, for engines that group rows by key themselves
//! (Spark, a database): each fingerprint is sent out under its key in
//! every table of a plan ([`TablePlan::key`]), the engine gathers each
//! `(table, key)` group, and [`pairs_in_group`] gives the group's pairs.
//! A pair shares a key in several tables; only the first of them reports
//! it, so the groups' pairs together are [`crate::self_join`]'s, each once.
//!
//! Sending a row through a shuffle (serialised, written, sorted, read
//! back: about a microsecond) costs hundreds of fingerprint comparisons, so
//! [`shuffle_plan`] sends each fingerprint out the fewest times an exact
//! join allows, `k + 1`, and [`pairs_in_group`] joins a large group in
//! memory with a plan of its own, as [`crate::self_join`] joins a whole set.

use neardup_core::Width;

use crate::bits::Bits;
use crate::error::Result;
use crate::join::{Pair, self_join_where};
use crate::plan::TablePlan;

/// Groups up to this size are compared pair by pair; larger ones are
/// joined in memory (their pairs are a small share of all theirs).
const COMPARED_PAIRWISE: usize = 64;

/// The plan for joining fingerprints by grouping rows: `k + 1` blocks, one
/// table each (pigeonhole: two fingerprints within `k` bits are equal in
/// at least one block), so each fingerprint goes through the shuffle
/// `k + 1` times, the fewest an exact join allows.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::shuffle_plan;
///
/// // k = 8: 9 rows a fingerprint (the in-memory join takes 165 tables at 10⁶).
/// assert_eq!(shuffle_plan(Width::W64, 8)?.tables(), 9);
/// # Ok::<(), neardup_index::Error>(())
/// ```
///
/// # Errors
///
/// [`crate::Error::KNotBelowWidth`] when `k` is not below the width.
pub fn shuffle_plan(width: Width, k: u32) -> Result<TablePlan> {
    TablePlan::pigeonhole(width, k)
}

/// The pairs within `plan.k()` bits among `fingerprints`, which share
/// their key in table `table`, that this table reports: those that share
/// no key in an earlier table. Positions are in `fingerprints`, sorted.
/// A group of more than a few dozen is joined in memory by a plan chosen
/// for its size ([`TablePlan::choose_for_join`]), so a group of a million
/// costs what joining a million fingerprints costs, not 5·10¹¹ comparisons.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{Pair, TablePlan, pairs_in_group};
///
/// let plan = TablePlan::pigeonhole(Width::W64, 3)?;
/// // Equal in every block but the first: table 0 is not theirs to report.
/// let group = [0x0123_4567_89ab_cdefu64, 0x0123_4567_89ab_cdee, 0x0123_4567_89ab_cdef ^ 0xff];
/// assert_eq!(pairs_in_group(&plan, 1, &group), [Pair { a: 0, b: 1, distance: 1 }]);
/// assert!(pairs_in_group(&plan, 2, &group).is_empty());
/// # Ok::<(), neardup_index::Error>(())
/// ```
pub fn pairs_in_group<B: Bits>(plan: &TablePlan, table: usize, fingerprints: &[B]) -> Vec<Pair> {
    let earlier: Vec<B> = (0..table).map(|t| B::from_u128(plan.mask(t))).collect();
    let first_met_here = |a: B, b: B| earlier.iter().all(|&m| a.and(m) != b.and(m));
    let k = plan.k();
    if fingerprints.len() > COMPARED_PAIRWISE {
        let joined = TablePlan::choose_for_join(plan.width(), k, fingerprints.len() as f64)
            .and_then(|choice| choice.plan(plan.width(), k))
            .and_then(|inner| {
                self_join_where(&inner, fingerprints, |p| {
                    first_met_here(fingerprints[p.a as usize], fingerprints[p.b as usize])
                })
            });
        // A group the join refuses (2³² members) is compared pair by pair.
        if let Ok(pairs) = joined {
            return pairs;
        }
    }
    let mut pairs = Vec::new();
    for (i, &a) in fingerprints.iter().enumerate() {
        for (j, &b) in fingerprints.iter().enumerate().skip(i + 1) {
            let distance = a.distance(b);
            if distance <= k && first_met_here(a, b) {
                pairs.push(Pair {
                    a: i as u32,
                    b: j as u32,
                    distance,
                });
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brute::brute_force_pairs;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn groups_give_the_joins_pairs_once(
            seeds in proptest::collection::vec(any::<u64>(), 1..30),
            // Few seeds and many near copies make groups past
            // COMPARED_PAIRWISE, joined in memory.
            flips in proptest::collection::vec((0usize..30, 0u32..64), 0..400),
            k in 1u32..9,
        ) {
            let mut fps = seeds.clone();
            for (i, bit) in flips {
                let near = seeds[i % seeds.len()] ^ (1 << bit) ^ (1 << ((bit * 7) % 64));
                fps.push(near);
            }
            let plan = shuffle_plan(Width::W64, k).unwrap();
            let mut got = Vec::new();
            for t in 0..plan.tables() {
                let mut groups: HashMap<u64, Vec<u32>> = HashMap::new();
                for (i, &f) in fps.iter().enumerate() {
                    groups.entry(plan.key(t, f)).or_default().push(i as u32);
                }
                for ids in groups.values() {
                    let group: Vec<u64> = ids.iter().map(|&i| fps[i as usize]).collect();
                    for p in pairs_in_group(&plan, t, &group) {
                        got.push(Pair { a: ids[p.a as usize], b: ids[p.b as usize], distance: p.distance });
                    }
                }
            }
            got.sort_unstable();
            prop_assert_eq!(got, brute_force_pairs(k, &fps));
        }
    }
}
