//! neardup finds near-duplicate text with SimHash.
//!
//! This crate gathers the neardup library family under one name:
//!
//! - [`core`]: text → features → weights → fingerprint, and distances;
//! - [`index`]: fingerprints → neighbours, exactly: table plans, the
//!   all-pairs join, the online index and its files.
//!
//! # Example
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

#![deny(missing_docs)]

pub use neardup_core as core;
pub use neardup_index as index;

/// The README's Rust examples, compiled and run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
