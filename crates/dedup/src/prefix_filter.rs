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

/// Sketch lengths below this have [`Verification::min_overlap`] in a
/// table (32 KB): short documents' sketches are shorter.
const TABULATED: usize = 128;

/// The prefix filter of one run: its verification and element order.
pub(crate) struct PrefixFilter {
    verification: Verification,
    /// [`Verification::min_overlap`] of lengths below [`TABULATED`], a
    /// row per length: asked for every pair a key meets.
    overlaps: Vec<u16>,
    counts: ElementCounts,
    /// The longest word bags keyed by triples alone ([`TRIPLES_TO`]).
    triples_to: usize,
}

impl PrefixFilter {
    pub(crate) fn new(verification: Verification, counts: ElementCounts) -> PrefixFilter {
        let overlaps = (0..TABULATED * TABULATED)
            .map(|i| {
                let least = verification.min_overlap(i / TABULATED, i % TABULATED);
                u16::try_from(least).unwrap_or(u16::MAX)
            })
            .collect();
        PrefixFilter {
            verification,
            overlaps,
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
    ///
    /// Each key comes with its rank: for a key of one element, the number
    /// of the sketch's elements before it in the filter's order (0 for the
    /// others). Two sketches whose first common element is at ranks `i`
    /// and `j` share at most `min(len_a − i, len_b − j)` elements: the
    /// positional filter of [`PrefixFilter::may_pass`].
    pub(crate) fn prefix(&self, sketch: &[u64]) -> Vec<(u64, u32)> {
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
            out.extend(first.iter().zip(0..).map(|(&k, rank)| (k, rank)));
        }
        let mut subset_keys = Vec::new();
        for &arity in arities.iter().filter(|&&a| a > 1) {
            let take = (len + arity).saturating_sub(least).min(len);
            subsets(&first[..take], arity, &mut subset_keys);
        }
        if least == 0 {
            subset_keys.push(ANY);
        }
        out.extend(subset_keys.into_iter().map(|k| (k, 0)));
        out
    }

    /// Whether two sketches that meet under a key, at `a` and `b` (their
    /// lengths and the key's ranks), with these signatures, may pass. They
    /// need [`Verification::min_overlap`] elements in common, and share at
    /// most as many as lie from the key on in either (its first common key
    /// gives the most: PPJoin's positional filter, Xiao et al., 2008) and
    /// as [`Signature::most_common`] allows. Exact: a pair that passes
    /// meets under some key where this holds; lengths too far apart for
    /// any overlap fail here too.
    pub(crate) fn may_pass(&self, a: (Placed, Signature), b: (Placed, Signature)) -> bool {
        let (Some(len_a), Some(len_b)) = (a.0.len(), b.0.len()) else {
            return true;
        };
        let least = if len_a < TABULATED && len_b < TABULATED {
            match self.overlaps[len_a * TABULATED + len_b] {
                u16::MAX => usize::MAX,
                least => usize::from(least),
            }
        } else {
            self.verification.min_overlap(len_a, len_b)
        };
        let reach = (len_a.saturating_sub(a.0.rank())).min(len_b.saturating_sub(b.0.rank()));
        reach >= least && a.1.most_common(len_a, b.1, len_b) >= least
    }

    /// [`PrefixFilter::prefix`], length and signature of a sketch.
    pub(crate) fn of(&self, sketch: &[u64]) -> Prefix {
        Prefix {
            keys: self.prefix(sketch),
            len: sketch.len(),
            signature: Signature::of(sketch),
        }
    }

    /// Whether a sketch passes only with sketches at most twice as long:
    /// then the near-short documents are all a short one can pass with.
    pub(crate) fn holds_partners(&self) -> bool {
        self.verification.passes_within_twice()
    }
}

/// What the prefix filter makes of one sketch: the keys it is met by,
/// with their ranks ([`PrefixFilter::prefix`]), its length and signature.
pub(crate) struct Prefix {
    pub keys: Vec<(u64, u32)>,
    pub len: usize,
    pub signature: Signature,
}

impl Prefix {
    /// The sketch as [`PrefixFilter::may_pass`] takes it, met under a key
    /// of this rank.
    pub(crate) fn at(&self, rank: u32) -> (Placed, Signature) {
        (Placed::new(self.len, rank), self.signature)
    }
}

/// 64 bits of a sketch: each of its elements sets one, chosen by its hash
/// (the bitmap filter of Sandes, Teodoro and Melo, 2020). An element of
/// one sketch whose bit the other's signature lacks is not in the other:
/// so the bits one has and the other lacks bound how many they share, and
/// two sketches of 20 elements that share a few have ten or more such
/// bits, where two that pass at 0.8 have at most 4. Checked in memory
/// before either sketch is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Signature(u64);

impl Signature {
    /// The signature of a sorted sketch (its elements as [`keys`] makes
    /// them, as verification counts them).
    pub(crate) fn of(sketch: &[u64]) -> Signature {
        Signature(keys(sketch).fold(0, |bits, key| {
            bits | 1 << (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58)
        }))
    }

    pub(crate) fn from_bits(bits: u64) -> Signature {
        Signature(bits)
    }

    pub(crate) fn bits(self) -> u64 {
        self.0
    }

    /// The most elements a sketch of `len` elements with this signature
    /// can share with one of `other_len` with `other`'s.
    fn most_common(self, len: usize, other: Signature, other_len: usize) -> usize {
        let only = |a: u64, b: u64| (a & !b).count_ones() as usize;
        len.saturating_sub(only(self.0, other.0))
            .min(other_len.saturating_sub(only(other.0, self.0)))
    }
}

/// A sketch's length and a key's rank in its prefix
/// ([`PrefixFilter::prefix`]), in the 32 bits a join record has for them:
/// the length in the high 24 bits, the rank in the low 8, each saturating
/// toward the side that prunes nothing (a length past 24 bits is unknown,
/// a rank past 255 is taken as 255, a smaller one).
///
/// Ordered as its bits: of a unit's records under one key, the first has
/// the smallest rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Placed(u32);

impl Placed {
    const UNKNOWN: u32 = (1 << 24) - 1;

    pub(crate) fn new(len: usize, rank: u32) -> Placed {
        let len = u32::try_from(len).unwrap_or(u32::MAX).min(Placed::UNKNOWN);
        Placed(len << 8 | rank.min(255))
    }

    pub(crate) fn from_bits(bits: u32) -> Placed {
        Placed(bits)
    }

    pub(crate) fn bits(self) -> u32 {
        self.0
    }

    /// The sketch's length, unless too long to say.
    fn len(self) -> Option<usize> {
        let len = self.0 >> 8;
        (len < Placed::UNKNOWN).then_some(len as usize)
    }

    fn rank(self) -> usize {
        (self.0 & 0xff) as usize
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
    /// sorts them) under which [`PrefixFilter::may_pass`] holds.
    fn check(verification: Verification, all: &[Vec<u64>]) -> Result<(), TestCaseError> {
        check_with(&filter(verification, all), verification, all)
    }

    fn check_with(
        filter: &PrefixFilter,
        verification: Verification,
        all: &[Vec<u64>],
    ) -> Result<(), TestCaseError> {
        let prefixes: Vec<Prefix> = all.iter().map(|s| filter.of(s)).collect();
        for (u, s) in all.iter().enumerate() {
            for (a, earlier) in all[..u].iter().enumerate() {
                if verification.accepts(earlier, s) {
                    let (pa, pu) = (&prefixes[a], &prefixes[u]);
                    let meets = pa.keys.iter().any(|&(ka, ra)| {
                        pu.keys.iter().any(|&(ku, ru)| {
                            ka >> 32 == ku >> 32 && filter.may_pass(pa.at(ra), pu.at(ru))
                        })
                    });
                    prop_assert!(
                        meets,
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
    fn keys_ranked_late_in_both_cannot_pass() {
        let filter = filter(Verification::Jaccard(0.8), &[]);
        // 20 and 20 elements need 18 in common: from rank 2 on, 18 remain.
        let all = Signature::from_bits(u64::MAX);
        let at = |rank| (Placed::new(20, rank), all);
        assert!(filter.may_pass(at(2), at(0)));
        assert!(!filter.may_pass(at(3), at(0)));
        assert!(!filter.may_pass(at(0), at(4)));
        // 20 and 15 never pass at 0.8, whatever they share.
        assert!(!filter.may_pass(at(0), (Placed::new(15, 0), all)));
        // Saturated toward pruning nothing: a rank past 255 reads as 255,
        // a length past 24 bits as unknown.
        assert!(filter.may_pass((Placed::new(1 << 30, 900), all), at(0)));
        assert_eq!(Placed::new(1000, 300), Placed::new(1000, 255));
    }

    #[test]
    fn signatures_bound_what_two_sketches_share() {
        let filter = filter(Verification::Jaccard(0.8), &[]);
        let spread = |range: std::ops::Range<u64>| -> Vec<u64> {
            let mut s: Vec<u64> = range
                .map(|x| x.wrapping_mul(0x2545_f491_4f6c_dd1d))
                .collect();
            s.sort_unstable();
            s
        };
        let (a, b, c) = (spread(0..20), spread(1..21), spread(10..30));
        let at = |s: &[u64]| (Placed::new(s.len(), 0), Signature::of(s));
        // 19 of 20 shared (19/21 ≥ 0.8): passes by the signatures too.
        assert!(filter.may_pass(at(&a), at(&b)));
        // 10 shared: the bits one has and the other lacks say so.
        assert!(!filter.may_pass(at(&a), at(&c)));
        let (sa, sc) = (Signature::of(&a), Signature::of(&c));
        let most = sa.most_common(20, sc, 20);
        assert!((10..18).contains(&most), "{most}");
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
        assert_eq!(filter.prefix(&rare)[0], (7, 0));
        assert_eq!(filter.prefix(&rare).len(), 3);
    }
}
