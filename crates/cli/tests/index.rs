//! `neardup index`: build, add, query, stats, and the errors.

use crate::util::Dir;

fn line(id: &str, fp: &str) -> String {
    format!("{{\"id\": \"{id}\", \"fingerprint\": \"{fp}\"}}\n")
}

#[test]
fn build_add_query_stats() {
    let d = Dir::new();
    d.write(
        "a.jsonl",
        [line("a", "00000000000000ff"), line("b", "ffffffff00000000")].concat(),
    );
    d.write(
        "q.jsonl",
        [
            line("q1", "00000000000000fc"),
            line("q2", "0f0f0f0f0f0f0f0f"),
        ]
        .concat(),
    );
    let build = d.run(&["index", "build", "a.jsonl", "--index", "idx"], b"");
    assert_eq!(build.code(), 0, "{}", build.stderr());
    let add = d.run(
        &["index", "add", "-", "--index", "idx"],
        line("c", "00000000000000fe").as_bytes(),
    );
    assert_eq!(add.code(), 0, "{}", add.stderr());
    let query = d.run(&["index", "query", "q.jsonl", "--index", "idx"], b"");
    assert_eq!(query.code(), 0, "{}", query.stderr());
    let lines = query.lines();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["id"], "q1");
    let matches: Vec<(String, u64)> = lines[0]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["id"].as_str().unwrap().to_string(),
                m["distance"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(matches, [("c".to_string(), 1), ("a".to_string(), 2)]);
    assert!(lines[1]["matches"].as_array().unwrap().is_empty());
    let narrow = d.run(
        &["index", "query", "q.jsonl", "--index", "idx", "-k", "1"],
        b"",
    );
    assert_eq!(narrow.lines()[0]["matches"].as_array().unwrap().len(), 1);
    let stats = d.run(&["index", "stats", "--index", "idx"], b"");
    assert_eq!(stats.code(), 0, "{}", stats.stderr());
    assert_eq!(stats.lines()[0]["fingerprints"], 3);
    // The default k of an index is dedup's and the service's.
    assert_eq!(stats.lines()[0]["k"], 8);
}

#[test]
fn index_errors_are_named() {
    let d = Dir::new();
    d.write("a.jsonl", line("a", "00000000000000ff"));
    d.write("wide.jsonl", line("w", &"f".repeat(32)));
    assert_eq!(
        d.run(&["index", "build", "a.jsonl", "--index", "idx"], b"")
            .code(),
        0
    );
    let cases: [(&[&str], &str); 5] = [
        (
            &["index", "build", "a.jsonl", "--index", "idx"],
            "already holds an index",
        ),
        (
            &["index", "add", "a.jsonl", "--index", "idx"],
            "\"a\" is already in the index",
        ),
        (
            &["index", "add", "wide.jsonl", "--index", "idx"],
            "wide.jsonl:1: a 128-bit fingerprint among 64-bit ones",
        ),
        (
            &["index", "query", "a.jsonl", "--index", "idx", "-k", "9"],
            "at most 8 bits apart",
        ),
        (
            &["index", "stats", "--index", "nowhere"],
            "nowhere holds no index: make one with neardup index build",
        ),
    ];
    for (args, message) in cases {
        let run = d.run(args, b"");
        assert_eq!(run.code(), 2, "{args:?}");
        assert!(run.stderr().contains(message), "{args:?}: {}", run.stderr());
    }
    // An index directory of the layout before the store.
    let old_dir = d.path("old");
    std::fs::create_dir_all(&old_dir).unwrap();
    std::fs::write(
        old_dir.join("MANIFEST"),
        "neardup-index 1\nwidth 64\nsegment seg-000001.ndx\n",
    )
    .unwrap();
    let old = d.run(&["index", "stats", "--index", "old"], b"");
    assert_eq!(old.code(), 2);
    assert!(
        old.stderr()
            .contains("an index of an earlier layout, before the store: rebuild it"),
        "{}",
        old.stderr()
    );
    // Another neardup holding the store (a running `neardup serve`) is named.
    let held = neardup_store::AnyStore::open(&d.path("idx"), None, Default::default()).unwrap();
    let busy = d.run(&["index", "add", "a.jsonl", "--index", "idx"], b"");
    assert!(
        busy.stderr().contains("another neardup is writing a store"),
        "{}",
        busy.stderr()
    );
    drop(held);
}

#[test]
fn documents_are_fingerprinted_to_query() {
    let d = Dir::new();
    d.write(
        "docs/a.txt",
        "the quick brown fox jumps over the lazy dog near the river bank",
    );
    d.write(
        "docs/b.txt",
        "completely different words about markets and interest rates today",
    );
    let prints = d.run(&["fingerprint", "docs"], b"");
    assert_eq!(prints.code(), 0, "{}", prints.stderr());
    let build = d.run(
        &["index", "build", "-", "--index", "idx"],
        prints.stdout().as_bytes(),
    );
    assert_eq!(build.code(), 0, "{}", build.stderr());
    d.write(
        "q.txt",
        "the quick brown fox jumps over the lazy dog near the river bank!",
    );
    let query = d.run(
        &["index", "query", "--documents", "q.txt", "--index", "idx"],
        b"",
    );
    assert_eq!(query.code(), 0, "{}", query.stderr());
    let lines = query.lines();
    assert_eq!(lines[0]["id"], "q.txt");
    assert_eq!(lines[0]["matches"][0]["id"], "docs/a.txt");
    assert_eq!(lines[0]["matches"][0]["distance"], 0);
    let wide = d.run(
        &[
            "index",
            "query",
            "--documents",
            "q.txt",
            "--index",
            "idx",
            "--width",
            "128",
        ],
        b"",
    );
    assert_eq!(wide.code(), 2);
    assert!(
        wide.stderr()
            .contains("the index holds 64-bit fingerprints"),
        "{}",
        wide.stderr()
    );
}
