//! `neardup dedup` on the BBC news corpus, against its duplicates as judged
//! by hand: `crates/eval/data/bbc_pairs.tsv` lists every pair of articles whose word
//! 3-shingles have a Jaccard similarity of 0.5 or more, and every other pair
//! within 10 bits, each read and judged `same_text`, `same_story` (another
//! version of one article) or `different_story`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::util::{Dir, root};

struct Truth {
    a: String,
    b: String,
    jaccard: f64,
    judgement: String,
}

fn truth() -> Vec<Truth> {
    let text = include_str!("../../eval/data/bbc_pairs.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Truth {
                a: f[0].to_string(),
                b: f[1].to_string(),
                jaccard: f[2].parse().unwrap(),
                judgement: f[3].to_string(),
            }
        })
        .collect()
}

/// The BBC corpus, or `None` (with a note) unless CI requires it.
fn bbc() -> Option<PathBuf> {
    let path = root().join("data/corpora/bbc.jsonl");
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("NEARDUP_REQUIRE_CORPORA").is_none(),
        "{} is missing: run scripts/fetch-corpora.sh",
        path.display()
    );
    eprintln!("skipped: {} is missing", path.display());
    None
}

/// The pairs (dropped, kept) a dedup run with `extra` arguments reports.
fn dropped(d: &Dir, input: &Path, extra: &[&str]) -> HashSet<(String, String)> {
    let mut args = vec![
        "dedup",
        input.to_str().unwrap(),
        "--out",
        "out",
        "--force",
        "-q",
    ];
    args.extend_from_slice(extra);
    let run = d.run(&args, b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    std::fs::read_to_string(d.path("out/duplicates.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let id = |f: &str| v[f].as_str().unwrap().to_string();
            (id("duplicate_of"), id("id"))
        })
        .collect()
}

#[test]
fn known_duplicates_found_and_no_different_story_dropped() {
    let Some(input) = bbc() else { return };
    let truth = truth();
    let d = Dir::new();
    // The defaults: k = 8, --threshold 0.8.
    let defaults = dropped(&d, &input, &[]);
    let jaccard = dropped(&d, &input, &["--verify", "jaccard:0.8"]);
    let wide = dropped(&d, &input, &["-k", "12"]);
    let alone = dropped(&d, &input, &["--verify", "none"]);
    let judged: HashSet<(String, String)> =
        truth.iter().map(|t| (t.a.clone(), t.b.clone())).collect();
    let reported =
        |set: &HashSet<(String, String)>, t: &Truth| set.contains(&(t.a.clone(), t.b.clone()));

    for t in &truth {
        if t.judgement == "same_text" {
            for (name, set) in [("defaults", &defaults), ("jaccard:0.8", &jaccard)] {
                assert!(reported(set, t), "{} ~ {} not found ({name})", t.a, t.b);
            }
        }
        if t.judgement == "different_story" {
            for (name, set) in [
                ("defaults", &defaults),
                ("jaccard:0.8", &jaccard),
                ("k=12 verified", &wide),
            ] {
                assert!(!reported(set, t), "{} dropped for {} ({name})", t.b, t.a);
            }
        }
    }
    // Every pair dropped at the defaults was judged by hand, and is a true one.
    for pair in &defaults {
        assert!(
            judged.contains(pair),
            "{pair:?} was never judged: update the table"
        );
    }
    // Recall of the pairs with shingle Jaccard of 0.8 or more.
    let close: Vec<&Truth> = truth.iter().filter(|t| t.jaccard >= 0.8).collect();
    let found = close.iter().filter(|t| reported(&defaults, t)).count();
    eprintln!(
        "defaults: {} dropped, {found} of {} pairs with Jaccard >= 0.8",
        defaults.len(),
        close.len()
    );
    assert!(
        found as f64 >= 0.94 * close.len() as f64,
        "{found} of {} found",
        close.len()
    );
    // SimHash alone at the default k merges a few different stories that
    // share quoted paragraphs: verification is what keeps them out.
    let wrong = truth
        .iter()
        .filter(|t| t.judgement == "different_story" && reported(&alone, t))
        .count();
    eprintln!("k=8 without verification: {wrong} different stories merged");
}
