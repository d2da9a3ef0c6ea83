use super::*;

fn fp(profile: Profile) -> Fingerprinter {
    Fingerprinter::new(profile).unwrap()
}

/// The streaming path and the collecting path are two ways to compute the
/// same thing; they must agree bit for bit.
#[test]
fn streaming_equals_collecting() {
    let texts = [
        "The quick brown fox jumps over the lazy dog. The dog sleeps.",
        "Ünïcödé wörds, ΟΔΟΣ and 中文 mixed with café and ＦＵＬＬ width",
        "a",
        "repeated repeated repeated words words",
    ];
    for width in [Width::W64, Width::W128] {
        for hash in FeatureHash::ALL {
            let mut s = Settings::en();
            s.width = width;
            s.hash = hash;
            for text in texts {
                let streamed = stream_fingerprint(&s, text);
                let collected = accumulate(&s, text, &collect_features(&s, text, false));
                assert_eq!(streamed, collected, "{text:?} {hash} {width:?}");
            }
        }
    }
}

#[test]
fn featureless_texts_do_not_collide() {
    let en = fp(Profile::Auto);
    let empties = ["", " ", "\n\n", "!!!", "???", "🙂", "🙂🙂", "—", "...."];
    let prints: Vec<Fingerprint> = empties.iter().map(|t| en.fingerprint(t)).collect();
    for i in 0..prints.len() {
        assert!(en.explain(empties[i]).is_featureless(), "{:?}", empties[i]);
        for j in i + 1..prints.len() {
            assert!(
                prints[i].distance(&prints[j]).unwrap() > 3,
                "{:?} and {:?} collide",
                empties[i],
                empties[j]
            );
        }
    }
    // The same featureless text is still its own duplicate.
    assert_eq!(en.fingerprint("!!!"), en.fingerprint("!!!"));
}

#[test]
fn auto_picks_by_script() {
    let auto = fp(Profile::Auto);
    assert_eq!(auto.explain("plain english words").profile, "en");
    assert_eq!(auto.explain("美国51区雇员称内部有9架飞碟").profile, "zh");
    assert_eq!(
        auto.explain("An English text quoting 飞碟 once").profile,
        "en"
    );
    assert_eq!(
        auto.fingerprint("美国51区雇员称内部有9架飞碟"),
        fp(Profile::Zh).fingerprint("美国51区雇员称内部有9架飞碟")
    );
}

#[test]
fn stop_words_are_dropped() {
    let features = fp(Profile::En).weighted_features("the cat of the house");
    let words: Vec<&str> = features.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(words, ["cat", "house"]);
    let keeping = Fingerprinter::builder(Profile::En)
        .stop_words(None)
        .build()
        .unwrap();
    let features = keeping.weighted_features("the cat of the house");
    let words: Vec<&str> = features.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(words, ["the", "cat", "of", "house"]);
}

#[test]
fn zh_takes_character_bigrams_of_its_kept_words() {
    // 我们, 的 and 在 are stop words; the kept words are joined by a space.
    let zh = fp(Profile::Zh).weighted_features("我们的飞碟在美国");
    let grams: Vec<&str> = zh.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(grams, ["飞碟", "碟 ", " 美", "美国"]);
}

#[test]
fn top_k_keeps_the_heaviest() {
    let f = Fingerprinter::builder(Profile::En)
        .top_k(Some(2))
        .build()
        .unwrap();
    let words: Vec<String> = f
        .weighted_features("cat cat cat dog dog bird fish")
        .into_iter()
        .map(|w| w.text)
        .collect();
    assert_eq!(words, ["cat", "dog"]);
}

#[test]
fn tfidf_weighs_rare_words_more() {
    let words = Fingerprinter::builder(Profile::Zh)
        .features(FeatureKind::Words)
        .weighting(Weighting::TfIdf)
        .build()
        .unwrap();
    let features = words.weighted_features("美国飞碟");
    let weight = |w: &str| features.iter().find(|f| f.text == w).unwrap().weight;
    assert!(weight("飞碟") > weight("美国"));
}

#[test]
fn textrank_needs_words() {
    let err = Fingerprinter::builder(Profile::En)
        .weighting(Weighting::TextRank)
        .features(FeatureKind::Shingles(2))
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("TextRank"));
    let ok = Fingerprinter::builder(Profile::En)
        .weighting(Weighting::TextRank)
        .build()
        .unwrap();
    assert!(!ok.explain("graph of words and more words").is_featureless());
}

#[test]
fn python_simhash_is_fixed() {
    assert!(
        Fingerprinter::builder(Profile::PythonSimhash)
            .hash(FeatureHash::Xxh3)
            .build()
            .is_err()
    );
    assert!(
        Fingerprinter::builder(Profile::PythonSimhash)
            .width(Width::W128)
            .build()
            .is_ok()
    );
    assert!(
        Fingerprinter::builder(Profile::En)
            .top_k(Some(0))
            .build()
            .is_err()
    );
}

#[test]
fn batch_equals_one_by_one() {
    let f = fp(Profile::Auto);
    let texts = ["one text here", "另一个文本在这里", "", "third text here"];
    let batch = f.fingerprint_batch(&texts);
    for (t, b) in texts.iter().zip(batch) {
        assert_eq!(f.fingerprint(t), b);
    }
}

/// Fingerprints without a feature list (tables reused from document to
/// document) equal the fingerprints of the explained features.
#[test]
fn tallied_equals_explained() {
    let texts = [
        "美国51区雇员称内部有9架飞碟，曾看见灰色外星人",
        "the cat and the hat and the cat",
        "",
        "中华人民共和国 中华人民共和国 成立 of the people",
        "美国51区雇员称内部有9架飞碟，曾看见灰色外星人",
    ];
    let configs = [
        Fingerprinter::new(Profile::Zh).unwrap(),
        Fingerprinter::builder(Profile::En)
            .weighting(Weighting::Binary)
            .build()
            .unwrap(),
        Fingerprinter::builder(Profile::Zh)
            .width(Width::W128)
            .features(FeatureKind::Shingles(2))
            .build()
            .unwrap(),
        Fingerprinter::builder(Profile::Zh)
            .top_k(Some(3))
            .build()
            .unwrap(),
    ];
    for fp in &configs {
        for text in texts {
            assert_eq!(
                fp.fingerprint(text),
                fp.explain(text).fingerprint,
                "{text:?}"
            );
        }
    }
}
