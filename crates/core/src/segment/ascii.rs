//! The ASCII fast path: UAX #29 words of ASCII text, eight bytes at a time.
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
//! The text is lowercased and classified eight bytes at a time (SWAR range
//! checks on a `u64`) into a bitmap of word bytes; words are then the runs of
//! set bits, joined across single mid characters. A property test checks
//! this against the `unicode-segmentation` crate on arbitrary ASCII strings.

const LETTER: u8 = 2;
const DIGIT: u8 = 4;
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
            b'a'..=b'z' | b'A'..=b'Z' => LETTER,
            b'0'..=b'9' => DIGIT,
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

const HIGH: u64 = 0x8080_8080_8080_8080;
const ONES: u64 = 0x0101_0101_0101_0101;

/// The high bit of each byte of `x` (all below 0x80) that lies in `lo..=hi`.
/// No addition carries into the next byte, as every byte is below 0x80.
#[inline(always)]
fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    let at_least_lo = x.wrapping_add(ONES * (0x80 - lo as u64));
    let above_hi = x.wrapping_add(ONES * (0x7f - hi as u64));
    at_least_lo & !above_hi & HIGH
}

/// The high bits of eight bytes gathered into the low eight bits.
#[inline(always)]
fn gather(high: u64) -> u64 {
    ((high >> 7) & ONES).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Scratch space of the ASCII path.
#[derive(Debug, Default)]
pub(crate) struct AsciiScratch {
    lower: Vec<u8>,
    /// Bit `i` is set when byte `i` is a word byte (lowercase letter, digit,
    /// `_`).
    words: Vec<u64>,
}

/// Lowercases `text` into `lower` and marks its word bytes in `words`, eight
/// bytes at a time.
fn classify(text: &[u8], lower: &mut Vec<u8>, words: &mut Vec<u64>) {
    let n = text.len();
    lower.clear();
    lower.resize(n + 8, 0);
    words.clear();
    words.resize(n.div_ceil(64) + 1, 0);
    let full = n / 8;
    for k in 0..=full {
        let mut word = [0u8; 8];
        if k < full {
            word.copy_from_slice(&text[8 * k..8 * k + 8]);
        } else {
            word[..n - 8 * k].copy_from_slice(&text[8 * k..]);
        }
        let x = u64::from_le_bytes(word);
        // Capitals get 0x20 added: the high bit of each capital, moved down.
        let x = x | (in_range(x, b'A', b'Z') >> 2);
        lower[8 * k..8 * k + 8].copy_from_slice(&x.to_le_bytes());
        let word = in_range(x, b'a', b'z') | in_range(x, b'0', b'9') | in_range(x, b'_', b'_');
        words[k / 8] |= gather(word) << (8 * (k % 8));
    }
    lower.truncate(n);
}

/// The first bit at or after `from` (or `limit`) that is set, or with
/// `flip = u64::MAX` clear.
#[inline(always)]
fn next_bit(words: &[u64], from: usize, limit: usize, flip: u64) -> usize {
    let mut k = from / 64;
    let mut bits = (words[k] ^ flip) & (u64::MAX << (from % 64));
    loop {
        if bits != 0 {
            return (k * 64 + bits.trailing_zeros() as usize).min(limit);
        }
        k += 1;
        if k * 64 >= limit {
            return limit;
        }
        bits = words[k] ^ flip;
    }
}

/// The first word byte at or after `from`.
#[inline(always)]
fn next_set(words: &[u64], from: usize, limit: usize) -> usize {
    next_bit(words, from, limit, 0)
}

/// The first byte at or after `from` that is not a word byte.
#[inline(always)]
fn next_clear(words: &[u64], from: usize, limit: usize) -> usize {
    next_bit(words, from, limit, u64::MAX)
}

/// Calls `emit` with each word of the ASCII `text`, lowercased. `text` must
/// be ASCII.
#[inline]
pub(crate) fn for_each_word(text: &[u8], scratch: &mut AsciiScratch, mut emit: impl FnMut(&[u8])) {
    let AsciiScratch { lower, words } = scratch;
    classify(text, lower, words);
    let (lower, words, n) = (&lower[..], &words[..], text.len());
    let mut at = 0;
    while at < n {
        let start = next_set(words, at, n);
        if start >= n {
            return;
        }
        let mut end = next_clear(words, start, n);
        // A single mid character between two letters or two digits joins.
        while end + 1 < n {
            let (last, mid, next) = (
                flags(lower[end - 1]),
                flags(lower[end]),
                flags(lower[end + 1]),
            );
            if (last & LETTER != 0 && mid & JOINS_LETTERS != 0 && next & LETTER != 0)
                || (last & DIGIT != 0 && mid & JOINS_DIGITS != 0 && next & DIGIT != 0)
            {
                end = next_clear(words, end + 1, n);
            } else {
                break;
            }
        }
        let word = &lower[start..end];
        // A run of underscores alone is not a word.
        if lower[start] != b'_' || word.iter().any(|&b| b != b'_') {
            emit(word);
        }
        at = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use unicode_segmentation::UnicodeSegmentation;

    fn fast(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut scratch = AsciiScratch::default();
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
    fn gather_moves_high_bits_down() {
        for k in 0..8 {
            assert_eq!(gather(0x80u64 << (8 * k)), 1 << k);
        }
        assert_eq!(gather(HIGH), 0xff);
    }

    #[test]
    fn long_words_cross_blocks() {
        let long = "A".repeat(200) + " b " + &"c_".repeat(70);
        assert_eq!(fast(&long), reference(&long));
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
