//! [`DedupRun`]: the job over files, its outputs written to a directory.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use neardup_corpus::{Corpus, Format, ReadOptions};
use neardup_dedup::{Dedup, Fate, Files, Outcome, Progress, Skipped};
use neardup_index::WriterLock;
use serde_json::Value;

use crate::atomic::{is_temporary_of, write_atomically};
use crate::incremental;
use crate::records::{OUTPUTS, write_clusters, write_duplicates, write_unique};
use crate::report::{Report, Sample, choose_samples, write_report};
use crate::reread::look_up;

/// A dedup run over files, written to a directory: `neardup dedup`.
///
/// ```
/// use neardup_corpus::{Format, ReadOptions};
/// use neardup_dedup::{Dedup, Silent};
/// use neardup_output::DedupRun;
///
/// let dir = tempfile::tempdir()?;
/// let input = dir.path().join("docs.jsonl");
/// std::fs::write(&input, concat!(
///     "{\"id\": \"a\", \"text\": \"the river rose in the night and the town woke to water\"}\n",
///     "{\"id\": \"b\", \"text\": \"the river rose in the night and the town woke to water!\"}\n",
/// ))?;
/// let run = DedupRun::new(vec![input], dir.path().join("out"), Dedup::new()?);
/// let finished = run.run(&Silent)?;
/// assert_eq!(finished.summary["unique"], 1);
/// let duplicates = std::fs::read_to_string(dir.path().join("out/duplicates.jsonl"))?;
/// assert!(duplicates.starts_with("{\"id\":\"b\",\"duplicate_of\":\"a\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DedupRun {
    /// Files and directories to read.
    pub paths: Vec<PathBuf>,
    /// How to read them.
    pub read: ReadOptions,
    /// Skip bad records (counted) instead of stopping at the first.
    pub skip_invalid: bool,
    /// The job. Its `against` should be [`against_index`]'s answer.
    pub job: Dedup,
    /// Where the outputs go.
    pub out: PathBuf,
    /// Replace an earlier run's outputs in `out`.
    pub force: bool,
    /// The index directory the job runs against, as given.
    pub against: Option<PathBuf>,
    /// The index directory the kept documents are added to.
    pub save_index: Option<PathBuf>,
    /// The settings that decide the fingerprints, recorded in a saved
    /// index's manifest and checked against the index of `against` or
    /// `save_index`.
    pub fingerprint_settings: Value,
    /// `summary.json`'s `settings`: how the run was asked for.
    pub settings: Value,
    /// The field (or column) that `Keep::Max`/`Keep::Min` rank by.
    pub keep_field: Option<String>,
}

/// What a finished run says.
#[derive(Debug)]
pub struct Finished {
    /// `summary.json`.
    pub summary: Value,
    /// The job's outcome: each document's fate, the counts.
    pub outcome: Outcome,
    /// Warnings for the person who ran it: something may not be as meant.
    pub warnings: Vec<String>,
    /// Notes: right, but worth saying.
    pub notes: Vec<String>,
}

/// The index directory a job should run against: `against`, but not when
/// it is the `save_index` of a first run, which has no index yet.
pub fn against_index(against: Option<&Path>, save_index: Option<&Path>) -> Option<PathBuf> {
    against
        // A first run saving to the index it names has none to run against yet.
        .filter(|dir| save_index != Some(*dir) || neardup_store::AnyStore::exists(dir))
        .map(Path::to_path_buf)
}

impl DedupRun {
    /// A run of `job` over `paths` into `out`, reading as
    /// [`ReadOptions::default`] does; the other fields may be set after.
    pub fn new(paths: Vec<PathBuf>, out: PathBuf, job: Dedup) -> DedupRun {
        DedupRun {
            paths,
            read: ReadOptions::default(),
            skip_invalid: false,
            job,
            out,
            force: false,
            against: None,
            save_index: None,
            fingerprint_settings: Value::Null,
            settings: Value::Null,
            keep_field: None,
        }
    }

    /// Runs the job over the files, writes the outputs, and adds the kept
    /// documents to `save_index`. `progress` hears the passes.
    ///
    /// # Errors
    ///
    /// Inputs that cannot be read (stdin included: they are read twice),
    /// outputs that would overwrite an input, an `out` that holds anything
    /// without `force` or that another run writes to, an index of other
    /// fingerprint settings, and the job's errors; each message says what
    /// to do.
    pub fn run(&self, progress: &dyn Progress) -> Result<Finished> {
        let started = Instant::now();
        let (mut warnings, mut notes) = (Vec::new(), Vec::new());
        if self.paths.iter().any(|p| p.as_os_str() == "-") {
            bail!(
                "dedup reads its inputs twice (once to fingerprint, once to copy what is kept): give files, not -"
            );
        }
        // Fingerprints of other settings than an index's cannot be compared
        // with its own: refuse before any work.
        for (dir, option) in [
            (&self.against, "--against"),
            (&self.save_index, "--save-index"),
        ] {
            if let Some(dir) = dir {
                warnings.extend(incremental::check_settings(
                    dir,
                    &self.fingerprint_settings,
                    option,
                )?);
            }
        }
        let mut read = self.read.clone();
        if let Some(field) = &self.keep_field {
            read.extra_field(field);
        }
        let format = read.format_value();
        let files = Files::new(Corpus::open(&self.paths, &read)?, self.skip_invalid);
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
        refuse_inputs_as_outputs(&self.out, files.paths())?;
        // unique.parquet takes the columns of every Parquet input: refuse
        // inputs that differ now, not after the run.
        neardup_corpus::check_same_columns(
            files
                .paths()
                .iter()
                .filter(|f| format.of(f) == Format::Parquet)
                .map(PathBuf::as_path),
        )?;
        let _lock = prepare_out(&self.out, self.force)?;
        let outcome = self
            .job
            .run(&files, progress)
            .with_context(|| match &self.against {
                Some(dir) => format!("dedup (--against {})", dir.display()),
                None => "dedup".to_string(),
            })?;
        let stats = outcome.stats();
        let (n, k) = (stats.documents, stats.k);
        if let (Some(dir), true) = (&self.against, stats.index_by_fingerprint_alone) {
            warnings.push(format!(
                "--against {}: the index keeps no texts (it was made before indexes kept them, \
                 or by neardup index build), so documents were dropped for its documents by \
                 fingerprint alone, unverified; build it again with dedup --save-index to judge \
                 by the rule",
                dir.display()
            ));
        }
        if let Some(field) = &self.keep_field
            && n > 0
            && stats.with_key == 0
        {
            warnings.push(format!(
                "no document has the field {field:?}; groups keep their first document in input order"
            ));
        }
        let fates = outcome.fates();

        // The ids the outputs name, and the texts of the report's samples.
        let mut named = vec![self.save_index.is_some(); n];
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
        let chosen = choose_samples(fates, farthest.max(k));
        let shown: Vec<u32> = chosen.iter().flat_map(|&(d, of, _)| [d, of]).collect();
        // The kept records are copied while the ids are read: two more reads
        // of the inputs, one on each core.
        let (unique_written, looked_up) = std::thread::scope(|scope| {
            let copying = scope
                .spawn(|| write_unique(&self.out, format, files.paths(), outcome.records(), fates));
            let looked_up = look_up(&files, progress, n, |d| named[d as usize], &shown);
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
                Fate::DuplicateOfIndexed { entry, .. } => {
                    outcome.indexed_name(entry) == Some(id(d))
                }
                _ => false,
            })
            .count();
        if own > 0
            && let Some(dir) = &self.against
        {
            notes.push(format!(
                "{own} of the documents are in {} under their own ids (this batch, or part of it, \
                 was run against it before), and dropped as already there",
                dir.display()
            ));
        }

        let unique = outcome.unique();
        write_duplicates(&self.out, &id, &outcome)?;
        let members = fates.members();
        let groups = write_clusters(&self.out, &id, &members)?;
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
            "settings": self.settings,
            "inputs": self.paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
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
        let mut dropped_by_distance = vec![0u64; farthest.max(k) as usize + 1];
        for distance in fates.iter().filter_map(Fate::distance) {
            if let Some(count) = dropped_by_distance.get_mut(distance as usize) {
                *count += 1;
            }
        }
        let id_owned = |d: u32| id(d).to_string();
        write_report(
            &self.out,
            &Report {
                summary: &summary,
                dropped_by_distance: &dropped_by_distance,
                k,
                members: &members,
                id: &id_owned,
                samples: &samples,
            },
        )?;
        // Last but the summary: an index never holds a batch whose run failed.
        if let Some(dir) = &self.save_index {
            incremental::save(
                dir,
                self.job.rule(),
                (&files, progress),
                &outcome,
                &id,
                &self.fingerprint_settings,
            )?;
        }
        write_atomically(&self.out.join("summary.json"), |out| {
            serde_json::to_writer_pretty(&mut *out, &summary)?;
            out.write_all(b"\n")?;
            Ok(())
        })?;
        drop(ids);
        Ok(Finished {
            summary,
            outcome,
            warnings,
            notes,
        })
    }
}

/// The records skipped by kind, as `summary.json` has them.
fn skipped_json(skipped: &Skipped) -> Value {
    serde_json::json!({
        "total": skipped.total(),
        "by_kind": skipped.by_kind(),
    })
}

/// The lock a run holds on its `out`, a hidden file there: two runs into
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
