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

use std::cell::RefCell;

use rustc_hash::FxHashMap;
use unicode_general_category::{GeneralCategory, get_general_category};

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

/// The characters of `text` that the package keeps, lowercased.
fn kept_chars(text: &str) -> Vec<char> {
    text.to_lowercase()
        .chars()
        .filter(|&c| is_word_char(c))
        .collect()
}

/// The distinct 4-character windows with their counts, sorted (as Python
/// sorts them: by code point). A window is kept as its characters, padded
/// with NUL when the text is shorter than 4 (NUL never passes the filter).
fn windows(text: &str) -> Vec<([char; WINDOW], u32)> {
    let kept = kept_chars(text);
    let mut grams: Vec<[char; WINDOW]> = if kept.len() < WINDOW {
        let mut short = ['\0'; WINDOW];
        short[..kept.len()].copy_from_slice(&kept);
        vec![short]
    } else {
        kept.windows(WINDOW)
            .map(|w| [w[0], w[1], w[2], w[3]])
            .collect()
    };
    grams.sort_unstable();
    let mut counted: Vec<([char; WINDOW], u32)> = Vec::with_capacity(grams.len());
    for g in grams {
        match counted.last_mut() {
            Some((last, n)) if *last == g => *n += 1,
            _ => counted.push((g, 1)),
        }
    }
    counted
}

/// The UTF-8 bytes of a window, without the padding.
fn encode(gram: &[char; WINDOW], buf: &mut [u8; 4 * WINDOW]) -> usize {
    let mut len = 0;
    for &c in gram.iter().filter(|&&c| c != '\0') {
        len += c.encode_utf8(&mut buf[len..]).len();
    }
    len
}

/// Windows whose MD5 a thread keeps at most; past it, it starts again.
const REMEMBERED: usize = 1 << 19;

thread_local! {
    /// The MD5s (all 128 bits, read big-endian) of the windows a thread met
    /// lately. Texts share most of their 4-character windows (English uses
    /// a few hundred thousand), and a lookup costs a fifth of an MD5.
    static DIGESTS: RefCell<FxHashMap<[char; WINDOW], u128>> = RefCell::new(FxHashMap::default());
}

/// The MD5 of window `gram`, to `width` bits as [`FeatureHash::Md5`] gives
/// it (the last bytes of the digest).
fn window_hash(gram: &[char; WINDOW], width: Width) -> u128 {
    let digest = DIGESTS.with_borrow_mut(|digests| {
        if let Some(&d) = digests.get(gram) {
            return d;
        }
        let mut buf = [0u8; 4 * WINDOW];
        let len = encode(gram, &mut buf);
        let d = FeatureHash::Md5.hash(&buf[..len], Width::W128);
        if digests.len() >= REMEMBERED {
            digests.clear();
        }
        digests.insert(*gram, d);
        d
    });
    match width {
        Width::W64 => u128::from(digest as u64),
        Width::W128 => digest,
    }
}

pub(crate) fn weighted_features(text: &str, width: Width) -> Vec<WeightedFeature> {
    let mut buf = [0u8; 4 * WINDOW];
    windows(text)
        .into_iter()
        .map(|(g, n)| {
            let len = encode(&g, &mut buf);
            WeightedFeature {
                hash: FeatureHash::Md5.hash(&buf[..len], width),
                text: String::from_utf8_lossy(&buf[..len]).into_owned(),
                weight: n as f64,
            }
        })
        .collect()
}

pub(crate) fn fingerprint(text: &str, width: Width) -> Fingerprint {
    // Each window votes once per occurrence: the same sums as counting
    // the distinct windows first, without sorting them.
    let kept = kept_chars(text);
    let mut ones = [0u64; 128];
    let bits = width.bits() as usize;
    let mut vote = |gram: &[char; WINDOW]| {
        let hash = window_hash(gram, width);
        // Branch-free on 64-bit words, so that the compiler can vectorise it.
        let (low, high) = ones[..bits].split_at_mut(bits.min(64));
        for (counts, word) in [low, high]
            .into_iter()
            .zip([hash as u64, (hash >> 64) as u64])
        {
            for (j, count) in counts.iter_mut().enumerate() {
                *count += word >> j & 1;
            }
        }
    };
    let votes = if kept.len() < WINDOW {
        let mut short = ['\0'; WINDOW];
        short[..kept.len()].copy_from_slice(&kept);
        vote(&short);
        1
    } else {
        for w in kept.windows(WINDOW) {
            vote(&[w[0], w[1], w[2], w[3]]);
        }
        kept.len() - WINDOW + 1
    };
    // Set where more than half of the votes are for it.
    let value = (0..bits)
        .filter(|&j| 2 * ones[j] > votes as u64)
        .fold(0u128, |v, j| v | 1 << j);
    Fingerprint::new(value, width)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accumulate::Accumulator;

    fn texts(text: &str) -> Vec<(String, f64)> {
        weighted_features(text, Width::W64)
            .into_iter()
            .map(|f| (f.text, f.weight))
            .collect()
    }

    #[test]
    fn windows_follow_the_package() {
        assert_eq!(texts(""), [(String::new(), 1.0)]);
        assert_eq!(texts("a b!"), [("ab".to_string(), 1.0)]);
        assert_eq!(
            texts("abcab cab"),
            [
                ("abca".to_string(), 2.0),
                ("bcab".to_string(), 2.0),
                ("cabc".to_string(), 1.0)
            ]
        );
    }

    #[test]
    fn fingerprint_equals_accumulated_features() {
        for text in ["", "abcab cab", "中文的文本和English混合", "ΟΔΟΣ"] {
            let mut acc = Accumulator::with_width(Width::W64);
            for f in weighted_features(text, Width::W64) {
                acc.add(f.hash, f.weight);
            }
            assert_eq!(
                fingerprint(text, Width::W64).bits(),
                acc.value(),
                "{text:?}"
            );
        }
    }
}
