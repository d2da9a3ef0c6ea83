//! The dedup score of `neardup eval`: the dedup job itself run over the
//! benchmark's documents, and other tools' dedups read from files, scored
//! from their outputs by `neardup_eval::score_dedup` against the truth.

use std::fmt::Write as _;

use anyhow::{Context, Result, bail};
use neardup_dedup::{Dedup, DedupBuilder, Fate, Memory, Rule, Silent, save_to_index};
use neardup_eval::{Benchmark, DedupCounts, DedupScores, THRESHOLD, perfect_dedup, score_dedup};
use rayon::prelude::*;
use serde_json::{Map, Value, json};

/// Each document's fate under `job` (keep first, in benchmark order): the
/// document it was dropped for, or `None`.
pub fn run_job(bench: &Benchmark, job: &Dedup) -> Result<Vec<Option<usize>>> {
    let texts: Vec<&str> = bench.documents.iter().map(|d| d.text.as_str()).collect();
    let outcome = job.run(&Memory::new(&texts[..]), &Silent)?;
    Ok(outcome
        .fates()
        .iter()
        .map(|f| f.duplicate_of().map(|of| of as usize))
        .collect())
}

/// Each document's fate when the benchmark is deduplicated in `days` runs
/// instead of one, as a crawler's daily runs are: each run drops what the
/// rule calls a near-duplicate of a document the runs before kept (in an
/// index, `--against`), then adds its own kept documents to it
/// (`--save-index`). Keeping first in benchmark order, the kept documents
/// must be those of one run.
pub fn run_in_days(bench: &Benchmark, rule: &Rule, days: usize) -> Result<Vec<Option<usize>>> {
    let index = tempfile::tempdir().context("cannot make a temporary index directory")?;
    let n = bench.documents.len();
    let mut fates = Vec::with_capacity(n);
    let per_day = n.div_ceil(days.max(1)).max(1);
    for start in (0..n).step_by(per_day) {
        let day: Vec<(String, &str)> = bench.documents[start..(start + per_day).min(n)]
            .iter()
            .enumerate()
            .map(|(i, d)| ((start + i).to_string(), d.text.as_str()))
            .collect();
        let source = Memory::new(&day[..]);
        let mut job = DedupBuilder::with_rule(rule.clone());
        if start > 0 {
            job.against(Some(index.path().to_path_buf()));
        }
        let outcome = job.build()?.run(&source, &Silent)?;
        for fate in outcome.fates().iter() {
            fates.push(match fate {
                Fate::Kept => None,
                Fate::Duplicate { of, .. } => Some(start + of as usize),
                Fate::DuplicateOfIndexed { entry, .. } => outcome
                    .indexed_name(entry)
                    .and_then(|name| name.parse().ok()),
            });
        }
        save_to_index(
            index.path(),
            rule,
            &source,
            &outcome,
            &|d| (start + d as usize).to_string(),
            &Silent,
        )?;
    }
    Ok(fates)
}

/// Scores `duplicate_of`, computing the truth of each drop.
pub fn score(bench: &Benchmark, duplicate_of: &[Option<usize>]) -> DedupScores {
    let rightly: Vec<bool> = duplicate_of
        .par_iter()
        .enumerate()
        .map(|(d, of)| of.is_some_and(|e| bench.similarity(d, e) >= THRESHOLD))
        .collect();
    score_dedup(bench, duplicate_of, |d| rightly[d])
}

/// Another tool's dedup: `NAME=FILE`, one JSON line per document.
pub fn read_peer(bench: &Benchmark, spec: &str) -> Result<(String, Vec<Option<usize>>)> {
    let Some((name, path)) = spec.rsplit_once('=') else {
        bail!("--dedup-predictions {spec:?}: give NAME=FILE");
    };
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    let n = bench.documents.len();
    let fates: Vec<Option<usize>> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let at = || format!("{path}:{}", i + 1);
            match serde_json::from_str::<Value>(l).with_context(|| format!("{}: not JSON", at()))? {
                Value::Null => Ok(None),
                Value::Number(x) => match x.as_u64().map(|x| x as usize) {
                    Some(of) if of < n && of != i => Ok(Some(of)),
                    _ => bail!("{}: {x} is not the number of another document", at()),
                },
                other => bail!("{}: {other} is neither null nor a document number", at()),
            }
        })
        .collect::<Result<_>>()?;
    if fates.len() != n {
        bail!(
            "{path}: {} lines for {n} documents; answer documents.jsonl of this benchmark",
            fates.len()
        );
    }
    Ok((name.to_string(), fates))
}

/// The table of dedup scores: neardup's, the ruler's check, the peers'.
pub fn report(bench: &Benchmark, rows: &[(String, DedupScores)]) -> String {
    let ruler = score(bench, &perfect_dedup(bench));
    let mut out = format!(
        "\nWhat dedup does (each document dropped for a kept one, or kept): precision = of the \
         dropped documents, the share that truly duplicate their kept one; recall = of the \
         near-duplicate pairs, the share not left both kept. The ruler: a dedup that follows \
         the truth scores precision {:.4}, recall {:.4}.\n\n",
        ruler.all.precision(),
        ruler.all.recall()
    );
    out.push_str("| dedup |");
    for name in COLUMNS {
        let _ = write!(out, " {name}: P / R / F1 |");
    }
    out.push_str("\n|---|");
    out.push_str(&"--:|".repeat(COLUMNS.len()));
    out.push('\n');
    for (name, scores) in rows {
        let _ = write!(out, "| {name} |");
        for column in 0..COLUMNS.len() {
            match part(scores, column) {
                Some(c) => {
                    let _ = write!(
                        out,
                        " {:.3} / {:.3} / **{:.3}** |",
                        c.precision(),
                        c.recall(),
                        c.f1()
                    );
                }
                None => out.push_str(" – |"),
            }
        }
        out.push('\n');
    }
    out
}

/// The parts of the table: everything, by language, by language at 50
/// words or more, short and long documents.
const COLUMNS: [&str; 7] = [
    "all",
    "en",
    "zh",
    "en ≥ 50 words",
    "zh ≥ 100 characters",
    "< 50 words",
    "> 500 words",
];

/// The counts of column `i` of [`COLUMNS`].
fn part(s: &DedupScores, i: usize) -> Option<DedupCounts> {
    match i {
        0 => Some(s.all),
        1 => s.by_language.get("en").copied(),
        2 => s.by_language.get("zh").copied(),
        3 => s.long_by_language.get("en").copied(),
        4 => s.long_by_language.get("zh").copied(),
        5 => s.by_length.get("<50").copied(),
        _ => s.by_length.get(">500").copied(),
    }
}

/// The scores as JSON: each part's counts, precision, recall and F1.
pub fn scores_json(s: &DedupScores) -> Value {
    let counts = |c: &DedupCounts| {
        json!({
            "dropped": c.dropped, "rightly_dropped": c.rightly_dropped,
            "near_pairs": c.near_pairs, "near_pairs_caught": c.near_pairs_caught,
            "precision": c.precision(), "recall": c.recall(), "f1": c.f1(),
        })
    };
    let by = |m: &mut dyn Iterator<Item = (String, &DedupCounts)>| -> Map<String, Value> {
        m.map(|(k, c)| (k, counts(c))).collect()
    };
    json!({
        "all": counts(&s.all),
        "by_language": by(&mut s.by_language.iter().map(|(k, c)| (k.clone(), c))),
        "by_length": by(&mut s.by_length.iter().map(|(k, c)| (k.to_string(), c))),
        "long_by_language": by(&mut s.long_by_language.iter().map(|(k, c)| (k.clone(), c))),
    })
}
