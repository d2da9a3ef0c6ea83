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
//! With the short-document rule, pairs with a short unit are the prefix
//! filter's, at any distance, found by a sort before grouping starts
//! ([`ShortJoin`]) and read a block at a time; short units are left out of
//! the index of fingerprints.

use std::path::Path;

use neardup_core::Width;
use neardup_index::{Bits, OnlineIndex, PlanOption, TablePlan};
use rayon::prelude::*;

use crate::earlier::Earlier;
use crate::error::{Error, Result};
use crate::grouping::{Fate, PackedFate};
use crate::prefix_filter::{Prefix, PrefixFilter};
use crate::progress::Progress;
use crate::short_join::ShortJoin;
use crate::sketches::UnitSketches;

/// Units whose searches run in parallel at once; each is compared with
/// every unit before it in its block.
const BLOCK: usize = 2048;

/// The bytes per kept fingerprint the index of kept units may take at the
/// least, and at the most. With few bytes a query at k = 8 has few tables
/// with short keys and reads a fraction of all kept fingerprints (9 tables
/// of 7-bit keys: one in 14), so that greedy grouping grows with the square
/// of the documents; with more, its work per query stays nearly flat.
pub(crate) const KEPT_BYTES_LEAST: f64 = 128.0;
const KEPT_BYTES_MOST: f64 = 1024.0;

/// The bytes per fingerprint the index of `units` kept units may take when
/// a quarter of `free` bytes is its share.
pub(crate) fn kept_bytes(free: u64, units: usize) -> f64 {
    (free as f64 / 4.0 / units.max(1) as f64).clamp(KEPT_BYTES_LEAST, KEPT_BYTES_MOST)
}

/// A pair `(earlier, later)` of units judged: its measure when it passes
/// verification, else `None`.
pub(crate) type Verify<'a> = dyn Fn(u32, u32) -> Option<f32> + Sync + 'a;

/// A unit's similarity to the one it was dropped for, in 16 bits: 0 when
/// there is none (kept, or no measure), else 1 + the measure × 65,534.
pub(crate) fn pack_similarity(similarity: f32) -> u16 {
    if similarity.is_nan() {
        0
    } else {
        1 + (similarity.clamp(0.0, 1.0) * 65_534.0).round() as u16
    }
}

/// The measure [`pack_similarity`] packed, if any.
pub(crate) fn unpack_similarity(packed: u16) -> Option<f32> {
    (packed > 0).then(|| f32::from(packed - 1) / 65_534.0)
}

/// How far apart units may be, and which ones take part.
pub(crate) struct Search<'a> {
    pub k: u32,
    /// The short-document rule: two units the prefix filter holds are
    /// candidates, whatever their distance, when it meets them.
    pub short: Option<Short<'a>>,
    /// Units that take no part (dropped for an indexed document already).
    pub excluded: &'a (dyn Fn(u32) -> bool + Sync),
    /// Whether a pair `(earlier, later)` of units passes verification:
    /// its measure if it does.
    pub verify: Option<&'a Verify<'a>>,
    /// The bytes per fingerprint the index of kept units may take
    /// ([`kept_bytes`]).
    pub kept_bytes: f64,
    /// The units that have another within k among those searched
    /// ([`neardup_index::with_neighbours`]), if known: the others can meet
    /// none by fingerprint, so they are neither looked up nor indexed.
    pub near: Option<&'a [bool]>,
    /// Each unit's neighbours within k before it, listed by the join, if
    /// they were few enough: then no index of kept units is kept.
    pub earlier: Option<&'a Earlier>,
}

/// The units the prefix filter holds, the short ones the fingerprint
/// search leaves to it, the filter, and where its join sorts.
#[derive(Clone, Copy)]
pub(crate) struct Short<'a> {
    /// Units the filter holds: short ones and those that may be near one.
    pub members: &'a [bool],
    /// Short units: the filter's pairs are those with one.
    pub short: &'a [bool],
    pub filter: &'a PrefixFilter,
    /// The sketches of the units the filter holds, all at hand before
    /// grouping.
    pub sketches: &'a dyn UnitSketches,
    /// Where the join's sorts write past their budget.
    pub spill: &'a Path,
    /// The bytes the join's sorts may hold in memory together.
    pub memory: u64,
}

impl Search<'_> {
    /// Whether unit `u` takes part in the search by fingerprint.
    pub(crate) fn searched(&self, u: u32) -> bool {
        // Short units are the filter's alone when it holds all they can
        // pass with.
        self.short
            .is_none_or(|s| !(s.short[u as usize] && s.filter.holds_partners()))
    }

    /// Whether unit `u` is looked up, and indexed if kept, by fingerprint:
    /// searched, and near another.
    pub(crate) fn searches(&self, u: u32) -> bool {
        self.searched(u) && self.near.is_none_or(|near| near[u as usize])
    }
}

impl Short<'_> {
    /// Whether the filter's pair of units `a` and `b` is one of the rule's:
    /// one of them is short.
    pub(crate) fn pairs(&self, a: u32, b: u32) -> bool {
        self.short[a as usize] || self.short[b as usize]
    }

    /// What the filter makes of unit `u`'s sketch, if the filter holds it
    /// and it has one.
    pub(crate) fn prefix(&self, u: u32) -> Option<Prefix> {
        if !self.members[u as usize] {
            return None;
        }
        Some(self.filter.of(self.sketches.get(u)?))
    }
}

/// What became of the units, and what the summary says of their pairs.
pub(crate) struct Grouped {
    /// Each unit's fate; `of` names a unit.
    pub fates: Vec<PackedFate>,
    /// Pairs of a unit with a kept one within reach, met by the search.
    pub candidates: u64,
    /// The distance of each unit dropped to the one it was dropped for.
    pub pairs_by_distance: Vec<u64>,
    /// Each unit's similarity to the unit it was dropped for
    /// ([`pack_similarity`]); empty when not recorded (components).
    pub similarity: Vec<u16>,
}

/// What the parallel search of a block found for one unit.
#[derive(Default)]
struct Searched {
    /// The nearest verified unit kept before the block, as `(distance,
    /// unit, similarity)`.
    first: Option<(u32, u32, f32)>,
    /// Pairs with kept units before the block met.
    met: u64,
    /// The units earlier in the block within reach, nearest first.
    here: Vec<(u32, u32)>,
}

/// The fates of the units whose fingerprints are `bits`, numbered in keep
/// order, on all cores of the current rayon pool.
pub(crate) fn greedy<B: Bits>(
    bits: &[B],
    rule: &Search,
    progress: &dyn Progress,
) -> Result<Grouped> {
    let mut greedy = Greedy::new(bits, rule, progress)?;
    progress.working("grouping the units in keep order");
    let verify = |a: u32, u: u32| match rule.verify {
        Some(verify) => verify(a, u),
        None => Some(f32::NAN),
    };
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
pub(crate) struct Greedy<'a, 'r, B> {
    bits: &'a [B],
    rule: &'a Search<'r>,
    kept: OnlineIndex<B>,
    /// The unit of each fingerprint in `kept`, by its number there.
    kept_units: Vec<u32>,
    /// The prefix filter's pairs, with the short-document rule.
    join: Option<ShortJoin>,
    fates: Vec<PackedFate>,
    /// The first unit not decided yet.
    next: usize,
    candidates: u64,
    pairs_by_distance: Vec<u64>,
    similarity: Vec<u16>,
}

/// The plan of a join of about `n` fingerprints within `k` bits.
pub(crate) fn join_plan(width: Width, k: u32, n: usize) -> Result<TablePlan> {
    Ok(TablePlan::choose_for_join(width, k, n.max(1) as f64)?.plan(width, k)?)
}

/// The plan of the index of kept units, for about `n` of them, weighed
/// for greedy grouping ([`greedy_work`]).
///
/// # Errors
///
/// When no plan within `bytes` per fingerprint searches `k` bits
/// (above 29 bits at 64, 27 at 128): the message gives the bytes needed.
pub(crate) fn kept_plan(width: Width, k: u32, n: usize, bytes: f64) -> Result<TablePlan> {
    let choice = TablePlan::choose(width, k, n.max(1) as f64, Some(bytes))
        .map_err(|cause| Error::KTooWideForGreedy { k, cause })?;
    let blocks = choice
        .options
        .iter()
        .filter(|o| o.bytes_per_fingerprint <= bytes)
        .min_by(|a, b| greedy_work(a).total_cmp(&greedy_work(b)))
        .map_or(k + 1, |o| o.blocks);
    Ok(TablePlan::new(width, k, blocks)?)
}

/// A unit's work in greedy grouping under a plan, in probes: it is looked
/// up (a probe per table, and a read per candidate), and inserted when kept
/// (a probe per table again). Each probe goes to another table, far from
/// the last in memory; the candidates' fingerprints are read from one array
/// that stays in cache for the most part, so a candidate counts a quarter
/// of a probe. (On 10^6 generated documents at k = 8, 204k units near
/// another: 9 tables 16.5 s, 45 tables 10.8 s, 165 tables 14.8 s; this
/// weighing takes 45, the one for queries alone took 165.)
fn greedy_work(option: &PlanOption) -> f64 {
    2.0 * option.tables as f64 + option.candidates_per_query / 4.0
}

impl<'a, 'r, B: Bits> Greedy<'a, 'r, B> {
    pub(crate) fn new(
        bits: &'a [B],
        rule: &'a Search<'r>,
        progress: &dyn Progress,
    ) -> Result<Greedy<'a, 'r, B>> {
        let n = bits.len();
        // About half the units that search are kept and indexed, as in
        // pairs of near-duplicates.
        let searching = (0..n as u32).filter(|&u| rule.searches(u)).count();
        let plan = kept_plan(B::WIDTH, rule.k, searching / 2, rule.kept_bytes)?;
        let join = match &rule.short {
            Some(short) => {
                progress.working("pairing short documents by their rarest shingles or words");
                Some(ShortJoin::build(short, n, rule.excluded)?)
            }
            None => None,
        };
        if let (Some(join), Some(short)) = (&join, &rule.short)
            && join.spilled()
        {
            progress.spilling("the short-document rule's keys and pairs", short.spill);
        }
        Ok(Greedy {
            bits,
            rule,
            kept: OnlineIndex::new(plan)?,
            kept_units: Vec::new(),
            join,
            fates: vec![PackedFate::from(Fate::Kept); n],
            next: 0,
            candidates: 0,
            pairs_by_distance: vec![0u64; B::WIDTH.bits() as usize + 1],
            similarity: vec![0; n],
        })
    }

    /// The rule it groups by.
    pub(crate) fn rule(&self) -> &'a Search<'r> {
        self.rule
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
        Fate::from(self.fates[u as usize]) == Fate::Kept
    }

    /// Decides the units of [`Greedy::next_block`], `verify` judging a pair
    /// `(earlier, later)` of units within reach.
    pub(crate) fn block(&mut self, verify: &Verify) -> Result<()> {
        let block = self.next_block();
        let first = block.start as u32;
        let (bits, rule) = (self.bits, self.rule);
        let included = |u: u32| !(rule.excluded)(u);
        // The prefix filter's pairs of the block's units, with units before
        // it and in it.
        let short_pairs = match (&mut self.join, &rule.short) {
            (Some(join), Some(short)) => join.take(first..block.end as u32, short)?,
            _ => Vec::new(),
        };
        if let Some(short) = &rule.short {
            // Their earlier units' sketches lie anywhere in the file: asked
            // for together, the disk reads them at once, not one fault at a
            // time as each pair is verified.
            let mut earlier: Vec<u32> = short_pairs.iter().flatten().copied().collect();
            earlier.sort_unstable();
            earlier.dedup();
            for a in earlier {
                short.sketches.read_ahead(a..a + 1);
            }
        }
        // The join's pairs of the block's units, with units before them.
        let listed = match rule.earlier {
            Some(earlier) => earlier.take(first..block.end as u32)?,
            None => Vec::new(),
        };
        // The block's units that search by fingerprint, with their bits:
        // each unit is compared with those before it, so the rule is asked
        // once per unit, not once per pair.
        let searching: Vec<(u32, B)> = block
            .clone()
            .map(|u| u as u32)
            .filter(|&u| included(u) && rule.searches(u))
            .map(|u| (u, bits[u as usize]))
            .collect();
        // On all cores: the nearest verified unit kept before the block, the
        // pairs met there, and the units earlier in the block within reach.
        let fates = &self.fates;
        let searched: Vec<Searched> = block
            .clone()
            .into_par_iter()
            .map(|u| {
                let u = u as u32;
                if !included(u) {
                    return Searched::default();
                }
                let fu = bits[u as usize];
                let (mut near, mut here) = (Vec::new(), Vec::new());
                match rule.earlier {
                    Some(_) if rule.searches(u) => {
                        // As the index would: units dropped against an
                        // indexed document take no part.
                        let list = listed.get((u - first) as usize).into_iter().flatten();
                        for &(distance, a) in list.filter(|&&(_, a)| included(a)) {
                            if a >= first {
                                here.push((distance, a));
                            } else if Fate::from(fates[a as usize]) == Fate::Kept {
                                near.push((distance, a));
                            }
                        }
                    }
                    None if rule.searches(u) => {
                        near.extend(
                            self.kept
                                .query(fu)
                                .iter()
                                .map(|m| (m.distance, self.kept_units[m.id as usize])),
                        );
                        let before = searching.partition_point(|&(a, _)| a < u);
                        here.extend(searching[..before].iter().filter_map(|&(a, fa)| {
                            let distance = fa.distance(fu);
                            (distance <= rule.k).then_some((distance, a))
                        }));
                    }
                    _ => {}
                }
                for &a in short_pairs.get((u - first) as usize).into_iter().flatten() {
                    let pair = (bits[a as usize].distance(fu), a);
                    if a >= first {
                        here.push(pair);
                    } else if Fate::from(fates[a as usize]) == Fate::Kept {
                        near.push(pair);
                    }
                }
                // A pair both searches met is one candidate.
                near.sort_unstable();
                near.dedup();
                here.sort_unstable();
                here.dedup();
                Searched {
                    first: near
                        .iter()
                        .find_map(|&(distance, a)| verify(a, u).map(|s| (distance, a, s))),
                    met: near.len() as u64,
                    here,
                }
            })
            .collect();
        // One unit after another: the units kept earlier in the block.
        for (u, found) in block.clone().zip(searched) {
            let u = u as u32;
            if !included(u) {
                continue;
            }
            let limit = found.first.map_or(u32::MAX, |(distance, _, _)| distance);
            let mut met_here = 0;
            let chosen = found
                .here
                .iter()
                .filter(|&&(_, a)| self.is_kept(a))
                .take_while(|&&(distance, _)| distance < limit)
                .inspect(|_| met_here += 1)
                .find_map(|&(distance, a)| verify(a, u).map(|s| (distance, a, s)))
                .or(found.first);
            self.candidates += found.met + met_here;
            match chosen {
                Some((distance, of, similarity)) => {
                    self.fates[u as usize] = Fate::Duplicate { of, distance }.into();
                    self.similarity[u as usize] = pack_similarity(similarity);
                    if let Some(count) = self.pairs_by_distance.get_mut(distance as usize) {
                        *count += 1;
                    }
                }
                None => {
                    if rule.earlier.is_none() && rule.searches(u) {
                        self.kept.insert(bits[u as usize])?;
                        self.kept_units.push(u);
                    }
                    if let Some(join) = &mut self.join {
                        join.keep(u);
                    }
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
            similarity: self.similarity,
        }
    }
}

#[cfg(test)]
mod tests {
    use neardup_index::{Pair, brute_force_pairs};
    use proptest::prelude::*;

    use super::*;
    use crate::grouping::keep_first;
    use crate::prefix_filter::{ElementCounts, family_sketches};
    use crate::progress::Silent;
    use crate::verify::Verification;

    #[test]
    fn kept_plan_weighs_probes_above_candidates() {
        // Fewer tables than queries alone would take, while few are kept;
        // more as the kept ones grow, within the bytes allowed.
        let tables = |n: usize, bytes: f64| {
            kept_plan(Width::W64, 8, n, bytes)
                .map(|plan| plan.tables())
                .ok()
        };
        assert_eq!(tables(100_000, 1024.0), Some(45));
        assert_eq!(tables(500_000, 1024.0), Some(165));
        assert_eq!(tables(500_000, 128.0), Some(9));
        assert_eq!(tables(100_000_000, 1024.0), Some(165));
    }

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
        /// within k, or of two short units at any distance, that passes
        /// verification, found by brute force.
        #[test]
        fn greedy_equals_keep_first_over_all_verified_pairs(bits in clustered(), seed in any::<u32>()) {
            let n = bits.len();
            let short: Vec<bool> = (0..n).map(|u| (u as u32 ^ seed) % 4 == 1).collect();
            let members: Vec<bool> = (0..n).map(|u| short[u] || (u as u32 ^ seed) % 5 == 2).collect();
            let excluded = |u: u32| (u ^ seed) % 89 == 7;
            let sketches = family_sketches(n, seed);
            let verification = Verification::Jaccard(0.7);
            let counts = ElementCounts::new();
            for (s, _) in sketches.iter().zip(&members).filter(|(_, m)| **m) {
                counts.add(s);
            }
            let filter = PrefixFilter::new(verification, counts);
            let verify = |a: u32, b: u32| {
                verification
                    .passed(&sketches[a as usize], &sketches[b as usize])
                    .map(|s| s as f32)
            };
            let spill = tempfile::tempdir().unwrap();
            let rule = Search {
                k: 3,
                short: Some(Short {
                    members: &members,
                    short: &short,
                    filter: &filter,
                    sketches: &sketches,
                    spill: spill.path(),
                    // The join's sorts spill: a few hundred records each.
                    memory: 4096,
                }),
                excluded: &excluded,
                verify: Some(&verify),
                kept_bytes: crate::greedy::KEPT_BYTES_LEAST,
                near: None,
                earlier: None,
            };
            // Within k between units the fingerprint search holds, and any
            // pair of units the filter holds with a short one.
            let mut pairs: Vec<Pair> = brute_force_pairs(3, &bits)
                .into_iter()
                .filter(|p| !short[p.a as usize] && !short[p.b as usize])
                .collect();
            let held: Vec<u32> = (0..n as u32).filter(|&u| members[u as usize]).collect();
            for (i, &a) in held.iter().enumerate() {
                for &b in &held[i + 1..] {
                    if short[a as usize] || short[b as usize] {
                        let distance = bits[a as usize].distance(bits[b as usize]);
                        pairs.push(Pair { a, b, distance });
                    }
                }
            }
            pairs.sort_unstable_by_key(|p| (p.a, p.b));
            pairs.dedup_by_key(|p| (p.a, p.b));
            let pairs: Vec<Pair> = pairs
                .into_iter()
                .filter(|p| !excluded(p.a) && !excluded(p.b) && verify(p.a, p.b).is_some())
                .collect();
            let order: Vec<u32> = (0..n as u32).collect();
            let expected = keep_first(n, &order, &pairs);
            let grouped = greedy(&bits, &rule, &Silent).unwrap();
            let fates: Vec<Fate> = grouped.fates.iter().map(|&f| f.into()).collect();
            prop_assert_eq!(&fates, &expected);
            let dropped = expected.iter().filter(|f| **f != Fate::Kept).count() as u64;
            prop_assert_eq!(grouped.pairs_by_distance.iter().sum::<u64>(), dropped);
            // The same from the join's lists of earlier neighbours, with no
            // index of kept units; the same candidates met too.
            let searched: Vec<u32> = (0..n as u32).filter(|&u| rule.searched(u)).collect();
            let searched_bits: Vec<u64> = searched.iter().map(|&u| bits[u as usize]).collect();
            let plan = join_plan(Width::W64, 3, searched.len()).unwrap();
            // A budget of a few pairs: the lists come back from sorted runs.
            let earlier = Earlier::join(&plan, (n, &searched, &searched_bits), u64::MAX, (64, false), spill.path()).unwrap().unwrap();
            let listed = Search { near: Some(earlier.near()), earlier: Some(&earlier), ..rule };
            let from_lists = greedy(&bits, &listed, &Silent).unwrap();
            let fates: Vec<Fate> = from_lists.fates.iter().map(|&f| f.into()).collect();
            prop_assert_eq!(&fates, &expected);
            let with_near = Search { near: Some(earlier.near()), ..rule };
            let from_index = greedy(&bits, &with_near, &Silent).unwrap();
            prop_assert_eq!(from_lists.candidates, from_index.candidates);
        }
    }

    #[test]
    fn the_kept_index_takes_a_quarter_of_the_free_memory_within_bounds() {
        assert_eq!(kept_bytes(1 << 30, 1_000_000), (1u64 << 30) as f64 / 4e6);
        assert_eq!(kept_bytes(1 << 20, 1_000_000), KEPT_BYTES_LEAST);
        assert_eq!(kept_bytes(1 << 40, 10), KEPT_BYTES_MOST);
        assert_eq!(kept_bytes(1 << 40, 0), KEPT_BYTES_MOST);
    }
}
