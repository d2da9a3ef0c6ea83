//! The dedup job as a library: documents from any source in, each one's
//! fate out, with the same defaults and results as `neardup dedup`.
//!
//! [`Dedup`] holds a job's settings (defaults: k = 8, verification by the
//! exact Jaccard similarity of shingles at 0.8, the short-document rule, the first of each group
//! kept) and [`Dedup::run`] runs it over a [`Source`]: [`Files`] (files,
//! directories, JSON lines, Parquet, compressed, as `neardup_corpus` reads
//! them) or [`Memory`] (texts, `(id, text)` pairs or Arrow string arrays in
//! memory). The [`Outcome`] holds each document's [`Fate`]; [`Progress`]
//! hears how the run goes and may cancel it.
//!
//! The parts, in the order a run uses them:
//!
//! - [`Copies`]: exact copies (same fingerprint, same text) taken as one
//!   unit, so that a text found a million times costs one fingerprint;
//! - [`compat::is_short`]: the documents whose pairs are found by their
//!   verification sketches, not their fingerprints (the short-document
//!   rule: a prefix filter that meets every pair verification can pass);
//! - [`Verification`]: the exact measure that checks candidate pairs,
//!   the [`jaccard`] similarity of their [`shingles`] or the words that
//!   differ ([`word_difference`]); each
//!   document that can be compared is sketched once, in one more pass over
//!   the source (with the default keep order, grouping runs during that
//!   pass and only kept documents' sketches are held; otherwise they go to
//!   a temporary file);
//! - greedy grouping: each document, in [`Keep`] order, is compared with
//!   the documents kept so far (never with dropped ones), nearest first,
//!   and dropped for the first that passes verification; or
//!   [`Grouping::Components`]: every chain of near-duplicates one group;
//! - [`keep_first`] and [`components`]: the same rules over a list of
//!   pairs, for callers who have one; [`compat::ShortRule`]: the
//!   short-document rule's keys, for callers who join documents themselves
//!   (Spark).
//!
//! # Example
//!
//! ```
//! use neardup_dedup::{Dedup, Fate, Memory, Silent};
//!
//! let docs = [
//!     ("a", "the river rose in the night and the town woke to water in every street"),
//!     ("b", "a recipe for bread: flour, water, salt and yeast, and a warm room"),
//!     ("c", "the river rose in the night and the town woke to water in every lane"),
//! ];
//! let outcome = Dedup::new()?.run(&Memory::new(&docs[..]), &Silent)?;
//! assert_eq!(outcome.fates().get(0), Some(Fate::Kept));
//! assert_eq!(outcome.fates().get(2).and_then(|f| f.duplicate_of()), Some(0));
//! # Ok::<(), neardup_dedup::Error>(())
//! ```

#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

mod by_unit;
mod column;
mod copies;
mod deduper;
mod earlier;
mod error;
mod file_identity;
mod files;
mod greedy;
mod grouping;
mod incremental;
mod job;
mod keep;
mod kept_sketches;
mod linked;
mod memory;
mod outcome;
mod prefix_filter;
mod progress;
mod rule;
mod shingles;
mod short;
mod short_join;
mod short_rule;
mod sketches;
mod source;
mod streamed;
mod threads;
mod verified_texts;
mod verify;
mod why;

pub use copies::Copies;
pub use deduper::Deduper;
pub use error::{Error, Mismatch, Result};
pub use files::Files;
pub use grouping::{Fate, components, keep_first};
pub use incremental::{index_documents, index_settings, keyed_for, save_to_index};
pub use job::{Dedup, DedupBuilder, Grouping};
pub use keep::Keep;
pub use memory::{HELD_PER_DOCUMENT, LEAST_BUDGET, RUN_OVERHEAD, default_memory};
pub use outcome::{FateIter, Fates, Outcome, Record, Stats};
pub use progress::{Progress, Silent, Skipped, Stage};
pub use rule::{
    DEFAULT_K, DEFAULT_THRESHOLD, DEFAULT_VERIFICATION, FoundBy, Prepared, Rule, Verdict,
};
pub use shingles::{CHAR_SHINGLE, Shingling, WORD_SHINGLE, char_shingles, shingles, word_shingles};
pub use short::SHORT_WORDS;
pub use source::{DocumentsAt, Memory, Origin, Revisited, Source, SourceDoc};
pub use threads::{THREADS_PER_CORE, checked_threads};
pub use verified_texts::VerifiedTexts;
pub use verify::{Verification, common, jaccard, word_bag, word_difference, word_hashes};
pub use why::Why;

/// The short-document rule's parts, public for compatibility layers: code
/// outside this crate that runs part of the job itself and must decide as
/// the job does. The Python package's Spark module joins documents in
/// Spark and keys short ones with [`ShortRule`](compat::ShortRule); the
/// evaluation and the command line report by [`length_in_words`](compat::length_in_words)
/// and [`is_short`](compat::is_short).
///
/// [`Dedup`] and the [`Deduper`] apply the rule themselves: a caller that
/// only runs jobs needs none of this.
pub mod compat {
    pub use crate::short::{
        is_near_short, is_short, is_short_pair, is_within_reach, length_in_words, length_under,
    };
    pub use crate::short_rule::ShortRule;
}
