//! The core of neardup: text → features → weights → SimHash fingerprint.
//!
//! This crate does no I/O. It turns text, weighted features or vectors into
//! 64- or 128-bit fingerprints whose Hamming distance is small when the
//! inputs are near-duplicates (Charikar 2002; Manku, Jain and Das Sarma
//! 2007). Its modules follow the data:
//!
//! - [`normalize`]: NFKC and lowercase;
//! - tokenisation: ASCII fast path, UAX #29 words, Han text cut as jieba cuts it,
//!   character n-grams for kana and Thai; [`StopWords`];
//! - [`FeatureKind`]: words, word shingles or character n-grams;
//! - [`Weighting`]: term frequency, binary, TF-IDF ([`IdfTable`],
//!   [`DocumentFrequencies`]), TextRank, and top-K selection;
//! - [`FeatureHash`]: XXH3, FNV-1a, MD5, SipHash, each byte-stable;
//! - [`Accumulator`]: the weighted vote per bit;
//! - [`Fingerprint`]: the result, its hex form and its distance.
//!
//! [`Fingerprinter`] wires them together from a [`Profile`];
//! [`FingerprintSettings`] is what decides its fingerprints, as an index
//! records it ([`FINGERPRINT_FORMAT`] is their format version). The exact
//! definition of every profile is in `docs/FINGERPRINT.md`; golden vectors
//! pin it.
//!
//! # Example
//!
//! ```
//! use neardup_core::{Fingerprinter, Profile};
//!
//! let fp = Fingerprinter::new(Profile::Auto)?;
//! let grant = "Permission is hereby granted, free of charge, to any person obtaining a copy of \
//!     this software and associated documentation files, to deal in the Software without \
//!     restriction, including without limitation the rights to use, copy, modify, merge, \
//!     publish, distribute, sublicense, and sell copies of the Software";
//! let a = fp.fingerprint(grant);
//! let b = fp.fingerprint(&grant.replace("this software", "the software"));
//! assert!(a.distance(&b)? <= 6);
//! # Ok::<(), neardup_core::Error>(())
//! ```

#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

mod accumulate;
mod compact;
mod error;
mod features;
mod fingerprint;
mod fingerprinter;
mod hash;
mod normalize;
mod packed;
mod profile;
mod python_compat;
mod remembered_md5;
mod segment;
mod settings;
mod stopwords;
mod vector;
mod weight;

pub use accumulate::Accumulator;
pub use error::{Error, Result};
pub use features::FeatureKind;
pub use fingerprint::{Fingerprint, Width, estimated_similarity};
pub use fingerprinter::{Explanation, Fingerprinter, FingerprinterBuilder, WeightedFeature};
pub use hash::FeatureHash;
pub use normalize::normalize;
pub use profile::Profile;
pub use segment::for_each_word;
pub use settings::{FINGERPRINT_FORMAT, FingerprintSettings};
pub use stopwords::StopWords;
pub use weight::Weighting;
pub use weight::idf::{DocumentFrequencies, IdfTable};

/// Parts public for compatibility layers only: what the Python package's
/// `neardup.compat` (a drop-in for PyPI `simhash` 2.x) needs to reproduce
/// that package's fingerprints at speed, outside this crate.
///
/// They are not needed to fingerprint with neardup's own profiles, and they
/// follow what the compatibility layer needs, not this crate's semver
/// habits: [`ShortBytes`](compat::ShortBytes) packs an input of up to 16
/// bytes, [`md5_each`](compat::md5_each) hashes many of them with the
/// remembered digests of recent inputs, and [`BitTally`](compat::BitTally)
/// counts the votes of many 128-bit hashes per bit.
pub mod compat {
    pub use crate::remembered_md5::{BitTally, ShortBytes, md5_each};
}
