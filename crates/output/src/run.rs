//! [`DedupRun`]: the job over files, its outputs written to a directory.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use neardup_corpus::{Corpus, Format, ReadOptions};
use neardup_dedup::{Dedup, Fate, Files, Outcome, Progress, Skipped, index_settings};
use neardup_store::{AnyStore, StoreSettings};
use serde_json::Value;

use crate::atomic::write_atomically_with;
use crate::error::{Error, Result};
use crate::faults::{Faults, sync_dir};
use crate::incremental;
use crate::out_dir::{Earlier, clear_out, earlier_outputs, lock_out, refuse_inputs_as_outputs};
use crate::records::{write_annotated, write_clusters, write_duplicates, write_unique};
use crate::report::{Report, Sample, choose_samples, write_report};
use crate::reread::look_up;
use crate::saving::{SUMMARY_KEY, SavedIndex, run_token};

mod builder;

pub use builder::DedupRunBuilder;

/// A dedup run over files, written to a directory: `neardup dedup`. Set
/// up by [`DedupRun::builder`].
///
/// ```
/// use neardup_dedup::{Dedup, Silent};
/// use neardup_output::DedupRun;
///
/// let dir = tempfile::tempdir()?;
/// let input = dir.path().join("docs.jsonl");
/// std::fs::write(&input, concat!(
///     "{\"id\": \"a\", \"text\": \"the river rose in the night and the town woke to water\"}\n",
///     "{\"id\": \"b\", \"text\": \"the river rose in the night and the town woke to water!\"}\n",
/// ))?;
/// let run = DedupRun::builder(vec![input], dir.path().join("out"), Dedup::new()?).build();
/// let finished = run.run(&Silent)?;
/// assert_eq!(finished.summary["unique"], 1);
/// let duplicates = std::fs::read_to_string(dir.path().join("out/duplicates.jsonl"))?;
/// assert!(duplicates.starts_with("{\"id\":\"b\",\"duplicate_of\":\"a\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct DedupRun {
    paths: Vec<PathBuf>,
    read: ReadOptions,
    skip_invalid: bool,
    job: Dedup,
    out: PathBuf,
    force: bool,
    save_index: Option<PathBuf>,
    settings: Value,
    keep_field: Option<String>,
    annotate: bool,
    faults: Option<Arc<Faults>>,
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
    /// The settings of a run of `job` over `paths` (files and directories)
    /// into `out`, to set the rest of before [`DedupRunBuilder::build`].
    pub fn builder(paths: Vec<PathBuf>, out: PathBuf, job: Dedup) -> DedupRunBuilder {
        DedupRunBuilder::new(paths, out, job)
    }

    /// The passes over the documents the run makes at most: fingerprinting,
    /// verifying (when the job verifies), reading the kept documents again
    /// for the index saved to, and reading the ids and samples the outputs
    /// name. What a progress display counts to.
    pub fn passes(&self) -> usize {
        2 + usize::from(self.job.rule().verifier().is_some())
            + usize::from(self.save_index.is_some())
    }

    /// The settings an index made by this run has: what the job's rule
    /// needs to judge later documents against it.
    fn new_index(&self) -> StoreSettings {
        index_settings(self.job.rule())
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
            return Err(Error::Stdin);
        }
        let faults: &Faults = self.faults.as_deref().unwrap_or(&crate::faults::none);
        // None on a first run saving to the index it names: nothing to run against yet.
        let against = self.job.against_dir().map(Path::to_path_buf);
        // The index saved to is locked first, and held to the end: a second
        // writer is refused before it reads anything.
        let mut index = match &self.save_index {
            Some(dir) if AnyStore::exists(dir) => Some(SavedIndex::open(dir, &self.new_index())?),
            _ => None,
        };
        // Fingerprints of other settings than an index's cannot be compared
        // with its own: refuse before any work.
        let fingerprints = self.job.rule().fingerprinter().settings();
        for (dir, option) in [(&against, "--against"), (&self.save_index, "--save-index")] {
            if let Some(dir) = dir {
                warnings.extend(incremental::check_settings(dir, &fingerprints, option)?);
            }
        }
        if let (None, Some(dir)) = (&index, &self.save_index) {
            index = Some(SavedIndex::open(dir, &self.new_index())?);
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
            return Err(Error::LineBreakInName { path: file.clone() });
        }
        // Before `clear_out`, which removes an earlier run's outputs.
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
        let _lock = lock_out(&self.out)?;
        // An earlier run's batch settled (finished, or undone when its
        // outputs never were) before this run decides anything by it.
        if let Some(index) = &index {
            notes.extend(index.recover(&self.out, faults)?);
        }
        if earlier_outputs(&self.out, self.force)? != Earlier::Nothing {
            if let Some(index) = &index {
                // A rerun into the out of the index's last batch replaces
                // that batch too, instead of dropping it all as indexed.
                index.before_replacing(&self.out, faults)?;
            }
            clear_out(&self.out)?;
            if let Some(index) = &index {
                notes.extend(index.recover(&self.out, faults)?);
            }
        }
        let outcome = self
            .job
            .run(&files, progress)
            .map_err(|source| Error::Job {
                against: against.clone(),
                source: Box::new(source),
            })?;
        let stats = outcome.stats();
        let (n, k) = (stats.documents, stats.k);
        if let (Some(dir), true) = (&against, stats.index_by_fingerprint_alone) {
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
        let mut named = vec![self.save_index.is_some() || self.annotate; n];
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
            let copying = scope.spawn(|| {
                let paths = files.paths();
                write_unique(&self.out, format, paths, outcome.records(), fates, faults)
            });
            let looked_up = look_up(&files, progress, n, |d| named[d as usize], &shown);
            let written = copying.join().unwrap_or(Err(Error::Writer));
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
            && let Some(dir) = &against
        {
            notes.push(format!(
                "{own} of the documents are in {} under their own ids (this batch, or part of it, \
                 was run against it before), and dropped as already there",
                dir.display()
            ));
        }

        let outputs = neardup_corpus::NotRead::DedupOutput.kind_name();
        if let Some(n) = outcome.skipped().by_kind().get(outputs) {
            let (which, were) = match n {
                1 => ("a directory walked holds".to_string(), "was"),
                n => (format!("{n} directories walked hold"), "were"),
            };
            notes.push(format!(
                "{which} a dedup's outputs (summary.json and report.html, or a run's lock), \
                 and {were} not read: give --out outside the input"
            ));
        }
        if let Some(note) = self
            .job
            .memory()
            .and_then(|budget| crate::below_memory_floor(budget, Some(n as u64)))
        {
            notes.push(note);
        }
        let unique = outcome.unique();
        write_duplicates(&self.out, &id, &outcome, faults)?;
        if self.annotate {
            write_annotated(&self.out, &id, &outcome, faults)?;
        }
        let members = fates.members();
        let groups = write_clusters(&self.out, &id, &members, faults)?;
        let mut summary = serde_json::json!({
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
            "notes": notes,
        });
        let token = run_token();
        if index.is_some() {
            summary[SUMMARY_KEY] = Value::from(token.as_str());
        }
        let samples: Vec<Sample> = chosen
            .iter()
            .map(|&(d, of, distance)| Sample {
                kept_id: id(of).to_string(),
                kept_text: texts.get(&of).cloned().unwrap_or_default(),
                dropped_id: id(d).to_string(),
                dropped_text: texts.remove(&d).unwrap_or_default(),
                distance,
                why: outcome.why(d),
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
            faults,
        )?;
        sync_dir(&self.out, faults).map_err(|e| Error::at("cannot sync", &self.out, e))?;
        let summary_path = self.out.join("summary.json");
        let write_summary = || -> Result<()> {
            write_atomically_with(&summary_path, faults, |out| {
                serde_json::to_writer_pretty(&mut *out, &summary)?;
                out.write_all(b"\n")?;
                Ok(())
            })?;
            sync_dir(&self.out, faults).map_err(|e| Error::at("cannot sync", &self.out, e))
        };
        match &index {
            None => write_summary()?,
            Some(index) => {
                // The index change and the summary are seen together: the
                // batch is labelled with this run until the summary is in
                // place (module `saving`).
                let run = (self.out.as_path(), token.as_str());
                index.add(
                    self.job.rule(),
                    (&files, progress),
                    &outcome,
                    &id,
                    run,
                    faults,
                )?;
                if let Err(e) = write_summary() {
                    // Best effort: what is left, the next run settles.
                    if std::fs::remove_file(&summary_path).is_ok() || !summary_path.exists() {
                        let _ = index.undo(faults);
                    }
                    return Err(e);
                }
                if let Err(e) = index.finish(run, faults) {
                    warnings.push(format!(
                        "{}: the run is finished, and the next run that saves to the \
                         index records so",
                        crate::with_causes(&e)
                    ));
                }
            }
        }
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
