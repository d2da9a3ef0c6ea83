//! Normalisation: NFKC, then Unicode lowercase.
//!
//! NFKC folds compatibility forms onto their plain equivalents (fullwidth
//! `Ａ` → `A`, the ligature `ﬁ` → `fi`, `①` → `1`, the ideographic space →
//! a space), so that text copied through different encodings and input
//! methods gives the same words. Lowercasing then uses Rust's full Unicode
//! mapping, final sigma included. Both tables are part of the fingerprint
//! format: `unicode-normalization` is pinned, and the lowercase tables are
//! those of the Rust standard library (Unicode 16 as of Rust 1.88).

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

/// The normalised form of `text`.
///
/// ```
/// assert_eq!(neardup_core::normalize("ＡＢＣ ﬁne ΟΔΟΣ"), "abc fine οδος");
/// ```
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    normalize_into(text, &mut out);
    out
}

/// Writes the normalised form of `text` into `out`, replacing its contents.
pub(crate) fn normalize_into(text: &str, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
        return;
    }
    // Most text is in NFKC already (Chinese nearly always): check before
    // rebuilding it.
    let lowered = if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        text.to_lowercase()
    } else {
        text.nfkc().collect::<String>().to_lowercase()
    };
    // `str::to_lowercase` applies the final-sigma rule, which needs context.
    out.push_str(&lowered);
}
