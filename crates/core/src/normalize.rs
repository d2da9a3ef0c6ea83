//! Normalisation: NFKC, then Unicode lowercase, then the typographic
//! apostrophe folded onto the ASCII one and traditional Chinese characters
//! onto simplified ones.
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
//!
//! Each Han character with a simplified form in OpenCC's character table
//! (`data/opencc/TSCharacters.txt`, Apache-2.0, 4,113 characters; the first
//! form when it gives several, followed to its end when that form is in the
//! table too) becomes that form, so that a Chinese text and its copy in
//! traditional characters are one text (format 2).

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

/// The normalised form of `text`.
///
/// ```
/// assert_eq!(neardup_core::normalize("ＡＢＣ ﬁne ΟΔΟΣ"), "abc fine οδος");
/// assert_eq!(neardup_core::normalize("Joseph’s"), "joseph's");
/// assert_eq!(neardup_core::normalize("開放中文轉換"), "开放中文转换");
/// ```
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    normalize_into(text, &mut out);
    out
}

/// Writes the normalised form of `text` into `out`, replacing its contents.
///
/// Runs of CJK unified ideographs (U+3400–4DBF, U+4E00–9FFF) are only
/// simplified: they have no decomposition, take part in no composition, are
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
        out.extend(piece.chars().map(simplified));
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
    // Folded after lowercasing: both apostrophes are case-ignorable, so the
    // final sigma before one is the same either way, and Han characters
    // have no case. NFKC can make a Han character here (from a
    // compatibility ideograph), so the whole piece is simplified.
    out.extend(lower.chars().map(|c| match c {
        APOSTROPHE => '\'',
        c => simplified(c),
    }));
}

/// OpenCC's traditional-to-simplified character table.
const TS_CHARACTERS: &str = include_str!("../data/opencc/TSCharacters.txt");

/// The first and last code points of the dense part of [`Simplified`].
const DENSE: (u32, u32) = (0x3400, 0x9FFF);

/// Simplified forms: a dense table over U+3400–9FFF (where nearly all
/// traditional characters are), a map for the rest.
struct Simplified {
    dense: Vec<char>,
    rest: std::collections::HashMap<char, char>,
}

static SIMPLIFIED: std::sync::LazyLock<Simplified> = std::sync::LazyLock::new(|| {
    let pairs: std::collections::HashMap<char, char> = TS_CHARACTERS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|line| {
            let (from, to) = line.split_once('\t')?;
            let mut from = from.chars();
            let (f, t) = (from.next()?, to.split(' ').next()?.chars().next()?);
            from.next().is_none().then_some((f, t))
        })
        .collect();
    // A form that is itself in the table (薴 → 苧 → 苎) is followed to its
    // end, so that normalising twice changes nothing.
    let end = |mut c: char| {
        for _ in 0..8 {
            match pairs.get(&c) {
                Some(&next) if next != c => c = next,
                _ => break,
            }
        }
        c
    };
    let mut table = Simplified {
        dense: (DENSE.0..=DENSE.1)
            .map(|c| char::from_u32(c).unwrap_or('\u{fffd}'))
            .collect(),
        rest: std::collections::HashMap::new(),
    };
    for &f in pairs.keys() {
        match (f as u32).checked_sub(DENSE.0) {
            Some(i) if f as u32 <= DENSE.1 => table.dense[i as usize] = end(f),
            _ => {
                table.rest.insert(f, end(f));
            }
        }
    }
    table
});

/// The simplified form of `c`, or `c`.
fn simplified(c: char) -> char {
    let code = c as u32;
    if code < DENSE.0 {
        return c;
    }
    let table = &*SIMPLIFIED;
    if code <= DENSE.1 {
        table.dense[(code - DENSE.0) as usize]
    } else if code >= 0x20000 {
        table.rest.get(&c).copied().unwrap_or(c)
    } else {
        c
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
            .chars()
            .map(simplified)
            .collect()
    }

    #[test]
    fn every_traditional_character_of_the_table_is_simplified() {
        let mut pairs = 0;
        for line in TS_CHARACTERS
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let (from, to) = line.split_once('\t').unwrap();
            let first = to.split(' ').next().unwrap();
            assert_eq!(normalize(from), normalize(first), "{line}");
            let once = normalize(from);
            assert_eq!(normalize(&once), once, "{line}: normalising twice");
            pairs += 1;
        }
        assert_eq!(pairs, 4113);
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
