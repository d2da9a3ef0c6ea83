//! What a new user and an attacker trip on (issue 16): one test per point,
//! numbered as the issue numbers them.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use neardup_index::{LOCK_FILE, WriterLock};

use crate::util::{Dir, root};

fn fingerprint_line(id: &str, fingerprint: &str) -> String {
    format!("{{\"id\":\"{id}\",\"fingerprint\":\"{fingerprint}\"}}\n")
}

const TEXT: &str = "the river rose in the night and the town woke to water in every street";

/// Point 1: A second writer of an index directory is refused while the first
/// holds it, and the first one's batch stays.
#[test]
fn p01_a_second_index_writer_is_refused() {
    let d = Dir::new();
    d.write("a.jsonl", fingerprint_line("a", "00000000000000ff"));
    d.write("b.jsonl", fingerprint_line("b", "ff00000000000000"));
    assert_eq!(
        d.run(&["index", "build", "a.jsonl", "--index", "idx"], b"")
            .code(),
        0
    );
    let held = WriterLock::acquire(&d.path("idx"), LOCK_FILE, "an index").unwrap();
    let refused = d.run(&["index", "add", "b.jsonl", "--index", "idx"], b"");
    assert_eq!(refused.code(), 2);
    assert!(
        refused.stderr().contains("another neardup is writing"),
        "{}",
        refused.stderr()
    );
    drop(held);
    let added = d.run(&["index", "add", "b.jsonl", "--index", "idx"], b"");
    assert_eq!(added.code(), 0, "{}", added.stderr());
    let stats = d.run(&["index", "stats", "--index", "idx"], b"");
    assert!(stats.stdout().contains('2'), "{}", stats.stdout());
}

/// Point 2: `idf -o` its own input is refused, and the input stays.
#[test]
fn p02_idf_does_not_overwrite_its_input() {
    let d = Dir::new();
    let body = format!("{{\"id\":\"a\",\"text\":\"{TEXT}\"}}\n");
    d.write("c.jsonl", &body);
    let run = d.run(&["idf", "c.jsonl", "-o", "c.jsonl"], b"");
    assert_eq!(run.code(), 2);
    assert!(run.stderr().contains("is an input"), "{}", run.stderr());
    assert_eq!(std::fs::read_to_string(d.path("c.jsonl")).unwrap(), body);
}

/// Point 4: compare refuses a directory, stdin twice and JSON lines, instead of
/// comparing the wrong texts.
#[test]
fn p04_compare_refuses_what_it_cannot_compare() {
    let d = Dir::new();
    d.write("dir/a.txt", TEXT);
    d.write("b.txt", TEXT);
    d.write("c.jsonl", format!("{{\"id\":\"a\",\"text\":\"{TEXT}\"}}\n"));
    for (args, says) in [
        (&["compare", "dir", "b.txt"][..], "is a directory"),
        (&["compare", "-", "-"][..], "stdin can be read once"),
        (&["compare", "c.jsonl", "b.txt"][..], "JSON lines"),
        (
            &["compare", "b.txt", "b.txt", "-k", "65"][..],
            "the fingerprints have 64 bits",
        ),
    ] {
        let run = d.run(args, TEXT.as_bytes());
        assert_eq!(run.code(), 2, "{args:?}");
        assert!(run.stderr().contains(says), "{args:?}: {}", run.stderr());
    }
}

/// Point 5: The first run of an incremental loop (`--against DIR --save-index
/// DIR`, no index yet) works; running the batch again says why everything
/// is dropped; an error's cause is printed once.
#[test]
fn p05_incremental_first_run_and_rerun() {
    let d = Dir::new();
    d.write(
        "batch.jsonl",
        format!(
            "{{\"id\":\"a\",\"text\":\"{TEXT}\"}}\n{{\"id\":\"b\",\"text\":\"a recipe for bread: flour, water, salt and yeast, and a warm room to rise\"}}\n"
        ),
    );
    let args = |out: &'static str| {
        vec![
            "dedup",
            "batch.jsonl",
            "--out",
            out,
            "--against",
            "seen",
            "--save-index",
            "seen",
        ]
    };
    let first = d.run(&args("o1"), b"");
    assert_eq!(first.code(), 0, "{}", first.stderr());
    let again = d.run(&args("o2"), b"");
    assert_eq!(again.code(), 0, "{}", again.stderr());
    assert!(
        again.stderr().contains("under their own ids"),
        "{}",
        again.stderr()
    );
    assert!(
        again.stderr().contains("2 of them near one in seen"),
        "{}",
        again.stderr()
    );
    let missing = d.run(
        &[
            "dedup",
            "batch.jsonl",
            "--out",
            "o3",
            "--against",
            "nowhere",
        ],
        b"",
    );
    assert_eq!(missing.code(), 2);
    // Said once, with what to do.
    assert_eq!(
        missing
            .stderr()
            .matches("nowhere holds no index: make one")
            .count(),
        1,
        "{}",
        missing.stderr()
    );
}

/// Point 6: A second dedup into an `--out` that a run writes to is refused.
#[test]
fn p06_a_second_dedup_into_one_out_is_refused() {
    let d = Dir::new();
    d.write("a.txt", TEXT);
    std::fs::create_dir(d.path("out")).unwrap();
    let held = WriterLock::acquire(&d.path("out"), ".neardup.lock", "a dedup's outputs").unwrap();
    let run = d.run(&["dedup", "a.txt", "--out", "out", "--force"], b"");
    assert_eq!(run.code(), 2);
    assert!(
        run.stderr().contains("another neardup is writing"),
        "{}",
        run.stderr()
    );
    drop(held);
    assert_eq!(
        d.run(&["dedup", "a.txt", "--out", "out", "--force", "-q"], b"")
            .code(),
        0
    );
}

/// Point 11: An absurd thread count is refused at once.
#[test]
fn p11_threads_are_capped() {
    let d = Dir::new();
    d.write("a.txt", TEXT);
    let run = d.run(&["fingerprint", "a.txt", "--threads", "100000"], b"");
    assert_eq!(run.code(), 2);
    assert!(run.stderr().contains("per core"), "{}", run.stderr());
}

/// Point 14: Temporary files a killed run left in `--out` are removed, and do
/// not make it "not empty".
#[test]
fn p14_leftovers_of_a_killed_run_are_removed() {
    let d = Dir::new();
    d.write("a.txt", TEXT);
    d.write("out/.unique.jsonl.4242.tmp", "half a file");
    let run = d.run(&["dedup", "a.txt", "--out", "out", "-q"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert!(!d.path("out/.unique.jsonl.4242.tmp").exists());
}

/// Point 15: A closed pipe is a normal end: exit 0, nothing on stderr.
#[test]
fn p15_a_closed_pipe_ends_quietly() {
    let mut child = crate::util::neardup()
        .args(["fingerprint", "samples/zh", "samples/bible"])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is gone: the next writes meet a closed pipe.
    let out = child.wait_with_output().unwrap();
    assert!(first.contains("fingerprint"), "{first}");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Point 16: A damaged compressed file is called damaged, not missing.
#[test]
fn p16_a_damaged_gzip_is_called_damaged() {
    let d = Dir::new();
    // A gzip header and the start of a deflate stream, cut short.
    d.write(
        "a.txt.gz",
        [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0x4b, 0x4c, 0x4a],
    );
    let run = d.run(&["fingerprint", "a.txt.gz"], b"");
    assert_eq!(run.code(), 2);
    assert!(
        run.stderr().contains("damaged or cut short"),
        "{}",
        run.stderr()
    );
    assert!(
        !run.stderr().contains("check that the path exists"),
        "{}",
        run.stderr()
    );
}

/// Point 17: Counts that are not counts are refused.
#[test]
fn p17_plan_refuses_counts_that_are_not() {
    let d = Dir::new();
    for n in ["-5", "nan", "inf", "0"] {
        let run = d.run(&["plan", &format!("-n={n}")], b"");
        assert_eq!(run.code(), 2, "-n {n}");
        assert!(
            run.stderr().contains("not a number above 0"),
            "{n}: {}",
            run.stderr()
        );
    }
}

/// Point 19: compare says why a pair whose verification passed is different.
#[test]
fn p19_compare_says_the_distance_decided() {
    let d = Dir::new();
    let other = "a recipe for bread: flour, water, salt and yeast, and a warm room to rise in";
    let run = d.run(
        &[
            "compare", "--text", TEXT, other, "-k", "0", "--verify", "none",
        ],
        b"",
    );
    assert!(
        run.stdout().contains("different (distance"),
        "{}",
        run.stdout()
    );
}

/// Point 7: A binary file inside a directory is skipped and said: on stderr and
/// in summary.json.
#[test]
fn p07_a_binary_file_in_a_directory_is_counted() {
    let d = Dir::new();
    d.write("docs/a.txt", TEXT);
    d.write("docs/logo.png", b"\x89PNG\0\0\0binary");
    let run = d.run(&["dedup", "docs", "--out", "out"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert!(run.stderr().contains("1 binary-file"), "{}", run.stderr());
    let summary = std::fs::read_to_string(d.path("out/summary.json")).unwrap();
    assert!(summary.contains("binary-file"), "{summary}");
}

/// Point 9: An empty JSON-lines file is said, not taken for a corpus without
/// duplicates.
#[test]
fn p09_an_empty_file_is_said() {
    let d = Dir::new();
    d.write("empty.jsonl", "");
    let run = d.run(&["fingerprint", "empty.jsonl"], b"");
    assert!(run.stderr().contains("empty"), "{}", run.stderr());
    let run = d.run(&["dedup", "empty.jsonl", "--out", "out"], b"");
    assert!(run.stderr().contains("1 empty-file"), "{}", run.stderr());
}

/// Point 12: A line without an end stops at twice --max-bytes with an error; a
/// pipe given to dedup is refused, not read twice.
#[test]
fn p12_an_endless_line_and_a_pipe_end() {
    let d = Dir::new();
    d.write("zeros.jsonl", vec![b'a'; 5000]);
    let run = d.run(
        &[
            "fingerprint",
            "--format",
            "jsonl",
            "--max-bytes",
            "1000",
            "zeros.jsonl",
        ],
        b"",
    );
    assert_eq!(run.code(), 2);
    assert!(run.stderr().contains("without an end"), "{}", run.stderr());
    let fifo = d.path("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let run = d.run(&["dedup", "fifo", "--out", "out"], b"");
    assert_eq!(run.code(), 2);
    assert!(
        run.stderr().contains("not a regular file"),
        "{}",
        run.stderr()
    );
}

/// Point 3: an input rewritten between passes (same size, same line count)
/// stops the run, instead of mixing two versions.
#[test]
fn p03_an_input_rewritten_between_passes_stops_the_run() {
    use neardup_corpus::{Corpus, ReadOptions};
    use neardup_dedup::{Dedup, Error, Files, Silent};
    let d = Dir::new();
    let path = d.write(
        "a.jsonl",
        "{\"text\":\"one two three\"}\n{\"text\":\"one two three\"}\n",
    );
    let files = Files::new(
        Corpus::open(&[&path], &ReadOptions::default()).unwrap(),
        false,
    );
    // Rewritten after the run began: the first pass reads the new version.
    std::fs::write(
        &path,
        "{\"text\":\"four five six\"}\n{\"text\":\"seven eight ni\"}\n",
    )
    .unwrap();
    let err = Dedup::new().unwrap().run(&files, &Silent).unwrap_err();
    assert!(matches!(err, Error::FileChanged { .. }), "{err}");
    assert!(files.check_unchanged().is_err());
}

/// Point 18: unique.txt keeps a file name that is not UTF-8 as it is, and a
/// name with a line break is refused before the run.
#[cfg(unix)]
#[test]
fn p18_unique_txt_names_files_as_they_are() {
    use std::os::unix::ffi::OsStrExt;
    let d = Dir::new();
    let odd = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::create_dir(d.path("docs")).unwrap();
    std::fs::write(d.path("docs").join(odd), TEXT).unwrap();
    let run = d.run(&["dedup", "docs", "--out", "out", "-q"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let listed = std::fs::read(d.path("out/unique.txt")).unwrap();
    assert_eq!(listed, b"docs/caf\xe9.txt\n");
    d.write("bad\nname.txt", TEXT);
    let run = d.run(&["dedup", "bad\nname.txt", "--out", "out2"], b"");
    assert_eq!(run.code(), 2);
    assert!(run.stderr().contains("line break"), "{}", run.stderr());
}

/// Point 19: the report's header gives the k asked for.
#[test]
fn p19_the_report_header_gives_k() {
    let d = Dir::new();
    d.write("a.txt", TEXT);
    let run = d.run(&["dedup", "a.txt", "--out", "out", "-k", "6", "-q"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let page = std::fs::read_to_string(d.path("out/report.html")).unwrap();
    assert!(page.contains("k = 6 bits"));
}

/// Point 8: a CSV file is refused with what to do, not read as one
/// document whose header is text.
#[test]
fn p08_csv_is_refused_not_misread() {
    let d = Dir::new();
    d.write("a.csv", "id,text\n1,hello world\n");
    for args in [
        &["fingerprint", "a.csv"][..],
        &["fingerprint", "--lines", "a.csv"][..],
    ] {
        let run = d.run(args, b"");
        assert_eq!(run.code(), 2, "{args:?}");
        assert!(
            run.stderr().contains("convert them to JSON lines"),
            "{}",
            run.stderr()
        );
    }
    let run = d.run(&["fingerprint", "--format", "text", "a.csv"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    // Found in a directory, it is skipped and counted, as a binary file is.
    // Reading goes on after it: the file after it is read.
    d.write("docs/a.csv", "id,text\n1,hello world\n");
    d.write("docs/b.txt", TEXT);
    let run = d.run(&["dedup", "docs", "--out", "out"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert!(
        run.stderr().contains("1 unsupported-format"),
        "{}",
        run.stderr()
    );
    assert!(run.stderr().contains("1 document,"), "{}", run.stderr());
}

/// Point 10: a damaged Parquet file (each byte of a small one changed in
/// turn, as the corpus crate's test does) gives an error that names it,
/// never a panic, in fingerprint and in dedup, with and without
/// --skip-invalid. (Some of these damages make the parquet crate panic; the
/// reader catches it.)
#[test]
fn p10_damaged_parquet_never_panics() {
    use parquet::basic::Compression;
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;
    let d = Dir::new();
    let column = |values: Vec<Option<&str>>| -> arrow_array::ArrayRef {
        Arc::new(arrow_array::StringArray::from(values))
    };
    let batch = arrow_array::RecordBatch::try_from_iter([
        ("id", column(vec![Some("a"), Some("b"), Some("c")])),
        (
            "text",
            column(vec![Some("one two"), Some("three four five"), None]),
        ),
    ])
    .unwrap();
    let properties = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let mut whole = Vec::new();
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(&mut whole, batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let (mut refused, mut caught) = (0, 0);
    for at in 0..whole.len() {
        for change in [0x01, 0x80] {
            let mut bytes = whole.clone();
            bytes[at] ^= change;
            d.write("x.parquet", &bytes);
            let args: &[&str] = match (at + usize::from(change)) % 4 {
                0 => &["dedup", "x.parquet", "--out", "out", "--force", "-q"],
                1 => &["fingerprint", "x.parquet", "--skip-invalid"],
                _ => &["fingerprint", "x.parquet"],
            };
            let run = d.run(args, b"");
            assert_ne!(run.code(), 101, "byte {at} ^ {change:#x}: {}", run.stderr());
            assert!(
                !run.stderr().contains("panicked"),
                "byte {at}: {}",
                run.stderr()
            );
            if run.code() == 2 {
                refused += 1;
                caught += usize::from(run.stderr().contains("the Parquet reader failed on it"));
                assert!(
                    run.stderr().contains("x.parquet"),
                    "byte {at}: {}",
                    run.stderr()
                );
            }
        }
    }
    assert!(refused > 0, "some damage is seen");
    eprintln!("{refused} damaged files refused, {caught} of them after a caught panic");
}
