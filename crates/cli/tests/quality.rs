//! The quality benchmark's CI slice: F1 at the defaults, on the labelled
//! pairs and of what dedup does, may not fall more than 0.02 below the
//! values recorded in `data/eval_recorded.json`.

use crate::util::{Dir, root};

#[test]
fn f1_at_the_defaults_holds() {
    let corpora = [
        "bbc.jsonl",
        "peoples_daily.jsonl",
        "tech_docs.jsonl",
        "fiction_zh.jsonl",
        "kjv_verses.jsonl",
        "reviews_zh.jsonl",
    ]
    .map(|c| root().join("data/corpora").join(c));
    if corpora.iter().any(|c| !c.exists()) {
        assert!(
            std::env::var_os("NEARDUP_REQUIRE_CORPORA").is_none(),
            "the corpora are missing: run scripts/fetch-corpora.sh"
        );
        eprintln!("skipped: the corpora are missing (scripts/fetch-corpora.sh)");
        return;
    }
    let recorded: serde_json::Value =
        serde_json::from_str(include_str!("data/eval_recorded.json")).unwrap();
    // The default sources are read from data/ and samples/ where eval runs.
    let d = Dir::new();
    for folder in ["data", "samples"] {
        std::os::unix::fs::symlink(root().join(folder), d.path(folder)).unwrap();
    }
    let originals = recorded["originals"].to_string();
    let negatives = recorded["negatives"].to_string();
    let seed = recorded["seed"].to_string();
    let run = d.run(
        &[
            "eval",
            "--originals",
            &originals,
            "--negatives",
            &negatives,
            "--seed",
            &seed,
            "--json",
            "scores.json",
        ],
        b"",
    );
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let scores: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path("scores.json")).unwrap()).unwrap();
    let k = scores["settings"]["k"].as_u64().unwrap() as usize;
    // A part is a path into the scores: "long_by_language/zh".
    let f1 = |scores: &serde_json::Value, part: &str| {
        part.split('/')
            .fold(scores, |v, key| &v[key])
            .get("f1")
            .and_then(serde_json::Value::as_f64)
    };
    let checks = [
        ("pairs", &scores["curve"][k]["scores"], &recorded["f1"]),
        (
            "dedup",
            &scores["dedup"][0]["scores"],
            &recorded["dedup_f1"],
        ),
    ];
    for (what, got, want) in checks {
        for (part, want) in want.as_object().unwrap() {
            let got = f1(got, part).unwrap_or_else(|| panic!("{what}: no {part}"));
            let want = want.as_f64().unwrap();
            eprintln!("k = {k}, {what}, {part}: F1 {got:.4} (recorded {want:.4})");
            assert!(
                got >= want - 0.02,
                "k = {k}, {what}, {part}: F1 {got:.4}, recorded {want:.4}"
            );
        }
    }
}
