//! The short-document rule for joins that run outside one [`crate::Dedup`]
//! run (Spark, a database): the keys each near-short document is sent out
//! under, so that every pair the rule must verify meets under one of them.
//!
//! A run orders sketch elements rarest first, by counts of its own
//! documents; an engine that groups rows across machines has no such
//! counts at hand, and any one order keeps the filter exact, so this one
//! orders elements by value. Groups are then larger, not fewer pairs found.

use crate::prefix_filter::{ElementCounts, PrefixFilter};
use crate::verify::Verification;

/// The prefix filter of the short-document rule, in a fixed order.
///
/// ```
/// use neardup_dedup::Verification;
/// use neardup_dedup::compat::{ShortRule, is_near_short};
///
/// let rule = ShortRule::new(Verification::Jaccard(0.8));
/// let a = "the cat sat on the mat by the door of the old house today";
/// let b = "the cat sat on the mat by the door of the old house";
/// assert!(is_near_short(a) && is_near_short(b));
/// let (ka, kb) = (rule.keys(a), rule.keys(b));
/// // A pair that can pass verification shares a key.
/// assert!(ka.iter().any(|k| kb.contains(k)));
/// ```
pub struct ShortRule {
    verification: Verification,
    filter: PrefixFilter,
}

impl ShortRule {
    /// The rule for pairs checked by `verification`.
    pub fn new(verification: Verification) -> ShortRule {
        ShortRule {
            verification,
            filter: PrefixFilter::new(verification, ElementCounts::new()),
        }
    }

    /// The keys of `text` (a near-short document's): two texts that can
    /// pass verification share one.
    pub fn keys(&self, text: &str) -> Vec<u64> {
        self.keys_of_sketch(&self.verification.sketch(text))
    }

    /// The keys of a near-short document by its verification sketch.
    pub(crate) fn keys_of_sketch(&self, sketch: &[u64]) -> Vec<u64> {
        self.filter
            .prefix(sketch)
            .into_iter()
            .map(|(k, _)| k)
            .collect()
    }

    /// Whether short documents are found by the filter alone, and left out
    /// of the search by fingerprint: so when every document a short one can
    /// pass with is near-short (Jaccard at least 0.5, or any word
    /// difference), as in a [`crate::Dedup`] run.
    ///
    /// ```
    /// use neardup_dedup::Verification;
    /// use neardup_dedup::compat::ShortRule;
    ///
    /// assert!(ShortRule::new(Verification::Jaccard(0.8)).finds_short_alone());
    /// assert!(!ShortRule::new(Verification::Jaccard(0.3)).finds_short_alone());
    /// ```
    pub fn finds_short_alone(&self) -> bool {
        self.filter.holds_partners()
    }
}
