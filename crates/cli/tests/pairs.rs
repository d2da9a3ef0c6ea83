//! `neardup pairs` and `neardup plan`.

use crate::util::Dir;

fn line(id: &str, fp: &str) -> String {
    format!("{{\"id\": \"{id}\", \"fingerprint\": \"{fp}\"}}\n")
}

#[test]
fn pairs_of_fingerprint_lines() {
    let d = Dir::new();
    let prints = [
        line("a", "00000000000000ff"),
        line("b", "00000000000000fe"), // 1 bit from a
        line("c", "ffffffff00000000"),
        line("d", "00000000000000f0"), // 4 bits from a, 3 from b
    ]
    .concat();
    d.write("p.jsonl", &prints);
    let run = d.run(&["pairs", "p.jsonl", "-k", "3"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let pairs: Vec<(String, String, u64)> = run
        .lines()
        .iter()
        .map(|p| {
            (
                p["a"].as_str().unwrap().to_string(),
                p["b"].as_str().unwrap().to_string(),
                p["distance"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [("a".into(), "b".into(), 1), ("b".into(), "d".into(), 3)]
    );
    // The same through stdin, and with every plan.
    for blocks in ["4", "5", "6"] {
        let again = d.run(&["pairs", "-", "--blocks", blocks], prints.as_bytes());
        assert_eq!(again.stdout(), run.stdout(), "{blocks} blocks");
    }
    // Queries against a base: only pairs across.
    d.write("q.jsonl", line("q", "00000000000000fc"));
    let across = d.run(
        &["pairs", "q.jsonl", "--against", "p.jsonl", "-k", "2"],
        b"",
    );
    assert_eq!(across.code(), 0, "{}", across.stderr());
    let found: Vec<_> = across.lines().iter().map(|p| p["b"].clone()).collect();
    assert_eq!(found, ["a", "b", "d"].map(serde_json::Value::from));
}

#[test]
fn pairs_past_the_memory_budget_are_sorted_on_disk_to_the_same_output() {
    // 300 copies of one fingerprint and 300 one bit from it: 179,700 pairs,
    // about 2 MB, against a budget of 64 KB.
    let d = Dir::new();
    let prints: String = (0..600)
        .map(|i| {
            line(
                &format!("d{i}"),
                if i % 2 == 0 {
                    "00000000000000ff"
                } else {
                    "00000000000000fe"
                },
            )
        })
        .collect();
    d.write("p.jsonl", &prints);
    let held = d.run(&["pairs", "p.jsonl", "-k", "1"], b"");
    let spilled = d.run(&["pairs", "p.jsonl", "-k", "1", "--memory", "128K"], b"");
    assert_eq!(
        (held.code(), spilled.code()),
        (0, 0),
        "{}",
        spilled.stderr()
    );
    assert_eq!(held.lines().len(), 600 * 599 / 2);
    assert!(held.stdout() == spilled.stdout(), "outputs differ");
    let bad = d.run(&["pairs", "p.jsonl", "--memory", "lots"], b"");
    assert_eq!(bad.code(), 2);
    assert!(bad.stderr().contains("not a size"), "{}", bad.stderr());
}

#[test]
fn bad_fingerprint_input_is_named() {
    let d = Dir::new();
    d.write("hex.jsonl", [line("a", "00ff"), line("b", "zz")].concat());
    d.write(
        "mixed.jsonl",
        [line("a", "00000000000000ff"), line("b", &"f".repeat(32))].concat(),
    );
    d.write(
        "dup.jsonl",
        [line("a", "00000000000000ff"), line("a", "00000000000000fe")].concat(),
    );
    d.write("ok.jsonl", line("a", "00000000000000ff"));
    let cases: [(&[&str], &str); 4] = [
        (&["pairs", "hex.jsonl"], "hex.jsonl:1"),
        (
            &["pairs", "mixed.jsonl"],
            "mixed.jsonl:2: a 128-bit fingerprint among 64-bit ones (the first at mixed.jsonl:1)",
        ),
        (
            &["pairs", "dup.jsonl"],
            "dup.jsonl:2: id \"a\" was already given at dup.jsonl:1",
        ),
        (&["pairs", "ok.jsonl", "-k", "70"], "-k 70"),
    ];
    for (args, message) in cases {
        let run = d.run(args, b"");
        assert_eq!(run.code(), 2, "{args:?}");
        assert!(run.stderr().contains(message), "{args:?}: {}", run.stderr());
        assert!(run.stdout().is_empty());
    }
}

#[test]
fn plan_shows_the_options_and_the_choice() {
    let d = Dir::new();
    let run = d.run(&["plan", "-n", "1e9", "-k", "3"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let out = run.stdout();
    assert!(out.contains("queries: 6 blocks, 20 tables"), "{out}");
    assert!(out.contains("join:    5 blocks, 10 tables"), "{out}");
    let tight = d.run(&["plan", "-n", "1e9", "-k", "3", "--max-bytes", "8"], b"");
    assert_eq!(tight.code(), 2);
    assert!(
        tight.stderr().contains("bytes per fingerprint"),
        "{}",
        tight.stderr()
    );
}
