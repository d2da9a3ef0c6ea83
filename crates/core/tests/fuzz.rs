//! Fuzz properties of the whole pipeline: any text, through every profile
//! and the main builder variants, must not panic, must give the same
//! fingerprint every time, must be explained by `explain` (whose features,
//! accumulated in order, give the fingerprint) and must give the same
//! fingerprints in a batch as one by one.
//!
//! The texts are proptest's arbitrary strings plus a mix of the scripts and
//! oddities the tokeniser treats specially. The cargo-fuzz target
//! `fuzz/fuzz_targets/fingerprint_text.rs` checks the same on inputs found by
//! coverage.

use std::sync::LazyLock;

use neardup_core::{
    Accumulator, FeatureHash, FeatureKind, Fingerprint, Fingerprinter, Profile, Weighting, Width,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Every profile.
static PROFILES: LazyLock<Vec<(String, Fingerprinter)>> = LazyLock::new(|| {
    Profile::ALL
        .iter()
        .map(|&p| (p.name().to_string(), Fingerprinter::new(p).unwrap()))
        .collect()
});

/// Variants of `auto` (which applies a change to both `en` and `zh`), then a
/// few combinations.
static VARIANTS: LazyLock<Vec<(String, Fingerprinter)>> = LazyLock::new(|| {
    let variant = |name: &str, profile: Profile, set: &dyn Fn(&mut _)| {
        let mut b = Fingerprinter::builder(profile);
        set(&mut b);
        (name.to_string(), b.build().unwrap())
    };
    vec![
        variant("auto shingles:3", Profile::Auto, &|b| {
            b.features(FeatureKind::Shingles(3));
        }),
        variant("auto chars:4", Profile::Auto, &|b| {
            b.features(FeatureKind::CharNgrams(4));
        }),
        variant("auto words textrank", Profile::Auto, &|b| {
            b.features(FeatureKind::Words)
                .weighting(Weighting::TextRank);
        }),
        variant("auto tfidf", Profile::Auto, &|b| {
            b.weighting(Weighting::TfIdf);
        }),
        variant("auto top-k 3", Profile::Auto, &|b| {
            b.top_k(Some(3));
        }),
        variant("auto width 128", Profile::Auto, &|b| {
            b.width(Width::W128);
        }),
        variant("python-simhash width 128", Profile::PythonSimhash, &|b| {
            b.width(Width::W128);
        }),
        variant("en binary fnv1a shingles:2 width 128", Profile::En, &|b| {
            b.weighting(Weighting::Binary)
                .hash(FeatureHash::Fnv1a)
                .features(FeatureKind::Shingles(2))
                .width(Width::W128);
        }),
        variant("zh md5 chars:1 no stop words", Profile::Zh, &|b| {
            b.hash(FeatureHash::Md5)
                .features(FeatureKind::CharNgrams(1))
                .stop_words(None);
        }),
        variant("en siphash textrank top-k 1", Profile::En, &|b| {
            b.hash(FeatureHash::SipHash)
                .weighting(Weighting::TextRank)
                .top_k(Some(1));
        }),
    ]
});

/// Every profile and every variant.
fn all() -> impl Iterator<Item = &'static (String, Fingerprinter)> {
    PROFILES.iter().chain(VARIANTS.iter())
}

/// Every profile and the variants `picks` (indices modulo their number):
/// running every variant on every case would make this suite too slow in a
/// debug build, so each case picks one and the cases cover them all.
fn some(picks: &[usize]) -> impl Iterator<Item = &'static (String, Fingerprinter)> {
    PROFILES
        .iter()
        .chain(picks.iter().map(|i| &VARIANTS[i % VARIANTS.len()]))
}

/// Runs each fingerprinter on `text` and checks the properties.
///
/// The fingerprint is computed twice (by `fingerprint` and inside `explain`)
/// with other fingerprinters run in between on the same thread, so stale
/// state in the thread's reused buffers would show.
fn check<'a>(
    text: &str,
    fingerprinters: impl Iterator<Item = &'a (String, Fingerprinter)>,
) -> Result<(), TestCaseError> {
    for (name, fp) in fingerprinters {
        let first = fp.fingerprint(text);
        prop_assert_eq!(first.width(), fp.width(), "{}: wrong width", name);
        let explained = fp.explain(text);
        prop_assert_eq!(
            explained.fingerprint,
            first,
            "{}: not deterministic (explain() disagrees with fingerprint())",
            name
        );
        for f in &explained.features {
            prop_assert!(
                f.weight.is_finite(),
                "{}: weight {} of {:?}",
                name,
                f.weight,
                f.text
            );
        }
        if name.contains("top-k 3") {
            prop_assert!(explained.features.len() <= 3, "{}: top-K not applied", name);
        }
        if !explained.is_featureless() {
            let mut acc = Accumulator::with_width(fp.width());
            for f in &explained.features {
                acc.add(f.hash, f.weight);
            }
            prop_assert_eq!(
                Fingerprint::new(acc.value(), fp.width()),
                first,
                "{}: the explained features do not add up to the fingerprint",
                name
            );
        }
    }
    Ok(())
}

/// Checks that a batch gives what one-by-one gives.
fn check_batch<'a>(
    texts: &[String],
    fingerprinters: impl Iterator<Item = &'a (String, Fingerprinter)>,
) -> Result<(), TestCaseError> {
    for (name, fp) in fingerprinters {
        let batch = fp.fingerprint_batch(texts);
        let one_by_one: Vec<Fingerprint> = texts.iter().map(|t| fp.fingerprint(t)).collect();
        prop_assert_eq!(batch, one_by_one, "{}: batch differs", name);
    }
    Ok(())
}

/// One piece of text from a script or class of characters the tokeniser
/// treats specially.
fn piece() -> impl Strategy<Value = String> {
    let chars = |ranges: &'static [(char, char)], max: usize| {
        proptest::collection::vec(
            proptest::sample::select(ranges).prop_flat_map(|(a, b)| proptest::char::range(a, b)),
            1..max,
        )
        .prop_map(|cs| cs.into_iter().collect::<String>())
    };
    prop_oneof![
        // ASCII words, punctuation and whitespace.
        "[a-zA-Z0-9]{1,12}",
        "[ \t\r\n.,;:!?'\"()\\-]{1,4}",
        "[\\x00-\\x7f]{1,16}",
        // CJK ideographs (BMP, extension A and B), CJK punctuation,
        // full-width forms.
        chars(
            &[
                ('\u{4e00}', '\u{9fff}'),
                ('\u{3400}', '\u{4dbf}'),
                ('\u{20000}', '\u{2a6df}'),
                ('\u{3000}', '\u{303f}'),
                ('\u{ff01}', '\u{ff5e}'),
            ],
            24
        ),
        // A few common Chinese words, so that jieba finds dictionary words.
        proptest::sample::select(&["中国", "我们", "人民", "经济", "发展", "的", "了", "是"][..])
            .prop_map(str::to_string),
        // Hiragana, katakana, half-width katakana, Hangul.
        chars(
            &[
                ('\u{3041}', '\u{309f}'),
                ('\u{30a0}', '\u{30ff}'),
                ('\u{ff66}', '\u{ff9f}'),
                ('\u{ac00}', '\u{d7a3}'),
            ],
            16
        ),
        // Thai, Lao, Khmer, Myanmar.
        chars(
            &[
                ('\u{0e01}', '\u{0e5b}'),
                ('\u{0e81}', '\u{0edf}'),
                ('\u{1780}', '\u{17ff}'),
                ('\u{1000}', '\u{109f}'),
            ],
            16
        ),
        // Combining marks, alone or after a base.
        chars(
            &[
                ('\u{0300}', '\u{036f}'),
                ('\u{1ab0}', '\u{1aff}'),
                ('\u{20d0}', '\u{20ff}'),
                ('\u{fe20}', '\u{fe2f}'),
            ],
            8
        ),
        ("[a-zA-Z]", chars(&[('\u{0300}', '\u{036f}')], 4)).prop_map(|(b, m)| b + &m),
        // Emoji, ZWJ sequences, variation selectors, skin tones, flags.
        chars(
            &[
                ('\u{1f300}', '\u{1faff}'),
                ('\u{2600}', '\u{27bf}'),
                ('\u{200d}', '\u{200d}'),
                ('\u{fe0e}', '\u{fe0f}'),
                ('\u{1f3fb}', '\u{1f3ff}'),
                ('\u{1f1e6}', '\u{1f1ff}'),
            ],
            12
        ),
        Just("👩\u{200d}👩\u{200d}👧\u{200d}👦".to_string()),
        // Right-to-left: Hebrew, Arabic (with its presentation forms, which
        // NFKC decomposes), bidi controls.
        chars(
            &[
                ('\u{05d0}', '\u{05ea}'),
                ('\u{0600}', '\u{06ff}'),
                ('\u{fb50}', '\u{fdff}'),
                ('\u{fe70}', '\u{feff}'),
                ('\u{202a}', '\u{202e}'),
                ('\u{2066}', '\u{2069}'),
            ],
            16
        ),
        // Other letters that change under NFKC or lowercasing: ligatures,
        // Roman numerals, the Kelvin sign, dotted I, final sigma, ß.
        chars(
            &[
                ('\u{fb00}', '\u{fb06}'),
                ('\u{2160}', '\u{2188}'),
                ('\u{212a}', '\u{212b}'),
                ('\u{0130}', '\u{0131}'),
                ('\u{03a3}', '\u{03c3}'),
                ('\u{00df}', '\u{00df}'),
                ('\u{1e9e}', '\u{1e9e}'),
                ('\u{00c0}', '\u{024f}'),
            ],
            12
        ),
        // Control characters, Unicode spaces and line separators, U+FFFD,
        // noncharacters, private use.
        chars(
            &[
                ('\u{0000}', '\u{001f}'),
                ('\u{007f}', '\u{00a0}'),
                ('\u{2000}', '\u{200f}'),
                ('\u{2028}', '\u{2029}'),
                ('\u{fffd}', '\u{fffd}'),
                ('\u{fdd0}', '\u{fdef}'),
                ('\u{fffe}', '\u{ffff}'),
                ('\u{e000}', '\u{e0ff}'),
                ('\u{10ffff}', '\u{10ffff}'),
            ],
            8
        ),
        // Any character at all.
        any::<char>().prop_map(String::from),
    ]
}

/// A long run of one character or word (the tokeniser's fast paths, n-gram
/// windows and jieba's DAG on repetitive input).
fn long_run() -> impl Strategy<Value = String> {
    (
        proptest::sample::select(
            &[
                "a", " ", "中", "的", "あ", "ก", "\u{301}", "😀", "\u{200d}", "\u{fffd}", "\u{0}",
                "ab ", "中国", "x\u{301}",
            ][..],
        ),
        1usize..500,
    )
        .prop_map(|(s, n)| s.repeat(n))
}

/// A text mixing pieces.
fn mixed_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(piece(), 0..16).prop_map(|v| v.concat())
}

/// A long run of one character between a few pieces.
fn text_with_long_run() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(piece(), 0..4),
        long_run(),
        proptest::collection::vec(piece(), 0..4),
    )
        .prop_map(|(a, run, b)| a.concat() + &run + &b.concat())
}

/// One variant index per case.
fn picks() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(any::<usize>(), 1)
}

/// `cases` cases, or `PROPTEST_CASES` when set (to fuzz longer, for example
/// `PROPTEST_CASES=100000 cargo test --release -p neardup-core --test tests
/// fuzz`).
fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(cases);
    ProptestConfig::with_cases(cases)
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn arbitrary_strings(text in any::<String>(), picks in picks()) {
        check(&text, some(&picks))?;
    }
}

proptest! {
    #![proptest_config(config(1200))]

    #[test]
    fn mixed_scripts(text in mixed_text(), picks in picks()) {
        check(&text, some(&picks))?;
    }
}

proptest! {
    #![proptest_config(config(100))]

    #[test]
    fn long_runs(text in text_with_long_run(), picks in picks()) {
        check(&text, some(&picks))?;
    }
}

proptest! {
    #![proptest_config(config(100))]

    #[test]
    fn batch_equals_one_by_one(
        texts in proptest::collection::vec(
            prop_oneof![any::<String>(), mixed_text()],
            0..8,
        ),
        picks in picks(),
    ) {
        check_batch(&texts, some(&picks))?;
    }
}

/// Inputs that are, or could easily be, edge cases, through every
/// fingerprinter.
#[test]
fn edge_cases() {
    let long_word = "x".repeat(10_000);
    let long_han = "中".repeat(3_000);
    let cases: &[&str] = &[
        "",
        " ",
        "\0",
        "\u{fffd}",
        "\u{301}",
        " \u{301}",
        "\u{301}a",
        "a\u{301}\u{302}\u{303}",
        "\u{200d}",
        "👩\u{200d}👩\u{200d}👧\u{200d}👦",
        "\u{202e}abc\u{202c}",
        "ﷺ",
        "ﬃ",
        "İ",
        "ΣΣ",
        "ก",
        "กข",
        "あ",
        "中",
        "中国",
        "the the the",
        "\r\n\r\n",
        "\u{2028}\u{2029}",
        "\u{10ffff}",
        &long_word,
        &long_han,
    ];
    for text in cases {
        check(text, all()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    }
    let texts: Vec<String> = cases.iter().map(|s| s.to_string()).collect();
    check_batch(&texts, all()).unwrap();
}

/// The words of verification: the fast path gives what segmenting the
/// normalised text in one piece gives.
fn check_words(text: &str) -> Result<(), TestCaseError> {
    use unicode_segmentation::UnicodeSegmentation;
    let mut fast = Vec::new();
    neardup_core::for_each_word(text, |w| fast.push(w.to_string()));
    let normal = neardup_core::normalize(text);
    let slow: Vec<&str> = normal.unicode_words().collect();
    prop_assert_eq!(fast, slow, "{:?}", text);
    Ok(())
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn words_equal_unicode_words_of_the_normalised_text(
        text in prop_oneof![any::<String>(), mixed_text(), "[ -~]{0,200}"],
    ) {
        check_words(&text)?;
    }
}

#[test]
fn words_keep_the_spaces_a_combining_mark_joins() {
    // U+0E33 decomposes to a combining mark and a vowel under NFKC: the
    // mark joins both spaces before it into one word (UAX #29 WB3d, WB4).
    for text in ["  \u{e33}", "a  \u{e33} b", "\t \u{e33}", "x   \u{301}y"] {
        check_words(text).unwrap();
    }
}
