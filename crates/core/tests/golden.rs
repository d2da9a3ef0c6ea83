//! Golden vectors: the fingerprint format, pinned.
//!
//! `data/golden_v2.jsonl` (version `FINGERPRINT_FORMAT`) holds the fingerprint of every text below under
//! every configuration below. Any change to tokenisation, normalisation,
//! weights, hashes or the accumulator that changes a single bit fails this
//! test. A deliberate format change bumps `FINGERPRINT_FORMAT`, writes a new file
//! with `NEARDUP_BLESS=1 cargo test -p neardup-core --test tests golden`, and
//! is described in `docs/FINGERPRINT.md`.

use std::collections::BTreeMap;

use neardup_core::{
    FINGERPRINT_FORMAT, FeatureHash, FeatureKind, Fingerprinter, FingerprinterBuilder, Profile,
    Weighting, Width,
};

use crate::util::{read_jsonl, root};

const TEXTS: &[&str] = &[
    "",
    " ",
    "!!!",
    "🙂👍🏽",
    "a",
    "The cat sat on the mat.",
    "The cat sat on a mat.",
    "We all scream for ice cream.",
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this software.",
    "Don't panic: e.g. 3.14, 1,000; user_name a:b example.com",
    "ＦＵＬＬＷＩＤＴＨ ﬁne ΟΔΟΣ Ⅻ ① café cafe\u{301} İstanbul STRASSE straße",
    "美国“51区”雇员称内部有9架飞碟,曾看见灰色外星人",
    "CSDN博客结构之法算法之道的作者July",
    "共识算法是区块链系统的关键要素之一，本文对目前已经提出的主流区块链共识算法进行了系统性的梳理与分析。",
    "iPhone手机 and 中文 mixed with English words in one sentence",
    "ひらがなとカタカナの文章です。東京都に住んでいます。",
    "ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ",
    "한국어 문장은 띄어쓰기를 합니다",
    "Привет, мир! Это тест.",
    "مرحبا بالعالم",
    "line one\nline two\r\nline three\ttabbed",
    "repeat repeat repeat repeat words words",
    "Joseph’s brethren went to feed their father’s flock",
    "開放中文轉換是完全由軟件實現的，這篇文章討論簡體字和繁體字",
];

fn configurations() -> Vec<(String, FingerprinterBuilder)> {
    let mut out = Vec::new();
    for p in Profile::ALL {
        out.push((p.name().to_string(), Fingerprinter::builder(p)));
    }
    for h in FeatureHash::ALL {
        for w in [Width::W64, Width::W128] {
            let mut b = Fingerprinter::builder(Profile::Auto);
            b.hash(h).width(w);
            out.push((format!("auto hash={h} width={}", w.bits()), b));
        }
    }
    for k in [FeatureKind::Shingles(3), FeatureKind::CharNgrams(4)] {
        let mut b = Fingerprinter::builder(Profile::Auto);
        b.features(k);
        out.push((format!("auto features={k}"), b));
    }
    for w in Weighting::ALL {
        let mut b = Fingerprinter::builder(Profile::Auto);
        b.weighting(w);
        if w == Weighting::TextRank {
            // TextRank ranks words, and `zh` takes bigrams.
            b.features(FeatureKind::Words);
        }
        out.push((format!("auto weighting={w}"), b));
    }
    let mut b = Fingerprinter::builder(Profile::Zh);
    b.top_k(Some(5));
    out.push(("zh top_k=5".to_string(), b));
    let mut b = Fingerprinter::builder(Profile::PythonSimhash);
    b.width(Width::W128);
    out.push(("python-simhash width=128".to_string(), b));
    out
}

fn compute() -> BTreeMap<String, Vec<String>> {
    configurations()
        .into_iter()
        .map(|(name, builder)| {
            let fp = builder.build().unwrap();
            (
                name,
                TEXTS.iter().map(|t| fp.fingerprint(t).to_hex()).collect(),
            )
        })
        .collect()
}

#[test]
fn fingerprints_match_golden_vectors() {
    let path = root().join(format!(
        "crates/core/tests/data/golden_v{FINGERPRINT_FORMAT}.jsonl"
    ));
    let got = compute();
    if std::env::var_os("NEARDUP_BLESS").is_some() {
        let mut out = String::new();
        for (config, prints) in &got {
            for (text, fp) in TEXTS.iter().zip(prints) {
                let line = serde_json::json!({"config": config, "text": text, "fingerprint": fp});
                out.push_str(&line.to_string());
                out.push('\n');
            }
        }
        std::fs::write(&path, out).unwrap();
        return;
    }
    let golden = read_jsonl(&path);
    assert_eq!(
        golden.len(),
        got.values().map(Vec::len).sum::<usize>(),
        "configurations changed"
    );
    let mut wrong = Vec::new();
    for line in golden {
        let config = line["config"].as_str().unwrap();
        let text = line["text"].as_str().unwrap();
        let i = TEXTS
            .iter()
            .position(|t| *t == text)
            .expect("text no longer tested");
        let want = line["fingerprint"].as_str().unwrap();
        let have = &got[config][i];
        if have != want {
            wrong.push(format!("[{config}] {text:?}: {have} != golden {want}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "the fingerprint format changed:\n{}",
        wrong.join("\n")
    );
}
