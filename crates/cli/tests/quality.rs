//! The quality benchmark's CI slice: F1 at the defaults may not fall more
//! than 0.02 below the values recorded in `data/eval_recorded.json`.

use crate::util::{Dir, root};

#[test]
fn f1_at_the_defaults_holds() {
    let corpora = ["bbc.jsonl", "peoples_daily.jsonl"].map(|c| root().join("data/corpora").join(c));
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
    let d = Dir::new();
    let en = format!("en={}", corpora[0].display());
    let zh = format!("zh={}", corpora[1].display());
    let originals = recorded["originals"].to_string();
    let negatives = recorded["negatives"].to_string();
    let seed = recorded["seed"].to_string();
    let run = d.run(
        &[
            "eval",
            "--corpus",
            &en,
            "--corpus",
            &zh,
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
    for (k, want) in recorded["f1"].as_object().unwrap() {
        let k: usize = k.parse().unwrap();
        let f1 = scores["curve"][k]["scores"]["all"]["f1"].as_f64().unwrap();
        let want = want.as_f64().unwrap();
        eprintln!("k = {k}: F1 {f1:.4} (recorded {want:.4})");
        assert!(f1 >= want - 0.02, "k = {k}: F1 {f1:.4}, recorded {want:.4}");
    }
}
