//! The short-document rule's candidates: every pair of short documents
//! that can pass verification, found without comparing the rest.
//!
//! Verification compares sketches (sets or bags of word and shingle
//! hashes), and two sketches can pass only if they share enough elements:
//! at least [`Verification::min_common`] of either one's length. Put every
//! element in one order for the whole run; then two sketches of lengths
//! `a` and `b` that share `c` elements share one among their first
//! `a - c + 1` and `b - c + 1` elements (prefix filtering, as in
//! Chaudhuri, Ganti and Kaushik's SSJoin, 2006). So each short document is
//! indexed, and looked up, by its first `len - min_common(len) + 1`
//! elements only: about a fifth of them at Jaccard 0.8, a tenth at a
//! difference of 0.1. The filter misses no pair that verification would
//! pass, whatever their fingerprints' distance.
//!
//! The order is rarest first ([`ElementCounts`], counted in the first
//! pass), so that the elements a document is looked up by are the ones
//! few others have: "of the" or "the" would otherwise meet every document.
//!
//! Shingles are rare enough that one shared is worth a comparison. Words
//! are not: in a vocabulary of a few thousand, a word of a document's
//! prefix is in the prefixes of one document in a thousand, and a pair of
//! words in those of one in ten million, which at 10⁸ documents is still
//! tens of meetings each, almost all of them false. So word bags, at the
//! small differences that make prefixes short, are looked up by *triples*
//! of elements: two bags that share `c ≥ 3` elements share three among
//! their first `len - c + 3` (the three first shared ones, each at most
//! `len - c` places after its rank among the shared). A 25-word document
//! at a difference of 0.1 is looked up by the 10 triples of its 5 rarest
//! words; at larger differences, where triples of a long prefix would be
//! many, by pairs.

use std::ops::RangeInclusive;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use rustc_hash::FxHashMap;

use crate::verify::Verification;

/// Counters per row of [`ElementCounts`]: 2²⁰, so that both rows (8 MB)
/// stay mostly in cache.
const ROW: usize = 1 << 20;

/// How often each sketch element occurs among a run's short documents,
/// from above (a count-min sketch: two rows of counters, the smaller
/// count read): the order of the prefix filter, rarest first.
///
/// Any one order keeps the filter exact; counting only makes it fast.
pub(crate) struct ElementCounts {
    /// Made at the first count: a run without short documents never
    /// touches (and pays for) its 8 MB.
    rows: OnceLock<Box<[AtomicU32]>>,
}

impl ElementCounts {
    pub(crate) fn new() -> ElementCounts {
        ElementCounts {
            rows: OnceLock::new(),
        }
    }

    /// Counts the elements of `sketch` (repeats of a word as their own
    /// elements, as [`keys`] makes them); callable from many threads.
    pub(crate) fn add(&self, sketch: &[u64]) {
        let rows = self
            .rows
            // Zeroed pages from the allocator: the rows cost nothing until counted in.
            .get_or_init(|| bytemuck::zeroed_slice_box(2 * ROW));
        for key in keys(sketch) {
            for slot in slots(key) {
                // Saturating: a counter at the top stays there.
                let _ = rows[slot]
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| c.checked_add(1));
            }
        }
    }

    /// How often `key` was added, or more.
    pub(crate) fn count(&self, key: u64) -> u32 {
        let Some(rows) = self.rows.get() else {
            return 0;
        };
        let [x, y] = slots(key);
        rows[x]
            .load(Ordering::Relaxed)
            .min(rows[y].load(Ordering::Relaxed))
    }
}

/// The counter of `key` in each row: independent bits of the hash.
fn slots(key: u64) -> [usize; 2] {
    let mask = ROW as u64 - 1;
    [(key & mask) as usize, ROW + ((key >> 32) & mask) as usize]
}

/// The elements of a sorted sketch as distinct keys: a word that occurs
/// `n` times in a bag is `n` elements, its first occurrence keyed by its
/// hash and the later ones by that hash mixed with their number.
fn keys(sketch: &[u64]) -> impl Iterator<Item = u64> + '_ {
    let mut repeat = 0u64;
    sketch.iter().enumerate().map(move |(i, &hash)| {
        repeat = if i > 0 && sketch[i - 1] == hash {
            repeat + 1
        } else {
            0
        };
        if repeat == 0 {
            hash
        } else {
            (hash ^ repeat.wrapping_mul(0x9e37_79b9_7f4a_7c15)).rotate_left(23)
        }
    })
}

/// The key of a few elements, given in the filter's order.
fn subset_key(elements: &[u64]) -> u64 {
    elements.iter().fold(0x243f_6a88_85a3_08d3, |h: u64, &x| {
        let h = (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ (h >> 29)
    })
}

/// Every `size`-element subset of `elements`, in order, to `out`.
fn subsets(elements: &[u64], size: usize, out: &mut Vec<u64>) {
    fn extend(elements: &[u64], size: usize, chosen: &mut Vec<u64>, out: &mut Vec<u64>) {
        if chosen.len() == size {
            out.push(subset_key(chosen));
            return;
        }
        let wanted = size - chosen.len();
        for i in 0..(elements.len() + 1).saturating_sub(wanted) {
            chosen.push(elements[i]);
            extend(&elements[i + 1..], size, chosen, out);
            chosen.pop();
        }
    }
    extend(elements, size, &mut Vec::with_capacity(size), out);
}

/// The largest word difference at which word bags are looked up by
/// triples: a 30-word document has 20 triples (of its 6 rarest words) at
/// the default 0.1, and 35 (of 7) at 0.15.
const TRIPLES_UP_TO: f64 = 0.15;

/// The longest word bags keyed by triples alone: a 40-word document at 0.1
/// has 35 triples; a Chinese text of 100 characters, 100 elements, would
/// have 286 (its 13 rarest) where it has 66 pairs.
const TRIPLES_TO: usize = 40;

/// The key every sketch too small to need a common element is indexed
/// by (an empty one), so that such sketches still meet each other.
const ANY: u64 = 0x6e65_6172_6475_7021;

/// The prefix filter of one run: its verification and element order.
pub(crate) struct PrefixFilter {
    verification: Verification,
    counts: ElementCounts,
    /// The longest word bags keyed by triples alone ([`TRIPLES_TO`]).
    triples_to: usize,
}

impl PrefixFilter {
    pub(crate) fn new(verification: Verification, counts: ElementCounts) -> PrefixFilter {
        PrefixFilter {
            verification,
            counts,
            triples_to: TRIPLES_TO,
        }
    }

    /// How many elements make one key of a sketch of `len` elements
    /// ([`PrefixFilter::prefix`]): one for shingles; for word bags at a
    /// difference up to [`TRIPLES_UP_TO`], three up to `triples_to`
    /// elements, two past twice that, and both in between; two at larger
    /// differences. Two bags that pass are within 1/(1 − 0.15) of each
    /// other's length, so a pair across `triples_to` has its longer one in
    /// the band, where it has both kinds of key.
    fn arities(&self, len: usize) -> &'static [usize] {
        match self.verification {
            Verification::Jaccard(_) => &[1],
            Verification::Words(d) if d <= TRIPLES_UP_TO => {
                if len <= self.triples_to {
                    &[3]
                } else if len <= 2 * self.triples_to {
                    &[2, 3]
                } else {
                    &[2]
                }
            }
            Verification::Words(_) => &[2],
        }
    }

    /// The keys a sketch is indexed and looked up by: for each of its
    /// [`PrefixFilter::arities`] `a`, the subsets of `a` elements among its
    /// first `len - min_common(len) + a`, rarest first. A sketch that
    /// needs fewer than `a` elements in common has all its elements as keys
    /// too (and all its subsets), and [`ANY`] if it needs none.
    pub(crate) fn prefix(&self, sketch: &[u64]) -> Vec<u64> {
        let len = sketch.len();
        let least = self.verification.min_common(len);
        let arities = self.arities(len);
        let most = arities.iter().copied().max().unwrap_or(1);
        let mut ranked: Vec<(u32, u64)> = keys(sketch).map(|k| (self.counts.count(k), k)).collect();
        let take = (len + most).saturating_sub(least).min(len);
        if take < len {
            ranked.select_nth_unstable(take);
        }
        ranked.truncate(take);
        ranked.sort_unstable();
        let first: Vec<u64> = ranked.into_iter().map(|(_, k)| k).collect();
        let mut out = Vec::new();
        if arities.contains(&1) || least < most {
            out.extend(&first);
        }
        for &arity in arities.iter().filter(|&&a| a > 1) {
            let take = (len + arity).saturating_sub(least).min(len);
            subsets(&first[..take], arity, &mut out);
        }
        if least == 0 {
            out.push(ANY);
        }
        out
    }

    /// Whether a sketch passes only with sketches at most twice as long:
    /// then the near-short documents are all a short one can pass with.
    pub(crate) fn holds_partners(&self) -> bool {
        self.verification.passes_within_twice()
    }

    /// The sketch lengths a sketch of `len` elements may pass with.
    pub(crate) fn lengths(&self, len: usize) -> RangeInclusive<usize> {
        self.verification.partner_lengths(len)
    }
}

/// Short units indexed by their prefix keys, with their sketch lengths.
///
/// Keys are stored as their top 32 bits: two keys that share them only
/// bring an extra candidate, which verification refuses.
#[derive(Default)]
pub(crate) struct PrefixIndex {
    /// Each key's latest entry in `entries`.
    heads: FxHashMap<u32, u32>,
    /// `(unit, length, the key's entry before)`, a list per key.
    entries: Vec<(u32, u32, u32)>,
}

/// The end of a key's list in [`PrefixIndex`].
const END: u32 = u32::MAX;

impl PrefixIndex {
    /// Adds `unit`, whose sketch has `len` elements, under `prefix`.
    pub(crate) fn insert(&mut self, unit: u32, len: usize, prefix: &[u64]) {
        let len = u32::try_from(len).unwrap_or(u32::MAX);
        for &key in prefix {
            let next = self.entries.len() as u32;
            let before = self.heads.insert((key >> 32) as u32, next).unwrap_or(END);
            self.entries.push((unit, len, before));
        }
    }

    /// Every list of units under one key (its top 32 bits), with more
    /// than one unit.
    pub(crate) fn lists(&self) -> Vec<(u32, Vec<u32>)> {
        self.heads
            .iter()
            .filter_map(|(&key, &head)| {
                let mut list = Vec::new();
                let mut at = head;
                while let Some(&(unit, _, before)) = self.entries.get(at as usize) {
                    list.push(unit);
                    at = before;
                }
                (list.len() > 1).then_some((key, list))
            })
            .collect()
    }
}

/// Sketches in families that share most of their elements: many pairs
/// pass verification, whatever their fingerprints.
#[cfg(test)]
pub(crate) fn family_sketches(n: usize, seed: u32) -> Vec<Vec<u64>> {
    (0..n as u64)
        .map(|u| {
            let mix = |x: u64| (x ^ u64::from(seed)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7;
            let family = mix(u) % 9;
            let mut s: Vec<u64> = (0..12)
                .filter(|&i| mix(u * 31 + i) % 8 != 0)
                .map(|i| family * 100 + i)
                .chain((0..mix(u + 7) % 3).map(|i| 1000 + mix(u * 7 + i) % 50))
                .map(|x| x.wrapping_mul(0x2545_f491_4f6c_dd1d))
                .collect();
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn filter(verification: Verification, sketches: &[Vec<u64>]) -> PrefixFilter {
        let counts = ElementCounts::new();
        for s in sketches {
            counts.add(s);
        }
        PrefixFilter::new(verification, counts)
    }

    /// Every pair that passes meets, with bags keyed by triples up to
    /// `triples_to` elements and by pairs past it.
    fn check_band(all: &[Vec<u64>], d: f64, triples_to: usize) -> Result<(), TestCaseError> {
        let mut banded = filter(Verification::Words(d), all);
        banded.triples_to = triples_to;
        check_with(&banded, Verification::Words(d), all)
    }

    /// Sketches over a small alphabet, so that many pairs pass.
    fn sketches(bag: bool) -> impl Strategy<Value = Vec<Vec<u64>>> {
        prop::collection::vec(prop::collection::vec(0u64..24, 0..30), 2..60).prop_map(move |all| {
            all.into_iter()
                .map(|mut s| {
                    // Spread the small numbers over the hash space.
                    for x in &mut s {
                        *x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x1234_5678;
                    }
                    s.sort_unstable();
                    if !bag {
                        s.dedup();
                    }
                    s
                })
                .collect()
        })
    }

    /// Every pair that passes shares a key (its top 32 bits, as the join
    /// sorts them), and their lengths are within each other's reach.
    fn check(verification: Verification, all: &[Vec<u64>]) -> Result<(), TestCaseError> {
        check_with(&filter(verification, all), verification, all)
    }

    fn check_with(
        filter: &PrefixFilter,
        verification: Verification,
        all: &[Vec<u64>],
    ) -> Result<(), TestCaseError> {
        let keys: Vec<Vec<u32>> = all
            .iter()
            .map(|s| filter.prefix(s).iter().map(|k| (k >> 32) as u32).collect())
            .collect();
        for (u, s) in all.iter().enumerate() {
            for (a, earlier) in all[..u].iter().enumerate() {
                if verification.accepts(earlier, s) {
                    prop_assert!(
                        keys[a].iter().any(|k| keys[u].contains(k))
                            && filter.lengths(s.len()).contains(&earlier.len()),
                        "{verification}: {a} and {u} pass but did not meet: {earlier:?} {s:?}"
                    );
                }
            }
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn every_pair_that_passes_jaccard_meets(all in sketches(false), t in 0.0f64..=1.0) {
            check(Verification::Jaccard(t), &all)?;
            check(Verification::Jaccard(0.8), &all)?;
        }

        #[test]
        fn every_pair_that_passes_word_difference_meets(all in sketches(true), d in 0.0f64..=1.2) {
            check(Verification::Words(d.min(1.0)), &all)?;
            check(Verification::Words(0.1), &all)?;
        }

        #[test]
        fn pairs_across_the_triples_bound_meet(
            all in sketches(true), d in 0.0f64..=0.15, triples_to in 3usize..20,
        ) {
            check_band(&all, d, triples_to)?;
        }
    }

    #[test]
    fn bags_on_both_sides_of_the_triples_bound_meet() {
        // Bags of 10 to 12 words around a bound of 10, each passing with
        // the others at 0.15: keyed by triples, by both, by pairs.
        let mut all: Vec<Vec<u64>> = (10..=12u64)
            .map(|n| {
                (0..n)
                    .map(|x| x.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                    .collect()
            })
            .collect();
        for s in &mut all {
            s.sort_unstable();
        }
        let d = 0.15;
        assert!(Verification::Words(d).accepts(&all[0], &all[1]));
        for triples_to in [9, 10, 11] {
            check_band(&all, d, triples_to).unwrap();
        }
    }

    #[test]
    fn a_prefix_is_the_rarest_part() {
        let common: Vec<u64> = (100..110).collect();
        let mut sketches = vec![common.clone(); 50];
        let mut rare = common.clone();
        rare.push(7);
        rare.sort_unstable();
        sketches.push(rare.clone());
        let filter = filter(Verification::Jaccard(0.8), &sketches);
        // 11 elements at 0.8: 9 in common at least, 3 looked up, 7 first.
        assert_eq!(filter.prefix(&rare)[0], 7);
        assert_eq!(filter.prefix(&rare).len(), 3);
    }
}
