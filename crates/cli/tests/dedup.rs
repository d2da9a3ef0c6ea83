//! `neardup dedup`: outputs, grouping and safety.

use crate::util::Dir;

const BASE: &str =
    "the quick brown fox jumps over the lazy dog near the river bank on a sunny morning in june";

fn article(words: &str) -> String {
    format!("{BASE} {words}")
}

#[test]
fn jsonl_records_are_kept_byte_for_byte() {
    let d = Dir::new();
    let lines = [
        format!("{{\"id\":\"a\",\"text\":\"{}\",\"extra\":\"caf\\u00e9\"}}\r\n", article("with one ending")),
        format!("{{\"id\":\"b\",\"text\":\"{}\"}}\n", article("with one ending!")),
        "{\"id\":\"c\",\"text\":\"completely different words about markets, rates and the weather\"}\n".to_string(),
        format!("{{\"text\":\"{}\",\"id\":\"d\"}}", article("with one ending")),
    ];
    d.write("in.jsonl", lines.concat());
    let run = d.run(&["dedup", "in.jsonl", "--out", "out"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let unique = std::fs::read_to_string(d.path("out/unique.jsonl")).unwrap();
    assert_eq!(unique, [lines[0].clone(), lines[2].clone()].concat());
    let dups = std::fs::read_to_string(d.path("out/duplicates.jsonl")).unwrap();
    let dups: Vec<serde_json::Value> = dups
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(dups.len(), 2);
    assert_eq!(
        (dups[0]["id"].as_str(), dups[0]["duplicate_of"].as_str()),
        (Some("b"), Some("a"))
    );
    assert_eq!(
        (dups[1]["id"].as_str(), dups[1]["distance"].as_u64()),
        (Some("d"), Some(0))
    );
    let clusters = std::fs::read_to_string(d.path("out/clusters.jsonl")).unwrap();
    assert_eq!(
        clusters,
        "{\"representative\":\"a\",\"members\":[\"a\",\"b\",\"d\"]}\n"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(
        (summary["documents"].as_u64(), summary["unique"].as_u64()),
        (Some(4), Some(2))
    );
    assert_eq!(summary["dropped"], 2);
}

#[test]
fn keep_and_cluster_choices() {
    let d = Dir::new();
    d.write("docs/1-short.txt", article(""));
    d.write("docs/2-long.txt", article("today"));
    let longest = d.run(
        &[
            "dedup", "docs", "--out", "o1", "--keep", "longest", "-k", "10",
        ],
        b"",
    );
    assert_eq!(longest.code(), 0, "{}", longest.stderr());
    let unique = std::fs::read_to_string(d.path("o1/unique.txt")).unwrap();
    assert_eq!(unique.trim(), "docs/2-long.txt");
    let first = d.run(
        &[
            "dedup",
            "docs",
            "--out",
            "o2",
            "-k",
            "10",
            "--cluster",
            "components",
        ],
        b"",
    );
    assert_eq!(first.code(), 0, "{}", first.stderr());
    assert_eq!(
        std::fs::read_to_string(d.path("o2/unique.txt"))
            .unwrap()
            .trim(),
        "docs/1-short.txt"
    );
}

#[test]
fn outputs_never_overwrite_or_half_exist() {
    let d = Dir::new();
    d.write(
        "in.jsonl",
        format!("{{\"id\":\"a\",\"text\":\"{}\"}}\n", article("")),
    );
    d.write("full/keep.txt", "something");
    let refused = d.run(&["dedup", "in.jsonl", "--out", "full"], b"");
    assert_eq!(refused.code(), 2);
    assert!(
        refused.stderr().contains("not empty"),
        "{}",
        refused.stderr()
    );
    assert!(!d.path("full/summary.json").exists());
    let forced = d.run(&["dedup", "in.jsonl", "--out", "full", "--force"], b"");
    assert_eq!(forced.code(), 0, "{}", forced.stderr());
    // A failed run over an earlier one leaves no summary that looks like its own.
    d.write("bad.jsonl", "{\"id\":\"a\",\"text\":\"fine\"}\n{not json\n");
    let failed = d.run(&["dedup", "bad.jsonl", "--out", "full", "--force"], b"");
    assert_eq!(failed.code(), 2, "{}", failed.stderr());
    assert!(
        failed.stderr().contains("bad.jsonl:2"),
        "{}",
        failed.stderr()
    );
    assert!(!d.path("full/summary.json").exists());
    assert!(d.path("full/keep.txt").exists());
    let stdin = d.run(&["dedup", "-", "--out", "o3"], b"x");
    assert_eq!(stdin.code(), 2);
    assert!(stdin.stderr().contains("not -"), "{}", stdin.stderr());
    // An input where an output would go is refused, not overwritten.
    d.write(
        "same/unique.jsonl",
        format!("{{\"id\":\"a\",\"text\":\"{}\"}}\n", article("")),
    );
    let clash = d.run(
        &["dedup", "same/unique.jsonl", "--out", "same", "--force"],
        b"",
    );
    assert_eq!(clash.code(), 2);
    assert!(clash.stderr().contains("is an input"), "{}", clash.stderr());
    assert!(
        std::fs::read_to_string(d.path("same/unique.jsonl"))
            .unwrap()
            .contains("\"a\"")
    );
}

#[test]
fn verification_removes_pairs_below_the_threshold() {
    // LGPL 2.0 and 2.1 are 2 bits apart, but differ in many passages: a
    // near-duplicate to SimHash, not to the exact shingle similarity.
    let licenses = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/licenses");
    let licenses = licenses.to_str().unwrap();
    let d = Dir::new();
    let plain = d.run(
        &[
            "dedup", licenses, "--out", "plain", "-q", "--verify", "none",
        ],
        b"",
    );
    assert_eq!(plain.code(), 0, "{}", plain.stderr());
    let verified = d.run(
        &[
            "dedup",
            licenses,
            "--out",
            "verified",
            "-q",
            "--verify",
            "jaccard:0.8",
        ],
        b"",
    );
    assert_eq!(verified.code(), 0, "{}", verified.stderr());
    let dropped =
        |dir: &str| std::fs::read_to_string(d.path(&format!("{dir}/duplicates.jsonl"))).unwrap();
    assert!(dropped("plain").contains("LGPL-2.txt"));
    assert!(!dropped("verified").contains("LGPL-2.txt"));
    assert!(
        dropped("verified").contains("MIT-cc.txt"),
        "copyright lines differ only"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path("verified/summary.json")).unwrap())
            .unwrap();
    assert!(summary["pairs"].as_u64() < summary["candidate_pairs"].as_u64());
    let bad = d.run(
        &["dedup", licenses, "--out", "bad", "--verify", "jaccard:2"],
        b"",
    );
    assert_eq!(bad.code(), 2);
    assert!(bad.stderr().contains("jaccard:0.8"), "{}", bad.stderr());
    // A threshold of 0 would pass every pair: refused, as by the Python
    // package, with the way to turn verification off.
    for args in [["--threshold", "0"], ["--verify", "jaccard:0"]] {
        let zero = d.run(
            &[&["dedup", licenses, "--out", "zero"][..], &args[..]].concat(),
            b"",
        );
        assert_eq!(zero.code(), 2, "{args:?}");
        assert!(zero.stderr().contains("above 0"), "{}", zero.stderr());
        assert!(zero.stderr().contains("none"), "{}", zero.stderr());
    }
}

#[test]
fn an_index_of_fingerprints_alone_is_used_with_a_warning() {
    // `neardup index build` keeps fingerprints, no texts: dedup --against it
    // judges by fingerprint alone, as before indexes kept texts, and says so.
    let d = Dir::new();
    let line = |id: &str, text: &str| format!("{{\"id\":\"{id}\",\"text\":\"{text}\"}}\n");
    d.write("day1.jsonl", line("a", &article("from monday")));
    d.write("day2.jsonl", line("b", &article("from monday!")));
    let prints = d.run(&["fingerprint", "day1.jsonl"], b"");
    assert_eq!(prints.code(), 0, "{}", prints.stderr());
    d.write("prints.jsonl", prints.stdout());
    let build = d.run(&["index", "build", "prints.jsonl", "--index", "old"], b"");
    assert_eq!(build.code(), 0, "{}", build.stderr());
    let run = d.run(
        &["dedup", "day2.jsonl", "--out", "o", "--against", "old"],
        b"",
    );
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert!(
        run.stderr().contains("keeps no texts") && run.stderr().contains("fingerprint alone"),
        "{}",
        run.stderr()
    );
    let dups = std::fs::read_to_string(d.path("o/duplicates.jsonl")).unwrap();
    assert!(
        dups.contains("\"duplicate_of\":\"a\"") && dups.contains("\"in_index\":true"),
        "{dups}"
    );
}

#[test]
fn incremental_runs_drop_what_earlier_runs_kept() {
    let d = Dir::new();
    let line = |id: &str, text: &str| format!("{{\"id\":\"{id}\",\"text\":\"{text}\"}}\n");
    d.write("day1.jsonl", line("a", &article("from monday")));
    let other = "completely different words about markets, rates and the weather in spring";
    d.write(
        "day2.jsonl",
        [
            line("b", &article("from monday!")),
            line("c", other),
            line("c2", &format!("{other}.")),
        ]
        .concat(),
    );
    let first = d.run(
        &[
            "dedup",
            "day1.jsonl",
            "--out",
            "o1",
            "--save-index",
            "seen",
            "-q",
        ],
        b"",
    );
    assert_eq!(first.code(), 0, "{}", first.stderr());
    let second = d.run(
        &[
            "dedup",
            "day2.jsonl",
            "--out",
            "o2",
            "--against",
            "seen",
            "--save-index",
            "seen",
            "-q",
        ],
        b"",
    );
    assert_eq!(second.code(), 0, "{}", second.stderr());
    let unique = std::fs::read_to_string(d.path("o2/unique.jsonl")).unwrap();
    assert_eq!(unique, line("c", other));
    let dups = std::fs::read_to_string(d.path("o2/duplicates.jsonl")).unwrap();
    assert!(
        dups.contains("{\"id\":\"b\",\"duplicate_of\":\"a\",\"distance\":"),
        "{dups}"
    );
    assert!(dups.contains("\"in_index\":true"), "{dups}");
    assert!(
        dups.contains("{\"id\":\"c2\",\"duplicate_of\":\"c\""),
        "{dups}"
    );
    let stats = d.run(&["index", "stats", "--index", "seen"], b"");
    assert_eq!(stats.lines()[0]["fingerprints"], 2, "a and c");
    // Fingerprints of other settings are not compared with the index's.
    for option in ["--against", "--save-index"] {
        let other = d.run(
            &[
                "dedup",
                "day2.jsonl",
                "--out",
                "o3",
                "--force",
                option,
                "seen",
                "--profile",
                "en",
            ],
            b"",
        );
        assert_eq!(other.code(), 2, "{}", other.stderr());
        assert!(
            other.stderr().contains("other settings")
                && other.stderr().contains("profile auto there, en here"),
            "{}",
            other.stderr()
        );
    }
    assert!(!d.path("o3").exists());
}

#[test]
fn keep_by_a_json_field() {
    let d = Dir::new();
    let line = |id: &str, extra: &str| {
        format!(
            "{{\"id\":\"{id}\",\"text\":\"{}\"{extra}}}\n",
            article("same story")
        )
    };
    d.write(
        "in.jsonl",
        [
            line("none", ""),
            line("low", ",\"score\":0.25,\"date\":\"2024-01-09\""),
            line("high", ",\"score\":9,\"date\":\"2023-12-31\""),
            line("null", ",\"score\":null"),
        ]
        .concat(),
    );
    let kept = |keep: &str| {
        let run = d.run(
            &[
                "dedup", "in.jsonl", "--out", "out", "--force", "--keep", keep,
            ],
            b"",
        );
        assert_eq!(run.code(), 0, "{}", run.stderr());
        let clusters = std::fs::read_to_string(d.path("out/clusters.jsonl")).unwrap();
        let v: serde_json::Value = serde_json::from_str(clusters.trim()).unwrap();
        v["representative"].as_str().unwrap().to_string()
    };
    assert_eq!(kept("max:score"), "high");
    assert_eq!(kept("field:score"), "high");
    assert_eq!(kept("min:score"), "low");
    assert_eq!(kept("max:date"), "low");
    assert_eq!(kept("min:date"), "high");
    // The id field can rank too.
    assert_eq!(kept("max:id"), "null");
    assert_eq!(kept("min:id"), "high");
    // Nobody has it: input order decides, and a warning says so.
    assert_eq!(kept("max:missing"), "none");
    let warned = d.run(
        &[
            "dedup",
            "in.jsonl",
            "--out",
            "out",
            "--force",
            "--keep",
            "max:missing",
        ],
        b"",
    );
    assert!(
        warned
            .stderr()
            .contains("no document has the field \"missing\""),
        "{}",
        warned.stderr()
    );
    let bad = d.run(&["dedup", "in.jsonl", "--out", "o2", "--keep", "max:"], b"");
    assert_eq!(bad.code(), 2);
    assert!(
        bad.stderr().contains("name the JSON field"),
        "{}",
        bad.stderr()
    );
    d.write("obj.jsonl", "{\"id\":\"x\",\"text\":\"t\",\"score\":{}}\n");
    let wrong = d.run(
        &["dedup", "obj.jsonl", "--out", "o3", "--keep", "max:score"],
        b"",
    );
    assert_eq!(wrong.code(), 2);
    assert!(
        wrong.stderr().contains("obj.jsonl:1") && wrong.stderr().contains("score"),
        "{}",
        wrong.stderr()
    );
}

#[test]
fn every_drop_says_why_and_annotate_gives_every_fate() {
    let d = Dir::new();
    // 120 words, none repeated: long, found by fingerprint.
    let long = |last: &str| {
        let words: Vec<String> = (0..120).map(|i| format!("word{i}")).collect();
        format!("{} {last}", words.join(" "))
    };
    let docs = [
        ("a", long("today")),
        ("b", long("today")),
        ("c", long("tonight")),
        (
            "s1",
            "a short note about the tides and the moon".to_string(),
        ),
        (
            "s2",
            "a short note about the tides and the moon!".to_string(),
        ),
        (
            "far",
            "a recipe for bread: flour, water, salt and yeast".to_string(),
        ),
    ];
    let lines: String = docs
        .iter()
        .map(|(id, text)| format!("{}\n", serde_json::json!({"id": id, "text": text})))
        .collect();
    d.write("in.jsonl", lines);
    let run = d.run(&["dedup", "in.jsonl", "--out", "out", "--annotate"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert!(
        run.stderr()
            .contains("3 dropped: 1 exact copy, 2 near-duplicates"),
        "{}",
        run.stderr()
    );
    let read = |name: &str| -> Vec<serde_json::Value> {
        std::fs::read_to_string(d.path(name))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let dups = read("out/duplicates.jsonl");
    let by_id = |id: &str| dups.iter().find(|v| v["id"] == id).unwrap().clone();
    assert_eq!(by_id("b")["found_by"], "exact");
    assert_eq!(by_id("c")["found_by"], "fingerprint");
    assert_eq!(by_id("s2")["found_by"], "short");
    let similarity = by_id("c")["similarity"].as_f64().unwrap();
    assert!((0.8..1.0).contains(&similarity), "{similarity}");
    // The similarity is compare's.
    let compare = d.run(
        &["compare", "--json", "--text", &docs[0].1, &docs[2].1],
        b"",
    );
    let value = compare.lines()[0]["verify"]["value"].as_f64().unwrap();
    assert!((value - similarity).abs() < 1e-4, "{value} {similarity}");
    let annotated = read("out/annotated.jsonl");
    assert_eq!(annotated.len(), docs.len());
    let ids: Vec<_> = annotated
        .iter()
        .map(|v| v["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", "b", "c", "s1", "s2", "far"]);
    assert_eq!(annotated[0]["kept"], true);
    assert_eq!(annotated[0]["cluster"], "a");
    assert_eq!(annotated[2]["cluster"], "a");
    assert_eq!(annotated[2]["duplicate_of"], "a");
    assert_eq!(annotated[4]["cluster"], "s1");
    assert_eq!(annotated[5]["kept"], true);
    assert!(annotated[5].get("duplicate_of").is_none());
}

#[test]
fn exact_copies_are_one_unit_in_the_join() {
    let d = Dir::new();
    let mut lines = String::new();
    let mut add = |id: String, text: &str| {
        lines.push_str(&serde_json::json!({"id": id, "text": text}).to_string());
        lines.push('\n');
    };
    let b = "a different text about the tides, the moon and the fishing boats of the harbour";
    for i in 0..300 {
        add(format!("a{i}"), &article("copied everywhere"));
        if i < 200 {
            add(format!("b{i}"), b);
        }
    }
    add("a-edited".into(), &article("copied everywhere!"));
    d.write("in.jsonl", lines);
    for verify in [None, Some("jaccard:0.5")] {
        let mut args = vec!["dedup", "in.jsonl", "--out", "out", "--force"];
        args.extend(verify.map(|v| ["--verify", v]).into_iter().flatten());
        let run = d.run(&args, b"");
        assert_eq!(run.code(), 0, "{}", run.stderr());
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.path("out/summary.json")).unwrap())
                .unwrap();
        assert_eq!(summary["documents"], 501);
        assert_eq!(summary["unique"], 2, "{summary}");
        assert_eq!(summary["exact_copies"], 498);
        // Between units only: a and a-edited (b is far from both).
        assert_eq!(summary["candidate_pairs"], 1);
        let dups = std::fs::read_to_string(d.path("out/duplicates.jsonl")).unwrap();
        assert_eq!(dups.lines().count(), 499);
        assert!(dups.contains(
            "{\"id\":\"b199\",\"duplicate_of\":\"b0\",\"distance\":0,\"similarity\":1.0000,\
             \"found_by\":\"exact\"}"
        ));
        assert!(dups.contains("{\"id\":\"a-edited\",\"duplicate_of\":\"a0\""));
        let clusters = std::fs::read_to_string(d.path("out/clusters.jsonl")).unwrap();
        assert_eq!(clusters.lines().count(), 2);
    }
}

#[test]
fn parquet_rows_are_kept_with_every_column() {
    use std::sync::Arc;

    use arrow_array::builder::{ListBuilder, StringBuilder};
    use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray, UInt64Array};
    use parquet::arrow::ArrowWriter;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let d = Dir::new();
    let texts = [
        article("with one ending"),
        article("with one ending!"),
        "completely different words about markets, rates and the weather".to_string(),
        article("with one ending"),
    ];
    let mut tags = ListBuilder::new(StringBuilder::new());
    for row in [&["news", "fox"][..], &[], &["markets"], &["fox"]] {
        for tag in row {
            tags.values().append_value(*tag);
        }
        tags.append(true);
    }
    let batch = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(StringArray::from(vec!["a", "b", "c", "d"])) as ArrayRef,
        ),
        ("text", Arc::new(StringArray::from(texts.to_vec()))),
        ("n", Arc::new(Int64Array::from(vec![10, 20, 30, 40]))),
        (
            "score",
            Arc::new(Float64Array::from(vec![
                Some(0.5),
                None,
                Some(1.5),
                Some(2.5),
            ])),
        ),
        ("tags", Arc::new(tags.finish())),
    ])
    .unwrap();
    let write = |name: &str, batch: &RecordBatch| {
        let file = std::fs::File::create(d.path(name)).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(batch).unwrap();
        writer.close().unwrap();
    };
    write("in.parquet", &batch);
    let read = |name: &str| {
        let file = std::fs::File::open(d.path(name)).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
        arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap()
    };
    let rows = |picked: Vec<u64>| {
        arrow_select::take::take_record_batch(&batch, &UInt64Array::from(picked)).unwrap()
    };

    let run = d.run(&["dedup", "in.parquet", "--out", "out"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert_eq!(read("out/unique.parquet"), rows(vec![0, 2]));
    assert!(!d.path("out/unique.jsonl").exists() && !d.path("out/unique.txt").exists());
    let dups = std::fs::read_to_string(d.path("out/duplicates.jsonl")).unwrap();
    let dups: Vec<serde_json::Value> = dups
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let pairs: Vec<(&str, &str)> = dups
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap(),
                v["duplicate_of"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(pairs, [("b", "a"), ("d", "a")]);

    // --keep reads a Parquet column.
    let run = d.run(
        &[
            "dedup",
            "in.parquet",
            "--out",
            "out",
            "--force",
            "--keep",
            "max:n",
        ],
        b"",
    );
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert_eq!(read("out/unique.parquet"), rows(vec![2, 3]));

    // fingerprint reads it too: one line per row, named by the id column.
    let prints = d.run(&["fingerprint", "in.parquet"], b"");
    assert_eq!(prints.code(), 0, "{}", prints.stderr());
    let ids: Vec<String> = prints
        .lines()
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    let named = d.run(&["fingerprint", "in.parquet", "--id-field", "none"], b"");
    assert_eq!(named.lines()[2]["id"], "in.parquet:3");

    // Parquet inputs of two schemas cannot share unique.parquet.
    let other = RecordBatch::try_from_iter([(
        "text",
        Arc::new(StringArray::from(vec![texts[2].as_str()])) as ArrayRef,
    )])
    .unwrap();
    write("other.parquet", &other);
    let run = d.run(
        &["dedup", "in.parquet", "other.parquet", "--out", "o2"],
        b"",
    );
    assert_eq!(run.code(), 2);
    assert!(
        run.stderr().contains("other.parquet") && run.stderr().contains("columns differ"),
        "{}",
        run.stderr()
    );
    // Refused before anything is read or written.
    assert!(!d.path("o2").exists());
    // A missing text column names the file and the columns it has.
    let run = d.run(&["fingerprint", "in.parquet", "--text-field", "body"], b"");
    assert_eq!(run.code(), 2);
    assert!(
        run.stderr()
            .contains("in.parquet: no column \"body\" (it has: id, text, n, score, tags)"),
        "{}",
        run.stderr()
    );
}
