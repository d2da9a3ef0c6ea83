//! neardup finds near-duplicate text with SimHash.
//!
//! The top level of this crate holds what it takes to run every job; the
//! rest of the library family is under [`advanced`], one module per crate.
//!
//! # Map
//!
//! | To …                                              | use                                                   |
//! |---------------------------------------------------|-------------------------------------------------------|
//! | fingerprint a text                                | [`Fingerprinter`] (from a [`Profile`], or its [`FingerprinterBuilder`]) → [`Fingerprint`] of a [`Width`] |
//! | dedup texts in memory                             | [`Dedup`] run over [`Memory`] → [`Outcome`], a [`Fate`] per text |
//! | set a job's k, verification, keep order, grouping, memory | [`DedupBuilder`] ([`Dedup::builder`]), checked by its `build()` |
//! | dedup files (what `neardup dedup` runs)           | [`DedupRun`] (set up by [`DedupRunBuilder`]) → [`Finished`]: the outputs in a directory; [`Dedup`] over [`Files`] for the fates alone |
//! | say how files are read                            | [`ReadOptions`]                                       |
//! | say what a duplicate is                           | [`Rule`] (k and [`Verification`]), [`Keep`], [`Grouping`] |
//! | hear how a run goes, or cancel it                 | [`Progress`] ([`Silent`] hears nothing)              |
//! | dedup batch by batch against what came before     | [`Deduper`]                                           |
//! | find all pairs within k bits                      | [`TablePlan`] and [`self_join`]                       |
//! | search fingerprints as they come                  | [`OnlineIndex`] ([`AnyOnlineIndex`]: width at run time) |
//! | keep fingerprinted documents on disk, searchable  | [`Store`] ([`AnyStore`]: width at run time), [`StoreOptions`] ([`StoreOptionsBuilder`]), [`StoreSettings`] |
//! | handle errors                                     | [`Error`] and [`Result`]: every job's error, the lower crates' included |
//! | anything else                                     | [`advanced`]: [`core`](advanced::core), [`corpus`](advanced::corpus), [`index`](advanced::index), [`dedup`](advanced::dedup), [`store`](advanced::store), [`output`](advanced::output) |
//!
//! # Examples
//!
//! Two fingerprints a few bits apart:
//!
//! ```
//! use neardup::{Fingerprinter, Profile};
//!
//! let fp = Fingerprinter::new(Profile::Auto)?;
//! let a = fp.fingerprint("the cat sat on the mat by the door of the old house");
//! let b = fp.fingerprint("the cat sat on a mat by the door of the old house");
//! assert!(a.distance(&b)? <= 6);
//! # Ok::<(), neardup::Error>(())
//! ```
//!
//! The dedup job over texts in memory, with `neardup dedup`'s defaults:
//!
//! ```
//! use neardup::{Dedup, Memory, Silent};
//!
//! let texts = [
//!     "the river rose in the night and the town woke to water in every street",
//!     "a recipe for bread: flour, water, salt and yeast, and a warm room",
//!     "The river rose in the night, and the town woke to water in every lane.",
//! ];
//! let outcome = Dedup::new()?.run(&Memory::new(&texts[..]), &Silent)?;
//! assert_eq!(outcome.fates().get(2).and_then(|f| f.duplicate_of()), Some(0));
//! # Ok::<(), neardup::Error>(())
//! ```
//!
//! The same job over files, its outputs written as `neardup dedup` writes
//! them:
//!
//! ```
//! use neardup::{Dedup, DedupRun, Silent};
//!
//! let dir = tempfile::tempdir()?;
//! let input = dir.path().join("docs.jsonl");
//! std::fs::write(&input, concat!(
//!     "{\"id\": \"a\", \"text\": \"the river rose in the night and the town woke to water\"}\n",
//!     "{\"id\": \"b\", \"text\": \"the river rose in the night and the town woke to water!\"}\n",
//! ))?;
//! let finished = DedupRun::builder(vec![input], dir.path().join("out"), Dedup::new()?).build().run(&Silent)?;
//! assert_eq!(finished.outcome.unique(), 1);
//! assert!(dir.path().join("out/duplicates.jsonl").exists());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![doc(test(attr(deny(warnings))))]

pub use neardup_core::{Fingerprint, Fingerprinter, FingerprinterBuilder, Profile, Width};
pub use neardup_corpus::ReadOptions;
pub use neardup_dedup::{
    Dedup, DedupBuilder, Deduper, Error, Fate, Files, Grouping, Keep, Memory, Outcome, Progress,
    Result, Rule, Silent, Verification,
};
pub use neardup_index::{AnyOnlineIndex, OnlineIndex, TablePlan, self_join};
pub use neardup_output::{DedupRun, DedupRunBuilder, Finished};
pub use neardup_store::{AnyStore, Store, StoreOptions, StoreOptionsBuilder, StoreSettings};

/// The whole library family, one module per crate, for what the top level
/// leaves out: the parts of each stage, their settings and errors.
///
/// - [`core`](advanced::core): text → features → weights → fingerprint,
///   and distances;
/// - [`corpus`](advanced::corpus): reading documents from files,
///   directories, JSON lines, Parquet, gzip and zstd;
/// - [`index`](advanced::index): fingerprints → neighbours, exactly: table
///   plans, the all-pairs join, the online index and its files;
/// - [`dedup`](advanced::dedup): the whole dedup job, over files or
///   documents in memory, and its parts;
/// - [`store`](advanced::store): a durable store of fingerprinted
///   documents, searched exactly: what `neardup serve` keeps;
/// - [`output`](advanced::output): the output directory of a dedup run.
pub mod advanced {
    pub use neardup_core as core;
    pub use neardup_corpus as corpus;
    pub use neardup_dedup as dedup;
    pub use neardup_index as index;
    pub use neardup_output as output;
    pub use neardup_store as store;
}

/// The README's Rust examples, compiled and run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
