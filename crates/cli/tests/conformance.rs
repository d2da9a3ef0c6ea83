//! One verdict everywhere: the conformance corpus (`conformance/corpus.jsonl`:
//! verses, Chinese classics, licence and copyright files, and edited copies
//! of them) through every door of the command, each expected to keep what
//! one batch `neardup dedup` keeps, with 0 disagreements:
//!
//! - `dedup` over the corpus split into three days, each run `--against`
//!   the index the days before saved (`--save-index`);
//! - `neardup serve --store-text`, every document sent in order as
//!   `insert_if_unique`;
//! - `compare` on every pair a door dropped: near-duplicates, every one.
//!
//! The Python package and the Spark job run the same corpus in their own
//! tests (bindings/python/tests).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::serve::{Server, agent, call};
use crate::util::{Dir, root};

/// The corpus, as (id, text) in order.
fn corpus() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("conformance/corpus.jsonl")).unwrap();
    text.lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            (
                v["id"].as_str().unwrap().to_string(),
                v["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// JSON lines of (id, text).
fn jsonl(docs: &[(String, String)]) -> String {
    docs.iter()
        .map(|(id, text)| format!("{}\n", json!({"id": id, "text": text})))
        .collect()
}

/// A door's drops: id → (duplicate_of, the similarity it gave).
type Drops = BTreeMap<String, (String, f64)>;

/// The ids a dedup's `unique.jsonl` kept, and its drops.
fn outcome(d: &Dir, out: &str) -> (BTreeSet<String>, Drops) {
    let read = |name: &str| -> Vec<Value> {
        std::fs::read_to_string(d.path(&format!("{out}/{name}")))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let kept = read("unique.jsonl")
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect();
    let dropped = read("duplicates.jsonl")
        .iter()
        .map(|v| {
            let of = v["duplicate_of"].as_str().unwrap().to_string();
            let similarity = v["similarity"].as_f64().unwrap();
            (v["id"].as_str().unwrap().to_string(), (of, similarity))
        })
        .collect();
    (kept, dropped)
}

/// What differs between two kept sets, said.
fn differences(what: &str, got: &BTreeSet<String>, want: &BTreeSet<String>) -> String {
    let extra: Vec<_> = got.difference(want).take(10).collect();
    let missing: Vec<_> = want.difference(got).take(10).collect();
    format!(
        "{what}: {} kept that batch dedup drops {extra:?}, {} dropped that it keeps {missing:?}",
        got.difference(want).count(),
        want.difference(got).count()
    )
}

#[test]
fn every_door_keeps_what_batch_dedup_keeps() {
    let d = Dir::new();
    let docs = corpus();
    assert!(docs.len() > 1000, "{}", docs.len());
    let text_of: BTreeMap<&str, &str> = docs
        .iter()
        .map(|(id, t)| (id.as_str(), t.as_str()))
        .collect();
    d.write("corpus.jsonl", jsonl(&docs));

    let run = d.run(&["dedup", "corpus.jsonl", "--out", "batch", "-q"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let (kept, dropped) = outcome(&d, "batch");
    assert!(
        dropped.len() > 300 && kept.len() > 500,
        "{} kept, {} dropped",
        kept.len(),
        dropped.len()
    );

    // Three days, each against the index of the days before.
    let third = docs.len().div_ceil(3);
    let mut day_kept = BTreeSet::new();
    let mut day_dropped = BTreeMap::new();
    for (day, part) in docs.chunks(third).enumerate() {
        let input = format!("day{day}.jsonl");
        d.write(&input, jsonl(part));
        let out = format!("day{day}");
        let mut args = vec!["dedup", &input, "--out", &out, "-q", "--save-index", "idx"];
        if day > 0 {
            args.extend(["--against", "idx"]);
        }
        let run = d.run(&args, b"");
        assert_eq!(run.code(), 0, "day {day}: {}", run.stderr());
        let (kept, dropped) = outcome(&d, &out);
        day_kept.extend(kept);
        day_dropped.extend(dropped);
    }
    assert!(
        day_kept == kept,
        "{}",
        differences("day by day", &day_kept, &kept)
    );

    // The service, every document in order, inserted if unique.
    let server = Server::start(&d.path("store"), &["--store-text"]);
    let agent = agent();
    let mut served_kept = BTreeSet::new();
    let mut served_dropped = BTreeMap::new();
    // The first documents one request each, the rest in batches (judged
    // in order within a batch too).
    let (single, batched) = docs.split_at(300);
    for batch in single.chunks(1).chain(batched.chunks(40)) {
        let documents: Vec<Value> = batch
            .iter()
            .map(|(id, text)| json!({"id": id, "text": text}))
            .collect();
        let (status, answer) = call(
            agent
                .post(format!("{}/v1/documents:batch", server.url))
                .send_json(json!({"mode": "insert_if_unique", "documents": documents})),
        );
        assert!(status == 200 || status == 201, "{status} {answer}");
        for result in answer["results"].as_array().unwrap() {
            let id = result["id"].as_str().unwrap().to_string();
            if result["inserted"] == true {
                served_kept.insert(id);
            } else {
                let first = &result["duplicates"][0];
                let of = first["id"].as_str().unwrap().to_string();
                served_dropped.insert(id, (of, first["similarity"].as_f64().unwrap()));
            }
        }
    }
    server.terminate();
    assert!(
        served_kept == kept,
        "{}",
        differences("the service", &served_kept, &kept)
    );

    // Every pair a door dropped, as compare judges it: near-duplicates,
    // with the similarity the door gave.
    let mut pairs: BTreeMap<(&str, &str), Vec<f64>> = BTreeMap::new();
    for (id, (of, similarity)) in dropped.iter().chain(&day_dropped).chain(&served_dropped) {
        pairs.entry((of, id)).or_default().push(*similarity);
    }
    let mut disagreements = Vec::new();
    for ((a, b), given) in &pairs {
        let run = d.run(
            &["compare", "--json", "--text", text_of[a], text_of[b]],
            b"",
        );
        let verdict = &run.lines()[0];
        let value = verdict["verify"]["value"].as_f64().unwrap_or(f64::NAN);
        let alike = given.iter().all(|s| (s - value).abs() < 1e-4);
        if run.code() != 0 || verdict["near_duplicate"] != true || !alike {
            disagreements.push(format!(
                "{a} → {b}: {given:?} given, compare says {verdict}"
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} dropped pairs disagree with compare: {:?}",
        disagreements.len(),
        pairs.len(),
        &disagreements[..disagreements.len().min(3)]
    );
    eprintln!(
        "conformance: {} documents, {} kept, {} pairs compared: 0 disagreements",
        docs.len(),
        kept.len(),
        pairs.len()
    );
}
