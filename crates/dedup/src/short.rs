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

use crate::shingles::is_unspaced;

/// Documents with fewer words than this are short.
pub const SHORT_WORDS: usize = 50;

/// Whether two documents `distance` bits apart are a candidate pair when
/// `short_pair` says whether the short-document rule holds them
/// ([`is_short_pair`]): with verification, a pair the rule holds is one
/// whatever its distance; otherwise, within `k`.
///
/// ```
/// use neardup_dedup::compat::is_within_reach;
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
/// use neardup_dedup::compat::is_short_pair;
///
/// let long = "word ".repeat(60);
/// assert!(is_short_pair("a few words", &long));
/// assert!(!is_short_pair(&long, &long));
/// assert!(!is_short_pair("a few words", &"word ".repeat(100)));
/// ```
pub fn is_short_pair(a: &str, b: &str) -> bool {
    (is_short(a) && is_near_short(b)) || (is_short(b) && is_near_short(a))
}

/// The length of `text` in words, counted as its shingles are cut
/// ([`crate::Shingling::of`]), so that spaces and punctuation never move a
/// text across the short-document line: text cut into character 4-grams
/// (Chinese, Japanese…) counts its letters and digits over 2 (100 Chinese
/// characters are 50 words), whatever spaces it has; other text counts its
/// runs of letters and digits, a character of an unspaced script counting
/// one. Either count is at least the number of shingles the text has (but
/// for its shortest), so that a text with fewer shingles than a partner's
/// bound is counted no longer than that bound, unless it repeats itself.
///
/// ```
/// use neardup_dedup::compat::length_in_words;
///
/// assert_eq!(length_in_words("the cat sat on the mat"), 6);
/// assert_eq!(length_in_words("the cat—sat, on the mat!"), 6);
/// assert_eq!(length_in_words("我们中出了一个叛徒"), 4);
/// // Spaces between the sentences of a Chinese text change nothing.
/// assert_eq!(length_in_words("我们中出了。 一个叛徒。 "), 4);
/// assert_eq!(length_in_words(""), 0);
/// ```
pub fn length_in_words(text: &str) -> usize {
    let (mut letters, mut unspaced, mut runs, mut in_run) = (0usize, 0usize, 0usize, false);
    for c in text.chars() {
        let (letter, unspaced_letter) = (c.is_alphanumeric(), is_unspaced(c));
        letters += usize::from(letter);
        unspaced += usize::from(letter && unspaced_letter);
        runs += usize::from(letter && !unspaced_letter && !in_run);
        in_run = letter && !unspaced_letter;
    }
    reading(letters, unspaced, runs)
}

/// The length of a text from its counts of letters and digits, of those
/// in unspaced scripts, and of runs of the others: as
/// [`crate::Shingling::of`] cuts it.
fn reading(letters: usize, unspaced: usize, runs: usize) -> usize {
    if letters > 0 && 2 * unspaced >= letters {
        letters / 2
    } else {
        runs + unspaced
    }
}

/// Whether `text` is short: under [`SHORT_WORDS`] words.
///
/// ```
/// use neardup_dedup::compat::is_short;
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
/// use neardup_dedup::compat::is_near_short;
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
/// use neardup_dedup::SHORT_WORDS;
/// use neardup_dedup::compat::length_under;
///
/// assert_eq!(length_under("a few words", 2 * SHORT_WORDS), Some(3));
/// assert_eq!(length_under(&"word ".repeat(100), 2 * SHORT_WORDS), None);
/// ```
pub fn length_under(text: &str, limit: usize) -> Option<usize> {
    let (mut letters, mut unspaced, mut runs, mut in_run) = (0usize, 0usize, 0usize, false);
    // Both readings at the limit or past it: long, whichever applies.
    let long = |letters: usize, unspaced: usize, runs: usize| {
        runs + unspaced >= limit && letters >= 2 * limit
    };
    let bytes = text.as_bytes();
    let mut i = 0;
    // ASCII 64 bytes at a time, as a mask of its letters and digits: runs
    // start where one follows another byte (or the block before ended
    // outside a run). The compiler turns the comparisons into vector
    // instructions.
    while let Some(block) = bytes.get(i..i + 64) {
        if block.iter().any(|&b| b >= 0x80) {
            break;
        }
        let alnum = block.iter().enumerate().fold(0u64, |mask, (j, &b)| {
            mask | u64::from(b.is_ascii_alphanumeric()) << j
        });
        let starts = alnum & !(alnum << 1 | u64::from(in_run));
        runs += starts.count_ones() as usize;
        letters += alnum.count_ones() as usize;
        in_run = alnum >> 63 == 1;
        i += 64;
        if long(letters, unspaced, runs) {
            return None;
        }
    }
    // The rest, and any text from its first block with another character,
    // a character at a time.
    while i < bytes.len() {
        // ASCII, most text, without decoding; char::is_alphanumeric agrees.
        let (letter, unspaced_letter, len) = match bytes[i] {
            b @ 0..=0x7f => (b.is_ascii_alphanumeric(), false, 1),
            _ => text[i..].chars().next().map_or((false, false, 1), |c| {
                (c.is_alphanumeric(), is_unspaced(c), c.len_utf8())
            }),
        };
        i += len;
        letters += usize::from(letter);
        unspaced += usize::from(letter && unspaced_letter);
        runs += usize::from(letter && !unspaced_letter && !in_run);
        in_run = letter && !unspaced_letter;
        if long(letters, unspaced, runs) {
            return None;
        }
    }
    let length = reading(letters, unspaced, runs);
    (length < limit).then_some(length)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn length_under_reads_ascii_blocks_as_characters(
            parts in prop::collection::vec(("[a-z0-9]{0,9}", "[ \t\n\r\u{b}\u{c},.'-]{0,3}"), 0..400),
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

        #[test]
        fn spaces_and_punctuation_never_move_a_text_across_the_line(
            parts in prop::collection::vec("[我们他的是一个了]{1,6}|[a-z]{1,5}", 1..200),
            separators in prop::collection::vec("[ ，。,.!\n\u{3000}]{1,2}", 200),
        ) {
            // The same letters and digits, run together and set apart: as
            // their shingles are the same, so is their length.
            let spaced: String = parts.iter().zip(&separators).map(|(p, s)| format!("{p}{s}")).collect();
            let is_latin = |p: &String| p.is_ascii();
            // Latin words stay apart (they are one run when run together).
            let joined: String = parts.iter().map(|p| if is_latin(p) { format!("{p} ") } else { p.clone() }).collect();
            prop_assert_eq!(length_in_words(&spaced), length_in_words(&joined), "{:?} {:?}", spaced, joined);
            prop_assert_eq!(is_short(&spaced), is_short(&joined));
        }

        #[test]
        fn a_text_has_no_more_shingles_than_its_length_allows(
            parts in prop::collection::vec(("[a-z0-9]{1,6}|[我们他的是]{1,4}", "[ ,.'\n]{0,2}"), 0..200),
        ) {
            // The bound the short-document rule rests on: a short text's
            // partners have few shingles, so they are near-short.
            let text: String = parts.iter().map(|(w, s)| format!("{w}{s}")).collect();
            let shingles = crate::shingles(&text).len();
            let length = length_in_words(&text);
            let bound = match crate::Shingling::of(&text) {
                crate::Shingling::Words => length.max(1),
                crate::Shingling::Chars => 2 * length + 1,
            };
            prop_assert!(shingles <= bound, "{} shingles, length {} in {:?}", shingles, length, text);
        }
    }
}
