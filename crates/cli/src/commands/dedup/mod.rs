//! `neardup dedup`: documents in; the kept ones, the dropped ones with the
//! document each duplicates, the groups and a summary out, in a directory.
//!
//! Three passes: the documents are read and fingerprinted, and only what
//! the join and the outputs need is kept of each (its id, fingerprint,
//! file, line and length); the fingerprints are joined; the inputs are read
//! again to copy the kept records byte for byte. Every output is written to
//! a temporary name and renamed when whole, `summary.json` last.

mod grouping;
mod incremental;
mod outputs;
mod report;
mod reread;

use std::cmp::Ordering;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use neardup_core::Width;
use neardup_corpus::{Corpus, FieldValue};
use neardup_dedup::{Copies, Fate, is_short};
use neardup_index::{Pair, TablePlan};
use xxhash_rust::xxh3::xxh3_64;

use crate::args::{ClusterArg, DedupArgs, KeepArg};
use crate::output::write_atomically;
use crate::progress::Progress;
use crate::{config, pipeline};
use grouping::{Grouping, Short, group};
use outputs::{OUTPUTS, write_clusters, write_duplicates, write_unique};
use report::{Report, Sample};
use reread::Pass;

/// What is kept of a document between passes: 32 bytes, whatever its size.
/// Its id is read back only if an output names it.
struct Record {
    fingerprint: u128,
    /// Its line, for line-based inputs; [`WHOLE_FILE`] for a whole file.
    line: u64,
    /// Its length in bytes (saturated), for `--keep longest|shortest`.
    bytes: u32,
    /// Index into the corpus's files.
    file: u32,
}

const WHOLE_FILE: u64 = u64::MAX;

/// Documents are numbered in 32 bits, and `u32::MAX` names an indexed
/// document.
const MAX_DOCUMENTS: usize = u32::MAX as usize - 1;

impl Record {
    fn line(&self) -> Option<u64> {
        (self.line != WHOLE_FILE).then_some(self.line)
    }
}

pub fn run(args: &DedupArgs) -> Result<ExitCode> {
    let started = Instant::now();
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        bail!(
            "dedup reads its inputs twice (once to fingerprint, once to copy what is kept): give files, not -"
        );
    }
    let verify = config::verification(&args.verify)?;
    // The short-document rule holds only with verification.
    let k_short = verify
        .map(|_| config::short_k(args.k, args.k_short))
        .filter(|&k| k > args.k);
    let max_distance = k_short.unwrap_or(args.k);
    let fingerprinter = config::fingerprinter(&args.settings)?;
    // Fingerprints of other settings than an index's cannot be compared
    // with its own: refuse before any work.
    let settings = incremental::settings(&args.settings, fingerprinter.width())?;
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
    let corpus = Corpus::open(&args.paths, &read_options)?;
    let files: Vec<PathBuf> = corpus.files().map(Path::to_path_buf).collect();
    // Before `prepare_out`, which removes an earlier run's outputs.
    refuse_inputs_as_outputs(&args.out, &files)?;
    // unique.parquet takes the columns of every Parquet input: refuse
    // inputs that differ now, not after the run.
    let format = config::format(args.input.format);
    neardup_corpus::check_same_columns(
        files
            .iter()
            .filter(|f| format.of(f) == neardup_corpus::Format::Parquet)
            .map(PathBuf::as_path),
    )?;
    prepare_out(&args.out, args.force)?;
    let file_numbers: HashMap<&Path, u32> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.as_path(), i as u32))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()?;
    let skip_invalid = args.input.skip_invalid;
    let progress = Progress::new(corpus.total_bytes(), args.quiet);
    let mut records = Vec::new();
    // The values --keep max:FIELD / min:FIELD ranks by, if asked for.
    let mut keys: Vec<Option<FieldValue>> = Vec::new();
    // Hashes of the texts, to find exact copies; freed once they are found.
    let mut text_hashes: Vec<u64> = Vec::new();
    // The short documents, searched at `k_short`.
    let mut short_docs: Vec<u32> = Vec::new();
    let skipped = pool.install(|| {
        pipeline::run(
            &corpus,
            skip_invalid,
            &progress,
            |doc| {
                let fingerprint = fingerprinter.fingerprint(&doc.text);
                let short = k_short.is_some() && is_short(&doc.text);
                (fingerprint, xxh3_64(doc.text.as_bytes()), short)
            },
            |doc, (fp, text_hash, short)| {
                let file = file_numbers
                    .get(doc.place.path.as_path())
                    .copied()
                    .unwrap_or(u32::MAX);
                if records.len() >= MAX_DOCUMENTS {
                    bail!(
                        "more than {MAX_DOCUMENTS} documents: dedup numbers them in 32 bits; \
                         split the input and use --save-index / --against"
                    );
                }
                records.push(Record {
                    fingerprint: fp.bits(),
                    line: doc.place.line.unwrap_or(WHOLE_FILE),
                    bytes: u32::try_from(doc.text.len()).unwrap_or(u32::MAX),
                    file,
                });
                if short {
                    short_docs.push(records.len() as u32 - 1);
                }
                text_hashes.push(text_hash);
                if args.keep.field().is_some() {
                    keys.push(doc.extra.clone());
                }
                Ok(())
            },
        )
    })?;
    progress.finish();

    let width = fingerprinter.width();
    let n = records.len();
    let order = keep_order(&args.keep, &records, &keys);
    if let Some(field) = args.keep.field()
        && n > 0
        && keys.iter().all(Option::is_none)
    {
        eprintln!(
            "neardup: warning: no document has the field {field:?} (--keep {}); \
             groups keep their first document in input order",
            args.keep.describe()
        );
    }
    drop(keys);
    let copies = Copies::new(|d| records[d as usize].fingerprint, &text_hashes, &order);
    drop(text_hashes);
    let units = copies.units();
    let mut short_units: Vec<u32> = short_docs.iter().map(|&d| copies.unit_of(d)).collect();
    drop(short_docs);
    short_units.sort_unstable();
    short_units.dedup();

    // Documents near one kept by an earlier run are dropped for it, and
    // take no part in grouping this batch.
    let indexed = match &args.against {
        Some(dir) => incremental::against(dir, &records, width, args.k)?,
        None => Vec::new(),
    };
    let excluded = |u: u32| {
        indexed
            .get(copies.representative(u) as usize)
            .is_some_and(Option::is_some)
    };

    // The join, over one fingerprint per unit of exact copies.
    let join_plan = |k: u32, units: usize, option: &str| {
        TablePlan::choose_for_join(width, k, units.max(1) as f64)
            .and_then(|c| c.plan(width, k))
            .with_context(|| format!("{option} {k}"))
    };
    let plan = join_plan(args.k, units, "-k")?;
    let pass = Pass {
        skip_invalid,
        quiet: args.quiet,
        stage: "verifying",
    };
    // Verified as pairs of the units' representatives.
    let verify_units = |pairs: Vec<Pair>| -> Result<Vec<Pair>> {
        let Some(verification) = verify else {
            return Ok(pairs);
        };
        let as_documents = |p: &Pair, to: &dyn Fn(u32) -> u32| Pair {
            a: to(p.a),
            b: to(p.b),
            distance: p.distance,
        };
        let documents: Vec<Pair> = pairs
            .iter()
            .map(|p| as_documents(p, &|u| copies.representative(u)))
            .collect();
        drop(pairs);
        let kept = reread::verified(&corpus, &pass, n, &documents, &verification, &args.out)?;
        Ok(kept
            .iter()
            .map(|p| as_documents(p, &|d| copies.unit_of(d)))
            .collect())
    };
    let short_plan = match k_short {
        Some(k) if !short_units.is_empty() => Some(join_plan(k, short_units.len(), "--k-short")?),
        _ => None,
    };
    let how = Grouping {
        k: args.k,
        short: short_plan.as_ref().map(|plan| Short {
            plan,
            units: &short_units,
            k: max_distance,
        }),
        components: matches!(args.cluster, ClusterArg::Components),
        excluded: &excluded,
        slice_pairs: grouping::SLICE_PAIRS,
        verify: verify.map(|_| &verify_units as &(dyn Fn(Vec<Pair>) -> Result<Vec<Pair>> + Sync)),
    };
    let grouped = pool.install(|| {
        let bits =
            (0..units as u32).map(|u| records[copies.representative(u) as usize].fingerprint);
        match width {
            Width::W64 => group(&plan, &bits.map(|b| b as u64).collect::<Vec<_>>(), &how),
            _ => group(&plan, &bits.collect::<Vec<_>>(), &how),
        }
    })?;
    let candidates = grouped.candidates;
    let pairs_by_distance = grouped.pairs_by_distance;
    let pair_count: u64 = pairs_by_distance.iter().sum();
    let mut fates = copies.expand(&grouped.fates);
    drop((grouped.fates, order));
    drop(copies);
    for (fate, found) in fates.iter_mut().zip(&indexed) {
        if let Some((_, distance)) = found {
            // Not a document of this batch: outputs take the name from `indexed`.
            *fate = Fate::Duplicate {
                of: u32::MAX,
                distance: *distance,
            };
        }
    }

    // The ids the outputs name, and the texts of the report's samples.
    let mut named = vec![args.save_index.is_some(); n];
    for (d, fate) in fates.iter().enumerate() {
        if let Fate::Duplicate { of, .. } = *fate {
            named[d] = true;
            if let Some(slot) = named.get_mut(of as usize) {
                *slot = true;
            }
        }
    }
    let chosen = report::choose_samples(&fates, max_distance);
    let shown: Vec<u32> = chosen.iter().flat_map(|&(d, of, _)| [d, of]).collect();
    let pass = Pass {
        skip_invalid,
        quiet: args.quiet,
        stage: "reading ids",
    };
    let (ids, mut texts) = reread::look_up(&corpus, &pass, n, |d| named[d as usize], &shown)?;
    drop(named);
    let id = |d: u32| ids.get(d);

    let unique = fates.iter().filter(|f| **f == Fate::Kept).count();
    write_unique(&args.out, args.input.format, &files, &records, &fates)?;
    write_duplicates(&args.out, &id, &fates, &indexed)?;
    let members = outputs::members(&fates);
    let groups = write_clusters(&args.out, &id, &members)?;
    let summary = serde_json::json!({
        "documents": n,
        "skipped": skipped.to_json(),
        "unique": unique,
        "dropped": n - unique,
        "dropped_against_index": indexed.iter().filter(|i| i.is_some()).count(),
        "exact_copies": n - units,
        "candidate_pairs": candidates,
        "pairs": pair_count,
        "groups": groups,
        "seconds": started.elapsed().as_secs_f64(),
        "settings": {
            "k": args.k,
            "k_short": k_short,
            "profile": args.settings.profile,
            "width": width.bits(),
            "keep": args.keep.describe(),
            "cluster": format!("{:?}", args.cluster).to_lowercase(),
            "tables": plan.tables(),
            "verify": args.verify,
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
    let id_owned = |d: u32| id(d).to_string();
    report::write_report(
        &args.out,
        &Report {
            summary: &summary,
            pairs_by_distance: &pairs_by_distance,
            k: max_distance,
            members: &members,
            id: &id_owned,
            samples: &samples,
        },
    )?;
    // Last but the summary: an index never holds a batch whose run failed.
    if let Some(dir) = &args.save_index {
        incremental::save(dir, &records, &id, &fates, (width, args.k), &settings)?;
    }
    write_atomically(&args.out.join("summary.json"), |out| {
        serde_json::to_writer_pretty(&mut *out, &summary)?;
        out.write_all(b"\n")?;
        Ok(())
    })?;
    if !args.quiet {
        eprintln!(
            "neardup: {n} documents, {unique} unique, {} dropped as near-duplicates ({} pairs within {} bits{}){}",
            n - unique,
            pair_count,
            args.k,
            match k_short {
                Some(k) => format!(", {k} for short documents"),
                None => String::new(),
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
    Ok(ExitCode::SUCCESS)
}

/// The documents in the order `--keep` asks for: each group keeps its
/// first document in this order.
fn keep_order(keep: &KeepArg, records: &[Record], keys: &[Option<FieldValue>]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..records.len() as u32).collect();
    match keep {
        KeepArg::First => {}
        KeepArg::Longest => order.sort_by_key(|&i| std::cmp::Reverse(records[i as usize].bytes)),
        KeepArg::Shortest => order.sort_by_key(|&i| records[i as usize].bytes),
        KeepArg::Max(_) => order.sort_by(|&a, &b| by_field(keys, b, a, true)),
        KeepArg::Min(_) => order.sort_by(|&a, &b| by_field(keys, a, b, false)),
    }
    order
}

/// Documents `a` and `b` by their field values (numbers before strings);
/// one without a value comes last whichever way values are ranked
/// (`reversed`: the caller swapped `a` and `b` for a descending order).
fn by_field(keys: &[Option<FieldValue>], a: u32, b: u32, reversed: bool) -> Ordering {
    let (x, y) = (&keys[a as usize], &keys[b as usize]);
    match (x, y) {
        (Some(x), Some(y)) => match (x, y) {
            (FieldValue::Number(x), FieldValue::Number(y)) => x.total_cmp(y),
            (FieldValue::Text(x), FieldValue::Text(y)) => x.cmp(y),
            (FieldValue::Number(_), FieldValue::Text(_)) => Ordering::Less,
            (FieldValue::Text(_), FieldValue::Number(_)) => Ordering::Greater,
        },
        (None, None) => Ordering::Equal,
        // Without a value: last in ascending order, and (being swapped)
        // last in descending order too.
        (None, Some(_)) => {
            if reversed {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        (Some(_), None) => {
            if reversed {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
    }
}

/// Makes `out`, refusing one that holds anything unless `force`. With
/// `force`, the outputs of an earlier run are removed first, so that none
/// of them, `summary.json` above all, looks like the result of this run
/// while it runs or after it fails.
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
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))
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
