//! The join taken apart, for engines that group rows by key themselves
//! (Spark, a database): each fingerprint is sent out under its key in
//! every table of a plan ([`TablePlan::key`]), the engine gathers each
//! `(table, key)` group, and [`pairs_in_group`] gives the group's pairs.
//! A pair shares a key in several tables; only the first of them reports
//! it, so the groups' pairs together are [`crate::self_join`]'s, each once.
//!
//! Sending a row through a shuffle costs far more than comparing two
//! fingerprints, so [`shuffle_plan`] weighs plans with fewer tables than
//! the in-memory join takes.

use neardup_core::Width;

use crate::bits::Bits;
use crate::error::Result;
use crate::join::Pair;
use crate::plan::TablePlan;

/// What one row sent through a shuffle (serialised, written, sorted, read
/// back) costs, in fingerprint comparisons: a row is about a microsecond
/// of work, a comparison a few nanoseconds.
const ROW_COST: f64 = 256.0;

/// The plan of least expected work for joining about `n` fingerprints by
/// grouping rows: a row per fingerprint per table, plus the comparisons of
/// the pairs that share a key.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::shuffle_plan;
///
/// // A million fingerprints at k = 8: 45 tables (the in-memory join takes 165).
/// assert_eq!(shuffle_plan(Width::W64, 8, 1e6)?.tables(), 45);
/// # Ok::<(), neardup_index::Error>(())
/// ```
///
/// # Errors
///
/// [`crate::Error::KNotBelowWidth`] when `k` is not below the width.
pub fn shuffle_plan(width: Width, k: u32, n: f64) -> Result<TablePlan> {
    let options = TablePlan::options(width, k, n)?;
    let work =
        |o: &crate::PlanOption| o.tables as f64 * n * ROW_COST + n * o.candidates_per_query / 2.0;
    let best = options
        .iter()
        .min_by(|a, b| work(a).total_cmp(&work(b)))
        .map_or(k + 1, |o| o.blocks);
    TablePlan::new(width, k, best)
}

/// The pairs within `plan.k()` bits among `fingerprints`, which share
/// their key in table `table`, that this table reports: those that share
/// no key in an earlier table. Positions are in `fingerprints`.
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
    let k = plan.k();
    let mut pairs = Vec::new();
    for (i, &a) in fingerprints.iter().enumerate() {
        for (j, &b) in fingerprints.iter().enumerate().skip(i + 1) {
            let distance = a.distance(b);
            if distance <= k && earlier.iter().all(|&m| a.and(m) != b.and(m)) {
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
            flips in proptest::collection::vec((0usize..30, 0u32..64), 0..200),
            k in 1u32..9,
            n in prop_oneof![Just(1e3), Just(1e6), Just(1e9)],
        ) {
            let mut fps = seeds.clone();
            for (i, bit) in flips {
                let near = seeds[i % seeds.len()] ^ (1 << bit) ^ (1 << ((bit * 7) % 64));
                fps.push(near);
            }
            let plan = shuffle_plan(Width::W64, k, n).unwrap();
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
