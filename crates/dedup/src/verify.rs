//! Verification: an exact measure of two documents' overlap, to remove
//! the false positives of the fingerprint filter.
//!
//! Two measures are offered ([`Verification`]):
//!
//! - `jaccard:T`, the default of `neardup dedup` at T = 0.8: the exact
//!   Jaccard similarity of the two documents' shingles ([`shingles`]: word
//!   3-shingles, or character 4-grams for Chinese and Japanese) is at least
//!   `T`. It is the meaning of a near-duplicate that MinHash users already
//!   set their thresholds in (datasketch, text-dedup, datatrove), computed
//!   exactly rather than estimated.
//! - `words:D`: at most a share `D` of the words differ ([`word_difference`]
//!   of the two [`word_bag`]s), whatever their order. The words are those
//!   of [`neardup_core::for_each_word`]: Han and kana characters are words
//!   of one character each.
//!
//! Words and shingles are compared by their XXH3-64 hashes.

use std::fmt;
use std::str::FromStr;

use neardup_core::for_each_word;
use xxhash_rust::xxh3::xxh3_64;

use crate::shingles::shingles;

/// How a candidate pair is checked.
///
/// ```
/// use neardup_dedup::Verification;
///
/// let v: Verification = "words:0.1".parse()?;
/// let (a, b) = (v.sketch("one two three four five six seven eight nine ten"),
///               v.sketch("one two three four five six seven eight nine TEN!"));
/// assert!(v.accepts(&a, &b));
/// assert!(!v.accepts(&a, &v.sketch("one two three")));
/// assert_eq!(v.to_string(), "words:0.1");
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verification {
    /// At most this share of the words differ ([`word_difference`]).
    Words(f64),
    /// The Jaccard similarity of the documents' [`shingles`] is at least
    /// this.
    Jaccard(f64),
}

impl Verification {
    /// What [`Verification::accepts`] compares, for one document.
    pub fn sketch(&self, text: &str) -> Vec<u64> {
        match self {
            Verification::Words(_) => word_bag(text),
            Verification::Jaccard(_) => shingles(text),
        }
    }

    /// Whether two documents, by their sketches, are near-duplicates.
    pub fn accepts(&self, a: &[u64], b: &[u64]) -> bool {
        self.holds(self.measure(a, b))
    }

    /// The measure of two sketches when it passes, else `None`.
    ///
    /// ```
    /// use neardup_dedup::Verification;
    ///
    /// let v = Verification::Jaccard(0.5);
    /// assert_eq!(v.passed(&[1, 2, 3], &[1, 2, 3, 4]), Some(0.75));
    /// assert_eq!(v.passed(&[1, 2, 3], &[4]), None);
    /// ```
    pub fn passed(&self, a: &[u64], b: &[u64]) -> Option<f64> {
        let measure = self.measure(a, b);
        self.holds(measure).then_some(measure)
    }

    /// The measure of two sketches: [`word_difference`] or [`jaccard`].
    pub fn measure(&self, a: &[u64], b: &[u64]) -> f64 {
        match self {
            Verification::Words(_) => word_difference(a, b),
            Verification::Jaccard(_) => jaccard(a, b),
        }
    }

    /// Whether a value of [`Verification::measure`] passes: at most the
    /// limit for words, at least it for Jaccard.
    ///
    /// ```
    /// use neardup_dedup::Verification;
    ///
    /// assert!(Verification::Words(0.1).holds(0.1) && !Verification::Words(0.1).holds(0.2));
    /// assert!(Verification::Jaccard(0.8).holds(0.9));
    /// ```
    pub fn holds(&self, value: f64) -> bool {
        match *self {
            Verification::Words(most) => value <= most,
            Verification::Jaccard(least) => value >= least,
        }
    }

    /// The fewest elements a sketch of `len` elements shares with any
    /// sketch it passes with (repeats in a word bag counted as often as
    /// both have them, as [`common`] does).
    ///
    /// ```
    /// use neardup_dedup::Verification;
    ///
    /// // 30 shingles at Jaccard 0.8: at least 24 in common.
    /// assert_eq!(Verification::Jaccard(0.8).min_common(30), 24);
    /// // 30 words, a tenth of them different at most: 27 in common.
    /// assert_eq!(Verification::Words(0.1).min_common(30), 27);
    /// assert_eq!(Verification::Words(1.0).min_common(30), 0);
    /// ```
    pub fn min_common(&self, len: usize) -> usize {
        // The partner that needs the fewest in common: one inside this
        // sketch (Jaccard c/len) or as long as it (difference (len-c)/len).
        // Checked with the same float arithmetic as the measures.
        let passes = |c: usize| match *self {
            Verification::Jaccard(least) => len == 0 || c as f64 / len as f64 >= least,
            Verification::Words(most) => {
                len == 0 || ((len - c) as f64 / len as f64).min(1.0) <= most
            }
        };
        (0..=len).find(|&c| passes(c)).unwrap_or(len)
    }

    /// The fewest elements two sketches of `a` and `b` elements must
    /// share to pass (repeats counted as [`common`] counts them), or
    /// `usize::MAX` when no overlap makes them pass (lengths too far
    /// apart). Found with the same float arithmetic as the measures.
    ///
    /// ```
    /// use neardup_dedup::Verification;
    ///
    /// // 20 and 20 shingles at Jaccard 0.8: 18 in common (18/22 ≥ 0.8).
    /// assert_eq!(Verification::Jaccard(0.8).min_overlap(20, 20), 18);
    /// assert_eq!(Verification::Jaccard(0.8).min_overlap(20, 16), 16);
    /// assert_eq!(Verification::Jaccard(0.8).min_overlap(20, 15), usize::MAX);
    /// // 20 and 21 words, at most a tenth different: 19 in common.
    /// assert_eq!(Verification::Words(0.1).min_overlap(20, 21), 19);
    /// ```
    pub fn min_overlap(&self, a: usize, b: usize) -> usize {
        let passes = |c: usize| {
            self.holds(match self {
                Verification::Jaccard(_) => jaccard_of(c, a, b),
                Verification::Words(_) => difference_of(c, a, b),
            })
        };
        let most = a.min(b);
        // The real-number solution, then moved to where the float measure
        // turns (passing is monotone in c): one or two checks, as this runs
        // for every pair the prefix filter meets.
        let guess = match *self {
            Verification::Jaccard(t) => t * (a + b) as f64 / (1.0 + t),
            Verification::Words(d) => a.max(b) as f64 - d * most as f64,
        };
        let mut c = (guess.ceil().max(0.0) as usize).min(most);
        while c > 0 && passes(c - 1) {
            c -= 1;
        }
        while c <= most && !passes(c) {
            c += 1;
        }
        if c > most { usize::MAX } else { c }
    }

    /// Whether a sketch passes only with sketches at most twice as long
    /// (Jaccard 0.5 or more, or any word difference): then a short
    /// document's partners are all near-short.
    pub(crate) fn passes_within_twice(&self) -> bool {
        match *self {
            Verification::Words(_) => true,
            Verification::Jaccard(t) => t >= 0.5,
        }
    }

    /// A Jaccard threshold as the fronts take it (`--threshold`,
    /// `threshold=`): above 0 and at most 1. At 0 every pair would pass,
    /// and the short-document rule would pair each short document with
    /// every one that shares a shingle with it. The error says what to
    /// give; the caller names the setting.
    ///
    /// ```
    /// use neardup_dedup::Verification;
    ///
    /// assert_eq!(Verification::threshold(0.8), Ok(Verification::Jaccard(0.8)));
    /// assert!(Verification::threshold(0.0).is_err());
    /// assert!(Verification::threshold(f64::NAN).is_err());
    /// ```
    pub fn threshold(t: f64) -> Result<Verification, String> {
        if t > 0.0 && t <= 1.0 {
            Ok(Verification::Jaccard(t))
        } else {
            Err(
                "give a Jaccard similarity above 0 and at most 1, as in 0.8 (for no \
                 verification at all, verify none)"
                    .to_string(),
            )
        }
    }

    /// A verification as the fronts name it (`--verify`, `verify=`):
    /// `jaccard:T`, `words:D`, or `none` for no verification.
    ///
    /// ```
    /// use neardup_dedup::Verification;
    ///
    /// assert_eq!(Verification::from_setting("none"), Ok(None));
    /// assert_eq!(Verification::from_setting("words:0.1"), Ok(Some(Verification::Words(0.1))));
    /// assert!(Verification::from_setting("jaccard:0").is_err());
    /// ```
    pub fn from_setting(s: &str) -> Result<Option<Verification>, String> {
        match s {
            "none" => Ok(None),
            _ => s.parse().map(Some).map_err(|e| format!("{e}, or none")),
        }
    }

    /// What the measure is, and how the limit bounds it, for people.
    pub fn describe(&self) -> String {
        match self {
            Verification::Words(most) => format!("of the words differ (at most {most})"),
            Verification::Jaccard(least) => {
                format!("Jaccard similarity of the shingles (at least {least})")
            }
        }
    }
}

impl FromStr for Verification {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let share = |t: &str| t.parse::<f64>().ok().filter(|t| (0.0..=1.0).contains(t));
        let parsed = match s.split_once(':') {
            Some(("words", d)) => share(d).map(Verification::Words),
            Some(("jaccard", t)) => share(t).filter(|&t| t > 0.0).map(Verification::Jaccard),
            _ => None,
        };
        parsed.ok_or_else(|| {
            format!(
                "{s:?}: give jaccard:T (shingle Jaccard similarity at least T, as in \
                 jaccard:0.8, T above 0 and at most 1) or words:D (at most a share D of the \
                 words differ, as in words:0.1, D from 0 to 1)"
            )
        })
    }
}

impl fmt::Display for Verification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verification::Words(d) => write!(f, "words:{d}"),
            Verification::Jaccard(t) => write!(f, "jaccard:{t}"),
        }
    }
}

/// The words of `text` as sorted hashes, repeats kept: a multiset.
///
/// ```
/// use neardup_dedup::word_bag;
///
/// assert_eq!(word_bag("the cat, the hat").len(), 4);
/// assert_eq!(word_bag("Hat the cat the"), word_bag("the cat, the hat"));
/// ```
pub fn word_bag(text: &str) -> Vec<u64> {
    let mut out = word_hashes(text);
    out.sort_unstable();
    out
}

/// The words of `text` as hashes, in order.
///
/// ```
/// use neardup_dedup::word_hashes;
///
/// let w = word_hashes("the cat, the hat");
/// assert_eq!((w.len(), w[0] == w[2], w[0] == w[1]), (4, true, false));
/// ```
pub fn word_hashes(text: &str) -> Vec<u64> {
    // About one word per six bytes of English, fewer of most others: room
    // for them at once, not grown (and copied) eight times over.
    let mut out = Vec::with_capacity(text.len() / 6 + 1);
    for_each_word(text, |w| out.push(xxh3_64(w.as_bytes())));
    out
}

/// How much two word bags differ: the larger of the words that one has and
/// the other lacks (counted with their repeats), per word of the shorter;
/// 0 for the same words in any order, at most 1.
///
/// A tenth of a document's words substituted, inserted, deleted or cut off
/// is a difference of about 0.1, whichever it was.
///
/// ```
/// use neardup_dedup::{word_bag, word_difference};
///
/// let a = word_bag("a b c d e f g h i j");
/// assert_eq!(word_difference(&a, &word_bag("a b c d e f g h i x")), 0.1);
/// assert_eq!(word_difference(&a, &word_bag("a b c d e f g h i")), 1.0 / 9.0);
/// assert_eq!(word_difference(&a, &word_bag("j i h g f e d c b a")), 0.0);
/// assert_eq!(word_difference(&[], &[]), 0.0);
/// ```
pub fn word_difference(a: &[u64], b: &[u64]) -> f64 {
    difference_of(common(a, b), a.len(), b.len())
}

/// [`word_difference`] of bags of `a` and `b` words with `common` in
/// common.
fn difference_of(common: usize, a: usize, b: usize) -> f64 {
    let only = (a - common).max(b - common);
    let shorter = a.min(b);
    if only == 0 {
        0.0
    } else if shorter == 0 {
        1.0
    } else {
        (only as f64 / shorter as f64).min(1.0)
    }
}

/// How many elements two sorted lists have in common, repeats counted as
/// often as both have them (the size of their multiset intersection).
///
/// ```
/// assert_eq!(neardup_dedup::common(&[1, 1, 2, 5], &[1, 2, 2, 5, 7]), 3);
/// ```
pub fn common(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common
}

/// `|a ∩ b| / |a ∪ b|` of two sorted sets of shingles; 1 for two empty ones.
///
/// ```
/// use neardup_dedup::jaccard;
///
/// assert_eq!(jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
/// assert_eq!(jaccard(&[], &[]), 1.0);
/// ```
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    jaccard_of(common(a, b), a.len(), b.len())
}

/// [`jaccard`] of sets of `a` and `b` elements with `common` in common.
fn jaccard_of(common: usize, a: usize, b: usize) -> f64 {
    let union = a + b - common;
    if union == 0 {
        1.0
    } else {
        common as f64 / union as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    #[test]
    fn word_difference_equals_the_multiset_definition() {
        let texts = [
            "the cat sat on the mat and the dog sat on the log",
            "the the the cat",
            "the cat sat on a mat and the dog sat on the log today",
            "我们中出了一个叛徒 the end",
            "...",
            "",
        ];
        let count = |t: &str| {
            let mut m: HashMap<String, usize> = HashMap::new();
            let normal = neardup_core::normalize(t);
            for w in unicode_segmentation::UnicodeSegmentation::unicode_words(normal.as_str()) {
                *m.entry(w.to_string()).or_default() += 1;
            }
            m
        };
        let minus = |x: &HashMap<String, usize>, y: &HashMap<String, usize>| -> usize {
            x.iter()
                .map(|(w, &c)| c.saturating_sub(*y.get(w).unwrap_or(&0)))
                .sum()
        };
        for a in texts {
            for b in texts {
                let (ca, cb) = (count(a), count(b));
                let only = minus(&ca, &cb).max(minus(&cb, &ca));
                let shorter = ca.values().sum::<usize>().min(cb.values().sum());
                let expected = match (only, shorter) {
                    (0, _) => 0.0,
                    (_, 0) => 1.0,
                    _ => (only as f64 / shorter as f64).min(1.0),
                };
                let got = word_difference(&word_bag(a), &word_bag(b));
                assert_eq!(got, expected, "{a:?} {b:?}");
            }
        }
    }

    /// Sketches of `a` and `b` elements sharing `c` pass exactly from
    /// `min_overlap` common elements on, by the measures themselves.
    #[test]
    fn min_overlap_is_where_the_measures_start_to_pass() {
        for v in [
            Verification::Jaccard(0.8),
            Verification::Jaccard(0.5),
            Verification::Jaccard(1.0),
            Verification::Words(0.1),
            Verification::Words(0.0),
            Verification::Words(1.0),
        ] {
            for a in 0..40u64 {
                for b in 0..40u64 {
                    let least = v.min_overlap(a as usize, b as usize);
                    for c in 0..=a.min(b) {
                        let x: Vec<u64> = (0..a).collect();
                        let y: Vec<u64> = (a - c..a - c + b).collect();
                        assert_eq!(
                            v.accepts(&x, &y),
                            c as usize >= least,
                            "{v} {a} {b} {c}: {least}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn verification_parses_and_refuses() {
        assert_eq!("words:0.1".parse(), Ok(Verification::Words(0.1)));
        assert_eq!("jaccard:0.8".parse(), Ok(Verification::Jaccard(0.8)));
        for bad in ["words", "words:1.5", "jaccard:-1", "cosine:0.5", "words:x"] {
            let err = bad.parse::<Verification>().unwrap_err();
            assert!(err.contains("words:D"), "{bad}: {err}");
        }
    }

    #[test]
    fn jaccard_equals_the_set_definition() {
        let texts = [
            "the cat sat on the mat and the dog sat on the log",
            "the cat sat on a mat and the dog sat on the log",
            "我们中出了一个叛徒 the end",
            "",
        ];
        for a in texts {
            for b in texts {
                let (x, y) = (shingles(a), shingles(b));
                let (sx, sy): (HashSet<u64>, HashSet<u64>) =
                    (x.iter().copied().collect(), y.iter().copied().collect());
                let union = sx.union(&sy).count();
                let expected = if union == 0 {
                    1.0
                } else {
                    sx.intersection(&sy).count() as f64 / union as f64
                };
                assert_eq!(jaccard(&x, &y), expected, "{a:?} {b:?}");
            }
        }
    }
}
