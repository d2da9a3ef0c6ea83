//! Short documents: the rule that lets verification, not the fingerprint,
//! find and judge their pairs.
//!
//! A fingerprint is a vote of a document's features; a short document has
//! few, so one changed word moves many bits (a word of 20 is 5% of the
//! votes). At the default k, SimHash finds 88% of the near-duplicates
//! under 50 words, against 98% of the longer ones (docs/QUALITY.md). The
//! rule: with
//! verification on, two [`is_short`] documents are a candidate pair
//! whatever their distance, when a prefix filter over their verification
//! sketches meets them; that filter meets every pair that verification can
//! pass and few others (the rarest elements of each sketch are looked up),
//! so each short document costs a few lookups, not a search of the whole
//! fingerprint space. Without verification the rule is off: there would
//! be nothing to judge by but the fingerprints.
//!
//! The filter holds the documents a short one can be near: those under
//! twice [`SHORT_WORDS`] ([`is_near_short`]; at Jaccard 0.8 a partner has at
//! most 1.25 times as many shingles, at a difference of 0.1 at most 1.1
//! times as many words). So every pair with a short document is the
//! filter's, and short documents are left out of the fingerprint search,
//! which then holds the long ones only (for thresholds that allow a partner
//! more than twice as long, Jaccard below 0.5, they stay in it too).

/// Documents with fewer words than this are short.
pub const SHORT_WORDS: usize = 50;

/// Whether two documents `distance` bits apart are a candidate pair when
/// `short_pair` says whether the short-document rule holds them
/// ([`is_short_pair`]): with verification, a pair the rule holds is one
/// whatever its distance; otherwise, within `k`.
///
/// ```
/// use neardup_dedup::is_within_reach;
///
/// assert!(is_within_reach(6, 6, true, false));
/// assert!(is_within_reach(20, 6, true, true));
/// assert!(!is_within_reach(20, 6, false, true));
/// assert!(!is_within_reach(7, 6, true, false));
/// ```
pub fn is_within_reach(distance: u32, k: u32, verified: bool, short_pair: bool) -> bool {
    distance <= k || (verified && short_pair)
}

/// Whether the short-document rule holds the pair of texts `a` and `b`:
/// one is short ([`is_short`]) and the other near short
/// ([`is_near_short`]).
///
/// ```
/// use neardup_dedup::is_short_pair;
///
/// let long = "word ".repeat(60);
/// assert!(is_short_pair("a few words", &long));
/// assert!(!is_short_pair(&long, &long));
/// assert!(!is_short_pair("a few words", &"word ".repeat(100)));
/// ```
pub fn is_short_pair(a: &str, b: &str) -> bool {
    (is_short(a) && is_near_short(b)) || (is_short(b) && is_near_short(a))
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
    length_under(text, SHORT_WORDS).is_some()
}

/// Whether `text` may be near a short document: under twice
/// [`SHORT_WORDS`] words.
///
/// ```
/// use neardup_dedup::is_near_short;
///
/// assert!(is_near_short(&"word ".repeat(99)));
/// assert!(!is_near_short(&"word ".repeat(100)));
/// ```
pub fn is_near_short(text: &str) -> bool {
    length_under(text, 2 * SHORT_WORDS).is_some()
}

/// [`length_in_words`] of `text` when it is under `limit`, reading no
/// further than the answer needs: one reading tells both whether a text is
/// near short and whether it is short.
///
/// ```
/// use neardup_dedup::{SHORT_WORDS, length_under};
///
/// assert_eq!(length_under("a few words", 2 * SHORT_WORDS), Some(3));
/// assert_eq!(length_under(&"word ".repeat(100), 2 * SHORT_WORDS), None);
/// ```
pub fn length_under(text: &str, limit: usize) -> Option<usize> {
    // A text with more than `limit` words and twice as many characters
    // other than spaces is long in either reading.
    let (mut words, mut others, mut spaces, mut in_word) = (0usize, 0usize, 0usize, false);
    let bytes = text.as_bytes();
    let mut i = 0;
    // ASCII 64 bytes at a time, as a mask of its spaces: words start where
    // a space (or the block before) is followed by another byte. The
    // compiler turns the comparisons into vector instructions.
    while let Some(block) = bytes.get(i..i + 64) {
        if block.iter().any(|&b| b >= 0x80) {
            break;
        }
        let space = block.iter().enumerate().fold(0u64, |mask, (j, &b)| {
            mask | u64::from(matches!(b, b'\t'..=b'\r' | b' ')) << j
        });
        let starts = !space & (space << 1 | u64::from(!in_word));
        words += starts.count_ones() as usize;
        spaces += space.count_ones() as usize;
        others += space.count_zeros() as usize;
        in_word = space >> 63 == 0;
        i += 64;
        if words > limit && others > 2 * limit {
            return None;
        }
    }
    // The rest, and any text from its first block with another character,
    // a character at a time.
    while i < bytes.len() {
        // ASCII, most text, without decoding; char::is_whitespace agrees.
        let (space, len) = match bytes[i] {
            b'\t'..=b'\r' | b' ' => (true, 1),
            0..=0x7f => (false, 1),
            _ => text[i..]
                .chars()
                .next()
                .map_or((false, 1), |c| (c.is_whitespace(), c.len_utf8())),
        };
        i += len;
        if space {
            spaces += 1;
            in_word = false;
        } else {
            others += 1;
            words += usize::from(!in_word);
            in_word = true;
        }
        if words > limit && others > 2 * limit {
            return None;
        }
    }
    let length = if spaces * 20 >= others + spaces {
        words
    } else {
        others / 2
    };
    (length < limit).then_some(length)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn length_under_reads_ascii_blocks_as_characters(
            parts in prop::collection::vec(("[a-z]{0,9}", "[ \t\n\r\u{b}\u{c}]{0,3}"), 0..400),
            tail in "[a-z é字\u{3000}]{0,3}",
        ) {
            let text: String = parts.iter().map(|(w, s)| format!("{w}{s}")).collect::<String>() + &tail;
            let length = length_in_words(&text);
            for limit in [10, 50, 100, 1000] {
                prop_assert_eq!(length_under(&text, limit), (length < limit).then_some(length), "{:?}", text);
            }
        }

        #[test]
        fn is_short_is_length_in_words_below_the_limit(
            parts in prop::collection::vec(("[a-z]{0,4}|字{1,3}|é|x", "[ \t\n\r\u{b}\u{c}\u{a0}\u{3000}]{0,2}"), 0..240)
        ) {
            let text: String = parts.iter().map(|(w, s)| format!("{w}{s}")).collect();
            prop_assert_eq!(is_short(&text), length_in_words(&text) < SHORT_WORDS, "{:?}", text);
            prop_assert_eq!(is_near_short(&text), length_in_words(&text) < 2 * SHORT_WORDS, "{:?}", text);
            let length = length_in_words(&text);
            prop_assert_eq!(length_under(&text, 70), (length < 70).then_some(length), "{:?}", text);
        }
    }
}
