//! `python-simhash` against golden files made with the real PyPI `simhash`
//! 2.1.2 by `scripts/gen_python_simhash_golden.py`.

use neardup_core::{FeatureHash, Fingerprint, Fingerprinter, Profile, Width};

use crate::util::{read_jsonl, root};

#[test]
fn texts_match_the_package_bit_for_bit() {
    let golden = read_jsonl(&root().join("crates/core/tests/data/python_simhash_golden.jsonl"));
    assert!(golden.len() >= 1000, "{} lines", golden.len());
    let fp = Fingerprinter::new(Profile::PythonSimhash).unwrap();
    let mut wrong = Vec::new();
    for line in &golden {
        let text = line["text"].as_str().unwrap();
        let want: Fingerprint = line["fingerprint"].as_str().unwrap().parse().unwrap();
        let got = fp.fingerprint(text);
        if got != want {
            wrong.push(format!(
                "{} {:?}: got {got}, want {want}",
                line["kind"], text
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        golden.len(),
        wrong.join("\n")
    );
}

#[test]
fn weighted_features_match_the_package() {
    let golden =
        read_jsonl(&root().join("crates/core/tests/data/python_simhash_features_golden.jsonl"));
    assert!(golden.len() >= 100);
    for line in &golden {
        let features: Vec<(String, f64)> = line["features"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f[0].as_str().unwrap().to_string(), f[1].as_f64().unwrap()))
            .collect();
        let want: Fingerprint = line["fingerprint"].as_str().unwrap().parse().unwrap();
        let got = Fingerprint::from_features(&features, FeatureHash::Md5, Width::W64).unwrap();
        assert_eq!(got, want, "{features:?}");
    }
}
