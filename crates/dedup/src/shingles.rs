//! Shingles: the pieces of a text whose exact Jaccard similarity says how
//! near two documents are, cut the way data pipelines cut them.
//!
//! Text written with spaces is cut into word 3-shingles: three words in a
//! row, the words of [`crate::word_hashes`] (NFKC, lowercase,
//! Unicode word boundaries, those with a letter or a digit). Text written
//! without spaces (Chinese, Japanese, Thai…) is cut into character
//! 4-grams over its letters and digits, punctuation and spaces dropped,
//! after the same normalisation (which also writes traditional Chinese
//! characters as simplified ones). These are the shingles MinHash users set
//! their thresholds on. The Chinese cut is the stricter: a character
//! 4-gram spans about two words, and 3% of the characters substituted
//! leaves a copy under Jaccard 0.8 nine times in ten, where 3% of the words
//! of English leaves it over (`bench/shingle_sizes.py`, docs/QUALITY.md).
//!
//! Which cut a text gets is decided by the text alone ([`Shingling::of`]),
//! so every document has one set of shingles whatever it is compared with.

use neardup_core::normalize;
use xxhash_rust::xxh3::xxh3_64;

use crate::verify::word_hashes;

/// Words per shingle for text written with spaces.
pub const WORD_SHINGLE: usize = 3;

/// Characters per shingle for text written without spaces.
pub const CHAR_SHINGLE: usize = 4;

/// How a text is cut into shingles.
///
/// ```
/// use neardup_dedup::Shingling;
///
/// assert_eq!(Shingling::of("The cat sat on the mat."), Shingling::Words);
/// assert_eq!(Shingling::of("我们中出了一个叛徒。"), Shingling::Chars);
/// assert_eq!(Shingling::of("NASA发射了新的火箭"), Shingling::Chars);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shingling {
    /// Word [`WORD_SHINGLE`]-shingles.
    Words,
    /// Character [`CHAR_SHINGLE`]-grams over letters and digits.
    Chars,
}

impl Shingling {
    /// The cut for `text`: characters when at least half of its letters and
    /// digits belong to scripts written without spaces between words (Han,
    /// kana, Thai, Lao, Khmer, Myanmar), else words.
    pub fn of(text: &str) -> Shingling {
        if text.is_ascii() {
            return Shingling::Words;
        }
        let (mut unspaced, mut letters) = (0usize, 0usize);
        let mut rest = text;
        while !rest.is_empty() {
            // In a run of ASCII no character is of an unspaced script: only
            // its letters and digits count.
            let ascii = rest
                .bytes()
                .position(|b| !b.is_ascii())
                .unwrap_or(rest.len());
            letters += rest.as_bytes()[..ascii]
                .iter()
                .filter(|b| b.is_ascii_alphanumeric())
                .count();
            rest = &rest[ascii..];
            let mut chars = rest.chars();
            if let Some(c) = chars.next() {
                if c.is_alphanumeric() {
                    letters += 1;
                    unspaced += usize::from(is_unspaced(c));
                }
                rest = chars.as_str();
            }
            // Decided: even if every byte left were an unspaced letter.
            if letters - unspaced > unspaced + rest.len() {
                return Shingling::Words;
            }
        }
        if letters > 0 && 2 * unspaced >= letters {
            Shingling::Chars
        } else {
            Shingling::Words
        }
    }
}

/// Whether `c` belongs to a script written without spaces between words.
pub(crate) fn is_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF          // hiragana, katakana
        | 0x31F0..=0x31FF        // katakana extensions
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0x20000..=0x323AF      // Han
        | 0xFF66..=0xFF9F        // halfwidth katakana
        | 0x0E00..=0x0EFF        // Thai, Lao
        | 0x1000..=0x109F        // Myanmar
        | 0x1780..=0x17FF) // Khmer
}

/// The distinct shingles of `text`, cut as [`Shingling::of`] says, as
/// sorted 64-bit hashes (XXH3). A text shorter than one shingle is one
/// shingle; a text with no letter or digit has none.
///
/// ```
/// use neardup_dedup::shingles;
///
/// assert_eq!(shingles("a b c d").len(), 2);
/// assert_eq!(shingles("A, b; c."), shingles("a b c"));
/// assert_eq!(shingles("one").len(), 1);
/// assert!(shingles("...").is_empty());
/// // Chinese: 4-grams of characters, punctuation and spaces dropped.
/// assert_eq!(shingles("我们中出了，一个叛徒"), shingles("我们中出了一个叛徒"));
/// assert_eq!(shingles("我们中出了一个叛徒").len(), 6);
/// ```
pub fn shingles(text: &str) -> Vec<u64> {
    match Shingling::of(text) {
        Shingling::Words => word_shingles(text, WORD_SHINGLE),
        Shingling::Chars => char_shingles(text, CHAR_SHINGLE),
    }
}

/// The distinct shingles of `n` words of `text`, as sorted hashes.
///
/// ```
/// use neardup_dedup::word_shingles;
///
/// assert_eq!(word_shingles("a b c d", 2).len(), 3);
/// assert_eq!(word_shingles("a b a b a", 2).len(), 2);
/// ```
pub fn word_shingles(text: &str, n: usize) -> Vec<u64> {
    // Each word hashed once; a shingle is the hash of its words' hashes,
    // written over the first of them (a window reads only words after it).
    let mut hashes = word_hashes(text);
    let n = n.max(1);
    let shingles = hashes.len().saturating_sub(n - 1).max(hashes.len().min(1));
    for i in 0..shingles {
        hashes[i] = of_hashes(&hashes[i..(i + n).min(hashes.len())]);
    }
    hashes.truncate(shingles);
    hashes.sort_unstable();
    hashes.dedup();
    hashes
}

/// The hash of a run of hashes, in order. Each step is a bijection of the
/// state for a given hash and of the hash for a given state, so two runs of
/// one length that differ anywhere end in different states: shingles of
/// distinct words never collide.
fn of_hashes(hashes: &[u64]) -> u64 {
    let mut state = 0x243F_6A88_85A3_08D3_u64;
    for &h in hashes {
        state = (state ^ h)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
    state
}

/// The distinct `n`-grams of the letters and digits of `text` normalised,
/// as sorted hashes.
///
/// ```
/// use neardup_dedup::char_shingles;
///
/// assert_eq!(char_shingles("ab, cd!", 2), char_shingles("abcd", 2));
/// assert_eq!(char_shingles("開放", 1), char_shingles("开放", 1));
/// ```
pub fn char_shingles(text: &str, n: usize) -> Vec<u64> {
    let normal = normalize(text);
    let (mut kept, mut ends) = (String::with_capacity(normal.len()), Vec::new());
    for c in normal.chars().filter(|c| c.is_alphanumeric()) {
        kept.push(c);
        ends.push(kept.len());
    }
    window_hashes(&kept, &ends, n)
}

/// The hashes of the slices of `text` that span `n` units in a row, the
/// units ending at `ends` (each starts where the one before it ended); one
/// slice for fewer than `n` units.
fn window_hashes(text: &str, ends: &[usize], n: usize) -> Vec<u64> {
    let n = n.max(1);
    let Some(&last) = ends.last() else {
        return Vec::new();
    };
    let start_of = |i: usize| if i == 0 { 0 } else { ends[i - 1] };
    let mut out: Vec<u64> = if ends.len() <= n {
        vec![xxh3_64(&text.as_bytes()[..last])]
    } else {
        (0..=ends.len() - n)
            .map(|i| xxh3_64(&text.as_bytes()[start_of(i)..ends[i + n - 1]]))
            .collect()
    };
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    /// Shingles by their definition, as strings.
    fn by_definition(units: &[String], n: usize) -> HashSet<String> {
        if units.is_empty() {
            return HashSet::new();
        }
        if units.len() <= n {
            return HashSet::from([units.join("|")]);
        }
        units.windows(n).map(|w| w.join("|")).collect()
    }

    proptest! {
        #[test]
        fn word_shingles_are_the_distinct_windows(
            words in prop::collection::vec("[a-c]{1,2}", 0..30), n in 1usize..5
        ) {
            let text = words.join(" ");
            let expected = by_definition(&words, n).len();
            prop_assert_eq!(word_shingles(&text, n).len(), expected);
        }

        #[test]
        fn the_cut_is_decided_by_the_main_script(
            parts in prop::collection::vec("[a-z]{1,5}|[我们他]{1,4}|é|[ ,.1]", 0..60)
        ) {
            let text: String = parts.concat();
            let (mut letters, mut unspaced) = (0, 0);
            for c in text.chars().filter(|c| c.is_alphanumeric()) {
                letters += 1;
                unspaced += usize::from(is_unspaced(c));
            }
            let expected = if letters > 0 && 2 * unspaced >= letters {
                Shingling::Chars
            } else {
                Shingling::Words
            };
            prop_assert_eq!(Shingling::of(&text), expected, "{:?}", text);
        }

        #[test]
        fn char_shingles_are_the_distinct_windows(
            chars in prop::collection::vec("[我们他a1]", 0..30), n in 1usize..6
        ) {
            let text: String = chars.join("，");
            let expected = by_definition(&chars, n).len();
            prop_assert_eq!(char_shingles(&text, n).len(), expected);
        }
    }

    #[test]
    fn word_shingles_keep_order_and_words_apart() {
        // The same words in another order, or split otherwise, are other
        // shingles.
        assert_ne!(word_shingles("a b c", 3), word_shingles("c b a", 3));
        assert_ne!(word_shingles("ab c d", 3), word_shingles("a bc d", 3));
        assert_eq!(word_shingles("a b c", 3), word_shingles("A  b, c!", 3));
    }

    #[test]
    fn mixed_text_is_cut_by_its_main_script() {
        assert_eq!(Shingling::of("日本語のテキストです"), Shingling::Chars);
        assert_eq!(
            Shingling::of("The report on 北京 was long and detailed"),
            Shingling::Words
        );
        assert_eq!(Shingling::of("12345"), Shingling::Words);
        assert_eq!(Shingling::of(""), Shingling::Words);
    }
}
