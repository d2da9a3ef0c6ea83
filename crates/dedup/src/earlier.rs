//! Each unit's neighbours within k that come before it in keep order,
//! listed from the all-pairs join: greedy grouping reads them where it
//! would otherwise look each unit up in an index of the units kept so far
//! (a probe of every table per lookup, and per kept unit added).
//!
//! The pairs are sorted by their later unit, in memory up to a budget and
//! in sorted runs on disk past it ([`SpillSort`]), and greedy grouping
//! takes them a block of units at a time: whatever the budget, the lists
//! cost the same work, and past it a sequential read instead of memory.
//!
//! They are listed only when the pairs are few: a dense cluster's pairs
//! grow with the square of its size (50,000 templated pages one word apart
//! make 1.25 billion), so the join stops once they pass a few per unit,
//! and greedy keeps its index of kept units, which meets one kept page per
//! page there.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use neardup_index::{Bits, Pair, SpillSort, TablePlan, self_join_each};

use crate::by_unit::{ByUnit, sort_error};
use crate::error::Result;

/// A pair as listed: `[later, distance, earlier]`, so that the sort puts
/// each unit's neighbours together, nearest first and then earliest.
pub(crate) type Listed = [u32; 3];

/// The neighbours of each unit before it, and which units have any.
pub(crate) struct Earlier {
    /// The pairs by their later unit, not taken yet.
    lists: Mutex<ByUnit<3>>,
    /// Whether each unit has a neighbour within k, before or after it.
    near: Vec<bool>,
    /// Where the runs are, for errors reading them back.
    spill: PathBuf,
    /// Whether the pairs outgrew their budget and went to sorted runs.
    spilled: bool,
    /// The pairs taken so far, kept to be read again (grouping by
    /// connected components reads them after greedy grouping took them);
    /// `None` when not kept, or read again already.
    replay: Mutex<Option<SpillSort<Listed>>>,
}

/// The pairs as the join hands them over: gathered up to a budget, then
/// sorted and written as a run.
struct Gathered<'a> {
    held: Vec<Listed>,
    /// Pairs held before a run is written.
    capacity: usize,
    sort: SpillSort<Listed>,
    near: Vec<bool>,
    pairs: u64,
    searched: &'a [u32],
}

impl Gathered<'_> {
    fn add(&mut self, found: &[Pair]) -> std::result::Result<(), neardup_index::Error> {
        self.pairs += found.len() as u64;
        for p in found {
            let (a, b) = (self.searched[p.a as usize], self.searched[p.b as usize]);
            let (earlier, later) = (a.min(b), a.max(b));
            self.near[earlier as usize] = true;
            self.near[later as usize] = true;
            self.held.push([later, p.distance, earlier]);
        }
        if self.held.len() >= self.capacity {
            // Sorted on this thread alone: the join's other threads wait
            // for the lock around this.
            self.sort.push_run(&mut self.held)?;
            self.held.clear();
        }
        Ok(())
    }
}

impl Earlier {
    /// Memory a pair takes while listed.
    pub(crate) const BYTES_PER_PAIR: u64 = std::mem::size_of::<Listed>() as u64;

    /// The pairs per searched unit listed at most: past them the clusters
    /// are dense, and the index of kept units meets far fewer (on 10⁶
    /// generated documents with planted near-duplicates there are 0.4 per
    /// unit; 50,000 templated pages make 25,000 per page).
    pub(crate) const PAIRS_PER_UNIT: u64 = 8;

    /// The lists of `units` units from the pairs within `plan.k()` of the
    /// `searched` units (in keep order) whose fingerprints are
    /// `searched_bits`; `None` when there are more than `most` pairs. The
    /// pairs take up to `budget` bytes of memory, and sorted runs in a
    /// temporary file in `spill` past it. With `replay`, the pairs taken are
    /// kept to be read again ([`Earlier::replay`]), and each copy has half
    /// the budget.
    ///
    /// # Errors
    ///
    /// A run that cannot be written.
    pub(crate) fn join<B: Bits>(
        plan: &TablePlan,
        (units, searched, searched_bits): (usize, &[u32], &[B]),
        most: u64,
        (budget, replay): (u64, bool),
        spill: &Path,
    ) -> Result<Option<Earlier>> {
        let budget = if replay { budget / 2 } else { budget };
        // Half the budget gathers pairs, the other half sorts the last of
        // them in memory.
        let capacity = (budget / 2 / Earlier::BYTES_PER_PAIR).max(1);
        let gathered = Mutex::new(Gathered {
            held: Vec::new(),
            capacity: usize::try_from(capacity).unwrap_or(usize::MAX),
            sort: SpillSort::new(budget / 2, spill),
            near: vec![false; units],
            pairs: 0,
            searched,
        });
        let joined = self_join_each(plan, searched_bits, |found| {
            let mut gathered = gathered.lock().unwrap_or_else(|e| e.into_inner());
            if gathered.pairs + found.len() as u64 > most {
                // Stops the join.
                return Err(neardup_index::Error::Stopped);
            }
            gathered.add(found)
        });
        let gathered = gathered.into_inner().unwrap_or_else(|e| e.into_inner());
        match joined {
            Err(neardup_index::Error::Stopped) => return Ok(None),
            // A run that could not be written names the spill directory.
            Err(e @ neardup_index::Error::Io(..)) => return Err(sort_error(DOING, spill, e)),
            joined => joined?,
        }
        let Gathered {
            held,
            mut sort,
            near,
            ..
        } = gathered;
        sort.push(&held).map_err(|e| sort_error(DOING, spill, e))?;
        // Copied into the sort: not held twice while it sorts.
        drop(held);
        let spilled = sort.spilled();
        let sorted = sort.finish().map_err(|e| sort_error(DOING, spill, e))?;
        Ok(Some(Earlier {
            lists: Mutex::new(ByUnit::new(sorted)),
            near,
            spill: spill.to_path_buf(),
            spilled,
            replay: Mutex::new(replay.then(|| SpillSort::new(budget, spill))),
        }))
    }

    /// The units within k before each unit of `block`, as `(distance,
    /// unit)`, nearest first. Blocks are taken in order, each once.
    ///
    /// # Errors
    ///
    /// A run that cannot be read back.
    pub(crate) fn take(&self, block: Range<u32>) -> Result<Vec<Vec<(u32, u32)>>> {
        let mut taken = self.lists.lock().unwrap_or_else(|e| e.into_inner());
        let mut replay = self.replay.lock().unwrap_or_else(|e| e.into_inner());
        let Some(replay) = replay.as_mut() else {
            return taken
                .take_lists(block, |[_, distance, earlier]| (distance, earlier))
                .map_err(|e| sort_error(DOING, &self.spill, e));
        };
        let mut records = Vec::new();
        let lists = taken
            .take_lists(block, |record| {
                records.push(record);
                (record[1], record[2])
            })
            .map_err(|e| sort_error(DOING, &self.spill, e))?;
        replay
            .push(&records)
            .map_err(|e| sort_error(DOING, &self.spill, e))?;
        Ok(lists)
    }

    /// Every pair taken, as `[later, distance, earlier]` by later unit,
    /// when the lists were made to be read again; `None` otherwise, or
    /// when they were read again already.
    ///
    /// # Errors
    ///
    /// A run that cannot be written or read back.
    pub(crate) fn replay(&self) -> Result<Option<impl Iterator<Item = Result<Listed>>>> {
        let taken = self.replay.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(sort) = taken else {
            return Ok(None);
        };
        let spill = self.spill.clone();
        let sorted = sort.finish().map_err(|e| sort_error(DOING, &spill, e))?;
        Ok(Some(sorted.map(move |record| {
            record.map_err(|e| sort_error(DOING, &spill, e))
        })))
    }

    /// Whether each unit has a neighbour within k.
    pub(crate) fn near(&self) -> &[bool] {
        &self.near
    }

    /// Whether the pairs went to sorted runs on disk.
    pub(crate) fn spilled(&self) -> bool {
        self.spilled
    }
}

/// What a failed sort was doing, for its error.
const DOING: &str = "sort the pairs of fingerprints in";

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
            budget in prop_oneof![0u64..200, Just(1 << 20)],
            block in 1u32..20,
        ) {
            let dir = tempfile::tempdir().unwrap();
            // Units 0..n, the searched ones every one whose bit of `skip` is clear.
            let searched: Vec<u32> = (0..fps.len() as u32).filter(|&u| skip >> (u % 64) & 1 == 0).collect();
            let bits: Vec<u64> = searched.iter().map(|&u| fps[u as usize]).collect();
            let plan = TablePlan::pigeonhole(Width::W64, 3).unwrap();
            let earlier = Earlier::join(&plan, (fps.len(), &searched, &bits), u64::MAX, (budget, true), dir.path()).unwrap().unwrap();
            let mut expected: Vec<(u32, u32, u32)> = brute_force_pairs(3, &bits)
                .into_iter()
                .map(|p| (searched[p.b as usize], p.distance, searched[p.a as usize]))
                .collect();
            expected.sort_unstable();
            // Taken a block of units at a time, as greedy grouping does.
            let mut listed: Vec<(u32, u32, u32)> = Vec::new();
            for start in (0..fps.len() as u32).step_by(block as usize) {
                let end = (start + block).min(fps.len() as u32);
                let lists = earlier.take(start..end).unwrap();
                prop_assert_eq!(lists.len(), (end - start) as usize);
                for (u, list) in (start..).zip(lists) {
                    listed.extend(list.into_iter().map(|(d, a)| (u, d, a)));
                }
            }
            prop_assert_eq!(&listed, &expected);
            // Read again, in the same order, as grouping by components does.
            let replayed: Vec<(u32, u32, u32)> = earlier.replay().unwrap().into_iter().flatten()
                .map(|r| { let [b, d, a] = r.unwrap(); (b, d, a) })
                .collect();
            prop_assert_eq!(&replayed, &expected);
            prop_assert!(earlier.replay().unwrap().is_none(), "read again once");
            for u in 0..fps.len() as u32 {
                let has = expected.iter().any(|&(b, _, a)| a == u || b == u);
                prop_assert_eq!(earlier.near()[u as usize], has);
            }
            let pairs = expected.len() as u64;
            if pairs > 0 {
                let refused = Earlier::join(&plan, (fps.len(), &searched, &bits), pairs - 1, (budget, false), dir.path()).unwrap();
                prop_assert!(refused.is_none());
            }
        }
    }
}
