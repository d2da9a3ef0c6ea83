//! The ASCII fast path: UAX #29 words of ASCII text, 64 bytes at a time.
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
//! Each block of 64 bytes is lowercased and classified into bitmaps, one bit
//! per byte (letters, digits, `_`, and the two kinds of middle characters;
//! with SSE2 on x86-64, sixteen bytes per instruction). The joining rules
//! are then shifts and ands of those bitmaps, so that the words are exactly
//! the runs of set bits in one bitmap, found with `trailing_zeros`. A
//! property test checks this against the `unicode-segmentation` crate on
//! arbitrary ASCII strings.

/// Bytes of text classified at a time: one bit of a `u64` each.
const BLOCK: usize = 64;

/// Zero bytes kept after the lowercased text, so that the first 16 bytes of
/// any word can be read as one `u128` (see [`super::Token::head`]).
const PAD: usize = 16;

/// The classes of the bytes of one block, bit `i` for byte `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Classes {
    letters: u64,
    digits: u64,
    underscores: u64,
    /// `:`, `.`, `'`: join two letters.
    joins_letters: u64,
    /// `,`, `;`, `.`, `'`: join two digits.
    joins_digits: u64,
}

impl Classes {
    /// The word bytes of this block, given the classes of the blocks before
    /// and after it (a middle character at either edge looks across).
    #[inline(always)]
    fn words(&self, before: &Classes, after: &Classes) -> u64 {
        let letter_before = (self.letters << 1) | (before.letters >> 63);
        let letter_after = (self.letters >> 1) | (after.letters << 63);
        let digit_before = (self.digits << 1) | (before.digits >> 63);
        let digit_after = (self.digits >> 1) | (after.digits << 63);
        let joins = (self.joins_letters & letter_before & letter_after)
            | (self.joins_digits & digit_before & digit_after);
        self.letters | self.digits | self.underscores | joins
    }
}

/// Lowercases one block into `lower` and classifies its bytes, one byte at
/// a time: the path of CPUs other than x86-64, and the reference the SSE2
/// path is tested against.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn classify_block_bytewise(block: &[u8; BLOCK], lower: &mut [u8; BLOCK]) -> Classes {
    let mut c = Classes::default();
    for (i, (&b, out)) in block.iter().zip(lower.iter_mut()).enumerate() {
        let bit = 1u64 << i;
        *out = b.to_ascii_lowercase();
        match *out {
            b'a'..=b'z' => c.letters |= bit,
            b'0'..=b'9' => c.digits |= bit,
            b'_' => c.underscores |= bit,
            b':' => c.joins_letters |= bit,
            b'.' | b'\'' => {
                c.joins_letters |= bit;
                c.joins_digits |= bit;
            }
            b',' | b';' => c.joins_digits |= bit,
            _ => {}
        }
    }
    c
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_storeu_si128,
    };

    use super::{BLOCK, Classes, classify_with};

    #[inline]
    #[target_feature(enable = "sse2")]
    fn splat(b: u8) -> __m128i {
        _mm_set1_epi8(b as i8)
    }

    /// Bytes of `x` equal to `b`.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn equal(x: __m128i, b: u8) -> __m128i {
        _mm_cmpeq_epi8(x, splat(b))
    }

    /// Bytes of `x` in `lo..=hi`. Signed comparisons are right here: the
    /// text is ASCII, every byte below 0x80.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn within(x: __m128i, lo: u8, hi: u8) -> __m128i {
        _mm_and_si128(
            _mm_cmpgt_epi8(x, splat(lo - 1)),
            _mm_cmplt_epi8(x, splat(hi + 1)),
        )
    }

    /// One bit per byte: the high bits of a comparison's result.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn bits(x: __m128i) -> u64 {
        u64::from(_mm_movemask_epi8(x) as u16)
    }

    /// [`super::classify`] with the SSE2 block classifier.
    #[target_feature(enable = "sse2")]
    pub(super) fn classify(text: &[u8], lower: &mut Vec<u8>, words: &mut Vec<u64>) {
        classify_with(text, lower, words, |block, out| classify_block(block, out));
    }

    /// Lowercases one block into `lower` and classifies its bytes, sixteen
    /// bytes per instruction.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn classify_block(block: &[u8; BLOCK], lower: &mut [u8; BLOCK]) -> Classes {
        let mut c = Classes::default();
        for i in 0..BLOCK / 16 {
            // SAFETY: bytes 16i..16i + 16 lie inside both 64-byte arrays;
            // the load and the store are unaligned ones.
            let x = unsafe { _mm_loadu_si128(block.as_ptr().add(16 * i).cast()) };
            // Setting bit 5 lowercases a letter and keeps the class of none
            // that is not one.
            let letter = within(_mm_or_si128(x, splat(0x20)), b'a', b'z');
            let low = _mm_or_si128(x, _mm_and_si128(letter, splat(0x20)));
            // SAFETY: as above.
            unsafe { _mm_storeu_si128(lower.as_mut_ptr().add(16 * i).cast(), low) };
            let dot_or_quote = _mm_or_si128(equal(x, b'.'), equal(x, b'\''));
            let shift = 16 * i;
            c.letters |= bits(letter) << shift;
            c.digits |= bits(within(x, b'0', b'9')) << shift;
            c.underscores |= bits(equal(x, b'_')) << shift;
            c.joins_letters |= bits(_mm_or_si128(dot_or_quote, equal(x, b':'))) << shift;
            c.joins_digits |= bits(_mm_or_si128(
                dot_or_quote,
                _mm_or_si128(equal(x, b','), equal(x, b';')),
            )) << shift;
        }
        c
    }
}

/// Scratch space of the ASCII path.
#[derive(Debug, Default)]
pub(crate) struct AsciiScratch {
    /// The text lowercased, then zeros to a whole block and [`PAD`] more.
    lower: Vec<u8>,
    /// Bit `i % 64` of `words[i / 64]` is set when byte `i` belongs to a
    /// word (a letter, digit, `_`, or a middle character that joins).
    words: Vec<u64>,
}

/// Lowercases `text` into `lower` and marks its word bytes in `words`.
#[cfg(target_arch = "x86_64")]
fn classify(text: &[u8], lower: &mut Vec<u8>, words: &mut Vec<u64>) {
    // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64 CPU has it.
    unsafe { sse2::classify(text, lower, words) }
}

/// Lowercases `text` into `lower` and marks its word bytes in `words`.
#[cfg(not(target_arch = "x86_64"))]
fn classify(text: &[u8], lower: &mut Vec<u8>, words: &mut Vec<u64>) {
    classify_with(text, lower, words, classify_block_bytewise);
}

/// [`classify`] with `classify_block` for each block of 64 bytes (the last
/// one padded with zeros).
#[inline(always)]
fn classify_with(
    text: &[u8],
    lower: &mut Vec<u8>,
    words: &mut Vec<u64>,
    mut classify_block: impl FnMut(&[u8; BLOCK], &mut [u8; BLOCK]) -> Classes,
) {
    let (full, tail) = text.as_chunks::<BLOCK>();
    let mut last = [0u8; BLOCK];
    last[..tail.len()].copy_from_slice(tail);
    let blocks = text.len().div_ceil(BLOCK);
    let input = |k: usize| full.get(k).unwrap_or(&last);
    lower.clear();
    lower.resize(blocks * BLOCK + PAD, 0);
    words.clear();
    words.reserve(blocks);
    let (outputs, _) = lower.as_chunks_mut::<BLOCK>();
    let mut before = Classes::default();
    let mut current = match outputs.first_mut() {
        Some(out) => classify_block(input(0), out),
        None => return,
    };
    for k in 0..blocks {
        let after = match outputs.get_mut(k + 1) {
            Some(out) if k + 1 < blocks => classify_block(input(k + 1), out),
            _ => Classes::default(),
        };
        words.push(current.words(&before, &after));
        before = current;
        current = after;
    }
}

/// `LOW_BYTES[n]` keeps the low `n` bytes of a `u128`.
static LOW_BYTES: [u128; PAD + 1] = {
    let mut masks = [u128::MAX; PAD + 1];
    let mut n = 0;
    while n < PAD {
        masks[n] = (1u128 << (8 * n)) - 1;
        n += 1;
    }
    masks
};

/// Calls `emit` with each word of the ASCII `text`, lowercased, and its
/// head (see [`super::Token::head`]). `text` must be ASCII.
#[inline]
pub(crate) fn for_each_word(
    text: &[u8],
    scratch: &mut AsciiScratch,
    mut emit: impl FnMut(&[u8], u128),
) {
    let AsciiScratch { lower, words } = scratch;
    classify(text, lower, words);
    let (lower, words) = (&lower[..], &words[..]);
    for (start, end) in Runs::new(words) {
        let bytes = &lower[start..end];
        // A run of underscores alone is not a word.
        if bytes[0] == b'_' && bytes.iter().all(|&b| b == b'_') {
            continue;
        }
        // The padding after the text makes the window whole.
        let head = lower[start..]
            .first_chunk::<PAD>()
            .map_or_else(|| crate::packed::head(bytes), |w| u128::from_le_bytes(*w))
            & LOW_BYTES[bytes.len().min(PAD)];
        emit(bytes, head);
    }
}

/// The runs of set bits of a bitmap, as `(start, end)` byte spans in order.
///
/// A run starts at a set bit whose predecessor is clear and ends after a set
/// bit whose successor is clear, so each block of 64 gives a bitmap of
/// starts and one of ends, taken in pairs.
struct Runs<'a> {
    words: &'a [u64],
    /// The index of the next block to load.
    next: usize,
    /// The position of the first bit of the loaded block.
    base: usize,
    starts: u64,
    /// The last bit of each run.
    ends: u64,
}

impl<'a> Runs<'a> {
    fn new(words: &'a [u64]) -> Runs<'a> {
        Runs {
            words,
            next: 0,
            base: 0,
            starts: 0,
            ends: 0,
        }
    }

    /// Loads the next block; false after the last.
    #[inline(always)]
    fn load(&mut self) -> bool {
        let k = self.next;
        let Some(&bits) = self.words.get(k) else {
            return false;
        };
        let before = k.checked_sub(1).and_then(|j| self.words.get(j)).copied();
        let after = self.words.get(k + 1).copied();
        self.starts = bits & !((bits << 1) | (before.unwrap_or(0) >> 63));
        self.ends = bits & !((bits >> 1) | (after.unwrap_or(0) << 63));
        self.base = k * 64;
        self.next = k + 1;
        true
    }
}

impl Iterator for Runs<'_> {
    type Item = (usize, usize);

    #[inline(always)]
    fn next(&mut self) -> Option<(usize, usize)> {
        while self.starts == 0 {
            if !self.load() {
                return None;
            }
        }
        let start = self.base + self.starts.trailing_zeros() as usize;
        self.starts &= self.starts - 1;
        // A run that goes on past this block ends in a later one; the blocks
        // it fills have neither starts nor ends.
        while self.ends == 0 {
            if !self.load() {
                return None;
            }
        }
        let end = self.base + self.ends.trailing_zeros() as usize + 1;
        self.ends &= self.ends - 1;
        Some((start, end))
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
        for_each_word(text.as_bytes(), &mut scratch, |w, head| {
            assert_eq!(head, crate::packed::head(w));
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
    fn long_words_cross_blocks() {
        let long = "A".repeat(200) + " b " + &"c_".repeat(70);
        assert_eq!(fast(&long), reference(&long));
        let joined = "x".repeat(63) + ".y 1" + &" ".repeat(61) + ",2";
        assert_eq!(fast(&joined), reference(&joined));
    }

    #[test]
    fn examples() {
        assert_eq!(
            fast("Don't stop: e.g. 3.14, 1,000; a:b x_y _ __ .5 a.. 'q'"),
            reference("Don't stop: e.g. 3.14, 1,000; a:b x_y _ __ .5 a.. 'q'")
        );
        assert_eq!(fast("The CAT sat."), ["the", "cat", "sat"]);
    }

    #[cfg(target_arch = "x86_64")]
    proptest! {
        #[test]
        fn sse2_equals_bytewise(block in proptest::array::uniform32(0u8..0x80), more in proptest::array::uniform32(0u8..0x80)) {
            let mut whole = [0u8; BLOCK];
            whole[..32].copy_from_slice(&block);
            whole[32..].copy_from_slice(&more);
            let (mut a, mut b) = ([0u8; BLOCK], [0u8; BLOCK]);
            // SAFETY: SSE2 is part of the x86-64 baseline.
            let fast = unsafe { sse2::classify_block(&whole, &mut a) };
            prop_assert_eq!(fast, classify_block_bytewise(&whole, &mut b));
            prop_assert_eq!(a, b);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn matches_uax29_on_ascii(text in "[a-cA-C0-2_:.',; \t\n\r!-]{0,150}") {
            prop_assert_eq!(fast(&text), reference(&text));
        }

        #[test]
        fn matches_uax29_on_any_ascii(text in "[\\x00-\\x7f]{0,150}") {
            prop_assert_eq!(fast(&text), reference(&text));
        }
    }
}
