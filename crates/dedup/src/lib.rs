//! From near-duplicate pairs to the documents to keep.
//!
//! The index finds every pair of documents whose fingerprints are within
//! `k` bits ([`neardup_index::Pair`]); this crate decides what to do with
//! them:
//!
//! - [`keep_first`]: documents are taken in a given order (input order, or
//!   longest first, …); each is kept unless it is near an already kept one,
//!   and then it is a duplicate of the nearest such. A chain `a ~ b ~ c`
//!   where `a` and `c` are far apart keeps `a` and `c`: a document is only
//!   ever dropped for one it is itself near.
//! - [`Copies`]: exact copies (same fingerprint, same text) taken as one
//!   unit before the join, so that a text found a million times costs one
//!   fingerprint there, not half a million million pairs;
//! - [`components`]: the connected components of the pairs, for those who
//!   want every chain in one group;
//! - [`Verification`]: the exact measure that checks candidate pairs, words
//!   that differ ([`word_difference`]) or shingle [`jaccard`];
//! - [`is_short`]: the documents that are searched at a larger k, and
//!   judged by verification (the short-document rule).
//!
//! # Example
//!
//! ```
//! use neardup_dedup::{Fate, keep_first};
//! use neardup_index::Pair;
//!
//! // a ~ b (1 bit), b ~ c (2 bits), a and c far apart.
//! let pairs = [Pair { a: 0, b: 1, distance: 1 }, Pair { a: 1, b: 2, distance: 2 }];
//! let fates = keep_first(3, &[0, 1, 2], &pairs);
//! assert_eq!(fates, [Fate::Kept, Fate::Duplicate { of: 0, distance: 1 }, Fate::Kept]);
//! ```

#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

mod copies;
mod grouping;
mod short;
mod verify;

pub use copies::Copies;
pub use grouping::{Fate, components, keep_first};
pub use short::{SHORT_WORDS, is_short, length_in_words};
pub use verify::{Verification, common, jaccard, shingles, word_bag, word_difference, word_hashes};
