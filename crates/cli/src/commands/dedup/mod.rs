//! `neardup dedup`: documents in; the kept ones, the dropped ones with the
//! document each duplicates, the groups and a summary out, in a directory.
//!
//! The job itself is `neardup_dedup`'s: this module checks the arguments
//! and the output directory, runs the job over the files with progress
//! bars, reads back the ids the outputs name, and writes the outputs, each
//! to a temporary name renamed when whole, `summary.json` last.

mod incremental;
mod outputs;
mod report;
mod reread;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use neardup_corpus::Corpus;
use neardup_dedup::{Fate, Files, Outcome};
use neardup_index::WriterLock;

use crate::args::DedupArgs;
use crate::config;
use crate::output::{is_temporary_of, write_atomically};
use crate::progress::Bars;
use crate::report::{count, skipped_json};
use outputs::{OUTPUTS, write_clusters, write_duplicates, write_unique};
use report::{Report, Sample};

pub fn run(args: &DedupArgs) -> Result<ExitCode> {
    let started = Instant::now();
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        bail!(
            "dedup reads its inputs twice (once to fingerprint, once to copy what is kept): give files, not -"
        );
    }
    let job = config::dedup_job(args)?;
    let width = job.fingerprinter().width();
    // Fingerprints of other settings than an index's cannot be compared
    // with its own: refuse before any work.
    let settings = incremental::settings(&args.settings, width)?;
    for (dir, option) in [
        (&args.against, "--against"),
        (&args.save_index, "--save-index"),
    ] {
        if let Some(dir) = dir {
            incremental::check_settings(dir, &settings, option)?;
        }
    }
    let mut read_options = config::read_options(&args.input);
    if let Some(field) = args.keep.field() {
        read_options.extra_field(field);
    }
    let files = Files::new(
        Corpus::open(&args.paths, &read_options)?,
        args.input.skip_invalid,
    );
    // unique.txt lists kept files one per line.
    if let Some(file) = files
        .paths()
        .iter()
        .find(|f| f.as_os_str().as_encoded_bytes().contains(&b'\n'))
    {
        bail!(
            "{:?}: a file name with a line break cannot be listed in unique.txt (one path a \
             line); rename it",
            file
        );
    }
    // Before `prepare_out`, which removes an earlier run's outputs.
    refuse_inputs_as_outputs(&args.out, files.paths())?;
    // unique.parquet takes the columns of every Parquet input: refuse
    // inputs that differ now, not after the run.
    let format = config::format(args.input.format);
    neardup_corpus::check_same_columns(
        files
            .paths()
            .iter()
            .filter(|f| format.of(f) == neardup_corpus::Format::Parquet)
            .map(PathBuf::as_path),
    )?;
    let _lock = prepare_out(&args.out, args.force)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()?;
    let bars = Bars::new(args.quiet);
    let outcome = pool
        .install(|| job.run(&files, &bars))
        .with_context(|| context(args))?;
    let stats = outcome.stats();
    let n = stats.documents;
    if let Some(field) = args.keep.field()
        && n > 0
        && stats.with_key == 0
    {
        eprintln!(
            "neardup: warning: no document has the field {field:?} (--keep {}); \
             groups keep their first document in input order",
            args.keep.describe()
        );
    }
    let fates = outcome.fates();

    // The ids the outputs name, and the texts of the report's samples.
    let mut named = vec![args.save_index.is_some(); n];
    for (d, fate) in fates.iter().enumerate() {
        if fate != Fate::Kept {
            named[d] = true;
        }
        if let Some(slot) = fate
            .duplicate_of()
            .and_then(|of| named.get_mut(of as usize))
        {
            *slot = true;
        }
    }
    // Components, and short documents, may be dropped farther than k.
    let farthest = fates.iter().filter_map(Fate::distance).max().unwrap_or(0);
    let chosen = report::choose_samples(fates, farthest.max(args.k));
    let shown: Vec<u32> = chosen.iter().flat_map(|&(d, of, _)| [d, of]).collect();
    // The kept records are copied while the ids are read: two more reads
    // of the inputs, one on each core.
    let (unique_written, looked_up) = std::thread::scope(|scope| {
        let copying = scope.spawn(|| {
            write_unique(
                &args.out,
                args.input.format,
                files.paths(),
                outcome.records(),
                fates,
            )
        });
        let looked_up = reread::look_up(&files, &bars, n, |d| named[d as usize], &shown);
        let written = copying
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("writing the unique records failed")));
        (written, looked_up)
    });
    let (ids, mut texts) = looked_up?;
    unique_written?;
    // What was copied is what was deduplicated.
    files.check_unchanged()?;
    drop(named);
    let id = |d: u32| ids.get(d);
    // A batch run again against the index it saved to: its documents are
    // found there under their own ids. Right, but worth saying.
    let own = (0u32..)
        .zip(fates.iter())
        .filter(|&(d, fate)| match fate {
            Fate::DuplicateOfIndexed { entry, .. } => outcome.indexed_name(entry) == Some(id(d)),
            _ => false,
        })
        .count();
    if own > 0
        && let Some(dir) = &args.against
    {
        eprintln!(
            "neardup: note: {own} of the documents are in {} under their own ids (this batch, \
             or part of it, was run against it before), and dropped as already there",
            dir.display()
        );
    }

    let unique = outcome.unique();
    write_duplicates(&args.out, &id, &outcome)?;
    let members = outputs::members(fates);
    let groups = write_clusters(&args.out, &id, &members)?;
    let summary = serde_json::json!({
        "documents": n,
        "skipped": skipped_json(outcome.skipped()),
        "unique": unique,
        "dropped": n - unique,
        "dropped_against_index": stats.dropped_against_index,
        "exact_copies": stats.exact_copies,
        "candidate_pairs": stats.candidate_pairs,
        "pairs": stats.pairs_by_distance.iter().sum::<u64>(),
        "groups": groups,
        "seconds": started.elapsed().as_secs_f64(),
        "settings": {
            "k": args.k,
            "short_rule": stats.short_rule,
            "profile": args.settings.profile,
            "width": width.bits(),
            "keep": args.keep.describe(),
            "cluster": format!("{:?}", args.cluster).to_lowercase(),
            "verify": config::verification(&args.nearness)?.map_or_else(|| "none".to_string(), |v| v.to_string()),
            "against": args.against.as_ref().map(|p| p.display().to_string()),
            "save_index": args.save_index.as_ref().map(|p| p.display().to_string()),
        },
        "inputs": args.paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    });
    let samples: Vec<Sample> = chosen
        .iter()
        .map(|&(d, of, distance)| Sample {
            kept_id: id(of).to_string(),
            kept_text: texts.get(&of).cloned().unwrap_or_default(),
            dropped_id: id(d).to_string(),
            dropped_text: texts.remove(&d).unwrap_or_default(),
            distance,
        })
        .collect();
    let mut dropped_by_distance = vec![0u64; farthest.max(args.k) as usize + 1];
    for distance in fates.iter().filter_map(Fate::distance) {
        if let Some(count) = dropped_by_distance.get_mut(distance as usize) {
            *count += 1;
        }
    }
    let id_owned = |d: u32| id(d).to_string();
    report::write_report(
        &args.out,
        &Report {
            summary: &summary,
            dropped_by_distance: &dropped_by_distance,
            k: args.k,
            members: &members,
            id: &id_owned,
            samples: &samples,
        },
    )?;
    // Last but the summary: an index never holds a batch whose run failed.
    if let Some(dir) = &args.save_index {
        incremental::save(dir, &outcome, &id, (width, args.k), &settings)?;
    }
    write_atomically(&args.out.join("summary.json"), |out| {
        serde_json::to_writer_pretty(&mut *out, &summary)?;
        out.write_all(b"\n")?;
        Ok(())
    })?;
    if !args.quiet {
        print_summary(args, &outcome);
    }
    Ok(ExitCode::SUCCESS)
}

/// What the flags say of an error of the job, for errors that come from one.
fn context(args: &DedupArgs) -> String {
    match &args.against {
        Some(dir) => format!("dedup (--against {})", dir.display()),
        None => "dedup".to_string(),
    }
}

fn print_summary(args: &DedupArgs, outcome: &Outcome) {
    let stats = outcome.stats();
    let (n, unique) = (stats.documents, stats.unique);
    let skipped = outcome.skipped();
    let against = match (&args.against, stats.dropped_against_index) {
        (Some(dir), dropped) => format!(
            ", {dropped} of them near one in {} (--against)",
            dir.display()
        ),
        (None, _) => String::new(),
    };
    let pairs = stats.pairs_by_distance.iter().sum::<u64>();
    eprintln!(
        "neardup: {}, {unique} unique, {} dropped as near-duplicates{against} ({} within {} bits{}){}",
        count(n as u64, "document", "documents"),
        n - unique,
        count(pairs, "pair", "pairs"),
        args.k,
        if stats.short_rule {
            ", any distance for a short document"
        } else {
            ""
        },
        if skipped.total() > 0 {
            format!(", skipped {}", skipped.describe())
        } else {
            String::new()
        }
    );
    eprintln!(
        "neardup: wrote {}; open {} to see what was found",
        args.out.display(),
        args.out.join("report.html").display()
    );
}

/// The lock a run holds on its `--out`, a hidden file there: two runs into
/// one directory would each replace the other's outputs.
const OUT_LOCK: &str = ".neardup.lock";

/// Makes `out` and takes its lock, refusing a directory another run writes
/// to, or one that holds anything unless `force`. With `force`, the outputs
/// of an earlier run are removed first, so that none of them,
/// `summary.json` above all, looks like the result of this run while it
/// runs or after it fails. Temporary files an interrupted run left are
/// removed in any case.
fn prepare_out(out: &Path, force: bool) -> Result<WriterLock> {
    if out.exists() && !out.is_dir() {
        bail!("--out {}: not a directory", out.display());
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let lock = WriterLock::acquire(out, OUT_LOCK, "a dedup's outputs")?;
    let mut others = Vec::new();
    for entry in std::fs::read_dir(out).with_context(|| format!("cannot read {}", out.display()))? {
        let name = entry
            .with_context(|| format!("cannot read {}", out.display()))?
            .file_name();
        if name != OUT_LOCK {
            others.push(name);
        }
    }
    for name in &others {
        if name.to_str().is_some_and(|n| is_temporary_of(n, &OUTPUTS)) {
            std::fs::remove_file(out.join(name)).with_context(|| {
                format!(
                    "cannot remove {}, left by an interrupted run",
                    out.join(name).display()
                )
            })?;
        }
    }
    let holds_anything = others
        .iter()
        .any(|name| !name.to_str().is_some_and(|n| is_temporary_of(n, &OUTPUTS)));
    if holds_anything && !force {
        bail!(
            "--out {}: the directory is not empty; give an empty or new one, or --force",
            out.display()
        );
    }
    // summary.json first: it marks a finished run.
    for name in OUTPUTS.iter().rev() {
        match std::fs::remove_file(out.join(name)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| {
                    format!("cannot remove the earlier {}", out.join(name).display())
                });
            }
            _ => {}
        }
    }
    Ok(lock)
}

/// The outputs' paths must not be inputs: dedup never writes into an input.
fn refuse_inputs_as_outputs(out: &Path, files: &[PathBuf]) -> Result<()> {
    // Only inputs named like an output can be one: the rest need no
    // canonical path (a system call each).
    let named_like = |f: &&PathBuf| {
        f.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| OUTPUTS.contains(&n))
    };
    for file in files.iter().filter(named_like) {
        let (Ok(input), Some(name)) = (file.canonicalize(), file.file_name()) else {
            continue;
        };
        if out.join(name).canonicalize().is_ok_and(|o| o == input) {
            bail!(
                "{} is an input; write the outputs to another directory",
                input.display()
            );
        }
    }
    Ok(())
}
