//! The command's manners: what it says, what it reads and what it leaves
//! behind.

use std::process::Command;

use crate::util::{Dir, Run, root};

const TEXT: &str = "the river rose in the night and the town woke to water in every street \
                    while the ferries waited at the harbour for the tide to turn again";

fn summary(d: &Dir, out: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(d.path(&format!("{out}/summary.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The number just before `words` in `text`: `number_before("3 dropped", "dropped")` is 3.
fn number_before(text: &str, words: &str) -> u64 {
    let at = text
        .find(words)
        .unwrap_or_else(|| panic!("{words:?} in {text}"));
    let digits: String = text[..at]
        .trim_end()
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.chars().rev().collect::<String>().parse().unwrap()
}

#[test]
fn the_dedup_summary_names_exact_copies_as_summary_json_does() {
    let d = Dir::new();
    d.write("in/a.txt", TEXT);
    d.write("in/b.txt", TEXT);
    d.write("in/c.txt", TEXT);
    d.write("in/d.txt", format!("{TEXT} now"));
    d.write(
        "in/e.txt",
        "a different note on bread, flour, water, salt and yeast",
    );
    let run = d.run(&["dedup", "in", "--out", "out"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let err = run.stderr();
    let line = err
        .lines()
        .find(|l| l.contains(" dropped: "))
        .unwrap_or_else(|| panic!("no summary line in {err}"));
    assert!(
        line.contains("3 dropped: 2 exact copies, 1 near-duplicate (within 8 bits"),
        "{line}"
    );
    let s = summary(&d, "out");
    assert_eq!(s["dropped"], number_before(line, "dropped"));
    assert_eq!(s["exact_copies"], number_before(line, "exact copies"));
    assert_eq!(s["pairs"], number_before(line, "near-duplicate"));
}

#[test]
fn empty_and_blank_documents_are_skipped_and_counted_not_dropped() {
    let d = Dir::new();
    d.write("in/a.txt", TEXT);
    d.write("in/empty.txt", "");
    d.write("in/blank.txt", " \n\t\r\n");
    d.write("in/wide.txt", "\u{3000}\u{3000}\n");
    d.write(
        "in/records.jsonl",
        "{\"id\": \"x\", \"text\": \"  \"}\n{\"id\": \"y\", \"text\": \"\"}\n{\"id\": \"z\", \"text\": \"a short line of its own\"}\n",
    );
    let run = d.run(&["dedup", "in", "--out", "out"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let s = summary(&d, "out");
    assert_eq!(s["documents"], 2, "{s}");
    assert_eq!(s["dropped"], 0, "{s}");
    assert_eq!(s["skipped"]["total"], 5, "{s}");
    assert_eq!(s["skipped"]["by_kind"]["empty-file"], 3, "{s}");
    assert_eq!(s["skipped"]["by_kind"]["blank-text"], 2, "{s}");
    assert!(
        run.stderr()
            .contains("skipped 5 (2 blank-text, 3 empty-file)"),
        "{}",
        run.stderr()
    );
    // fingerprint counts them too, rather than printing a line for each.
    let run = d.run(&["fingerprint", "in"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert_eq!(run.lines().len(), 2);
    assert!(run.stderr().contains("skipped 5"), "{}", run.stderr());
}

#[cfg(unix)]
#[test]
fn links_fifos_and_loops_in_a_directory_are_followed_or_counted() {
    use std::os::unix::fs::symlink;
    let d = Dir::new();
    d.write("in/a.txt", TEXT);
    d.write(
        "elsewhere/far.txt",
        "a note kept outside the input, reached by a link",
    );
    std::fs::create_dir_all(d.path("in/sub")).unwrap();
    symlink(d.path("elsewhere"), d.path("in/far")).unwrap();
    symlink("..", d.path("in/sub/up")).unwrap();
    symlink("a.txt", d.path("in/alias.txt")).unwrap();
    symlink("nowhere.txt", d.path("in/dangling.txt")).unwrap();
    assert!(
        Command::new("mkfifo")
            .arg(d.path("in/pipe"))
            .status()
            .unwrap()
            .success()
    );
    let run = d.run(&["dedup", "in", "--out", "out"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let s = summary(&d, "out");
    // a.txt, and far.txt through the link to a directory outside.
    assert_eq!(s["documents"], 2, "{s}");
    let kinds = &s["skipped"]["by_kind"];
    for kind in [
        "link-loop",
        "link-inside-input",
        "dangling-link",
        "special-file",
    ] {
        assert_eq!(kinds[kind], 1, "{kind}: {s}");
    }
    assert_eq!(s["skipped"]["total"], 4, "{s}");
    assert!(run.stderr().contains("pipe: a FIFO"), "{}", run.stderr());
    let unique = std::fs::read_to_string(d.path("out/unique.txt")).unwrap();
    assert!(unique.contains("far/far.txt"), "{unique}");
}

#[test]
fn a_dedup_output_inside_the_input_is_not_read_again() {
    let d = Dir::new();
    d.write("in/a.txt", TEXT);
    d.write("in/b.txt", format!("{TEXT} now"));
    let first = d.run(&["dedup", "in", "--out", "in/out"], b"");
    assert_eq!(first.code(), 0, "{}", first.stderr());
    let second = d.run(&["dedup", "in", "--out", "in/out", "--force"], b"");
    assert_eq!(second.code(), 0, "{}", second.stderr());
    assert!(
        second
            .stderr()
            .contains("in/out: the output directory of a neardup dedup"),
        "{}",
        second.stderr()
    );
    let s = summary(&d, "in/out");
    assert_eq!(s["documents"], 2, "{s}");
    assert_eq!(s["skipped"]["by_kind"]["dedup-output"], 1, "{s}");
    let note = "a directory walked holds a dedup's outputs";
    assert!(s["notes"][0].as_str().unwrap().starts_with(note), "{s}");
    assert!(
        second.stderr().contains(&format!("note: {note}")),
        "{}",
        second.stderr()
    );
    // Said however many other entries were skipped before it.
    for i in 0..8 {
        d.write(&format!("in/empty{i}.txt"), "");
    }
    let third = d.run(&["dedup", "in", "--out", "in/out", "--force"], b"");
    assert_eq!(third.code(), 0, "{}", third.stderr());
    assert!(
        third
            .stderr()
            .contains("in/out: the output directory of a neardup dedup"),
        "{}",
        third.stderr()
    );
}

#[test]
fn no_lock_file_is_left_after_a_run_finished_or_failed() {
    let d = Dir::new();
    d.write("a.txt", TEXT);
    let run = d.run(&["dedup", "a.txt", "--out", "out"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert!(d.path("out/summary.json").exists());
    assert!(!d.path("out/.neardup.lock").exists());
    d.write(
        "bad.jsonl",
        "{\"id\": \"a\", \"text\": \"fine\"}\nnot json\n",
    );
    let run = d.run(&["dedup", "bad.jsonl", "--out", "out2"], b"");
    assert_eq!(run.code(), 2, "{}", run.stderr());
    assert!(run.stderr().contains("invalid JSON"), "{}", run.stderr());
    assert!(d.path("out2").is_dir());
    assert!(!d.path("out2/.neardup.lock").exists());
}

#[test]
fn a_missing_path_is_said_once() {
    let d = Dir::new();
    for command in [
        &["fingerprint", "nope.txt"][..],
        &["dedup", "nope.txt", "--out", "o"],
    ] {
        let run = d.run(command, b"");
        assert_eq!(run.code(), 2);
        assert_eq!(
            run.stderr(),
            "neardup: nope.txt: no such file or directory (check the path)\n"
        );
    }
}

/// The last line of stderr.
fn last_line(run: &Run) -> String {
    run.stderr().lines().last().unwrap_or_default().to_string()
}

#[test]
fn summaries_are_printed_when_stderr_is_not_a_terminal() {
    let d = Dir::new();
    d.write("a.txt", TEXT);
    d.write("b.txt", format!("{TEXT} now"));
    // Dir::run pipes stderr.
    let run = d.run(&["fingerprint", "a.txt", "b.txt"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert!(
        last_line(&run).starts_with("neardup: 2 documents,"),
        "{}",
        run.stderr()
    );
    d.write("fp.jsonl", run.stdout());
    let run = d.run(&["idf", "a.txt", "b.txt", "-o", "t.idf"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert!(
        last_line(&run).starts_with("neardup: 2 documents,"),
        "{}",
        run.stderr()
    );
    let run = d.run(&["idf", "a.txt", "--output", "u.idf"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let run = d.run(&["index", "build", "fp.jsonl", "--index", "ix"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let run = d.run(&["index", "query", "fp.jsonl", "--index", "ix"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert!(
        last_line(&run).starts_with("neardup: 2 queries, 2 with matches, 4 matches in"),
        "{}",
        run.stderr()
    );
    let quiet = d.run(&["index", "query", "fp.jsonl", "--index", "ix", "-q"], b"");
    assert_eq!(quiet.stderr(), "");
}

#[test]
fn compare_usage_names_its_two_documents() {
    let d = Dir::new();
    let run = d.run(&["compare", "--help"], b"");
    assert!(
        run.stdout()
            .contains("Usage: neardup compare [OPTIONS] <A> <B>\n"),
        "{}",
        run.stdout()
    );
    let run = d.run(&["compare", "only-one"], b"");
    assert_eq!(run.code(), 2);
    assert!(run.stderr().contains("<B>"), "{}", run.stderr());
}

#[test]
fn the_samples_readme_quotes_compare() {
    let licenses = root().join("samples/licenses");
    let d = Dir::new();
    let a = licenses.join("LGPL-2.txt");
    let b = licenses.join("LGPL-2.1.txt");
    let run = d.run(&["compare", a.to_str().unwrap(), b.to_str().unwrap()], b"");
    assert_eq!(run.code(), 1, "{}", run.stdout());
    assert!(
        run.stdout().contains("distance:   2 of 64 bits"),
        "{}",
        run.stdout()
    );
    assert!(
        run.stdout().contains("verified:   0.751"),
        "{}",
        run.stdout()
    );
    let readme = std::fs::read_to_string(root().join("samples/README.md")).unwrap();
    assert!(
        readme.contains("only 0.751 of their shingles"),
        "samples/README.md"
    );
}

#[test]
fn a_memory_budget_below_the_floor_is_said_with_what_the_floor_is() {
    let d = Dir::new();
    let licenses = root().join("samples/licenses");
    let run = d.run(
        &[
            "dedup",
            licenses.to_str().unwrap(),
            "--out",
            "out",
            "--memory",
            "1M",
        ],
        b"",
    );
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let err = run.stderr();
    assert!(
        err.starts_with("neardup: note: --memory 1 MB is below any run's floor of ~75 MB: "),
        "{err}"
    );
    let s = summary(&d, "out");
    let notes = s["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{s}");
    let note = notes[0].as_str().unwrap();
    assert!(
        note.starts_with("--memory 1 MB is below this run's floor of ~75 MB: "),
        "{note}"
    );
    assert!(
        note.contains("24 bytes for each of its 20 documents"),
        "{note}"
    );
    assert!(err.contains(&format!("neardup: note: {note}")), "{err}");
    // A budget above it: no note.
    let run = d.run(
        &[
            "dedup",
            licenses.to_str().unwrap(),
            "--out",
            "o2",
            "--memory",
            "1G",
        ],
        b"",
    );
    assert!(!run.stderr().contains("floor"), "{}", run.stderr());
    assert_eq!(summary(&d, "o2")["notes"], serde_json::json!([]));
}

#[test]
fn no_memory_is_refused_and_a_run_past_its_budget_says_it_spills() {
    let d = Dir::new();
    let licenses = root().join("samples/licenses");
    let dedup = |out: &str, memory: &str| {
        let args = [
            "dedup",
            licenses.to_str().unwrap(),
            "--out",
            out,
            "--memory",
            memory,
        ];
        d.run(&args, b"")
    };
    let none = dedup("none", "0");
    assert_eq!(none.code(), 2, "{}", none.stderr());
    assert!(
        none.stderr().contains("no memory at all"),
        "{}",
        none.stderr()
    );
    assert!(!d.path("none").exists());
    // A kilobyte: every per-document array goes to files, and each is said.
    let tight = dedup("tight", "1K");
    assert_eq!(tight.code(), 0, "{}", tight.stderr());
    assert!(
        tight.stderr().contains(
            "neardup: spilling the documents' records to temporary files in tight: past its \
             share of --memory (slower, the same result)"
        ),
        "{}",
        tight.stderr()
    );
    let roomy = dedup("roomy", "1G");
    assert!(!roomy.stderr().contains("spilling"), "{}", roomy.stderr());
    let kept = |dir: &str| std::fs::read(d.path(dir).join("unique.txt")).unwrap();
    assert_eq!(kept("tight"), kept("roomy"));
}

#[test]
fn the_report_lists_a_few_inputs_and_names_fonts_for_chinese() {
    let d = Dir::new();
    let mut args = vec!["dedup".to_string()];
    for i in 0..9 {
        d.write(
            &format!("in/{i}.txt"),
            format!("{TEXT} {i} {}", "word ".repeat(i)),
        );
        args.push(format!("in/{i}.txt"));
    }
    args.extend(["--out", "out"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = d.run(&args, b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let page = std::fs::read_to_string(d.path("out/report.html")).unwrap();
    assert!(
        page.contains("in/0.txt, in/1.txt, in/2.txt and 6 more"),
        "{page}"
    );
    let header = page.split("<p class=\"sub\">").nth(1).unwrap();
    let header = &header[..header.find("</p>").unwrap()];
    assert!(!header.contains("in/3.txt"), "{header}");
    for font in [
        "\"Noto Sans CJK SC\"",
        "\"Source Han Sans SC\"",
        "\"PingFang SC\"",
        "\"Microsoft YaHei\"",
    ] {
        assert!(page.contains(font), "{font}");
    }
}

#[test]
fn passes_are_named_and_numbered_on_a_stderr_that_is_not_a_terminal() {
    let d = Dir::new();
    let licenses = root().join("samples/licenses");
    let licenses = licenses.to_str().unwrap();
    let run = d.run(&["dedup", licenses, "--out", "out"], b"");
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let err = run.stderr();
    let passes: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("neardup: pass ") && l.contains(" MB"))
        .filter_map(|l| l.strip_prefix("neardup: ")?.split(" · ").next())
        .collect();
    assert_eq!(
        passes,
        [
            "pass 1/3 fingerprinting",
            "pass 2/3 verifying",
            "pass 3/3 reading the ids and samples the outputs name"
        ],
        "{}",
        run.stderr()
    );
    assert!(
        run.stderr()
            .contains("neardup: pass 1/3 fingerprinting: 20 documents in "),
        "{}",
        run.stderr()
    );
    // The work between the passes is said as it starts, with the time so
    // far, in order.
    let working: Vec<&str> = err
        .lines()
        .filter(|l| l.ends_with(" s so far)"))
        .filter_map(|l| l.strip_prefix("neardup: ")?.split(" (").next())
        .collect();
    assert_eq!(
        working,
        [
            "grouping exact copies",
            "pairing near fingerprints",
            "pairing short documents by their rarest shingles or words"
        ],
        "{err}"
    );
    let at = |line: &str| err.find(line).unwrap_or(usize::MAX);
    assert!(at("fingerprinting: 20 documents") < at("grouping exact copies"));
    assert!(at("rarest shingles or words") < at("pass 2/3 verifying"));
    let run = d.run(
        &["dedup", licenses, "--out", "o2", "--save-index", "ix"],
        b"",
    );
    assert!(
        run.stderr()
            .contains("pass 4/4 reading the kept texts for --save-index"),
        "{}",
        run.stderr()
    );
    let quiet = d.run(&["dedup", licenses, "--out", "o3", "-q"], b"");
    assert_eq!(quiet.stderr(), "");
}
