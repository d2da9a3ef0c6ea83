//! Greedy grouping as the seeds' framework has it: documents are taken in
//! keep order, each is compared with the ones kept so far, and is dropped
//! for the nearest that passes verification, or kept and added to them.
//!
//! The kept documents are held in an [`OnlineIndex`], so a document is
//! never compared with one already dropped: a thousand templated pages one
//! word apart cost a thousand queries that each meet one kept page, not
//! half a million pairs. Candidates are verified nearest first, and a
//! document's search ends at the first that passes.
//!
//! Units are taken in blocks. Within a block, on all cores, each unit's
//! nearest verified unit kept before the block is found, and so are the
//! units earlier in the block within reach (by comparing them all: a block
//! is small). Then, one unit after another, those of the latter that were
//! kept, and are strictly nearer than the first answer, are verified: a
//! unit before the block comes first among equals.
//!
//! Pairs of short units beyond k (the short-document rule) are found
//! beforehand by a join at their larger k: so wide a search suits the
//! sorted tables of a join better than an index's hash tables.

use neardup_core::Width;
use neardup_index::{Bits, OnlineIndex, Pair, TablePlan, self_join_where};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::grouping::Fate;
use crate::progress::Progress;

/// Units whose searches run in parallel at once; each is compared with
/// every unit before it in its block.
const BLOCK: usize = 2048;

/// The most bytes per kept fingerprint the index of kept units may take.
const KEPT_BYTES: f64 = 128.0;

/// How far apart units may be, and which ones take part.
pub(crate) struct Rule<'a> {
    pub k: u32,
    /// The short-document rule: `is_short` units are near other short units
    /// within this larger k.
    pub short: Option<(u32, &'a [bool])>,
    /// Units that take no part (dropped for an indexed document already).
    pub excluded: &'a (dyn Fn(u32) -> bool + Sync),
    /// Whether a pair `(earlier, later)` of units passes verification.
    pub verify: Option<&'a (dyn Fn(u32, u32) -> bool + Sync)>,
}

impl Rule<'_> {
    /// The short units, in order, and the larger k they are searched at,
    /// if the short-document rule holds.
    pub(crate) fn short_units(&self) -> Option<(u32, Vec<u32>)> {
        let (k_short, is_short) = self.short?;
        let units = (0..is_short.len() as u32)
            .filter(|&u| is_short[u as usize])
            .collect();
        Some((k_short, units))
    }

    fn is_short(&self, u: u32) -> bool {
        self.short.is_some_and(|(_, short)| short[u as usize])
    }

    /// The farthest apart units `a` and `u` may be.
    pub(crate) fn reach(&self, a: u32, u: u32) -> u32 {
        match self.short {
            Some((k, _)) if self.is_short(a) && self.is_short(u) => k.max(self.k),
            _ => self.k,
        }
    }
}

/// What became of the units, and what the summary says of their pairs.
pub(crate) struct Grouped {
    /// Each unit's fate; `of` names a unit.
    pub fates: Vec<Fate>,
    /// Pairs of a unit with a kept one within reach, met by the search.
    pub candidates: u64,
    /// The distance of each unit dropped to the one it was dropped for.
    pub pairs_by_distance: Vec<u64>,
}

/// What the parallel search of a block found for one unit.
#[derive(Default)]
struct Searched {
    /// The nearest verified unit kept before the block, as `(distance, unit)`.
    first: Option<(u32, u32)>,
    /// Pairs with kept units before the block met.
    met: u64,
    /// The units earlier in the block within reach, nearest first.
    here: Vec<(u32, u32)>,
}

/// Pairs of short units beyond k, by the later unit: `(distance, earlier)`,
/// nearest first. They are all held: a large cluster of templated short
/// texts (titles, tweets) 7 to 12 bits apart makes them quadratic, which
/// the short-document rule's redesign (issue 13) must bound.
struct ShortPairs {
    /// Where each unit's pairs start in `pairs`; one more at the end.
    start: Vec<usize>,
    pairs: Vec<(u32, u32)>,
}

impl ShortPairs {
    fn find<B: Bits>(bits: &[B], rule: &Rule) -> Result<ShortPairs> {
        let n = bits.len();
        let mut found: Vec<Pair> = Vec::new();
        if let Some((k_short, units)) = rule.short_units() {
            let short_bits: Vec<B> = units.iter().map(|&u| bits[u as usize]).collect();
            let plan = join_plan(B::WIDTH, k_short, units.len())?;
            let as_units = |p: &Pair| Pair {
                a: units[p.a as usize],
                b: units[p.b as usize],
                distance: p.distance,
            };
            found = self_join_where(&plan, &short_bits, |p| {
                let p = as_units(p);
                p.distance > rule.k && !(rule.excluded)(p.a) && !(rule.excluded)(p.b)
            })?
            .iter()
            .map(as_units)
            .collect();
        }
        found.par_sort_unstable_by_key(|p| (p.b, p.distance, p.a));
        let mut start = vec![0usize; n + 1];
        for p in &found {
            start[p.b as usize + 1] += 1;
        }
        for u in 0..n {
            start[u + 1] += start[u];
        }
        Ok(ShortPairs {
            start,
            pairs: found.iter().map(|p| (p.distance, p.a)).collect(),
        })
    }

    fn of(&self, u: u32) -> &[(u32, u32)] {
        let (from, to) = (self.start[u as usize], self.start[u as usize + 1]);
        &self.pairs[from..to]
    }
}

/// The fates of the units whose fingerprints are `bits`, numbered in keep
/// order, on all cores of the current rayon pool.
pub(crate) fn greedy<B: Bits>(bits: &[B], rule: &Rule, progress: &dyn Progress) -> Result<Grouped> {
    let mut greedy = Greedy::new(bits, rule)?;
    let verify = |a: u32, u: u32| rule.verify.is_none_or(|v| v(a, u));
    while greedy.next() < bits.len() {
        if progress.cancelled() {
            return Err(Error::Cancelled);
        }
        greedy.block(&verify)?;
    }
    Ok(greedy.finish())
}

/// Greedy grouping under way, a block of units at a time: for a caller
/// that prepares what each block needs (the sketches of its units) just
/// before it is decided.
pub(crate) struct Greedy<'a, B> {
    bits: &'a [B],
    rule: &'a Rule<'a>,
    kept: OnlineIndex<B>,
    /// The unit of each fingerprint in `kept`, by its number there.
    kept_units: Vec<u32>,
    short_pairs: ShortPairs,
    fates: Vec<Fate>,
    /// The first unit not decided yet.
    next: usize,
    candidates: u64,
    pairs_by_distance: Vec<u64>,
}

/// The plan of a join of about `n` fingerprints within `k` bits.
pub(crate) fn join_plan(width: Width, k: u32, n: usize) -> Result<TablePlan> {
    Ok(TablePlan::choose_for_join(width, k, n.max(1) as f64)?.plan(width, k)?)
}

/// The plan of the index of kept units, for about `n` of them.
///
/// # Errors
///
/// When no plan within [`KEPT_BYTES`] per fingerprint searches `k` bits
/// (above 29 bits at 64, 27 at 128): the message gives the bytes needed.
pub(crate) fn kept_plan(width: Width, k: u32, n: usize) -> Result<TablePlan> {
    let choice = TablePlan::choose(width, k, n.max(1) as f64, Some(KEPT_BYTES)).map_err(|e| {
        Error::Index(neardup_index::Error::Plan(format!(
            "k = {k} is too wide for greedy grouping's index of kept documents ({e}); \
             give a smaller k"
        )))
    })?;
    Ok(choice.plan(width, k)?)
}

impl<'a, B: Bits> Greedy<'a, B> {
    pub(crate) fn new(bits: &'a [B], rule: &'a Rule<'a>) -> Result<Greedy<'a, B>> {
        let n = bits.len();
        let plan = kept_plan(B::WIDTH, rule.k, n)?;
        let max_k = rule.short.map_or(rule.k, |(k, _)| k.max(rule.k));
        Ok(Greedy {
            bits,
            rule,
            kept: OnlineIndex::new(plan)?,
            kept_units: Vec::new(),
            short_pairs: ShortPairs::find(bits, rule)?,
            fates: vec![Fate::Kept; n],
            next: 0,
            candidates: 0,
            pairs_by_distance: vec![0u64; max_k as usize + 1],
        })
    }

    /// The first unit not decided yet.
    pub(crate) fn next(&self) -> usize {
        self.next
    }

    /// The units the next call of [`Greedy::block`] decides.
    pub(crate) fn next_block(&self) -> std::ops::Range<usize> {
        self.next..(self.next + BLOCK).min(self.bits.len())
    }

    /// Whether unit `u`, decided, was kept.
    pub(crate) fn is_kept(&self, u: u32) -> bool {
        self.fates[u as usize] == Fate::Kept
    }

    /// Decides the units of [`Greedy::next_block`], `verify` judging a pair
    /// `(earlier, later)` of units within reach.
    pub(crate) fn block(&mut self, verify: &(dyn Fn(u32, u32) -> bool + Sync)) -> Result<()> {
        let block = self.next_block();
        let first = block.start as u32;
        let (bits, rule) = (self.bits, self.rule);
        // On all cores: the nearest verified unit kept before the block, the
        // pairs met there, and the units earlier in the block within reach.
        let searched: Vec<Searched> = block
            .clone()
            .into_par_iter()
            .map(|u| {
                let u = u as u32;
                if (rule.excluded)(u) {
                    return Searched::default();
                }
                let mut near: Vec<(u32, u32)> = self
                    .kept
                    .query(bits[u as usize])
                    .iter()
                    .map(|m| (m.distance, self.kept_units[m.id as usize]))
                    .collect();
                // Short pairs beyond k with units kept before the block.
                let count = near.len();
                near.extend(
                    self.short_pairs
                        .of(u)
                        .iter()
                        .filter(|&&(_, a)| a < first && self.is_kept(a)),
                );
                if near.len() > count {
                    near.sort_unstable();
                }
                let found = near.iter().copied().find(|&(_, a)| verify(a, u));
                let mut here: Vec<(u32, u32)> = (first..u)
                    .filter(|&a| !(rule.excluded)(a))
                    .map(|a| (bits[a as usize].distance(bits[u as usize]), a))
                    .filter(|&(distance, a)| distance <= rule.reach(a, u))
                    .collect();
                here.sort_unstable();
                Searched {
                    first: found,
                    met: near.len() as u64,
                    here,
                }
            })
            .collect();
        // One unit after another: the units kept earlier in the block.
        for (u, found) in block.clone().zip(searched) {
            let u = u as u32;
            if (rule.excluded)(u) {
                continue;
            }
            let limit = found.first.map_or(u32::MAX, |(distance, _)| distance);
            let mut met_here = 0;
            let chosen = found
                .here
                .iter()
                .filter(|&&(_, a)| self.is_kept(a))
                .take_while(|&&(distance, _)| distance < limit)
                .inspect(|_| met_here += 1)
                .copied()
                .find(|&(_, a)| verify(a, u))
                .or(found.first);
            self.candidates += found.met + met_here;
            match chosen {
                Some((distance, of)) => {
                    self.fates[u as usize] = Fate::Duplicate { of, distance };
                    if let Some(count) = self.pairs_by_distance.get_mut(distance as usize) {
                        *count += 1;
                    }
                }
                None => {
                    self.kept.insert(bits[u as usize])?;
                    self.kept_units.push(u);
                }
            }
        }
        self.next = block.end;
        Ok(())
    }

    /// The fates, once every unit is decided.
    pub(crate) fn finish(self) -> Grouped {
        Grouped {
            fates: self.fates,
            candidates: self.candidates,
            pairs_by_distance: self.pairs_by_distance,
        }
    }
}

#[cfg(test)]
mod tests {
    use neardup_index::brute_force_pairs;
    use proptest::prelude::*;

    use super::*;
    use crate::grouping::keep_first;
    use crate::progress::Silent;

    /// Fingerprints around a few centres, each with a few bits flipped:
    /// many pairs per unit, over more than one block.
    fn clustered() -> impl Strategy<Value = Vec<u64>> {
        (
            prop::collection::vec(any::<u64>(), 1..40),
            prop::collection::vec(
                (any::<u16>(), prop::collection::vec(0u32..64, 0..5)),
                2500..4500,
            ),
        )
            .prop_map(|(centres, members)| {
                members
                    .iter()
                    .map(|(c, flips)| {
                        let centre = centres[*c as usize % centres.len()];
                        flips.iter().fold(centre, |x, &bit| x ^ 1 << bit)
                    })
                    .collect()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(6))]

        /// Greedy grouping keeps what keep-first keeps over every pair
        /// within reach that passes verification, found by brute force.
        #[test]
        fn greedy_equals_keep_first_over_all_verified_pairs(bits in clustered(), seed in any::<u32>()) {
            let n = bits.len();
            let short: Vec<bool> = (0..n).map(|u| (u as u32 ^ seed) % 4 == 1).collect();
            let excluded = |u: u32| (u ^ seed) % 89 == 7;
            // A verification that refuses a third of the pairs.
            let verify = |a: u32, b: u32| !a.wrapping_add(b).wrapping_add(seed).is_multiple_of(3);
            let rule = Rule {
                k: 3,
                short: Some((6, &short)),
                excluded: &excluded,
                verify: Some(&verify),
            };
            let pairs: Vec<Pair> = brute_force_pairs(6, &bits)
                .into_iter()
                .filter(|p| p.distance <= rule.reach(p.a, p.b))
                .filter(|p| !excluded(p.a) && !excluded(p.b) && verify(p.a, p.b))
                .collect();
            let order: Vec<u32> = (0..n as u32).collect();
            let expected = keep_first(n, &order, &pairs);
            let grouped = greedy(&bits, &rule, &Silent).unwrap();
            prop_assert_eq!(&grouped.fates, &expected);
            let dropped = expected.iter().filter(|f| **f != Fate::Kept).count() as u64;
            prop_assert_eq!(grouped.pairs_by_distance.iter().sum::<u64>(), dropped);
        }
    }
}
