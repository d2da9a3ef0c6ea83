//! Arbitrary bytes that are UTF-8, through every profile and a few builder
//! variants: no panic, the same fingerprint twice, and an explanation whose
//! features add up to the fingerprint.
//!
//! The proptest suite `crates/core/tests/fuzz.rs` checks the same in
//! `cargo test`.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use neardup_core::{
    Accumulator, FeatureHash, FeatureKind, Fingerprint, Fingerprinter, FingerprinterBuilder,
    Profile, Weighting, Width,
};

static FINGERPRINTERS: LazyLock<Vec<(String, Fingerprinter)>> = LazyLock::new(|| {
    let mut all: Vec<(String, Fingerprinter)> = Profile::ALL
        .iter()
        .map(|&p| (p.name().to_string(), Fingerprinter::new(p).unwrap()))
        .collect();
    let variant = |name: &str, profile: Profile, set: &dyn Fn(&mut FingerprinterBuilder)| {
        let mut b = Fingerprinter::builder(profile);
        set(&mut b);
        (name.to_string(), b.build().unwrap())
    };
    all.extend([
        variant("auto shingles:3", Profile::Auto, &|b| {
            b.features(FeatureKind::Shingles(3));
        }),
        variant("auto chars:4", Profile::Auto, &|b| {
            b.features(FeatureKind::CharNgrams(4));
        }),
        variant("auto textrank", Profile::Auto, &|b| {
            b.weighting(Weighting::TextRank);
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
    ]);
    all
});

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for (name, fp) in FINGERPRINTERS.iter() {
        let first = fp.fingerprint(text);
        let again = fp.fingerprint(text);
        assert_eq!(first, again, "{name}: not deterministic");
        assert_eq!(first.width(), fp.width(), "{name}: wrong width");
        let explained = fp.explain(text);
        assert_eq!(
            explained.fingerprint, first,
            "{name}: explain() disagrees with fingerprint()"
        );
        if name.contains("top-k 3") {
            assert!(explained.features.len() <= 3, "{name}: top-K not applied");
        }
        if !explained.is_featureless() {
            let mut acc = Accumulator::with_width(fp.width());
            for f in &explained.features {
                assert!(
                    f.weight.is_finite(),
                    "{name}: weight {} of {:?}",
                    f.weight,
                    f.text
                );
                acc.add(f.hash, f.weight);
            }
            assert_eq!(
                Fingerprint::new(acc.value(), fp.width()),
                first,
                "{name}: the explained features do not add up to the fingerprint"
            );
        }
    }
});
