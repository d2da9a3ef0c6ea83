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

use unicode_general_category::{GeneralCategory, get_general_category};

use crate::fingerprint::{Fingerprint, Width};
use crate::fingerprinter::WeightedFeature;
use crate::hash::FeatureHash;
use crate::remembered_md5::{BitTally, ShortBytes, md5_each};

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
    let window = |gram: &[char; WINDOW]| {
        // Four characters take at most 16 bytes.
        let mut buf = [0u8; 4 * WINDOW];
        let len = encode(gram, &mut buf);
        ShortBytes::zero_padded(buf, len)
    };
    let windows: Vec<ShortBytes> = if kept.len() < WINDOW {
        let mut short = ['\0'; WINDOW];
        short[..kept.len()].copy_from_slice(&kept);
        vec![window(&short)]
    } else {
        kept.windows(WINDOW)
            .map(|w| window(&[w[0], w[1], w[2], w[3]]))
            .collect()
    };
    let mut digests = Vec::new();
    md5_each(&windows, &mut digests);
    let mut tally = BitTally::new(width.bits());
    for digest in digests {
        // The last bytes of the digest, as FeatureHash::Md5 cuts it.
        tally.add(match width {
            Width::W64 => u128::from(digest as u64),
            Width::W128 => digest,
        });
    }
    // Set where more than half of the votes are for it.
    let votes = tally.added();
    let value = tally
        .counts()
        .iter()
        .enumerate()
        .filter(|&(_, &count)| 2 * count > votes)
        .fold(0u128, |v, (j, _)| v | 1 << j);
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
