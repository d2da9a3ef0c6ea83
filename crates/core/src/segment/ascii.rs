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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Digit,
    Underscore,
    /// `:` (MidLetter).
    MidLetter,
    /// `.` and `'` (MidNumLet, Single_Quote).
    MidNumLet,
    /// `,` and `;` (MidNum).
    MidNum,
    Other,
}

const fn class_of(b: u8) -> Class {
    match b {
        b'a'..=b'z' | b'A'..=b'Z' => Class::Letter,
        b'0'..=b'9' => Class::Digit,
        b'_' => Class::Underscore,
        b':' => Class::MidLetter,
        b'.' | b'\'' => Class::MidNumLet,
        b',' | b';' => Class::MidNum,
        _ => Class::Other,
    }
}

const CLASS: [Class; 128] = {
    let mut table = [Class::Other; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = class_of(b as u8);
        b += 1;
    }
    table
};

#[inline]
fn class(b: u8) -> Class {
    CLASS[(b & 0x7f) as usize]
}

#[inline]
fn is_word_char(c: Class) -> bool {
    matches!(c, Class::Letter | Class::Digit | Class::Underscore)
}

/// Calls `emit` with each word of the ASCII `text`, lowercased into
/// `scratch`. `text` must be ASCII.
#[inline]
pub(crate) fn for_each_word(text: &[u8], scratch: &mut Vec<u8>, mut emit: impl FnMut(&[u8])) {
    let n = text.len();
    let mut i = 0;
    while i < n {
        if !is_word_char(class(text[i])) {
            i += 1;
            continue;
        }
        let start = i;
        let mut alnum = false;
        let mut prev = class(text[i]);
        loop {
            alnum |= matches!(prev, Class::Letter | Class::Digit);
            i += 1;
            if i >= n {
                break;
            }
            let c = class(text[i]);
            if is_word_char(c) {
                prev = c;
                continue;
            }
            // A single mid character between two letters or two digits.
            let joins = i + 1 < n
                && matches!(
                    (prev, c, class(text[i + 1])),
                    (
                        Class::Letter,
                        Class::MidLetter | Class::MidNumLet,
                        Class::Letter
                    ) | (Class::Digit, Class::MidNum | Class::MidNumLet, Class::Digit)
                );
            if !joins {
                break;
            }
            i += 1;
            prev = class(text[i]);
        }
        if alnum {
            let word = &text[start..i];
            if word.iter().any(u8::is_ascii_uppercase) {
                scratch.clear();
                scratch.extend(word.iter().map(u8::to_ascii_lowercase));
                emit(scratch);
            } else {
                emit(word);
            }
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
