//! Each unit's neighbours within k that come before it in keep order,
//! listed from the all-pairs join: greedy grouping reads them where it
//! would otherwise look each unit up in an index of the units kept so far
//! (a probe of every table per lookup, and per kept unit added).
//!
//! They are listed only when the pairs are few: a dense cluster's pairs
//! grow with the square of its size (50,000 templated pages one word apart
//! make 1.25 billion), so the join stops once they pass a share of the
//! memory, and greedy keeps its index of kept units, which meets one kept
//! page per page there.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use neardup_index::{Bits, Pair, TablePlan, self_join_each};

use crate::error::{Error, Result};

/// The neighbours of each unit before it, and which units have any.
pub(crate) struct Earlier {
    /// Where each unit's list starts in `lists`; one more for the end.
    starts: Vec<u32>,
    /// `(distance, unit)`, nearest first and then earliest, per unit.
    lists: Vec<(u32, u32)>,
    /// Whether each unit has a neighbour within k, before or after it.
    near: Vec<bool>,
}

impl Earlier {
    /// Memory a pair takes while listed: as the join hands it over, and in
    /// its list.
    pub(crate) const BYTES_PER_PAIR: u64 = 12 + 8;

    /// The pairs per searched unit listed at most: past them the clusters
    /// are dense, and the index of kept units meets far fewer (on 10⁶
    /// generated documents with planted near-duplicates there are 0.4 per
    /// unit; 50,000 templated pages make 25,000 per page).
    pub(crate) const PAIRS_PER_UNIT: u64 = 8;

    /// The lists of `units` units from the pairs within `plan.k()` of the
    /// `searched` units (in keep order) whose fingerprints are
    /// `searched_bits`; `None` when there are more than `most` pairs.
    pub(crate) fn join<B: Bits>(
        plan: &TablePlan,
        units: usize,
        searched: &[u32],
        searched_bits: &[B],
        most: u64,
    ) -> Result<Option<Earlier>> {
        let pairs = Mutex::new(Vec::new());
        let too_many = AtomicBool::new(false);
        let joined = self_join_each(plan, searched_bits, |found| {
            let mut pairs = pairs.lock().unwrap_or_else(|e| e.into_inner());
            if pairs.len() as u64 + found.len() as u64 > most {
                too_many.store(true, Ordering::Relaxed);
                // Stops the join.
                return Err(neardup_index::Error::Stopped);
            }
            pairs.extend_from_slice(found);
            Ok(())
        });
        if too_many.into_inner() {
            return Ok(None);
        }
        joined.map_err(Error::Index)?;
        let pairs = pairs.into_inner().unwrap_or_else(|e| e.into_inner());
        Ok(Some(Earlier::new(units, searched, &pairs)))
    }

    /// The lists of `units` units from `pairs` of positions in `searched`.
    fn new(units: usize, searched: &[u32], pairs: &[Pair]) -> Earlier {
        let ends = |p: &Pair| {
            let (a, b) = (searched[p.a as usize], searched[p.b as usize]);
            (a.min(b), a.max(b))
        };
        let mut near = vec![false; units];
        let mut starts = vec![0u32; units + 1];
        for p in pairs {
            let (earlier, later) = ends(p);
            near[earlier as usize] = true;
            near[later as usize] = true;
            starts[later as usize + 1] += 1;
        }
        for u in 0..units {
            starts[u + 1] += starts[u];
        }
        let mut next = starts.clone();
        let mut lists = vec![(0u32, 0u32); pairs.len()];
        for p in pairs {
            let (earlier, later) = ends(p);
            let at = &mut next[later as usize];
            lists[*at as usize] = (p.distance, earlier);
            *at += 1;
        }
        for u in 0..units {
            lists[starts[u] as usize..starts[u + 1] as usize].sort_unstable();
        }
        Earlier {
            starts,
            lists,
            near,
        }
    }

    /// The units within k before `u`, as `(distance, unit)`, nearest first.
    pub(crate) fn of(&self, u: u32) -> &[(u32, u32)] {
        let u = u as usize;
        match (self.starts.get(u), self.starts.get(u + 1)) {
            (Some(&start), Some(&end)) => &self.lists[start as usize..end as usize],
            _ => &[],
        }
    }

    /// Whether each unit has a neighbour within k.
    pub(crate) fn near(&self) -> &[bool] {
        &self.near
    }
}

#[cfg(test)]
mod tests {
    use neardup_core::Width;
    use neardup_index::brute_force_pairs;
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn lists_hold_every_pair_once_by_its_later_unit(
            fps in prop::collection::vec(prop::sample::select(vec![0u64, 1, 3, 7, 0xff, 0xf0f0, u64::MAX]), 0..60),
            skip in any::<u64>(),
        ) {
            // Units 0..n, the searched ones every one whose bit of `skip` is clear.
            let searched: Vec<u32> = (0..fps.len() as u32).filter(|&u| skip >> (u % 64) & 1 == 0).collect();
            let bits: Vec<u64> = searched.iter().map(|&u| fps[u as usize]).collect();
            let plan = TablePlan::pigeonhole(Width::W64, 3).unwrap();
            let earlier = Earlier::join(&plan, fps.len(), &searched, &bits, u64::MAX).unwrap().unwrap();
            let mut expected: Vec<(u32, u32, u32)> = brute_force_pairs(3, &bits)
                .into_iter()
                .map(|p| (searched[p.b as usize], p.distance, searched[p.a as usize]))
                .collect();
            expected.sort_unstable();
            let listed: Vec<(u32, u32, u32)> = (0..fps.len() as u32)
                .flat_map(|u| earlier.of(u).iter().map(move |&(d, a)| (u, d, a)))
                .collect();
            prop_assert_eq!(&listed, &expected);
            for u in 0..fps.len() as u32 {
                let has = expected.iter().any(|&(b, _, a)| a == u || b == u);
                prop_assert_eq!(earlier.near()[u as usize], has);
            }
            let pairs = expected.len() as u64;
            if pairs > 0 {
                let refused = Earlier::join(&plan, fps.len(), &searched, &bits, pairs - 1).unwrap();
                prop_assert!(refused.is_none());
            }
        }
    }
}
