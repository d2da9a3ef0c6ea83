//! Verification: the exact Jaccard similarity of two documents' shingles,
//! to remove the false positives of the fingerprint filter.
//!
//! A document's tokens are the words of its normalised text (NFKC,
//! lowercase) split on Unicode word boundaries, keeping those with a letter
//! or a digit; Han and kana characters are tokens of one character each
//! there. A shingle is `n` consecutive tokens; a text with fewer tokens is
//! one shingle of all of them. Shingles are compared by their XXH3-64
//! hashes.

use neardup_core::normalize;
use unicode_segmentation::UnicodeSegmentation;
use xxhash_rust::xxh3::xxh3_64;

/// The distinct shingles of `n` tokens of `text`, as sorted hashes.
///
/// ```
/// use neardup_dedup::shingles;
///
/// assert_eq!(shingles("a b c d", 3).len(), 2);
/// assert_eq!(shingles("A, b; c.", 3), shingles("a b c", 3));
/// assert_eq!(shingles("one", 3).len(), 1);
/// assert!(shingles("...", 3).is_empty());
/// ```
pub fn shingles(text: &str, n: usize) -> Vec<u64> {
    let normal = normalize(text);
    let words: Vec<&str> = normal
        .unicode_words()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .collect();
    let n = n.max(1);
    let mut out: Vec<u64> = if words.len() <= n {
        if words.is_empty() {
            Vec::new()
        } else {
            vec![shingle_hash(&words)]
        }
    } else {
        words.windows(n).map(shingle_hash).collect()
    };
    out.sort_unstable();
    out.dedup();
    out
}

fn shingle_hash(words: &[&str]) -> u64 {
    // Words joined by a separator no word holds.
    let joined = words.join("\u{1f}");
    xxh3_64(joined.as_bytes())
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
    let (mut i, mut j, mut common) = (0, 0, 0usize);
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
    let union = a.len() + b.len() - common;
    if union == 0 {
        1.0
    } else {
        common as f64 / union as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

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
                let (x, y) = (shingles(a, 3), shingles(b, 3));
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
