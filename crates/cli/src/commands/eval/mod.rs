//! `neardup eval`: builds the labelled benchmark of `neardup-eval` from real
//! corpora, fingerprints its documents with the settings given, and prints
//! the scores as Markdown tables (and all of them as JSON with `--json`).

mod as_dedup;
mod plots;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use neardup_corpus::{Corpus, ReadOptions};
use neardup_dedup::{Dedup, Prepared, Rule};

/// The daily runs the benchmark's incremental dedup is split into.
const DAYS: usize = 3;
use neardup_eval::{
    BBC_JUDGED, Benchmark, BenchmarkSource, Counts, EditKind, PairOrigin, RATES, Scores, Size,
    View, build, judged_pairs, score, score_under,
};
use rayon::prelude::*;
use serde_json::{Value, json};

use crate::args::EvalArgs;
use crate::config;
use crate::progress::Steps;
use neardup_output::write_atomically;

/// The sources of `neardup eval` with no source given: news, technical
/// pages, fiction, reviews and verses to draw from, two Bibles and two
/// editions of Tang poems whose versions are paired, and licence texts
/// whose every pair is labelled.
const DEFAULT_SOURCES: [(Pairing, &str, &str); 10] = [
    (Pairing::Drawn, "en", "data/corpora/bbc.jsonl"),
    (Pairing::Drawn, "zh", "data/corpora/peoples_daily.jsonl"),
    (Pairing::Drawn, "en", "data/corpora/tech_docs.jsonl"),
    (Pairing::Drawn, "zh", "data/corpora/fiction_zh.jsonl"),
    (Pairing::Drawn, "en", "data/corpora/kjv_verses.jsonl"),
    (Pairing::Drawn, "zh", "data/corpora/reviews_zh.jsonl"),
    (Pairing::Aligned, "en", "samples/bible"),
    (Pairing::Aligned, "zh", "samples/zh"),
    (Pairing::All, "en", "samples/licenses"),
    (Pairing::All, "en", "samples/crate-licenses"),
];

pub fn run(args: &EvalArgs) -> Result<ExitCode> {
    let spec = |option: &str, spec: &String| -> Result<(String, PathBuf)> {
        match spec.split_once('=') {
            Some((lang, path)) if !lang.is_empty() => Ok((lang.to_string(), path.into())),
            _ => bail!("{option} {spec:?}: give LANGUAGE=PATH, as in en=news.jsonl"),
        }
    };
    // Reading, building, fingerprinting, scoring over k, deduplicating in
    // one run, then in daily runs.
    let mut steps = Steps::new(6);
    steps.next("reading the corpora");
    let mut sources = Vec::new();
    if args.corpora.is_empty() && args.all_pairs.is_empty() && args.aligned.is_empty() {
        for (pairing, language, path) in DEFAULT_SOURCES {
            sources.push(read_source(language, Path::new(path), pairing)?);
        }
    }
    for (option, specs, pairing) in [
        ("--corpus", &args.corpora, Pairing::Drawn),
        ("--all-pairs", &args.all_pairs, Pairing::All),
        ("--aligned", &args.aligned, Pairing::Aligned),
    ] {
        for s in specs {
            let (language, path) = spec(option, s)?;
            sources.push(read_source(&language, &path, pairing)?);
        }
    }
    steps.next("building the benchmark: edited copies, pairs, the Jaccard truth");
    let bench = build(
        &sources,
        Size {
            originals: args.originals,
            negatives: args.negatives,
            seed: args.seed,
        },
    );
    // Scores of no pair would read as perfect ones.
    let positives = bench.pairs.iter().filter(|p| p.duplicate).count();
    if positives == 0 || positives == bench.pairs.len() {
        bail!(
            "the corpora gave {} pairs, {positives} of them near-duplicates: nothing to score; \
             give corpora with at least two documents of some length",
            bench.pairs.len()
        );
    }
    if let Some(dir) = &args.export {
        export(&bench, dir)?;
    }
    let verify = config::verification(&args.nearness)?;
    // Each pair judged by the rule of dedup (every front's), at each k:
    // each document prepared once (its fingerprint and the verifier's
    // sketch, never the truth's shingles).
    let rule = config::rule(
        config::fingerprinter(&args.settings)?,
        args.k,
        &args.nearness,
    )?;
    steps.next(&format!(
        "fingerprinting {} documents",
        bench.documents.len()
    ));
    let prepared: Vec<Prepared> = bench
        .documents
        .par_iter()
        .map(|d| rule.prepare(&d.text))
        .collect();
    let distances: Vec<u32> = bench
        .pairs
        .iter()
        .map(|p| {
            let (a, b) = (prepared[p.a].fingerprint(), prepared[p.b].fingerprint());
            (a.bits() ^ b.bits()).count_ones()
        })
        .collect();
    let rules: Vec<Rule> = (0..=args.k_max.max(args.k))
        .map(|k| {
            let mut at = rule.clone();
            at.k(k);
            at
        })
        .collect();
    let reported = |i: usize, k: u32| {
        let p = &bench.pairs[i];
        rules[k as usize]
            .judge_prepared(&prepared[p.a], &prepared[p.b])
            .near
    };
    steps.next(&format!(
        "judging {} pairs at k = 0 to {}",
        bench.pairs.len(),
        args.k_max
    ));
    let curve: Vec<(u32, Scores)> = (0..=args.k_max)
        .map(|k| (k, score(&bench, |i| reported(i, k))))
        .collect();
    let at_k = score(&bench, |i| reported(i, args.k));
    print!("{}", report(&bench, &curve, &at_k, args.k));
    let edits_view = score_under(View::Edits, &bench, |i| reported(i, args.k));
    print!("{}", editor_view(&bench, &edits_view, args.k));
    let job = Dedup::with_rule(rule.clone())?;
    let described = verify.map_or_else(|| "--verify none".to_string(), |v| v.to_string());
    steps.next("deduplicating the benchmark in one run");
    let joint = as_dedup::run_job(&bench, &job)?;
    // Incremental is not a cheaper mode: the same documents in three daily
    // runs keep what one run keeps.
    steps.next(&format!(
        "deduplicating it again in {DAYS} daily runs (--against, --save-index)"
    ));
    let daily = as_dedup::run_in_days(&bench, &rule, DAYS)?;
    let kept_alike = joint
        .iter()
        .zip(&daily)
        .all(|(a, b)| a.is_none() == b.is_none());
    let mut dedups = vec![
        (
            format!("**neardup** (k = {}, {described})", args.k),
            as_dedup::score(&bench, &joint),
        ),
        (
            format!(
                "neardup in {DAYS} daily runs (--against, --save-index): {} kept as one run",
                if kept_alike {
                    "the same"
                } else {
                    "NOT the same"
                }
            ),
            as_dedup::score(&bench, &daily),
        ),
    ];
    for spec in &args.dedup_predictions {
        let (name, fates) = as_dedup::read_peer(&bench, spec)?;
        dedups.push((name, as_dedup::score(&bench, &fates)));
    }
    print!("{}", as_dedup::report(&bench, &dedups));
    let peers: Vec<(String, Answers)> = args
        .predictions
        .iter()
        .map(|spec| peer_scores(&bench, spec, args.k_max))
        .collect::<Result<_>>()?;
    for (name, answers) in &peers {
        print!("{}", peer_report(name, answers));
    }
    if !peers.is_empty() {
        print!("{}", side_by_side(&at_k, args.k, &peers));
    }
    if let Some(dir) = &args.plots {
        // neardup, SimHash alone (no verification), and each peer.
        let alone: Vec<Scores> = (0..=args.k_max)
            .map(|k| score(&bench, |i| distances[i] <= k))
            .collect();
        let mut compared = vec![
            (
                "neardup".to_string(),
                curve.iter().map(|(_, s)| s.clone()).collect(),
            ),
            ("neardup, SimHash alone".to_string(), alone),
        ];
        for (name, answers) in peers {
            let over_k = match answers {
                Answers::Distances(c) => c,
                Answers::Verdicts(s) => vec![*s; curve.len()],
            };
            compared.push((name, over_k));
        }
        plots::write_plots(dir, &curve, &at_k, args.k, &compared)?;
    }
    if let Some(path) = &args.json {
        let value = json!({
            "settings": {
                "profile": args.settings.profile,
                "width": rule.fingerprinter().width().bits(),
                "originals": args.originals,
                "negatives": args.negatives,
                "seed": args.seed,
                "verify": verify.map_or_else(|| "none".to_string(), |v| v.to_string()),
                "k": args.k,
                "short_rule": verify.is_some() && !args.nearness.no_short_rule,
            },
            "documents": bench.documents.len(),
            "pairs": bench.pairs.len(),
            "near_duplicates": bench.pairs.iter().filter(|p| p.duplicate).count(),
            "curve": curve.iter().map(|(k, s)| json!({"k": k, "scores": scores_json(s)})).collect::<Vec<_>>(),
            "dedup": dedups.iter().map(|(name, s)| json!({"name": name, "scores": as_dedup::scores_json(s)})).collect::<Vec<_>>(),
        });
        write_atomically(path, |out| {
            serde_json::to_writer_pretty(&mut *out, &value)?;
            Ok(())
        })?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `documents.jsonl` ({"id", "language", "text"}) and `pairs.jsonl` ({"a",
/// "b", "origin", "jaccard", "duplicate", "edited_duplicate"}) in `dir`.
fn export(bench: &Benchmark, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    write_atomically(&dir.join("documents.jsonl"), |out| {
        for (i, d) in bench.documents.iter().enumerate() {
            let language = bench.language(i);
            serde_json::to_writer(
                &mut *out,
                &json!({"id": i, "language": language, "text": d.text}),
            )?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })?;
    write_atomically(&dir.join("pairs.jsonl"), |out| {
        for p in &bench.pairs {
            let origin = match p.origin {
                PairOrigin::Edited { kind, rate } => format!("{} {rate}", kind.name()),
                PairOrigin::HardNegative => "hard negative".to_string(),
                PairOrigin::Negative => "negative".to_string(),
                PairOrigin::Natural => "natural".to_string(),
            };
            serde_json::to_writer(
                &mut *out,
                &json!({"a": p.a, "b": p.b, "origin": origin, "jaccard": p.jaccard,
                        "duplicate": p.duplicate, "edited_duplicate": p.edited_duplicate}),
            )?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })?;
    Ok(())
}

/// Another tool's answers, scored: by k for distances, once for verdicts.
enum Answers {
    Distances(Vec<Scores>),
    Verdicts(Box<Scores>),
}

/// Another tool's answers, one JSON line per pair (`true`/`false`, or a
/// distance), scored: `NAME=FILE`.
fn peer_scores(bench: &Benchmark, spec: &str, k_max: u32) -> Result<(String, Answers)> {
    let Some((name, path)) = spec.rsplit_once('=') else {
        bail!("--predictions {spec:?}: give NAME=FILE");
    };
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    let answers: Vec<Value> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).with_context(|| format!("{path}:{}: not JSON", i + 1))
        })
        .collect::<Result<_>>()?;
    if answers.len() != bench.pairs.len() {
        bail!(
            "{path}: {} answers for {} pairs; answer pairs.jsonl of this benchmark (same --seed, \
             --originals, --negatives and corpora)",
            answers.len(),
            bench.pairs.len()
        );
    }
    let scored = if answers.iter().all(Value::is_boolean) {
        Answers::Verdicts(Box::new(score(bench, |i| {
            answers[i].as_bool() == Some(true)
        })))
    } else if answers.iter().all(Value::is_u64) {
        Answers::Distances(
            (0..=k_max)
                .map(|k| {
                    score(bench, |i| {
                        answers[i].as_u64().is_some_and(|d| d <= u64::from(k))
                    })
                })
                .collect(),
        )
    } else {
        bail!("{path}: every line must be true/false, or every line a distance");
    };
    Ok((name.to_string(), scored))
}

/// A peer's table: a row per k, or one row.
fn peer_report(name: &str, answers: &Answers) -> String {
    let mut out = format!("\n{name}:\n\n{CURVE_HEADER}");
    match answers {
        Answers::Verdicts(s) => curve_row(&mut out, "–", s),
        Answers::Distances(curve) => {
            for (k, s) in curve.iter().enumerate() {
                curve_row(&mut out, &k.to_string(), s);
            }
        }
    }
    out
}

/// F1 of neardup at `k` and of each peer (a SimHash peer at its best k
/// over documents of 50 words or more) on the same pairs, by language and
/// length.
fn side_by_side(at_k: &Scores, k: u32, peers: &[(String, Answers)]) -> String {
    let parts: Vec<(String, &'static str)> = at_k
        .by_language_and_length
        .keys()
        .filter(|(_, length)| *length != "<50")
        .cloned()
        .collect();
    let mut out = String::from(
        "\nF1 on the same pairs, documents of 50 words or more (100 Chinese characters), by \
         language and length:\n\n| detector |",
    );
    for (language, length) in &parts {
        let _ = write!(out, " {language}, {length} words |");
    }
    out.push_str("\n|---|");
    out.push_str(&"--:|".repeat(parts.len()));
    out.push('\n');
    let mut row = |name: &str, s: &Scores| {
        let _ = write!(out, "| {name} |");
        for part in &parts {
            match s.by_language_and_length.get(part) {
                Some(c) => {
                    let _ = write!(out, " {:.4} |", c.f1());
                }
                None => out.push_str(" – |"),
            }
        }
        out.push('\n');
    };
    row(&format!("**neardup**, k = {k}"), at_k);
    for (name, answers) in peers {
        match answers {
            Answers::Verdicts(s) => row(name, s),
            Answers::Distances(curve) => {
                let best = curve
                    .iter()
                    .enumerate()
                    .max_by(|a, b| a.1.long.f1().total_cmp(&b.1.long.f1()));
                if let Some((best_k, s)) = best {
                    row(&format!("{name}, k = {best_k} (its best)"), s);
                }
            }
        }
    }
    out
}

/// The most documents a source of `--all-pairs` may have (2 million pairs).
const ALL_PAIRS_MAX: usize = 2_000;

/// Which natural pairs a source brings.
#[derive(Clone, Copy, PartialEq)]
enum Pairing {
    /// None, but the BBC corpus (a file named `bbc…`) brings its judged
    /// pairs.
    Drawn,
    /// Every pair of its documents.
    All,
    /// Every pair of documents whose ids differ only before the first `/`.
    Aligned,
}

/// A corpus as a source: its topic is the part of an id before a `/`, and
/// its natural pairs those of `pairing`.
fn read_source(language: &str, path: &Path, pairing: Pairing) -> Result<BenchmarkSource> {
    let corpus = Corpus::open(&[path], &ReadOptions::default()).with_context(|| {
        format!(
            "{} (scripts/fetch-corpora.sh fetches the default corpora)",
            path.display()
        )
    })?;
    let mut documents = Vec::new();
    let mut ids = HashMap::new();
    for doc in corpus.documents() {
        let doc = doc?;
        let topic = doc.id.split_once('/').map_or("", |(t, _)| t).to_string();
        ids.insert(doc.id, documents.len());
        documents.push((topic, doc.text));
    }
    let name = path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    let n = documents.len();
    if pairing == Pairing::All && n > ALL_PAIRS_MAX {
        bail!(
            "--all-pairs {}: {n} documents; every pair is labelled, so give at most {ALL_PAIRS_MAX}",
            path.display()
        );
    }
    let natural = match pairing {
        Pairing::All => (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect(),
        Pairing::Aligned => {
            let mut versions: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
            for (id, &i) in &ids {
                if let Some((_, rest)) = id.split_once('/') {
                    versions.entry(rest).or_default().push(i);
                }
            }
            let mut pairs = Vec::new();
            for v in versions.values_mut() {
                v.sort_unstable();
                for (x, &a) in v.iter().enumerate() {
                    pairs.extend(v[x + 1..].iter().map(|&b| (a, b)));
                }
            }
            pairs.sort_unstable();
            pairs
        }
        Pairing::Drawn if name.starts_with("bbc") => judged_pairs(BBC_JUDGED)
            .iter()
            .filter_map(|p| Some((*ids.get(&p.a)?, *ids.get(&p.b)?)))
            .collect(),
        Pairing::Drawn => Vec::new(),
    };
    Ok(BenchmarkSource {
        name,
        language: language.to_string(),
        documents,
        natural,
    })
}

fn counts_json(c: &Counts) -> Value {
    json!({
        "tp": c.true_positives, "fp": c.false_positives,
        "fn": c.false_negatives, "tn": c.true_negatives,
        "precision": c.precision(), "recall": c.recall(), "f1": c.f1(), "accuracy": c.accuracy(),
    })
}

fn scores_json(s: &Scores) -> Value {
    json!({
        "all": counts_json(&s.all),
        "long": counts_json(&s.long),
        "hard_negatives": counts_json(&s.hard_negatives),
        "hard_negatives_long": counts_json(&s.hard_negatives_long),
        "natural": counts_json(&s.natural),
        "boilerplate": s.boilerplate.iter().map(|(l, c)| (l.clone(), counts_json(c))).collect::<serde_json::Map<_, _>>(),
        "long_by_language": s.long_by_language.iter().map(|(l, c)| (l.clone(), counts_json(c))).collect::<serde_json::Map<_, _>>(),
        "small_edits": s.small_edits.iter().map(|(l, c)| (l.clone(), counts_json(c))).collect::<serde_json::Map<_, _>>(),
        "by_language": s.by_language.iter().map(|(l, c)| (l.clone(), counts_json(c))).collect::<serde_json::Map<_, _>>(),
        "by_length": s.by_length.iter().map(|(l, c)| (l.to_string(), counts_json(c))).collect::<serde_json::Map<_, _>>(),
        "by_edit": s.by_edit.iter().map(|((kind, rate), c)| json!({"kind": kind, "rate_per_mille": rate, "counts": counts_json(c)})).collect::<Vec<_>>(),
    })
}

/// The head of a table of scores by k, neardup's or another tool's.
const CURVE_HEADER: &str = "| k | precision | recall | F1 | F1, ≥ 50 words | hard negatives right |\n\
                            |--:|--:|--:|--:|--:|--:|\n";

/// One row of that table.
fn curve_row(out: &mut String, k: &str, s: &Scores) {
    let _ = writeln!(
        out,
        "| {k} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} |",
        s.all.precision(),
        s.all.recall(),
        s.all.f1(),
        s.long.f1(),
        s.hard_negatives.accuracy()
    );
}

/// The quality targets at `k`, each with its value and whether it holds
/// (documents of 50 words or more).
fn targets(at_k: &Scores, k: u32) -> String {
    let mut rows: Vec<(String, f64, f64)> = Vec::new();
    for (language, c) in &at_k.long_by_language {
        rows.push((format!("F1, {language}"), c.f1(), 0.98));
    }
    for (language, c) in &at_k.small_edits {
        rows.push((
            format!(
                "recall, edits of {}% or less, {language}",
                neardup_eval::SMALL_EDIT * 100.0
            ),
            c.recall(),
            0.95,
        ));
    }
    for (language, c) in &at_k.boilerplate {
        rows.push((
            format!(
                "recall, boilerplate of {}% or less added, {language}",
                neardup_eval::MAX_CHANGE * 100.0
            ),
            c.recall(),
            0.95,
        ));
    }
    rows.push((
        "precision on different documents of one topic (hard negatives)".to_string(),
        at_k.hard_negatives_long.precision(),
        0.99,
    ));
    let mut out = format!(
        "\nTargets at k = {k} (documents of 50 words or more; at every length, \
         precision on the hard negatives is {:.4}):\n\n",
        at_k.hard_negatives.precision()
    );
    out.push_str("| target | value | at least | holds |\n|---|--:|--:|---|\n");
    for (name, value, least) in rows {
        let holds = if value >= least { "yes" } else { "**no**" };
        let _ = writeln!(out, "| {name} | {value:.4} | {least} | {holds} |");
    }
    out
}

/// The scores at `k` under the editor's view of the truth, beside the
/// Jaccard truth's.
fn editor_view(bench: &Benchmark, at_k: &Scores, k: u32) -> String {
    let near = bench.pairs.iter().filter(|p| p.edited_duplicate).count();
    let mut out = format!(
        "\nThe editor's view, at k = {k}: {near} pairs are near-duplicates when an edited copy \
         changed at most {}% of the content (other pairs: Jaccard ≥ {} or at most {}% of the \
         words edited):\n\n",
        neardup_eval::MAX_CHANGE * 100.0,
        neardup_eval::THRESHOLD,
        neardup_eval::MAX_CHANGE * 100.0,
    );
    out.push_str("| part | precision | recall | F1 |\n|---|--:|--:|--:|\n");
    let rows = [("all pairs", &at_k.all), ("≥ 50 words", &at_k.long)]
        .into_iter()
        .map(|(n, c)| (n.to_string(), c))
        .chain(
            at_k.long_by_language
                .iter()
                .map(|(l, c)| (format!("≥ 50 words, {l}"), c)),
        );
    for (name, c) in rows {
        let _ = writeln!(
            out,
            "| {name} | {:.4} | {:.4} | {:.4} |",
            c.precision(),
            c.recall(),
            c.f1()
        );
    }
    out
}

/// The Markdown report: the benchmark, the curve over k, the targets, and
/// the scores at `k` by edit, language and length.
fn report(bench: &Benchmark, curve: &[(u32, Scores)], at_k: &Scores, k: u32) -> String {
    let mut out = String::new();
    let near = bench.pairs.iter().filter(|p| p.duplicate).count();
    let _ = writeln!(
        out,
        "{} documents, {} labelled pairs, {} near-duplicates by the truth (the exact Jaccard \
         similarity of their shingles is at least {}: word 3-shingles; character 4-grams for \
         Chinese); sources: {}\n",
        bench.documents.len(),
        bench.pairs.len(),
        near,
        neardup_eval::THRESHOLD,
        bench
            .sources
            .iter()
            .map(|(name, lang)| format!("{name} ({lang})"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    out.push_str(CURVE_HEADER);
    for (k, s) in curve {
        curve_row(&mut out, &k.to_string(), s);
    }
    out.push_str(&targets(at_k, k));
    let _ = writeln!(
        out,
        "\nRecall at k = {k}, by edit and rate (pairs that are near-duplicates by the truth):\n"
    );
    out.push_str("| edit |");
    for rate in RATES {
        let _ = write!(out, " {}% |", rate * 100.0);
    }
    out.push_str("\n|---|");
    out.push_str(&"--:|".repeat(RATES.len()));
    out.push('\n');
    for kind in EditKind::ALL {
        let _ = write!(out, "| {} |", kind.name());
        for (i, rate) in RATES.into_iter().enumerate() {
            // Traditional has no rate: its one figure goes first.
            let per_mille = match kind {
                EditKind::Traditional if i > 0 => u32::MAX,
                EditKind::Traditional => 0,
                _ => (rate * 1000.0).round() as u32,
            };
            match at_k.by_edit.get(&(kind.name().to_string(), per_mille)) {
                Some(c) if c.true_positives + c.false_negatives > 0 => {
                    let _ = write!(out, " {:.3} |", c.recall());
                }
                _ => out.push_str(" – |"),
            }
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "\nAt k = {k}, by language and by length (words of the shorter document):\n"
    );
    out.push_str("| part | precision | recall | F1 | pairs |\n|---|--:|--:|--:|--:|\n");
    let natural =
        (at_k.natural != Counts::default()).then(|| ("natural pairs".to_string(), &at_k.natural));
    let rows = natural
        .into_iter()
        .chain(
            at_k.by_language
                .iter()
                .map(|(l, c)| (format!("language {l}"), c)),
        )
        .chain(
            at_k.by_length
                .iter()
                .map(|(l, c)| (format!("length {l}"), c)),
        );
    for (name, c) in rows {
        let _ = writeln!(
            out,
            "| {name} | {:.4} | {:.4} | {:.4} | {} |",
            c.precision(),
            c.recall(),
            c.f1(),
            c.true_positives + c.false_positives + c.false_negatives + c.true_negatives
        );
    }
    out
}
