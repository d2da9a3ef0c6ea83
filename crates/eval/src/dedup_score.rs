//! What a dedup does, scored as its user sees it: of the documents it
//! dropped, the share that truly duplicate the one they were dropped for
//! (precision); of the pairs that are truly near-duplicates, the share it
//! did not leave both kept (recall).
//!
//! Scored from the output alone (each document's fate), so any tool's
//! dedup is scored alike; [`perfect_dedup`] is the ruler's check: a dedup
//! that follows the truth scores 1.

use std::collections::BTreeMap;

use neardup_dedup::SHORT_WORDS;

use crate::benchmark::Benchmark;
use crate::score::{harmonic_mean, length_bucket, ratio};

/// Counts of a dedup's output against the truth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DedupCounts {
    /// Documents dropped.
    pub dropped: u64,
    /// Of those, the ones that truly duplicate the document they were
    /// dropped for.
    pub rightly_dropped: u64,
    /// Labelled pairs that are near-duplicates by the truth.
    pub near_pairs: u64,
    /// Of those, the ones not left both kept.
    pub near_pairs_caught: u64,
}

impl DedupCounts {
    /// Dropped documents that truly duplicate their kept one (1 when none
    /// is dropped).
    ///
    /// ```
    /// use neardup_eval::DedupCounts;
    ///
    /// let c = DedupCounts { dropped: 4, rightly_dropped: 3, near_pairs: 10, near_pairs_caught: 9 };
    /// assert_eq!((c.precision(), c.recall()), (0.75, 0.9));
    /// assert!((c.f1() - 2.0 * 0.75 * 0.9 / 1.65).abs() < 1e-12);
    /// ```
    pub fn precision(&self) -> f64 {
        ratio(self.rightly_dropped, self.dropped)
    }

    /// Near-duplicate pairs not left both kept (1 when there are none).
    pub fn recall(&self) -> f64 {
        ratio(self.near_pairs_caught, self.near_pairs)
    }

    /// The harmonic mean of precision and recall.
    pub fn f1(&self) -> f64 {
        harmonic_mean(self.precision(), self.recall())
    }
}

/// A dedup's scores: overall, by language, by length, and by language over
/// documents of 50 words or more.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DedupScores {
    /// Over everything.
    pub all: DedupCounts,
    /// By language (of the dropped document; of a pair's first).
    pub by_language: BTreeMap<String, DedupCounts>,
    /// By length bucket (of the dropped document; of a pair's shorter).
    pub by_length: BTreeMap<&'static str, DedupCounts>,
    /// By language, over dropped documents and pairs of 50 words or more.
    pub long_by_language: BTreeMap<String, DedupCounts>,
}

/// Scores a dedup's output: `duplicate_of[d]` is the document `d` was
/// dropped for, `None` if it was kept; `rightly(d)` says whether dropped
/// document `d` truly duplicates `duplicate_of[d]` (the caller computes
/// the truth of these pairs, as [`crate::similarity`] of their
/// [`crate::truth_shingles`]).
///
/// ```
/// use neardup_eval::{Benchmark, score_dedup};
///
/// let scores = score_dedup(&Benchmark::default(), &[], |_| true);
/// assert_eq!(scores.all.f1(), 1.0);
/// ```
pub fn score_dedup(
    bench: &Benchmark,
    duplicate_of: &[Option<usize>],
    rightly: impl Fn(usize) -> bool,
) -> DedupScores {
    let mut scores = DedupScores::default();
    let language = |d: usize| bench.language(d).to_string();
    for (d, of) in duplicate_of.iter().enumerate() {
        if of.is_none() {
            continue;
        }
        let right = u64::from(rightly(d));
        let words = bench.documents[d].words;
        let add = |c: &mut DedupCounts| {
            c.dropped += 1;
            c.rightly_dropped += right;
        };
        add(&mut scores.all);
        add(scores.by_language.entry(language(d)).or_default());
        add(scores.by_length.entry(length_bucket(words)).or_default());
        if words >= SHORT_WORDS {
            add(scores.long_by_language.entry(language(d)).or_default());
        }
    }
    let kept = |d: usize| duplicate_of.get(d).is_none_or(Option::is_none);
    for pair in bench.pairs.iter().filter(|p| p.duplicate) {
        let caught = u64::from(!(kept(pair.a) && kept(pair.b)));
        let words = bench.documents[pair.a]
            .words
            .min(bench.documents[pair.b].words);
        let add = |c: &mut DedupCounts| {
            c.near_pairs += 1;
            c.near_pairs_caught += caught;
        };
        add(&mut scores.all);
        add(scores.by_language.entry(language(pair.a)).or_default());
        add(scores.by_length.entry(length_bucket(words)).or_default());
        if words >= SHORT_WORDS {
            add(scores.long_by_language.entry(language(pair.a)).or_default());
        }
    }
    scores
}

/// A dedup that follows the truth of the labelled pairs: each document, in
/// order, is dropped for the first earlier kept document it is labelled a
/// near-duplicate of. It scores 1 (every document it drops truly
/// duplicates its kept one; no near-duplicate pair is left both kept), so
/// it checks the ruler.
///
/// ```
/// use neardup_eval::{Size, BenchmarkSource, build, perfect_dedup, score_dedup};
///
/// let text = |i: usize| format!("report {i} on the harvest: wheat, barley and oats were brought in early this year");
/// let source = BenchmarkSource {
///     name: "toy".into(),
///     language: "en".into(),
///     documents: (0..5).map(|i| ("farm".to_string(), text(i))).collect(),
///     natural: Vec::new(),
/// };
/// let bench = build(&[source], Size { originals: 2, negatives: 2, seed: 3 });
/// let perfect = perfect_dedup(&bench);
/// let truly = |d: usize| bench.pairs.iter().any(|p| p.duplicate
///     && Some((p.a.min(p.b), p.a.max(p.b))) == perfect[d].map(|k| (k.min(d), k.max(d))));
/// let scores = score_dedup(&bench, &perfect, truly);
/// assert_eq!((scores.all.precision(), scores.all.recall()), (1.0, 1.0));
/// assert!(scores.all.dropped > 0);
/// ```
pub fn perfect_dedup(bench: &Benchmark) -> Vec<Option<usize>> {
    let n = bench.documents.len();
    let mut partners: Vec<Vec<usize>> = vec![Vec::new(); n];
    for p in bench.pairs.iter().filter(|p| p.duplicate) {
        partners[p.a.max(p.b)].push(p.a.min(p.b));
    }
    let mut duplicate_of: Vec<Option<usize>> = vec![None; n];
    for d in 0..n {
        partners[d].sort_unstable();
        duplicate_of[d] = partners[d]
            .iter()
            .copied()
            .find(|&e| duplicate_of[e].is_none());
    }
    duplicate_of
}
