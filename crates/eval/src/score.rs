//! Scores of a detector on the benchmark's pairs: precision, recall and F1
//! overall, and broken down by edit, language and length.

use std::collections::BTreeMap;

use crate::benchmark::{Benchmark, MAX_CHANGE, PairOrigin};
use crate::edits::EditKind;
use neardup_dedup::SHORT_WORDS;

/// Counts of a detector's answers against the truth.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counts {
    /// Near-duplicates reported.
    pub true_positives: u64,
    /// Others reported.
    pub false_positives: u64,
    /// Near-duplicates missed.
    pub false_negatives: u64,
    /// Others not reported.
    pub true_negatives: u64,
}

impl Counts {
    fn add(&mut self, truth: bool, reported: bool) {
        match (truth, reported) {
            (true, true) => self.true_positives += 1,
            (false, true) => self.false_positives += 1,
            (true, false) => self.false_negatives += 1,
            (false, false) => self.true_negatives += 1,
        }
    }

    /// Reported pairs that are near-duplicates (1 when none is reported).
    ///
    /// ```
    /// use neardup_eval::Counts;
    ///
    /// let c = Counts { true_positives: 3, false_positives: 1, false_negatives: 2, true_negatives: 4 };
    /// assert_eq!(c.precision(), 0.75);
    /// assert_eq!(c.recall(), 0.6);
    /// assert!((c.f1() - 2.0 / 3.0).abs() < 1e-12);
    /// ```
    pub fn precision(&self) -> f64 {
        ratio(
            self.true_positives,
            self.true_positives + self.false_positives,
        )
    }

    /// Near-duplicates reported (1 when there are none).
    pub fn recall(&self) -> f64 {
        ratio(
            self.true_positives,
            self.true_positives + self.false_negatives,
        )
    }

    /// Pairs answered right, near-duplicates or not (1 when there are none):
    /// on the hard negatives, the share kept apart.
    ///
    /// ```
    /// use neardup_eval::Counts;
    ///
    /// let c = Counts { true_negatives: 99, false_positives: 1, ..Counts::default() };
    /// assert_eq!(c.accuracy(), 0.99);
    /// ```
    pub fn accuracy(&self) -> f64 {
        ratio(
            self.true_positives + self.true_negatives,
            self.true_positives + self.true_negatives + self.false_positives + self.false_negatives,
        )
    }

    /// The harmonic mean of precision and recall.
    pub fn f1(&self) -> f64 {
        harmonic_mean(self.precision(), self.recall())
    }
}

/// `a / b`, 1 when `b` is 0 (nothing to be right about).
pub(crate) fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

/// The harmonic mean of a precision and a recall: their F1.
pub(crate) fn harmonic_mean(p: f64, r: f64) -> f64 {
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

/// The length bucket of a pair: by the shorter document's words.
///
/// ```
/// assert_eq!(neardup_eval::length_bucket(49), "<50");
/// assert_eq!(neardup_eval::length_bucket(50), "50-500");
/// assert_eq!(neardup_eval::length_bucket(501), ">500");
/// ```
pub fn length_bucket(words: usize) -> &'static str {
    match words {
        0..50 => "<50",
        50..=500 => "50-500",
        _ => ">500",
    }
}

/// A detector's scores.
#[derive(Clone, Debug, Default)]
pub struct Scores {
    /// Over every pair.
    pub all: Counts,
    /// Over the pairs whose shorter document has 50 words or more.
    pub long: Counts,
    /// By edit kind and rate (per mille), for edited pairs.
    pub by_edit: BTreeMap<(String, u32), Counts>,
    /// By language.
    pub by_language: BTreeMap<String, Counts>,
    /// By length bucket.
    pub by_length: BTreeMap<&'static str, Counts>,
    /// Over the hard negatives.
    pub hard_negatives: Counts,
    /// Over the hard negatives whose shorter document has 50 words or more.
    pub hard_negatives_long: Counts,
    /// Over the natural pairs.
    pub natural: Counts,
    /// By language, over the edited copies of [`SMALL_EDIT`] or less
    /// (boilerplate aside) whose shorter document has 50 words or more.
    pub small_edits: BTreeMap<String, Counts>,
    /// By language, over the copies with boilerplate of at most
    /// [`crate::MAX_CHANGE`] of the text added whose shorter document has 50
    /// words or more.
    pub boilerplate: BTreeMap<String, Counts>,
    /// By language, over the pairs whose shorter document has 50 words or
    /// more.
    pub long_by_language: BTreeMap<String, Counts>,
    /// By language and length bucket.
    pub by_language_and_length: BTreeMap<(String, &'static str), Counts>,
}

/// Which truth a score is under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// [`crate::LabelledPair::duplicate`]: shingle Jaccard at least
    /// [`crate::THRESHOLD`].
    Jaccard,
    /// [`crate::LabelledPair::edited_duplicate`]: the editor's view.
    Edits,
}

/// The largest edit rate counted in [`Scores::small_edits`].
pub const SMALL_EDIT: f64 = 0.03;

/// Scores `reported` (does the detector call pair `i` near-duplicates?) on
/// every pair of `bench`.
///
/// ```
/// use neardup_eval::{Benchmark, score};
///
/// let scores = score(&Benchmark::default(), |_| true);
/// assert_eq!(scores.all.f1(), 1.0);
/// ```
pub fn score(bench: &Benchmark, reported: impl Fn(usize) -> bool) -> Scores {
    score_under(View::Jaccard, bench, reported)
}

/// [`score`] under the truth of `view`.
///
/// ```
/// use neardup_eval::{Benchmark, View, score_under};
///
/// let scores = score_under(View::Edits, &Benchmark::default(), |_| false);
/// assert_eq!(scores.all.recall(), 1.0);
/// ```
pub fn score_under(view: View, bench: &Benchmark, reported: impl Fn(usize) -> bool) -> Scores {
    let mut scores = Scores::default();
    for (i, pair) in bench.pairs.iter().enumerate() {
        let said = reported(i);
        let truth = match view {
            View::Jaccard => pair.duplicate,
            View::Edits => pair.edited_duplicate,
        };
        scores.all.add(truth, said);
        let (da, db) = (&bench.documents[pair.a], &bench.documents[pair.b]);
        let words = da.words.min(db.words);
        let language = bench.language(pair.a).to_string();
        if words >= SHORT_WORDS {
            scores.long.add(truth, said);
            scores
                .long_by_language
                .entry(language.clone())
                .or_default()
                .add(truth, said);
        }
        scores
            .by_language
            .entry(language.clone())
            .or_default()
            .add(truth, said);
        scores
            .by_length
            .entry(length_bucket(words))
            .or_default()
            .add(truth, said);
        scores
            .by_language_and_length
            .entry((language.clone(), length_bucket(words)))
            .or_default()
            .add(truth, said);
        match pair.origin {
            PairOrigin::Edited { kind, rate } => {
                scores
                    .by_edit
                    .entry((kind.name().to_string(), (rate * 1000.0).round() as u32))
                    .or_default()
                    .add(truth, said);
                if words >= SHORT_WORDS && kind == EditKind::Boilerplate && rate <= MAX_CHANGE {
                    scores
                        .boilerplate
                        .entry(language.clone())
                        .or_default()
                        .add(truth, said);
                }
                if words >= SHORT_WORDS
                    && !matches!(kind, EditKind::Boilerplate | EditKind::Traditional)
                    && rate <= SMALL_EDIT
                {
                    scores
                        .small_edits
                        .entry(language)
                        .or_default()
                        .add(truth, said);
                }
            }
            PairOrigin::HardNegative => {
                scores.hard_negatives.add(truth, said);
                if words >= SHORT_WORDS {
                    scores.hard_negatives_long.add(truth, said);
                }
            }
            PairOrigin::Natural => scores.natural.add(truth, said),
            PairOrigin::Negative => {}
        }
    }
    scores
}
