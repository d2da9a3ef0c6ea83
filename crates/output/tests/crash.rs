//! An incremental run failed at each step that makes its work durable or
//! visible (every sync, rename and commit of the index), once (a full disk
//! for a moment) or from then on (a dead disk, as good as a crash), then
//! run again with and without `--force`: no document is lost, none is
//! dropped as a copy of itself, the index holds each kept id once, and a
//! `summary.json` is never beside an index that lacks its documents.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use neardup_dedup::{Dedup, Silent};
use neardup_output::{DedupRun, DedupRunBuilder, Step, against_index};
use neardup_store::AnyStore;
use serde_json::{Value, json};

/// Day 1 and day 2 of a small corpus: day 2 has near-copies of day 1's
/// documents and of its own, and new ones.
fn corpus() -> (String, String) {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut word = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        format!("w{}", state % 5000)
    };
    let mut text = |n: usize| (0..n).map(|_| word()).collect::<Vec<_>>().join(" ");
    let line = |id: &str, text: &str| format!("{}\n", json!({"id": id, "text": text}));
    let day1: Vec<String> = (0..60).map(|_| text(40)).collect();
    let mut one = String::new();
    for (i, t) in day1.iter().enumerate() {
        one += &line(&format!("a{i}"), t);
    }
    let mut two = String::new();
    for i in 0..150 {
        let t = match i % 3 {
            0 => format!("{} again", day1[i / 3 % day1.len()]),
            _ => text(40),
        };
        two += &line(&format!("b{i}"), &t);
        if i % 10 == 1 {
            two += &line(&format!("b{i}x"), &format!("{t} too"));
        }
    }
    (one, two)
}

fn run_into(input: &Path, out: &Path, index: &Path, force: bool) -> DedupRunBuilder {
    let job = Dedup::builder()
        .unwrap()
        .against(against_index(Some(index), Some(index)))
        .build()
        .unwrap();
    let mut run = DedupRun::builder(vec![input.to_path_buf()], out.to_path_buf(), job);
    run.force(force).save_index(Some(index.to_path_buf()));
    run
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
    let mut ids: Vec<String> = AnyStore::open_read_only(dir)
        .unwrap()
        .entries()
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    ids.sort();
    ids
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// The state a failed run left: a summary only beside an index that holds
/// its documents.
fn check_left(out: &Path, index: &Path, before: &[String], why: &str) {
    let ids = index_ids(index);
    let summary = out.join("summary.json");
    if summary.exists() {
        let kept = ids_of(&out.join("unique.jsonl"));
        for id in &kept {
            assert!(
                ids.binary_search(id).is_ok(),
                "{why}: {id} finished but not indexed"
            );
        }
    } else {
        // Nothing of the run is indexed, or its batch is still unfinished
        // (a crash after the commit): the next run undoes it.
        let unfinished = unfinished_batch(index);
        assert!(
            ids == before || unfinished,
            "{why}: indexed without a summary"
        );
    }
}

/// Whether the index's last batch is labelled unfinished.
fn unfinished_batch(index: &Path) -> bool {
    let store = AnyStore::open_read_only(index).unwrap();
    let batch = store.last_batch().unwrap();
    batch.is_some_and(|b| b.label.contains("\"finished\":false"))
}

/// The state after the rerun: the clean run's.
fn check_final(
    day2: &Path,
    out: &Path,
    index: &Path,
    before: &[String],
    want: &BTreeSet<String>,
    why: &str,
) {
    assert!(out.join("summary.json").exists(), "{why}: no summary");
    let kept: BTreeSet<String> = ids_of(&out.join("unique.jsonl")).into_iter().collect();
    assert_eq!(&kept, want, "{why}: kept documents");
    let ids = index_ids(index);
    let expected: BTreeSet<String> = before.iter().cloned().chain(want.iter().cloned()).collect();
    assert_eq!(ids.len(), expected.len(), "{why}: an id twice, or missing");
    assert_eq!(
        ids.iter().cloned().collect::<BTreeSet<_>>(),
        expected,
        "{why}: index"
    );
    let dropped: HashMap<String, String> = std::fs::read_to_string(out.join("duplicates.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_str().unwrap().to_string(),
                v["duplicate_of"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for id in ids_of(day2) {
        match dropped.get(&id) {
            None => assert!(kept.contains(&id), "{why}: {id} lost"),
            Some(of) => {
                assert_ne!(of, &id, "{why}: {id} dropped as a copy of itself");
                assert!(
                    ids.binary_search(of).is_ok(),
                    "{why}: {id} dropped for {of}, not indexed"
                );
            }
        }
    }
}

#[test]
fn a_run_failed_at_any_step_loses_nothing() {
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let (one, two) = corpus();
    let (day1, day2) = (tmp.path().join("day1.jsonl"), tmp.path().join("day2.jsonl"));
    std::fs::write(&day1, one).unwrap();
    std::fs::write(&day2, two).unwrap();
    // The index after day 1, and after day 2 run cleanly.
    let seen = tmp.path().join("seen");
    run_into(&day1, &tmp.path().join("out1"), &seen, false)
        .build()
        .run(&Silent)
        .unwrap();
    let before = index_ids(&seen);
    let clean = tmp.path().join("clean");
    copy_dir(&seen, &clean.join("seen"));
    let steps: Arc<Mutex<Vec<String>>> = Arc::default();
    let mut counted = run_into(&day2, &clean.join("out2"), &clean.join("seen"), false);
    let said = steps.clone();
    counted.inject_faults(Arc::new(move |step: Step| {
        said.lock().unwrap().push(format!("{step:?}"));
        Ok(())
    }));
    let timed = Instant::now();
    counted.build().run(&Silent).unwrap();
    eprintln!("a clean run: {:.2} s", timed.elapsed().as_secs_f64());
    let want: BTreeSet<String> = ids_of(&clean.join("out2/unique.jsonl"))
        .into_iter()
        .collect();
    assert!(want.len() > 50 && want.len() < 150, "{}", want.len());
    check_final(
        &day2,
        &clean.join("out2"),
        &clean.join("seen"),
        &before,
        &want,
        "clean",
    );
    let steps = steps.lock().unwrap().clone();
    assert!(steps.len() >= 10, "{steps:?}");

    // Each trial from the index of day 1 (a first run of day 2), or from
    // a finished day 2 run replaced with --force.
    let mut trials = 0;
    for replacing in [false, true] {
        for n in 0..steps.len() + 4 {
            for dead in [false, true] {
                // Rerun with --force in half the trials.
                {
                    let force = (n % 2 == 0) == dead;
                    let why =
                        format!("replacing {replacing}, step {n}, dead {dead}, force {force}");
                    let t = tmp.path().join(format!("t{trials}"));
                    let (index, out) = (t.join("seen"), t.join("out2"));
                    match replacing {
                        false => copy_dir(&seen, &index),
                        true => {
                            copy_dir(&clean.join("seen"), &index);
                            copy_dir(&clean.join("out2"), &out);
                            // The clean run's label names the clean out:
                            // make it this trial's, as a real rerun's.
                            relabel_to(&index, &out);
                        }
                    }
                    let calls = Arc::new(AtomicUsize::new(0));
                    let mut run = run_into(&day2, &out, &index, replacing);
                    let counter = calls.clone();
                    run.inject_faults(Arc::new(move |step: Step| {
                        let i = counter.fetch_add(1, Ordering::SeqCst);
                        match i == n || (dead && i > n) {
                            true => Err(std::io::Error::other(format!("injected at {step:?}"))),
                            false => Ok(()),
                        }
                    }));
                    let first = run.build().run(&Silent);
                    if let Err(e) = &first {
                        assert!(
                            neardup_output::with_causes(e).contains("injected"),
                            "{why}: {}",
                            neardup_output::with_causes(e)
                        );
                    }
                    check_left(&out, &index, &before, &why);
                    let undo = unfinished_batch(&index) && !out.join("summary.json").exists();
                    let again = run_into(&day2, &out, &index, force).build().run(&Silent);
                    match again {
                        // The batch of the killed run is undone, and said so.
                        Ok(finished) => assert!(
                            !undo || finished.notes.iter().any(|n| n.contains("taken out of")),
                            "{why}: {:?}",
                            finished.notes
                        ),
                        // A finished run is not replaced without --force.
                        Err(e) => assert!(
                            !force && neardup_output::with_causes(&e).contains("not empty"),
                            "{why}: {}",
                            neardup_output::with_causes(&e)
                        ),
                    }
                    check_final(&day2, &out, &index, &before, &want, &why);
                    std::fs::remove_dir_all(&t).unwrap();
                    trials += 1;
                }
            }
        }
    }
    eprintln!(
        "{trials} trials over {} steps in {:.1} s",
        steps.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(trials >= 70);
}

/// Points the last batch's label of the index in `dir` at `out`.
fn relabel_to(dir: &Path, out: &Path) {
    let store = AnyStore::open(dir, None, neardup_store::StoreOptions::default()).unwrap();
    let batch = store.last_batch().unwrap().unwrap();
    let mut label: Value = serde_json::from_str(&batch.label).unwrap();
    label["out"] = json!(out.canonicalize().unwrap().to_string_lossy());
    assert!(store.relabel_last_batch(&label.to_string()).unwrap());
}
