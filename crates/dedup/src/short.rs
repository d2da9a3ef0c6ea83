//! Short documents: the rule that lets verification, not the fingerprint,
//! judge them.
//!
//! A fingerprint is a vote of a document's features; a short document has
//! few, so one changed word moves many bits (a word of 20 is 5% of the
//! votes). At the default k, SimHash finds only about 7 in 10 of the
//! near-duplicates under 50 words (docs/QUALITY.md). The rule: with
//! verification on, pairs of two [`is_short`] documents are searched at a
//! larger k (twice the k by default, `--k-short`) and every candidate is
//! then verified exactly; without verification the rule is off, since at
//! that distance SimHash alone reports too many pairs that are not
//! near-duplicates. (A short document and a long one are rarely within 10%
//! of each other's words.)

/// Documents with fewer words than this are short.
pub const SHORT_WORDS: usize = 50;

/// The k that short documents are searched at: `given` (`--k-short`), else
/// twice `k`, never below `k`.
///
/// ```
/// use neardup_dedup::short_k;
///
/// assert_eq!(short_k(6, None), 12);
/// assert_eq!(short_k(6, Some(9)), 9);
/// assert_eq!(short_k(6, Some(3)), 6);
/// ```
pub fn short_k(k: u32, given: Option<u32>) -> u32 {
    given.unwrap_or(k.saturating_mul(2)).max(k)
}

/// The farthest apart two documents may be and still be compared: the
/// [`short_k`] when both are short and pairs are verified (the rule holds
/// only with verification), else `k`.
///
/// ```
/// use neardup_dedup::pair_k;
///
/// assert_eq!(pair_k(6, None, true, true), 12);
/// assert_eq!(pair_k(6, None, false, true), 6);
/// assert_eq!(pair_k(6, None, true, false), 6);
/// ```
pub fn pair_k(k: u32, k_short: Option<u32>, verified: bool, both_short: bool) -> u32 {
    if verified && both_short {
        short_k(k, k_short)
    } else {
        k
    }
}

/// The length of `text` in words: its whitespace-separated words when it
/// is written with spaces (one space or more per 20 characters), else its
/// characters other than spaces over 2 (so 100 Chinese characters count as
/// 50 words).
///
/// ```
/// use neardup_dedup::length_in_words;
///
/// assert_eq!(length_in_words("the cat sat on the mat"), 6);
/// assert_eq!(length_in_words("我们中出了一个叛徒"), 4);
/// assert_eq!(length_in_words(""), 0);
/// ```
pub fn length_in_words(text: &str) -> usize {
    let (mut chars, mut spaces) = (0usize, 0usize);
    for c in text.chars() {
        chars += 1;
        spaces += usize::from(c.is_whitespace());
    }
    if spaces * 20 >= chars {
        text.split_whitespace().count()
    } else {
        (chars - spaces) / 2
    }
}

/// Whether `text` is short: under [`SHORT_WORDS`] words.
///
/// ```
/// use neardup_dedup::is_short;
///
/// assert!(is_short("a tweet of a few words"));
/// assert!(!is_short(&"word ".repeat(50)));
/// assert!(is_short(&"字".repeat(99)));
/// assert!(!is_short(&"字".repeat(100)));
/// ```
///
/// It stops reading as soon as the answer is known: a long document costs
/// its first few hundred bytes.
pub fn is_short(text: &str) -> bool {
    // length_in_words(text) < SHORT_WORDS in one pass, reading no further
    // than the answer needs: a text with more than SHORT_WORDS words and
    // twice as many characters other than spaces is long in either reading.
    let (mut words, mut others, mut spaces, mut in_word) = (0usize, 0usize, 0usize, false);
    for c in text.chars() {
        if c.is_whitespace() {
            spaces += 1;
            in_word = false;
        } else {
            others += 1;
            words += usize::from(!in_word);
            in_word = true;
        }
        if words > SHORT_WORDS && others > 2 * SHORT_WORDS {
            return false;
        }
    }
    let length = if spaces * 20 >= others + spaces {
        words
    } else {
        others / 2
    };
    length < SHORT_WORDS
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn is_short_is_length_in_words_below_the_limit(
            parts in prop::collection::vec(("[a-z]{0,4}|字{1,3}|x", "[ \t\n]{0,2}"), 0..120)
        ) {
            let text: String = parts.iter().map(|(w, s)| format!("{w}{s}")).collect();
            prop_assert_eq!(is_short(&text), length_in_words(&text) < SHORT_WORDS, "{:?}", text);
        }
    }
}
