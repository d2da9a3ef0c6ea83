//! The truth of the benchmark: two documents are near-duplicates when the
//! exact Jaccard similarity of their shingles is at least [`THRESHOLD`],
//! the convention MinHash users set their thresholds in.
//!
//! Computed here from the definition, on shingles as strings in sets, and
//! never by the verifier under test (`neardup_dedup::shingles` hashes its
//! own, decides the script itself and is scored against this):
//!
//! - English and other text written with spaces: word 3-shingles, the words
//!   of UAX #29 that hold a letter or a digit, after NFKC and lowercasing;
//! - Chinese (and Japanese): character 4-grams over letters and digits,
//!   punctuation and spaces dropped, after NFKC, lowercasing and writing
//!   traditional characters as simplified ones (by the inverse of OpenCC's
//!   table): a copy in traditional characters says the same thing.
//!
//! The language is the source's, as its corpus is labelled.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

use crate::edits::ST_CHARACTERS;

/// The Jaccard similarity from which two documents are near-duplicates.
pub const THRESHOLD: f64 = 0.8;

/// The shingles of `text` in `language` by the truth's definition.
///
/// ```
/// use neardup_eval::truth_shingles;
///
/// let en = truth_shingles("The cat sat on the mat.", "en");
/// assert!(en.contains("cat sat on") && en.len() == 4);
/// let zh = truth_shingles("我们，中出了", "zh");
/// assert!(zh.contains("我们中出") && zh.len() == 2);
/// assert_eq!(truth_shingles("漢字書法", "zh"), truth_shingles("汉字书法", "zh"));
/// ```
pub fn truth_shingles(text: &str, language: &str) -> HashSet<String> {
    let normal: String = text.nfkc().collect::<String>().to_lowercase();
    let (units, n): (Vec<String>, usize) = if is_unspaced(language) {
        let chars = normal
            .chars()
            .filter(|c| c.is_alphanumeric())
            .map(|c| simplified(c).to_string());
        (chars.collect(), 4)
    } else {
        let words = normal.unicode_words().map(str::to_string);
        (words.collect(), 3)
    };
    let separator = if is_unspaced(language) { "" } else { " " };
    if units.len() <= n {
        return if units.is_empty() {
            HashSet::new()
        } else {
            HashSet::from([units.join(separator)])
        };
    }
    units.windows(n).map(|w| w.join(separator)).collect()
}

/// `|a ∩ b| / |a ∪ b|`; 1 for two empty sets.
///
/// ```
/// use neardup_eval::{similarity, truth_shingles};
///
/// let a = truth_shingles("one two three four five", "en");
/// let b = truth_shingles("one two three four six", "en");
/// assert_eq!(similarity(&a, &b), 0.5);
/// ```
pub fn similarity(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let common = a.intersection(b).count();
    let union = a.len() + b.len() - common;
    if union == 0 {
        1.0
    } else {
        common as f64 / union as f64
    }
}

fn is_unspaced(language: &str) -> bool {
    matches!(language, "zh" | "ja")
}

/// The simplified form of a traditional character, by OpenCC's table read
/// backwards (the first simplified character that has it), or `c`.
fn simplified(c: char) -> char {
    static TABLE: LazyLock<HashMap<char, char>> = LazyLock::new(|| {
        let mut table = HashMap::new();
        for line in ST_CHARACTERS.lines().filter(|l| !l.starts_with('#')) {
            let Some((from, to)) = line.split_once('\t') else {
                continue;
            };
            let mut from = from.chars();
            let (Some(s), None) = (from.next(), from.next()) else {
                continue;
            };
            for t in to.split(' ').filter_map(|t| t.chars().next()) {
                if t != s {
                    table.entry(t).or_insert(s);
                }
            }
        }
        table
    });
    TABLE.get(&c).copied().unwrap_or(c)
}
