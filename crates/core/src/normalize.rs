//! Normalisation: NFKC, then Unicode lowercase, then the typographic
//! apostrophe folded onto the ASCII one.
//!
//! NFKC folds compatibility forms onto their plain equivalents (fullwidth
//! `Ａ` → `A`, the ligature `ﬁ` → `fi`, `①` → `1`, the ideographic space →
//! a space), so that text copied through different encodings and input
//! methods gives the same words. Lowercasing then uses Rust's full Unicode
//! mapping, final sigma included. Both tables are part of the fingerprint
//! format: `unicode-normalization` is pinned, and the lowercase tables are
//! those of the Rust standard library (Unicode 16 as of Rust 1.88).
//!
//! The right single quotation mark `’` (U+2019) becomes `'`: it is the
//! apostrophe of typeset English (`don’t`, `Joseph’s`), and two
//! digitisations of one text differ by little else (format 2).

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

/// The normalised form of `text`.
///
/// ```
/// assert_eq!(neardup_core::normalize("ＡＢＣ ﬁne ΟΔΟΣ"), "abc fine οδος");
/// assert_eq!(neardup_core::normalize("Joseph’s"), "joseph's");
/// ```
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    normalize_into(text, &mut out);
    out
}

/// Writes the normalised form of `text` into `out`, replacing its contents.
///
/// Runs of CJK unified ideographs (U+3400–4DBF, U+4E00–9FFF) are copied as
/// they are: they have no decomposition, take part in no composition, are
/// starters (so no mark is reordered across them) and have no case (so they
/// end the context of the final-sigma rule). Normalising the text between
/// them piece by piece therefore gives the same result as normalising the
/// whole, and Chinese text is mostly such runs.
pub(crate) fn normalize_into(text: &str, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
        return;
    }
    let mut start = 0;
    let mut in_han = false;
    for (i, c) in text.char_indices() {
        let han = is_inert_ideograph(c);
        if han != in_han && i > start {
            push_piece(&text[start..i], in_han, out);
            start = i;
        }
        in_han = han;
    }
    push_piece(&text[start..], in_han, out);
}

fn is_inert_ideograph(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF)
}

/// The typographic apostrophe, folded onto `'`.
const APOSTROPHE: char = '\u{2019}';

fn push_piece(piece: &str, inert: bool, out: &mut String) {
    let lower = if inert {
        out.push_str(piece);
        return;
    } else if piece.is_ascii() {
        let from = out.len();
        out.push_str(piece);
        out[from..].make_ascii_lowercase();
        return;
    } else if is_nfkc_quick(piece.chars()) == IsNormalized::Yes {
        // `str::to_lowercase` applies the final-sigma rule, which needs the
        // context of the whole piece.
        piece.to_lowercase()
    } else {
        piece.nfkc().collect::<String>().to_lowercase()
    };
    if lower.contains(APOSTROPHE) {
        // Folded after lowercasing: both marks are case-ignorable, so the
        // final sigma before one is the same either way.
        out.push_str(&lower.replace(APOSTROPHE, "'"));
    } else {
        out.push_str(&lower);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reference(text: &str) -> String {
        text.nfkc()
            .collect::<String>()
            .to_lowercase()
            .replace('\u{2019}', "'")
    }

    #[test]
    fn examples() {
        for text in [
            "１２月３１日，中共中央ＡＢＣ",
            "ΑΣ中Σ",
            "中\u{301}文",
            "㈠中国",
            "ΟΔΟΣ 中 ΟΔΟΣ",
        ] {
            assert_eq!(normalize(text), reference(text), "{text:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn equals_normalising_the_whole(
            text in "([a-zA-Z .]|Σ|σ|ς|Α|é|e\u{301}|\u{301}|\u{327}|ﬁ|Ａ|１|①|㈠|㋀|中|国|人|\u{3400}|豈|가|ᄀ|\u{1161}|\u{3000}|\u{200d}|İ){0,24}"
        ) {
            prop_assert_eq!(normalize(&text), reference(&text));
        }
    }
}
