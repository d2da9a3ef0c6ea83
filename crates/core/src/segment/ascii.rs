//! The ASCII fast path: UAX #29 words of ASCII text, byte by byte.
//!
//! Most text in most corpora is ASCII, and running it through full Unicode
//! normalisation and word segmentation costs about eight times as much as
//! looking at each byte once. For ASCII, NFKC is the identity and lowercasing
//! is a byte operation, and the word-boundary rules of UAX #29 that can apply
//! reduce to these (with `L` a letter, `N` a digit):
//!
//! - letters, digits and `_` join each other (WB5, WB8–WB10, WB13a, WB13b);
//! - `L (: | . | ') L` joins (WB6, WB7);
//! - `N (, | ; | . | ') N` joins (WB11, WB12);
//! - every other boundary breaks, and only segments with a letter or digit
//!   are words.
//!
//! A property test checks this against the `unicode-segmentation` crate on
//! arbitrary ASCII strings.

/// A letter, digit or `_`: joins its neighbours of the same kind.
const WORD: u8 = 1;
const LETTER: u8 = 2;
const DIGIT: u8 = 4;
const UPPER: u8 = 8;
/// Joins two letters: `:` (MidLetter), `.` and `'` (MidNumLet, Single_Quote).
const JOINS_LETTERS: u8 = 16;
/// Joins two digits: `,` and `;` (MidNum), `.` and `'`.
const JOINS_DIGITS: u8 = 32;

static FLAGS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = match c {
            b'a'..=b'z' => WORD | LETTER,
            b'A'..=b'Z' => WORD | LETTER | UPPER,
            b'0'..=b'9' => WORD | DIGIT,
            b'_' => WORD,
            b':' => JOINS_LETTERS,
            b'.' | b'\'' => JOINS_LETTERS | JOINS_DIGITS,
            b',' | b';' => JOINS_DIGITS,
            _ => 0,
        };
        b += 1;
    }
    table
};

#[inline]
fn flags(b: u8) -> u8 {
    FLAGS[b as usize]
}

/// Calls `emit` with each word of the ASCII `text`, lowercased (into
/// `scratch` when it has capitals). `text` must be ASCII.
#[inline]
pub(crate) fn for_each_word(text: &[u8], scratch: &mut Vec<u8>, mut emit: impl FnMut(&[u8])) {
    let n = text.len();
    let mut i = 0;
    loop {
        while i < n && flags(text[i]) & WORD == 0 {
            i += 1;
        }
        if i >= n {
            return;
        }
        let start = i;
        let mut seen = 0u8;
        let mut last = 0u8;
        loop {
            while i < n {
                let f = flags(text[i]);
                if f & WORD == 0 {
                    break;
                }
                seen |= f;
                last = f;
                i += 1;
            }
            // A single mid character between two letters or two digits.
            if i + 1 < n {
                let (mid, next) = (flags(text[i]), flags(text[i + 1]));
                if (last & LETTER != 0 && mid & JOINS_LETTERS != 0 && next & LETTER != 0)
                    || (last & DIGIT != 0 && mid & JOINS_DIGITS != 0 && next & DIGIT != 0)
                {
                    i += 1;
                    continue;
                }
            }
            break;
        }
        if seen & (LETTER | DIGIT) == 0 {
            continue;
        }
        let word = &text[start..i];
        if seen & UPPER != 0 {
            scratch.clear();
            scratch.extend(word.iter().map(u8::to_ascii_lowercase));
            emit(scratch);
        } else {
            emit(word);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use unicode_segmentation::UnicodeSegmentation;

    fn fast(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        for_each_word(text.as_bytes(), &mut scratch, |w| {
            out.push(String::from_utf8(w.to_vec()).unwrap())
        });
        out
    }

    fn reference(text: &str) -> Vec<String> {
        text.to_lowercase()
            .unicode_words()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn examples() {
        assert_eq!(
            fast("Don't stop: e.g. 3.14, 1,000; a:b x_y _ __ .5 a.. 'q'"),
            reference("Don't stop: e.g. 3.14, 1,000; a:b x_y _ __ .5 a.. 'q'")
        );
        assert_eq!(fast("The CAT sat."), ["the", "cat", "sat"]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn matches_uax29_on_ascii(text in "[a-cA-C0-2_:.',; \t\n\r!-]{0,40}") {
            prop_assert_eq!(fast(&text), reference(&text));
        }

        #[test]
        fn matches_uax29_on_any_ascii(text in "[\\x00-\\x7f]{0,60}") {
            prop_assert_eq!(fast(&text), reference(&text));
        }
    }
}
