//! The quality benchmark of neardup: near-duplicates made from real
//! documents by the edits that happen in the wild, negatives from the same
//! sources, an exact ground truth, and the scores of a detector on them.
//!
//! - [`edit`]: an [`EditKind`] applied to a text at a rate, from a seed;
//! - [`build`]: a [`Benchmark`] of labelled pairs from [`BenchmarkSource`]s, with the
//!   truth computed exactly: the Jaccard similarity of their shingles
//!   ([`truth_shingles`]: word 3-shingles, character 4-grams for Chinese) at
//!   least [`THRESHOLD`]; and beside it the editor's view (at most
//!   [`MAX_CHANGE`] of the content changed);
//! - [`score`]: precision, recall and F1 of a detector on the labelled
//!   pairs, overall and by edit, language and length;
//! - [`score_dedup`]: what a dedup does, from its output: of the documents
//!   it dropped, the share that truly duplicate their kept one; of the
//!   near-duplicate pairs, the share not left both kept ([`perfect_dedup`]
//!   scores 1).
//!
//! No I/O: the `neardup eval` command reads the corpora and fingerprints.
//!
//! # Example
//!
//! ```
//! use neardup_eval::{Size, BenchmarkSource, build, score};
//!
//! let text = |i: usize| format!("report {i} on the harvest: wheat, barley and oats were brought in early this year across the region");
//! let source = BenchmarkSource {
//!     name: "toy".into(),
//!     language: "en".into(),
//!     documents: (0..5).map(|i| ("farm".to_string(), text(i))).collect(),
//!     natural: Vec::new(),
//! };
//! let bench = build(&[source], Size { originals: 2, negatives: 2, seed: 3 });
//! // A detector that trusts the truth scores 1.
//! let perfect = score(&bench, |i| bench.pairs[i].duplicate);
//! assert_eq!(perfect.all.f1(), 1.0);
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![doc(test(attr(deny(warnings))))]

mod benchmark;
mod dedup_score;
mod edit_rate;
mod edits;
mod natural;
mod rng;
mod score;
mod truth;

pub use benchmark::{
    Benchmark, BenchmarkDocument, BenchmarkSource, LabelledPair, MAX_CHANGE, PairOrigin, RATES,
    Size, build,
};
pub use dedup_score::{DedupCounts, DedupScores, perfect_dedup, score_dedup};
pub use edit_rate::edit_rate;
pub use edits::{EditKind, content_change, edit, traditional};
pub use natural::{BBC_JUDGED, Judged, judged_pairs};
pub use rng::Rng;
pub use score::{Counts, SMALL_EDIT, Scores, View, length_bucket, score, score_under};
pub use truth::{THRESHOLD, similarity, truth_shingles};
