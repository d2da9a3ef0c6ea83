//! The rule that decides whether two documents are near-duplicates: one
//! value that every front asks (`neardup dedup` in batch and against an
//! index, `compare`, `eval`, the service, Python and Spark), so that the
//! same two documents get the same verdict, with the same similarity and
//! the same reason, whichever door they came in by.
//!
//! A [`Rule`] holds everything a verdict depends on: the fingerprinter,
//! k, the [`Verification`] (the exact Jaccard similarity of the shingles,
//! at 0.8 by default) and the short-document rule. Its defaults are the
//! product's, stated here once ([`DEFAULT_K`], [`DEFAULT_VERIFICATION`]).
//!
//! Two documents are near-duplicates when a run finds them as a candidate
//! pair ([`FoundBy`]: the same text, fingerprints within k bits, or the
//! short-document rule for a short document and a near-short one,
//! whatever their distance) and verification passes them. A pair that
//! verification passes but no path finds is said so ([`Verdict::missed`]):
//! a run keeps both.

use neardup_core::{Fingerprint, Fingerprinter, Profile};
use xxhash_rust::xxh3::xxh3_64;

use crate::error::Result;
use crate::short::{SHORT_WORDS, length_under};
use crate::short_rule::ShortRule;
use crate::verify::Verification;

/// The default k: with verification by shingle Jaccard at 0.8, SimHash
/// within 8 bits makes candidates of 98% of the near-duplicates of 50 words
/// or more, in English and in Chinese (at 6 bits, 95%: docs/QUALITY.md).
pub const DEFAULT_K: u32 = 8;

/// The default threshold: two documents are near-duplicates when the exact
/// Jaccard similarity of their shingles is at least this.
pub const DEFAULT_THRESHOLD: f64 = 0.8;

/// The default verification: the Jaccard similarity of the shingles, at
/// least [`DEFAULT_THRESHOLD`].
pub const DEFAULT_VERIFICATION: Verification = Verification::Jaccard(DEFAULT_THRESHOLD);

/// What decides whether two documents are near-duplicates.
///
/// ```
/// use neardup_dedup::{FoundBy, Rule};
///
/// let rule = Rule::new()?;
/// let verdict = rule.judge(
///     "the river rose in the night and the town woke to water in every street",
///     "the river rose in the night and the town woke to water in every lane",
/// );
/// assert!(verdict.near);
/// assert_eq!(verdict.found_by, Some(FoundBy::ShortDocuments));
/// assert!(verdict.similarity.is_some_and(|j| j >= 0.8));
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Rule {
    pub(crate) fingerprinter: Fingerprinter,
    pub(crate) k: u32,
    pub(crate) verification: Option<Verification>,
    pub(crate) short_rule: bool,
    pub(crate) short_words: usize,
}

/// How a run finds a pair as a candidate, before verification judges it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoundBy {
    /// The two texts are the same, byte for byte.
    ExactCopy,
    /// Their fingerprints are at most k bits apart.
    Fingerprint,
    /// The short-document rule: one is short and the other near short,
    /// and their shingles overlap enough to pass (any distance).
    ShortDocuments,
}

impl FoundBy {
    /// The path's name in outputs: `exact`, `fingerprint`, `short`.
    ///
    /// ```
    /// assert_eq!(neardup_dedup::FoundBy::ShortDocuments.name(), "short");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            FoundBy::ExactCopy => "exact",
            FoundBy::Fingerprint => "fingerprint",
            FoundBy::ShortDocuments => "short",
        }
    }
}

/// The verdict on a pair of documents, and why.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// Whether they are near-duplicates: found as a candidate and passed
    /// by verification.
    pub near: bool,
    /// The Hamming distance of their fingerprints.
    pub distance: u32,
    /// The verification's measure ([`Verification::measure`]: the Jaccard
    /// similarity of their shingles by default), when pairs are verified.
    pub similarity: Option<f64>,
    /// Whether verification passes them (always, when nothing is
    /// verified).
    pub passes: bool,
    /// How a run finds them as a candidate, or `None` when it does not.
    pub found_by: Option<FoundBy>,
}

impl Verdict {
    /// Whether verification passes the pair but no path finds it: a run
    /// keeps both.
    ///
    /// ```
    /// use neardup_dedup::Rule;
    ///
    /// let mut rule = Rule::new()?;
    /// rule.k(0).short_rule(false);
    /// let a: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
    /// let a = a.join(" ");
    /// let v = rule.judge(&a, &a.to_uppercase());
    /// assert!(v.near, "the same words: the same fingerprint");
    /// let v = rule.judge(&a, &a.replace("word7 ", "other "));
    /// assert!(v.missed() && !v.near, "{v:?}");
    /// # Ok::<(), neardup_dedup::Error>(())
    /// ```
    pub fn missed(&self) -> bool {
        self.passes && self.found_by.is_none()
    }
}

/// A document as the rule sees it, prepared once to be judged against
/// many: its fingerprint, text hash, verification sketch and length class.
///
/// ```
/// use neardup_dedup::Rule;
///
/// let rule = Rule::new()?;
/// let a = rule.prepare("the cat sat on the mat by the door");
/// let b = rule.prepare("the cat sat on the mat by the door!");
/// assert!(rule.judge_prepared(&a, &b).near);
/// assert!(a.is_short());
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Prepared {
    fingerprint: Fingerprint,
    text_hash: u64,
    sketch: Option<Vec<u64>>,
    /// Whether it is short: under the rule's [`Rule::short_words`].
    short: bool,
    /// Whether it may be near a short one: under twice as many.
    near_short: bool,
}

impl Prepared {
    /// The document's fingerprint.
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// Its verification sketch, when the rule verifies.
    pub fn sketch(&self) -> Option<&[u64]> {
        self.sketch.as_deref()
    }

    /// Whether it is short: fewer words ([`crate::compat::length_in_words`]) than
    /// the rule's [`Rule::short_words`].
    pub fn is_short(&self) -> bool {
        self.short
    }

    /// Whether it may be near a short document: fewer than twice as many.
    pub fn is_near_short(&self) -> bool {
        self.near_short
    }
}

impl Rule {
    /// The defaults: the `auto` profile, k = [`DEFAULT_K`],
    /// [`DEFAULT_VERIFICATION`], the short-document rule on.
    ///
    /// # Errors
    ///
    /// As [`Fingerprinter::new`].
    pub fn new() -> Result<Rule> {
        Ok(Rule::with_fingerprinter(Fingerprinter::new(Profile::Auto)?))
    }

    /// The defaults of [`Rule::new`] with another fingerprinter.
    pub fn with_fingerprinter(fingerprinter: Fingerprinter) -> Rule {
        Rule {
            fingerprinter,
            k: DEFAULT_K,
            verification: Some(DEFAULT_VERIFICATION),
            short_rule: true,
            short_words: SHORT_WORDS,
        }
    }

    /// Candidates by fingerprint are at most `k` bits apart.
    ///
    /// ```
    /// use neardup_dedup::{Rule, Verification};
    ///
    /// let mut rule = Rule::new()?;
    /// rule.k(6).verification(Some(Verification::Jaccard(0.9))).short_rule(false);
    /// assert_eq!((rule.k_bits(), rule.short_rule_holds()), (6, false));
    /// # Ok::<(), neardup_dedup::Error>(())
    /// ```
    pub fn k(&mut self, k: u32) -> &mut Rule {
        self.k = k;
        self
    }

    /// How candidate pairs are checked; `None` trusts the fingerprints.
    pub fn verification(&mut self, verification: Option<Verification>) -> &mut Rule {
        self.verification = verification;
        self
    }

    /// The short-document rule (on by default; it holds only with
    /// verification): a short document and a near-short one are a
    /// candidate pair whatever their distance.
    pub fn short_rule(&mut self, on: bool) -> &mut Rule {
        self.short_rule = on;
        self
    }

    /// Texts under `words` words are short ([`SHORT_WORDS`] by default):
    /// with the short-document rule, every pair of a short text and one
    /// under twice as many words that verification passes is found,
    /// whatever their fingerprints. A large bound (`usize::MAX`: every text
    /// short) finds every pair at or above the threshold, unless a text
    /// repeats itself, at the cost of sketching and joining every text by
    /// its shingles (docs/DEDUP.md gives the cost).
    ///
    /// ```
    /// use neardup_dedup::Rule;
    ///
    /// let mut rule = Rule::new()?;
    /// let a = "the river rose in the night and the town woke to water in every street";
    /// assert!(rule.prepare(a).is_short());
    /// assert!(!rule.short_words(10).prepare(a).is_short());
    /// assert!(rule.short_words(usize::MAX).prepare(&"word ".repeat(5000)).is_short());
    /// # Ok::<(), neardup_dedup::Error>(())
    /// ```
    pub fn short_words(&mut self, words: usize) -> &mut Rule {
        self.short_words = words.max(1);
        self
    }

    /// The bound under which texts are short ([`Rule::short_words`]).
    pub fn short_bound(&self) -> usize {
        self.short_words
    }

    /// The length class of `text`: short, near short (under twice the
    /// bound), or neither; reading no more of a long text than it takes.
    pub(crate) fn length_class(&self, text: &str) -> (bool, bool) {
        match length_under(text, self.short_words.saturating_mul(2)) {
            Some(length) => (length < self.short_words, true),
            None => (false, false),
        }
    }

    /// The fingerprinter.
    pub fn fingerprinter(&self) -> &Fingerprinter {
        &self.fingerprinter
    }

    /// The k of candidates by fingerprint.
    pub fn k_bits(&self) -> u32 {
        self.k
    }

    /// How candidates are verified, if they are.
    pub fn verifier(&self) -> Option<Verification> {
        self.verification
    }

    /// Whether the short-document rule holds: it is on, and pairs are
    /// verified.
    pub fn short_rule_holds(&self) -> bool {
        self.short_rule && self.verification.is_some()
    }

    /// `text` prepared to be judged ([`Rule::judge_prepared`]).
    pub fn prepare(&self, text: &str) -> Prepared {
        self.prepare_fingerprinted(text, self.fingerprinter.fingerprint(text))
    }

    /// `text` prepared as [`Rule::prepare`] does, with the fingerprint a
    /// store recorded for it (made by this rule's fingerprinter), so that
    /// a stored text is not fingerprinted again.
    pub fn prepare_fingerprinted(&self, text: &str, fingerprint: Fingerprint) -> Prepared {
        let (short, near_short) = self.length_class(text);
        Prepared {
            fingerprint,
            text_hash: xxh3_64(text.as_bytes()),
            sketch: self.verification.map(|v| v.sketch(text)),
            short,
            near_short,
        }
    }

    /// What the short-document keys of this rule are made for (as
    /// `jaccard:0.8`), when the short-document rule holds: a store records
    /// it, and keys made for another rule are not this rule's.
    ///
    /// ```
    /// let mut rule = neardup_dedup::Rule::new()?;
    /// assert_eq!(rule.keying().as_deref(), Some("jaccard:0.8"));
    /// assert_eq!(rule.short_rule(false).keying(), None);
    /// # Ok::<(), neardup_dedup::Error>(())
    /// ```
    pub fn keying(&self) -> Option<String> {
        let keying = self.verification.filter(|_| self.short_rule_holds())?;
        Some(match self.short_words {
            SHORT_WORDS => keying.to_string(),
            words => format!("{keying}, short under {words} words"),
        })
    }

    /// The short-document keys of a prepared document, for a store that
    /// finds its short pairs at any distance: two documents the rule finds
    /// by [`FoundBy::ShortDocuments`] and verification passes share one
    /// ([`ShortRule`]'s keys, in its fixed order). None for a document that
    /// is not near short, or when the rule does not hold.
    ///
    /// ```
    /// use neardup_dedup::Rule;
    ///
    /// let rule = Rule::new()?;
    /// let a = rule.prepare("the cat sat on the mat by the door of the old house today");
    /// let b = rule.prepare("the cat sat on the mat by the door of the old house");
    /// let (ka, kb) = (rule.short_keys(&a), rule.short_keys(&b));
    /// assert!(ka.iter().any(|k| kb.contains(k)));
    /// assert!(rule.short_keys(&rule.prepare(&"word ".repeat(200))).is_empty());
    /// # Ok::<(), neardup_dedup::Error>(())
    /// ```
    pub fn short_keys(&self, prepared: &Prepared) -> Vec<u64> {
        match (self.verification, &prepared.sketch) {
            (Some(v), Some(sketch)) if self.short_rule_holds() && prepared.is_near_short() => {
                ShortRule::new(v).keys_of_sketch(sketch)
            }
            _ => Vec::new(),
        }
    }

    /// The short-document keys of `text` ([`Rule::short_keys`]), reading no
    /// more of a long text than it takes to tell it is not near short.
    ///
    /// ```
    /// let rule = neardup_dedup::Rule::new()?;
    /// assert!(!rule.text_keys("a short text of a few words").is_empty());
    /// assert!(rule.text_keys(&"word ".repeat(500)).is_empty());
    /// # Ok::<(), neardup_dedup::Error>(())
    /// ```
    pub fn text_keys(&self, text: &str) -> Vec<u64> {
        match self.verification {
            Some(v) if self.short_rule_holds() && self.length_class(text).1 => {
                ShortRule::new(v).keys(text)
            }
            _ => Vec::new(),
        }
    }

    /// The verdict on two texts.
    pub fn judge(&self, a: &str, b: &str) -> Verdict {
        self.judge_prepared(&self.prepare(a), &self.prepare(b))
    }

    /// The verdict on two prepared documents (both prepared by this rule).
    pub fn judge_prepared(&self, a: &Prepared, b: &Prepared) -> Verdict {
        let distance = (a.fingerprint.bits() ^ b.fingerprint.bits()).count_ones();
        let similarity = self
            .verification
            .zip(a.sketch.as_ref().zip(b.sketch.as_ref()))
            .map(|(v, (x, y))| v.measure(x, y));
        let passes = match (self.verification, similarity) {
            (Some(v), Some(s)) => v.holds(s),
            _ => true,
        };
        let short_rule = self.short_rule_holds();
        let short_pair = (a.is_short() && b.is_near_short()) || (b.is_short() && a.is_near_short());
        // A run leaves short documents out of the search by fingerprint
        // when the rule finds all they can pass with.
        let searched = !(short_rule
            && (a.is_short() || b.is_short())
            && self.verification.is_some_and(|v| v.passes_within_twice()));
        // The same text hashes alike, and a collision would still need the
        // same fingerprint.
        let found_by = if a.text_hash == b.text_hash && distance == 0 {
            Some(FoundBy::ExactCopy)
        } else if short_rule && short_pair {
            Some(FoundBy::ShortDocuments)
        } else if searched && distance <= self.k {
            Some(FoundBy::Fingerprint)
        } else {
            None
        };
        Verdict {
            near: found_by.is_some() && passes,
            distance,
            similarity,
            passes,
            found_by,
        }
    }
}
