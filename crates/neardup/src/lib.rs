//! neardup finds near-duplicate text with SimHash.
//!
//! This crate gathers the neardup library family under one name:
//!
//! - [`core`]: text → features → weights → fingerprint, and distances;
//! - [`index`]: fingerprints → neighbours, exactly: table plans, the
//!   all-pairs join, the online index and its files;
//! - [`corpus`]: reading documents from files, directories, JSON lines,
//!   Parquet, gzip and zstd;
//! - [`dedup`]: the whole dedup job, over files or documents in memory:
//!   what `neardup dedup` runs;
//! - [`store`]: a durable store of fingerprinted documents, searched
//!   exactly: what `neardup serve` keeps.
//!
//! # Examples
//!
//! Two fingerprints a few bits apart:
//!
//! ```
//! use neardup::core::{Fingerprinter, Profile};
//!
//! let fp = Fingerprinter::new(Profile::Auto)?;
//! let a = fp.fingerprint("the cat sat on the mat by the door of the old house");
//! let b = fp.fingerprint("the cat sat on a mat by the door of the old house");
//! assert!(a.distance(&b)? <= 6);
//! # Ok::<(), neardup::core::Error>(())
//! ```
//!
//! The dedup job over texts in memory, with `neardup dedup`'s defaults:
//!
//! ```
//! use neardup::dedup::{Dedup, Memory, Silent};
//!
//! let texts = [
//!     "the river rose in the night and the town woke to water in every street",
//!     "a recipe for bread: flour, water, salt and yeast, and a warm room",
//!     "The river rose in the night, and the town woke to water in every lane.",
//! ];
//! let outcome = Dedup::new()?.run(&Memory::new(&texts[..]), &Silent)?;
//! assert_eq!(outcome.fates().get(2).and_then(|f| f.duplicate_of()), Some(0));
//! # Ok::<(), neardup::dedup::Error>(())
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use neardup_core as core;
pub use neardup_corpus as corpus;
pub use neardup_dedup as dedup;
pub use neardup_index as index;
pub use neardup_store as store;

/// The README's Rust examples, compiled and run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
