//! The `python-simhash` profile: PyPI `simhash` 2.x `Simhash(text)`, bit for
//! bit, so that its users can bring their stored fingerprints along.
//!
//! That package lowercases the text (Python's `str.lower`), keeps the
//! characters matched by `[\w\u4e00-\u9fcc]` (Python's `\w`: letters,
//! numbers and `_`) and joins them with nothing, then takes every window of
//! 4 characters (the whole string when shorter, even when empty). Each
//! distinct window is hashed with MD5, of which the last 8 bytes (for 64
//! bits) are read big-endian, and weighted by its count; a bit is set when
//! more than half of the weight votes for it. A golden file made with the
//! real package pins this.

use unicode_general_category::{GeneralCategory, get_general_category};

use crate::accumulate::Accumulator;
use crate::fingerprint::{Fingerprint, Width};
use crate::fingerprinter::WeightedFeature;
use crate::hash::FeatureHash;

const WINDOW: usize = 4;

/// Python's `\w` for `str` patterns: `str.isalnum()` or `_`.
fn is_word_char(c: char) -> bool {
    use GeneralCategory::*;
    c == '_'
        || ('\u{4e00}'..='\u{9fcc}').contains(&c)
        || matches!(
            get_general_category(c),
            UppercaseLetter
                | LowercaseLetter
                | TitlecaseLetter
                | ModifierLetter
                | OtherLetter
                | DecimalNumber
                | LetterNumber
                | OtherNumber
        )
}

/// The distinct 4-character windows with their counts, sorted (as Python
/// sorts them: by code point).
fn windows(text: &str) -> Vec<(String, usize)> {
    let kept: Vec<char> = text
        .to_lowercase()
        .chars()
        .filter(|&c| is_word_char(c))
        .collect();
    let mut grams: Vec<String> = if kept.len() < WINDOW {
        vec![kept.iter().collect()]
    } else {
        kept.windows(WINDOW).map(|w| w.iter().collect()).collect()
    };
    grams.sort_unstable();
    let mut counted: Vec<(String, usize)> = Vec::new();
    for g in grams {
        match counted.last_mut() {
            Some((last, n)) if *last == g => *n += 1,
            _ => counted.push((g, 1)),
        }
    }
    counted
}

pub(crate) fn weighted_features(text: &str, width: Width) -> Vec<WeightedFeature> {
    windows(text)
        .into_iter()
        .map(|(g, n)| WeightedFeature {
            hash: FeatureHash::Md5.hash(g.as_bytes(), width),
            text: g,
            weight: n as f64,
        })
        .collect()
}

pub(crate) fn fingerprint(text: &str, width: Width) -> Fingerprint {
    let mut acc = Accumulator::with_width(width);
    for f in weighted_features(text, width) {
        acc.add(f.hash, f.weight);
    }
    Fingerprint::new(acc.value(), width)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_follow_the_package() {
        assert_eq!(windows(""), [(String::new(), 1)]);
        assert_eq!(windows("a b!"), [("ab".to_string(), 1)]);
        assert_eq!(
            windows("abcab cab"),
            [
                ("abca".to_string(), 2),
                ("bcab".to_string(), 2),
                ("cabc".to_string(), 1)
            ]
        );
    }
}
