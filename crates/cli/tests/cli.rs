use std::io::Write;

use crate::util::{Dir, root};

#[test]
fn help_shows_examples() {
    let d = Dir::new();
    for args in [
        &["--help"][..],
        &["fingerprint", "--help"],
        &["compare", "--help"],
        &["idf", "--help"],
    ] {
        let run = d.run(args, b"");
        assert_eq!(run.code(), 0);
        assert!(run.stdout().contains("Examples:"), "{args:?}");
    }
}

#[test]
fn fingerprints_files_directories_stdin_in_order() {
    let d = Dir::new();
    d.write("docs/b.txt", "second file about cats and dogs");
    d.write("docs/a.txt", "first file about cats and dogs");
    d.write(
        "x.jsonl",
        "{\"id\": \"j1\", \"text\": \"json one\"}\n{\"text\": \"json two\"}\n",
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"{\"id\": \"z\", \"text\": \"zipped\"}\n")
        .unwrap();
    d.write("y.jsonl.gz", gz.finish().unwrap());
    let run = d.run(
        &["fingerprint", "docs", "x.jsonl", "-", "y.jsonl.gz"],
        b"from stdin",
    );
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let ids: Vec<String> = run
        .lines()
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        ids,
        ["docs/a.txt", "docs/b.txt", "j1", "x.jsonl:2", "-", "z"]
    );
    for line in run.lines() {
        let hex = line["fingerprint"].as_str().unwrap();
        assert_eq!(hex.len(), 16);
        assert!(
            hex.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
    }
}

#[test]
fn output_order_and_bits_do_not_depend_on_threads() {
    let d = Dir::new();
    let mut text = String::new();
    for i in 0..5000 {
        text.push_str(&format!(
            "document number {i} with words {} and {}\n",
            i * 7,
            i % 13
        ));
    }
    d.write("many.txt", &text);
    let one = d.run(&["fingerprint", "--lines", "-j", "1", "many.txt"], b"");
    let two = d.run(&["fingerprint", "--lines", "-j", "2", "many.txt"], b"");
    assert_eq!(one.code(), 0);
    assert_eq!(one.stdout(), two.stdout());
    assert_eq!(one.lines().len(), 5000);
    assert_eq!(one.lines()[4999]["id"], "many.txt:5000");
}

#[test]
fn explain_adds_features() {
    let d = Dir::new();
    let run = d.run(
        &["fingerprint", "-", "--explain", "2"],
        b"cat cat cat dog dog bird",
    );
    let line = &run.lines()[0];
    assert_eq!(line["profile"], "en");
    assert_eq!(line["feature_count"], 3);
    assert_eq!(
        line["features"],
        serde_json::json!([["cat", 3.0], ["dog", 2.0]])
    );
}

#[test]
fn settings_flags_change_the_fingerprint() {
    let d = Dir::new();
    let text = b"some text to fingerprint in several ways, and some more text";
    let base = d.run(&["fingerprint", "-"], text).lines()[0]["fingerprint"].clone();
    for flags in [
        &["--width", "128"][..],
        &["--hash", "fnv1a"],
        &["--features", "shingles:2"],
        &["--weighting", "binary"],
        &["--profile", "python-simhash"],
    ] {
        let mut args = vec!["fingerprint", "-"];
        args.extend_from_slice(flags);
        let run = d.run(&args, text);
        assert_eq!(run.code(), 0, "{flags:?}: {}", run.stderr());
        assert_ne!(run.lines()[0]["fingerprint"], base, "{flags:?}");
    }
    let bad = d.run(&["fingerprint", "-", "--features", "trigrams"], text);
    assert_eq!(bad.code(), 2);
    assert!(bad.stderr().contains("shingles:N"), "{}", bad.stderr());
}

#[test]
fn bad_input_is_named_and_fails() {
    let d = Dir::new();
    let mut jsonl = String::new();
    for i in 1..=6 {
        jsonl.push_str(&format!("{{\"text\": \"line {i}\"}}\n"));
    }
    jsonl.push_str("{\"text\": oops}\n");
    d.write("seven.jsonl", &jsonl);
    d.write("field.jsonl", "{\"body\": \"x\"}\n");
    d.write("latin1.txt", b"caf\xe9");
    d.write("bin.dat", b"\x7fELF\0\0\0");
    d.write("big.txt", "x".repeat(5000));
    std::fs::create_dir_all(d.path("empty")).unwrap();
    d.write("onlybinary/a.bin", b"\0\0");
    let cases: &[(&[&str], &str)] = &[
        (
            &["fingerprint", "missing.txt"],
            "missing.txt: no such file or directory",
        ),
        (&["fingerprint", "empty"], "empty: no readable documents"),
        (
            &["fingerprint", "onlybinary"],
            "onlybinary: no readable documents in this directory (1 binary file skipped)",
        ),
        (
            &["fingerprint", "seven.jsonl"],
            "seven.jsonl:7: invalid JSON",
        ),
        (
            &["fingerprint", "field.jsonl"],
            "field.jsonl:1: no \"text\" field (it has: body); name the field to read with --text-field",
        ),
        (
            &["fingerprint", "latin1.txt"],
            "latin1.txt:1: invalid UTF-8 at byte 3; convert the file to UTF-8",
        ),
        (&["fingerprint", "bin.dat"], "bin.dat: looks binary"),
        (
            &["fingerprint", "big.txt", "--max-bytes", "1000"],
            "big.txt: document of 5000 bytes is larger than the limit of 1000 bytes",
        ),
    ];
    for (args, message) in cases {
        let run = d.run(args, b"");
        assert_eq!(run.code(), 2, "{args:?}");
        assert!(run.stderr().contains(message), "{args:?}: {}", run.stderr());
        assert!(!run.stderr().contains("panicked"), "{args:?}");
    }
}

#[test]
fn skip_invalid_counts_and_goes_on() {
    let d = Dir::new();
    d.write(
        "mixed.jsonl",
        "{\"text\": \"good one\"}\n{bad\n{\"body\": 1}\n{\"text\": \"good two\"}\n",
    );
    d.write("latin1.txt", b"caf\xe9");
    // One thread reads and computes in turn; more hand batches over.
    for threads in ["1", "2"] {
        let args = ["fingerprint", "mixed.jsonl", "latin1.txt", "--skip-invalid"];
        let run = d.run(&[&args[..], &["-j", threads]].concat(), b"");
        assert_eq!(run.code(), 0, "{}", run.stderr());
        assert_eq!(run.lines().len(), 2);
        assert!(
            run.stderr()
                .contains("skipped 3 (1 invalid-json, 1 invalid-utf8, 1 missing-field)"),
            "{}",
            run.stderr()
        );
        let strict = d.run(&["fingerprint", "mixed.jsonl", "-j", threads], b"");
        assert_eq!(strict.code(), 2);
        assert_eq!(strict.lines().len(), 1, "the record before the bad line");
        assert!(
            strict.stderr().contains("mixed.jsonl:2"),
            "{}",
            strict.stderr()
        );
    }
}

#[test]
fn compare_exit_codes_and_json() {
    let d = Dir::new();
    let lic = root().join("crates/core/tests/data/licenses");
    let a = lic.join("MIT-bitflags");
    let b = lic.join("MIT-cc");
    let near = d.run(
        &[
            "compare",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--json",
            "--explain",
        ],
        b"",
    );
    assert_eq!(near.code(), 0, "{}", near.stderr());
    let v = &near.lines()[0];
    assert_eq!(v["near_duplicate"], true);
    assert!(v["distance"].as_u64().unwrap() <= 3);
    let far = d.run(
        &[
            "compare",
            "--text",
            "the cat sat on the mat",
            "we all scream for ice cream",
        ],
        b"",
    );
    assert_eq!(far.code(), 1);
    assert!(
        far.stdout()
            .contains("verdict:    different (found by the short-document rule, at any distance; verification fails)"),
        "{}",
        far.stdout()
    );
    assert!(
        far.stdout()
            .contains("verified:   0.000 Jaccard similarity of the shingles (at least 0.8): fails")
    );
    let missing = d.run(&["compare", "nope.txt", "-"], b"x");
    assert_eq!(missing.code(), 2);
    assert!(missing.stderr().contains("nope.txt"));
}

#[test]
fn idf_table_round_trips_into_fingerprints() {
    let d = Dir::new();
    let mut corpus = String::new();
    for i in 0..50 {
        corpus.push_str(&format!(
            "{{\"text\": \"common words appear everywhere topic{} rare{}\"}}\n",
            i % 5,
            i
        ));
    }
    d.write("c.jsonl", &corpus);
    let run = d.run(&["idf", "c.jsonl", "-o", "c.idf", "--min-df", "1"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let table = std::fs::read_to_string(d.path("c.idf")).unwrap();
    assert!(table.starts_with("#default\t"));
    assert!(table.contains("common\t") && table.contains("rare7\t"));
    let with = d.run(
        &["fingerprint", "-", "--idf", "c.idf", "--explain", "1"],
        b"common rare7",
    );
    let without = d.run(&["fingerprint", "-", "--explain", "1"], b"common rare7");
    assert_eq!(with.lines()[0]["features"][0][0], "rare7");
    assert_ne!(
        with.lines()[0]["fingerprint"],
        without.lines()[0]["fingerprint"]
    );
}

#[test]
fn eval_scores_a_benchmark_built_from_a_corpus() {
    let d = Dir::new();
    let mut lines = String::new();
    for i in 0..30 {
        let text = format!(
            "item {i} of the harbour report: the boats came in at dawn with cod, haddock and \
             mackerel, the market opened at six and prices for fish fell again as the weather \
             turned and the ferries to the islands were cancelled for the third day running {}",
            "while the council met to discuss the new sea wall and the cost of repairs "
                .repeat(i % 3 + 1)
        );
        lines.push_str(
            &serde_json::json!({"id": format!("t{}/{i}", i % 2), "text": text}).to_string(),
        );
        lines.push('\n');
    }
    d.write("c.jsonl", lines);
    let run = d.run(
        &[
            "eval",
            "--corpus",
            "en=c.jsonl",
            "--originals",
            "5",
            "--negatives",
            "2",
            "--json",
            "s.json",
            "--plots",
            "pl",
        ],
        b"",
    );
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let out = run.stdout();
    assert!(out.contains("| k | precision | recall | F1"), "{out}");
    assert!(out.contains("Targets at k = 8 (documents of"), "{out}");
    // No tracker's issue numbers in what the program prints.
    assert!(!out.to_lowercase().contains("issue"), "{out}");
    // It says what it is doing as it goes.
    for step in [
        "step 1/6 reading the corpora",
        "step 6/6 deduplicating it again in 3 daily runs",
    ] {
        assert!(run.stderr().contains(step), "{}", run.stderr());
    }
    assert!(
        out.contains("| substitute |") && out.contains("| language en |"),
        "{out}"
    );
    let scores: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path("s.json")).unwrap()).unwrap();
    let curve = scores["curve"].as_array().unwrap();
    assert_eq!(curve.len(), 9);
    for chart in [
        "scores-over-k",
        "f1-by-language-and-length",
        "recall-by-edit",
    ] {
        let svg = std::fs::read_to_string(d.path(&format!("pl/{chart}.svg"))).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("<polyline"),
            "{chart}"
        );
    }
    // Recall can only grow with k.
    let recall = |k: usize| curve[k]["scores"]["all"]["recall"].as_f64().unwrap();
    assert!((0..8).all(|k| recall(k) <= recall(k + 1)));
    assert!(recall(8) > 0.5, "{}", scores);
    // Another tool's answers, through the exported benchmark.
    let run = d.run(
        &[
            "eval",
            "--corpus",
            "en=c.jsonl",
            "--originals",
            "5",
            "--negatives",
            "2",
            "--export",
            "ex",
        ],
        b"",
    );
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let pairs = std::fs::read_to_string(d.path("ex/pairs.jsonl")).unwrap();
    let truth: Vec<bool> = pairs
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["duplicate"] == true)
        .collect();
    assert!(truth.iter().any(|t| *t) && truth.iter().any(|t| !*t));
    let oracle: String = truth.iter().map(|t| format!("{t}\n")).collect();
    d.write("oracle.jsonl", &oracle);
    d.write("short.jsonl", "true\n");
    let scored = d.run(
        &[
            "eval",
            "--corpus",
            "en=c.jsonl",
            "--originals",
            "5",
            "--negatives",
            "2",
            "--predictions",
            "oracle=oracle.jsonl",
            "--verify",
            "jaccard:0.8",
        ],
        b"",
    );
    assert_eq!(scored.code(), 0, "{}", scored.stderr());
    assert!(
        scored.stdout().contains("oracle:\n\n| k | precision | recall | F1 | F1, ≥ 50 words | hard negatives right |\n|--:|--:|--:|--:|--:|--:|\n| – | 1.0000 | 1.0000 | 1.0000 |"),
        "{}",
        scored.stdout()
    );
    let wrong = d.run(
        &[
            "eval",
            "--corpus",
            "en=c.jsonl",
            "--originals",
            "5",
            "--predictions",
            "x=short.jsonl",
        ],
        b"",
    );
    assert_eq!(wrong.code(), 2);
    assert!(
        wrong.stderr().contains("1 answers for"),
        "{}",
        wrong.stderr()
    );
    // A small collection whose every pair is labelled.
    d.write("lic/a.txt", "Copyright 2020 Ann. Permission is hereby granted, free of charge, to any person obtaining a copy of this software to deal in it without restriction, subject to the conditions below.");
    d.write("lic/b.txt", "Copyright 2024 Bob. Permission is hereby granted, free of charge, to any person obtaining a copy of this software to deal in it without restriction, subject to the conditions below.");
    d.write("lic/c.txt", "This program is free software: you can redistribute it and/or modify it under the terms of the licence published by the foundation, any later version.");
    let all = d.run(
        &[
            "eval",
            "--corpus",
            "en=c.jsonl",
            "--originals",
            "0",
            "--all-pairs",
            "en=lic",
        ],
        b"",
    );
    assert_eq!(all.code(), 0, "{}", all.stderr());
    assert!(
        all.stdout().contains("| natural pairs |"),
        "{}",
        all.stdout()
    );
    assert!(
        all.stdout().starts_with("3 documents, 3 labelled pairs"),
        "{}",
        all.stdout()
    );
    // Versions of the same documents: only ids equal after the first '/'
    // are paired (three versions of one chapter, none of the other).
    let verse =
        "In the beginning God created the heaven and the earth, and the earth was without form";
    let versions = [
        ("kjv/Genesis 1", verse.to_string()),
        ("ebible/Genesis 1", verse.to_uppercase()),
        ("web/Genesis 1", "In the beginning, God created the heavens and the earth. The earth was formless and empty".to_string()),
        ("kjv/Genesis 2", "Thus the heavens and the earth were finished, and all the host of them".to_string()),
    ];
    let mut lines = String::new();
    for (id, text) in versions {
        lines.push_str(&serde_json::json!({"id": id, "text": text}).to_string());
        lines.push('\n');
    }
    d.write("bible.jsonl", lines);
    let aligned = d.run(
        &["eval", "--originals", "0", "--aligned", "en=bible.jsonl"],
        b"",
    );
    assert_eq!(aligned.code(), 0, "{}", aligned.stderr());
    assert!(
        aligned
            .stdout()
            .starts_with("3 documents, 3 labelled pairs, 1 near-duplicates"),
        "{}",
        aligned.stdout()
    );
    let bad = d.run(&["eval", "--corpus", "c.jsonl"], b"");
    assert_eq!(bad.code(), 2);
    assert!(bad.stderr().contains("LANGUAGE=PATH"), "{}", bad.stderr());
}
