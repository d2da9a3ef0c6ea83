//! An incremental run (`dedup --against IDX --save-index IDX`) has the
//! index to itself from its start, and one killed at any moment loses no
//! document: the rerun, with or without `--force`, keeps what a clean run
//! keeps, and the index holds each kept id once.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::Dir;

fn dedup_args<'a>(input: &'a str, out: &'a str, force: bool) -> Vec<&'a str> {
    let mut args = vec![
        "dedup",
        input,
        "--out",
        out,
        "--against",
        "seen",
        "--save-index",
        "seen",
        "-q",
    ];
    if force {
        args.push("--force");
    }
    args
}

/// `n` lines of JSON, `{"id": "<prefix><i>", "text": ...}`, from `seed`:
/// every third a near-copy of one of `earlier`, every tenth followed by a
/// near-copy of itself.
fn lines(prefix: &str, n: usize, seed: u64, earlier: &[String]) -> (String, Vec<String>) {
    let mut state = seed | 1;
    let mut word = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        format!("w{}", state % 5000)
    };
    let mut text = |n: usize| (0..n).map(|_| word()).collect::<Vec<_>>().join(" ");
    let (mut out, mut texts) = (String::new(), Vec::new());
    for i in 0..n {
        let t = match (i % 3, earlier.is_empty()) {
            (0, false) => format!("{} again", earlier[i / 3 % earlier.len()]),
            _ => text(40),
        };
        out += &format!("{}\n", json!({"id": format!("{prefix}{i}"), "text": t}));
        if i % 10 == 1 {
            out += &format!(
                "{}\n",
                json!({"id": format!("{prefix}{i}x"), "text": format!("{t} too")})
            );
        }
        texts.push(t);
    }
    (out, texts)
}

fn ids_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

fn index_ids(dir: &Path) -> Vec<String> {
    let store = neardup_store::AnyStore::open_read_only(dir).unwrap();
    let mut ids: Vec<String> = store.entries().into_iter().map(|(id, _)| id).collect();
    ids.sort();
    ids
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// A second writer is refused at its start, before it reads its inputs
/// (here, one that does not exist), while the first holds the index: a
/// dedup run in progress, every time it is tried.
#[test]
fn a_second_writer_of_an_index_is_refused_at_start() {
    let d = Dir::new();
    let (big, _) = lines("a", 6000, 7, &[]);
    d.write("big.jsonl", big);
    d.write("small.jsonl", lines("b", 10, 8, &[]).0);
    // An index of earlier runs, then a long run that adds to it.
    assert_eq!(
        d.run(&dedup_args("small.jsonl", "o0", false), b"").code(),
        0
    );
    let mut first = crate::util::neardup()
        .args(dedup_args("big.jsonl", "o1", false))
        .current_dir(d.dir.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first holds the index's lock once a probe of it is refused.
    let started = Instant::now();
    while neardup_index::WriterLock::acquire(&d.path("seen"), "LOCK", "a store").is_ok() {
        assert!(started.elapsed() < Duration::from_secs(20), "never locked");
        std::thread::sleep(Duration::from_millis(2));
    }
    let mut refused = 0;
    for attempt in 0..5 {
        let out = format!("o{}", attempt + 2);
        let second = d.run(&dedup_args("missing.jsonl", &out, false), b"");
        if first.try_wait().unwrap().is_some() {
            break;
        }
        assert_eq!(second.code(), 2, "{}", second.stderr());
        let said = second.stderr();
        assert!(said.contains("another neardup is writing"), "{said}");
        assert!(said.contains("--save-index seen"), "{said}");
        assert!(
            !said.contains("missing.jsonl"),
            "read its inputs first: {said}"
        );
        assert!(!d.path(&out).exists(), "touched its out");
        refused += 1;
    }
    assert!(
        refused >= 1,
        "the first run ended too soon to be overlapped"
    );
    let status = first.wait().unwrap();
    assert!(status.success());
    // Once the first is done, the index is free again.
    let next = d.run(&dedup_args("small.jsonl", "o9", false), b"");
    assert_eq!(next.code(), 0, "{}", next.stderr());
}

/// What a clean run of day 2 keeps, against the index of day 1.
struct Expected {
    day1: Vec<String>,
    day2: Vec<String>,
    kept: BTreeSet<String>,
}

fn check_left(d: &Dir, t: &str, want: &Expected, why: &str) {
    let ids = index_ids(&d.path(&format!("{t}/seen")));
    let out = d.path(&format!("{t}/out2"));
    if out.join("summary.json").exists() {
        for id in ids_of(&out.join("unique.jsonl")) {
            assert!(
                ids.binary_search(&id).is_ok(),
                "{why}: {id} finished but not indexed"
            );
        }
    }
    for id in &ids {
        assert!(
            want.day1.binary_search(id).is_ok() || want.kept.contains(id),
            "{why}: {id} in the index"
        );
    }
}

fn check_final(d: &Dir, t: &str, want: &Expected, why: &str) {
    let out = d.path(&format!("{t}/out2"));
    assert!(out.join("summary.json").exists(), "{why}: no summary");
    let kept: BTreeSet<String> = ids_of(&out.join("unique.jsonl")).into_iter().collect();
    assert_eq!(kept, want.kept, "{why}: kept");
    let ids = index_ids(&d.path(&format!("{t}/seen")));
    let expected: BTreeSet<String> = want.day1.iter().chain(&want.kept).cloned().collect();
    assert_eq!(ids.len(), expected.len(), "{why}: an id twice, or missing");
    assert_eq!(
        ids.iter().cloned().collect::<BTreeSet<_>>(),
        expected,
        "{why}"
    );
    let dropped: HashMap<String, String> = std::fs::read_to_string(out.join("duplicates.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let id = |k: &str| v[k].as_str().unwrap().to_string();
            (id("id"), id("duplicate_of"))
        })
        .collect();
    for id in &want.day2 {
        match dropped.get(id) {
            None => assert!(kept.contains(id), "{why}: {id} lost"),
            Some(of) => {
                assert_ne!(of, id, "{why}: {id} dropped as a copy of itself");
                assert!(
                    ids.binary_search(of).is_ok(),
                    "{why}: {id} dropped for {of}"
                );
            }
        }
    }
}

/// Day 1 indexed in `seen`, day 2 written; what a clean run keeps is
/// left to fill.
fn days(d: &Dir) -> Expected {
    let (one, texts) = lines("a", 50, 11, &[]);
    let (two, _) = lines("b", 100, 12, &texts);
    d.write("day1.jsonl", one);
    d.write("day2.jsonl", two);
    let first = d.run(&dedup_args("day1.jsonl", "out1", false), b"");
    assert_eq!(first.code(), 0, "{}", first.stderr());
    let mut day2 = ids_of(&d.path("day2.jsonl"));
    day2.sort();
    Expected {
        day1: index_ids(&d.path("seen")),
        day2,
        kept: BTreeSet::new(),
    }
}

/// Runs day 2 into `t/out2` against `t/seen`, killed (SIGKILL) after
/// `delay` unless it ended before; `true` when it was killed.
fn run_killed(d: &Dir, t: &str, force: bool, delay: Duration) -> bool {
    let mut child = crate::util::neardup()
        .args(dedup_args("../day2.jsonl", "out2", force))
        .current_dir(d.path(t))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while started.elapsed() < delay {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_micros(500));
    }
    let killed = child.kill().is_ok();
    child.wait().unwrap();
    killed
}

/// Trials `from..to` of SIGKILL at times spread over a run, each from the
/// index of day 1 (a first run of day 2) or from a finished day 2 run
/// replaced with `--force`; each rerun with `--force` or without, in turn.
fn killed_at_any_time(from: usize, to: usize) {
    let started = Instant::now();
    let d = Dir::new();
    let mut want = days(&d);
    copy_dir(&d.path("seen"), &d.path("clean/seen"));
    let run = |t: &str, force: bool| {
        crate::util::neardup()
            .args(dedup_args("../day2.jsonl", "out2", force))
            .current_dir(d.path(t))
            .output()
            .unwrap()
    };
    let timed = Instant::now();
    let ran = run("clean", false);
    let took = timed.elapsed();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    want.kept = ids_of(&d.path("clean/out2/unique.jsonl"))
        .into_iter()
        .collect();
    assert!(want.kept.len() > 40, "{}", want.kept.len());
    check_final(&d, "clean", &want, "clean");
    let span = took.max(Duration::from_millis(50)).mul_f64(1.2);
    let (mut killed, mut finished_before, mut caught_between) = (0, 0, 0);
    for trial in from..to {
        let t = format!("t{trial}");
        let replacing = trial % 4 >= 2;
        let force = trial % 2 == 0;
        copy_dir(&d.path("seen"), &d.path(&format!("{t}/seen")));
        if replacing {
            // A finished run of day 2 into this trial's out, then replaced.
            let ran = run(&t, false);
            assert!(
                ran.status.success(),
                "{}",
                String::from_utf8_lossy(&ran.stderr)
            );
        }
        // Spread over the run: the golden ratio's steps fill [0, span).
        let at = span.mul_f64((trial as f64 * 0.618_034).fract());
        let why = format!("trial {trial} (replacing {replacing}, killed at {at:?}, force {force})");
        killed += run_killed(&d, &t, replacing, at) as usize;
        check_left(&d, &t, &want, &why);
        let summary = d.path(&format!("{t}/out2/summary.json"));
        finished_before += (summary.exists() && !replacing) as usize;
        let indexed = index_ids(&d.path(&format!("{t}/seen"))).len() > want.day1.len();
        caught_between += (indexed && !summary.exists()) as usize;
        let again = run(&t, force);
        let said = String::from_utf8_lossy(&again.stderr);
        assert!(
            again.status.success() || (!force && said.contains("not empty")),
            "{why}: {said}"
        );
        check_final(&d, &t, &want, &why);
        std::fs::remove_dir_all(d.path(&t)).unwrap();
    }
    eprintln!(
        "trials {from}..{to}: {killed} killed, {finished_before} finished before the kill, \
         {caught_between} killed between the index commit and the summary, in {:.1} s (a run: \
         {took:?})",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn a_run_killed_at_any_time_loses_nothing_1() {
    killed_at_any_time(0, 70);
}

#[test]
fn a_run_killed_at_any_time_loses_nothing_2() {
    killed_at_any_time(70, 140);
}
