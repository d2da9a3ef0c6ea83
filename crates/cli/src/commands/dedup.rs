//! `neardup dedup`: documents in; the kept ones, the dropped ones with the
//! document each duplicates, the groups and a summary out, in a directory.
//!
//! Three passes: the documents are read and fingerprinted, and only what
//! the join and the outputs need is kept of each (its id, fingerprint,
//! file, line and length); the fingerprints are joined; the inputs are read
//! again to copy the kept records byte for byte. Every output is written to
//! a temporary name and renamed when whole, `summary.json` last.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use neardup_core::Width;
use neardup_corpus::{Corpus, copy_lines};
use neardup_dedup::{Fate, components, jaccard, keep_first, shingles};
use neardup_index::{Pair, TablePlan, self_join};

use crate::args::{ClusterArg, DedupArgs, FormatArg, KeepArg};
use crate::output::write_atomically;
use crate::progress::Progress;
use crate::{config, pipeline};

/// What is kept of a document after it is fingerprinted.
struct Record {
    id: String,
    fingerprint: u128,
    /// Index into the corpus's files.
    file: u32,
    /// Its line, for line-based inputs; `None` for a whole file.
    line: Option<u64>,
    bytes: u64,
}

pub fn run(args: &DedupArgs) -> Result<ExitCode> {
    let started = Instant::now();
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        bail!(
            "dedup reads its inputs twice (once to fingerprint, once to copy what is kept): give files, not -"
        );
    }
    let verify = args.verify.as_deref().map(parse_verify).transpose()?;
    prepare_out(&args.out, args.force)?;
    let fingerprinter = config::fingerprinter(&args.settings)?;
    let corpus = Corpus::open(&args.paths, &config::read_options(&args.input))?;
    let files: Vec<PathBuf> = corpus.files().map(Path::to_path_buf).collect();
    refuse_inputs_as_outputs(&args.out, &files)?;
    let file_numbers: HashMap<&Path, u32> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.as_path(), i as u32))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()?;
    let progress = Progress::new(corpus.total_bytes(), args.quiet);
    let mut records = Vec::new();
    let skipped = pool.install(|| {
        pipeline::run(
            &corpus,
            args.input.skip_invalid,
            &progress,
            |doc| fingerprinter.fingerprint(&doc.text),
            |doc, fp| {
                let file = file_numbers
                    .get(doc.place.path.as_path())
                    .copied()
                    .unwrap_or(u32::MAX);
                records.push(Record {
                    id: doc.id.clone(),
                    fingerprint: fp.bits(),
                    file,
                    line: doc.place.line,
                    bytes: doc.text.len() as u64,
                });
                Ok(())
            },
        )
    })?;
    progress.finish();

    let width = fingerprinter.width();
    let n = records.len();
    let plan = TablePlan::choose_for_join(width, args.k, n.max(1) as f64)
        .and_then(|c| c.plan(width, args.k))
        .with_context(|| format!("-k {}", args.k))?;
    let pairs = pool.install(|| -> Result<Vec<Pair>> {
        let bits = records.iter().map(|r| r.fingerprint);
        Ok(match width {
            Width::W64 => self_join(&plan, &bits.map(|b| b as u64).collect::<Vec<_>>())?,
            _ => self_join(&plan, &bits.collect::<Vec<_>>())?,
        })
    })?;

    let candidates = pairs.len();
    let pairs = match verify {
        Some(threshold) => verified(&corpus, args, &pairs, n, threshold)?,
        None => pairs,
    };

    let mut order: Vec<u32> = (0..n as u32).collect();
    match args.keep {
        KeepArg::First => {}
        KeepArg::Longest => order.sort_by_key(|&i| std::cmp::Reverse(records[i as usize].bytes)),
        KeepArg::Shortest => order.sort_by_key(|&i| records[i as usize].bytes),
    }
    let fates = match args.cluster {
        ClusterArg::Greedy => keep_first(n, &order, &pairs),
        ClusterArg::Components => component_fates(n, &order, &pairs, &records),
    };

    let unique = fates.iter().filter(|f| **f == Fate::Kept).count();
    write_unique(&args.out, args.input.format, &files, &records, &fates)?;
    write_duplicates(&args.out, &records, &fates)?;
    let groups = write_clusters(&args.out, &records, &fates)?;
    let summary = serde_json::json!({
        "documents": n,
        "skipped": skipped.to_json(),
        "unique": unique,
        "dropped": n - unique,
        "candidate_pairs": candidates,
        "pairs": pairs.len(),
        "groups": groups,
        "seconds": started.elapsed().as_secs_f64(),
        "settings": {
            "k": args.k,
            "profile": args.settings.profile,
            "width": width.bits(),
            "keep": format!("{:?}", args.keep).to_lowercase(),
            "cluster": format!("{:?}", args.cluster).to_lowercase(),
            "tables": plan.tables(),
            "verify": args.verify,
        },
        "inputs": args.paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    });
    write_atomically(&args.out.join("summary.json"), |out| {
        serde_json::to_writer_pretty(&mut *out, &summary)?;
        out.write_all(b"\n")?;
        Ok(())
    })?;
    if !args.quiet {
        eprintln!(
            "neardup: {n} documents, {unique} unique, {} dropped as near-duplicates ({} pairs within {} bits){}",
            n - unique,
            pairs.len(),
            args.k,
            if skipped.total() > 0 {
                format!(", skipped {}", skipped.describe())
            } else {
                String::new()
            }
        );
        eprintln!("neardup: wrote {}", args.out.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The threshold of `jaccard:T`.
fn parse_verify(text: &str) -> Result<f64> {
    let threshold = text
        .strip_prefix("jaccard:")
        .and_then(|t| t.parse::<f64>().ok())
        .filter(|t| (0.0..=1.0).contains(t));
    threshold.with_context(|| {
        format!("--verify {text:?}: give jaccard:T with T from 0 to 1, as in jaccard:0.8")
    })
}

/// The pairs whose documents' 3-shingles have a Jaccard similarity of at
/// least `threshold`. The inputs are read again and only the documents in
/// some pair are shingled.
fn verified(
    corpus: &Corpus,
    args: &DedupArgs,
    pairs: &[Pair],
    n: usize,
    threshold: f64,
) -> Result<Vec<Pair>> {
    let mut needed = vec![false; n];
    for p in pairs {
        needed[p.a as usize] = true;
        needed[p.b as usize] = true;
    }
    let mut shingled: Vec<Option<Vec<u64>>> = vec![None; n];
    let mut next = 0usize;
    for doc in corpus.documents() {
        match doc {
            Ok(doc) => {
                if needed.get(next).copied().unwrap_or(false) {
                    shingled[next] = Some(shingles(&doc.text, 3));
                }
                next += 1;
            }
            // Skipped the first time too (or the run had stopped).
            Err(e) if args.input.skip_invalid && e.is_record() => {}
            Err(e) => return Err(e.into()),
        }
    }
    if next != n {
        bail!("the inputs changed while dedup ran: {n} documents read first, {next} now");
    }
    Ok(pairs
        .iter()
        .filter(
            |p| match (&shingled[p.a as usize], &shingled[p.b as usize]) {
                (Some(a), Some(b)) => jaccard(a, b) >= threshold,
                _ => false,
            },
        )
        .copied()
        .collect())
}

/// Makes `out`, refusing one that holds anything unless `force`.
fn prepare_out(out: &Path, force: bool) -> Result<()> {
    if out.exists() {
        let mut entries = std::fs::read_dir(out)
            .with_context(|| format!("--out {}: not a directory", out.display()))?;
        if entries.next().is_some() && !force {
            bail!(
                "--out {}: the directory is not empty; give an empty or new one, or --force",
                out.display()
            );
        }
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))
}

/// The outputs' paths must not be inputs: dedup never writes into an input.
fn refuse_inputs_as_outputs(out: &Path, files: &[PathBuf]) -> Result<()> {
    for name in [
        "unique.jsonl",
        "unique.txt",
        "duplicates.jsonl",
        "clusters.jsonl",
        "summary.json",
    ] {
        let Ok(output) = out.join(name).canonicalize() else {
            continue;
        };
        if files
            .iter()
            .any(|f| f.canonicalize().is_ok_and(|f| f == output))
        {
            bail!(
                "{} is an input; write the outputs to another directory",
                output.display()
            );
        }
    }
    Ok(())
}

/// Components as fates: the first member in `order` of each group is kept,
/// the others are its duplicates, at their own distance from it.
fn component_fates(n: usize, order: &[u32], pairs: &[Pair], records: &[Record]) -> Vec<Fate> {
    let mut rank = vec![0u32; n];
    for (r, &d) in order.iter().enumerate() {
        rank[d as usize] = r as u32;
    }
    let mut fates = vec![Fate::Kept; n];
    for group in components(n, pairs) {
        let Some(&keep) = group.iter().min_by_key(|&&d| rank[d as usize]) else {
            continue;
        };
        let kept = records[keep as usize].fingerprint;
        for &d in group.iter().filter(|&&d| d != keep) {
            let distance = (records[d as usize].fingerprint ^ kept).count_ones();
            fates[d as usize] = Fate::Duplicate { of: keep, distance };
        }
    }
    fates
}

fn is_json_lines(path: &Path, format: FormatArg) -> bool {
    match format {
        FormatArg::Jsonl => true,
        FormatArg::Text => false,
        FormatArg::Auto => {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let inner = name
                .strip_suffix(".gz")
                .or_else(|| name.strip_suffix(".zst"))
                .unwrap_or(name);
            inner.ends_with(".jsonl") || inner.ends_with(".ndjson")
        }
    }
}

/// `unique.jsonl`: the kept JSON lines, byte for byte; `unique.txt`: the
/// kept lines of line-based text files, and the paths of kept whole-file
/// documents. Each written only if some input is of its kind.
fn write_unique(
    out: &Path,
    format: FormatArg,
    files: &[PathBuf],
    records: &[Record],
    fates: &[Fate],
) -> Result<()> {
    // Per file, the kept lines (or whether the whole file is kept).
    let mut kept_lines: Vec<Vec<u64>> = vec![Vec::new(); files.len()];
    let mut kept_whole: Vec<bool> = vec![false; files.len()];
    for (r, fate) in records.iter().zip(fates) {
        if *fate != Fate::Kept || r.file as usize >= files.len() {
            continue;
        }
        match r.line {
            Some(line) => kept_lines[r.file as usize].push(line),
            None => kept_whole[r.file as usize] = true,
        }
    }
    let json: Vec<usize> = (0..files.len())
        .filter(|&f| is_json_lines(&files[f], format))
        .collect();
    let text: Vec<usize> = (0..files.len())
        .filter(|&f| !is_json_lines(&files[f], format))
        .collect();
    let copy = |out: &mut BufWriter<File>, f: usize| -> Result<()> {
        let lines = &kept_lines[f];
        let mut next = 0;
        copy_lines(
            &files[f],
            |line| {
                // Lines come in order, and so do the kept ones.
                while next < lines.len() && lines[next] < line {
                    next += 1;
                }
                lines.get(next) == Some(&line)
            },
            out,
        )
        .with_context(|| format!("reading {} again", files[f].display()))?;
        Ok(())
    };
    if !json.is_empty() {
        write_atomically(&out.join("unique.jsonl"), |w| {
            for &f in &json {
                copy(w, f)?;
            }
            Ok(())
        })?;
    }
    if !text.is_empty() {
        write_atomically(&out.join("unique.txt"), |w| {
            for &f in &text {
                if kept_whole[f] {
                    writeln!(w, "{}", files[f].display())?;
                } else if !kept_lines[f].is_empty() {
                    copy(w, f)?;
                }
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// `duplicates.jsonl`: each dropped document, the kept one it duplicates
/// and their distance, in input order.
fn write_duplicates(out: &Path, records: &[Record], fates: &[Fate]) -> Result<()> {
    write_atomically(&out.join("duplicates.jsonl"), |w| {
        for (r, fate) in records.iter().zip(fates) {
            if let Fate::Duplicate { of, distance } = *fate {
                w.write_all(b"{\"id\":")?;
                serde_json::to_writer(&mut *w, &r.id)?;
                w.write_all(b",\"duplicate_of\":")?;
                serde_json::to_writer(&mut *w, &records[of as usize].id)?;
                writeln!(w, ",\"distance\":{distance}}}")?;
            }
        }
        Ok(())
    })
}

/// `clusters.jsonl`: each kept document with duplicates, and its members
/// (itself first); returns how many groups there are.
fn write_clusters(out: &Path, records: &[Record], fates: &[Fate]) -> Result<usize> {
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); records.len()];
    for (d, fate) in fates.iter().enumerate() {
        if let Fate::Duplicate { of, .. } = *fate {
            members[of as usize].push(d as u32);
        }
    }
    let mut groups = 0;
    write_atomically(&out.join("clusters.jsonl"), |w| {
        for (keep, dups) in members.iter().enumerate().filter(|(_, m)| !m.is_empty()) {
            groups += 1;
            let ids: Vec<&str> = std::iter::once(keep as u32)
                .chain(dups.iter().copied())
                .map(|d| records[d as usize].id.as_str())
                .collect();
            w.write_all(b"{\"representative\":")?;
            serde_json::to_writer(&mut *w, &records[keep].id)?;
            w.write_all(b",\"members\":")?;
            serde_json::to_writer(&mut *w, &ids)?;
            w.write_all(b"}\n")?;
        }
        Ok(())
    })?;
    Ok(groups)
}
