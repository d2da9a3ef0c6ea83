//! The index a run saves its kept documents to (`--save-index`): locked
//! when the run starts and held to its end, and changed so that the run's
//! outputs and its index change are seen together.
//!
//! The kept documents go in as one labelled batch of the store
//! ([`AnyStore::insert_batch`]), one transaction that also records which
//! run it was: its output directory and a token (a [`Label`]) that
//! `summary.json` repeats as `index_batch`. A run:
//!
//! 1. writes every output but `summary.json`, and syncs the directory;
//! 2. commits the batch, labelled unfinished;
//! 3. writes `summary.json` (synced, renamed, the directory synced);
//! 4. relabels the batch finished.
//!
//! A run that fails after 2 removes its `summary.json` and undoes the
//! batch. A run killed after 2 leaves the batch labelled unfinished: the
//! next run that saves to the index, before it reads anything, looks at
//! the run the label names. If its `summary.json` carries the token, the
//! run had finished (killed before 4): the label is made finished.
//! Otherwise its outputs never finished, and the batch is undone (the
//! store deletes its documents), so that a rerun finds the index as it was
//! and keeps them again instead of dropping them as copies of themselves.
//! A rerun with `--force` into the out of the index's last batch (which
//! would otherwise drop every document as already indexed) first labels
//! the batch unfinished, then removes the summary, then undoes the batch.

use std::path::{Path, PathBuf};

use neardup_dedup::{Outcome, Progress, Rule, Source, index_documents};
use neardup_store::{AnyStore, StoreOptions, StoreSettings};
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::faults::{Faults, Step};

/// The key of `summary.json` that names the index batch of its run.
pub(crate) const SUMMARY_KEY: &str = "index_batch";

/// The index a run saves to, open for writing: its lock held.
pub(crate) struct SavedIndex {
    dir: PathBuf,
    store: AnyStore,
}

/// What a batch's label says: the run's canonical output directory, its
/// token, and whether its `summary.json` was written.
#[derive(Clone, Debug, PartialEq)]
struct Label {
    out: String,
    run: String,
    finished: bool,
}

impl Label {
    fn to_text(&self) -> String {
        json!({"out": self.out, "run": self.run, "finished": self.finished}).to_string()
    }

    /// The label `text` records; `None` for one another program wrote.
    fn parse(text: &str) -> Option<Label> {
        let value: Value = serde_json::from_str(text).ok()?;
        Some(Label {
            out: value.get("out")?.as_str()?.to_string(),
            run: value.get("run")?.as_str()?.to_string(),
            finished: value.get("finished")?.as_bool()?,
        })
    }
}

/// A token for a run: the process and the time, which no other run of
/// one index shares (runs of an index follow each other).
pub(crate) fn run_token() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{:x}-{nanos:x}", std::process::id())
}

/// `out` as a label names it: canonical, so that two spellings of one
/// directory are one.
pub(crate) fn label_path(out: &Path) -> String {
    out.canonicalize()
        .unwrap_or_else(|_| out.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// The `index_batch` of the `summary.json` in `out`, if any.
fn summary_batch(out: &Path) -> Option<String> {
    let text = std::fs::read_to_string(Path::new(out).join("summary.json")).ok()?;
    let summary: Value = serde_json::from_str(&text).ok()?;
    Some(summary.get(SUMMARY_KEY)?.as_str()?.to_string())
}

impl SavedIndex {
    /// Opens the index in `dir` to write, taking its lock, or creates it
    /// with `settings` when it holds none.
    ///
    /// # Errors
    ///
    /// Another writer's lock (the message names it), a store that cannot
    /// be opened.
    pub(crate) fn open(dir: &Path, settings: &StoreSettings) -> Result<SavedIndex> {
        let given = (!AnyStore::exists(dir)).then_some(settings);
        let store = AnyStore::open(dir, given, StoreOptions::default())
            .map_err(|e| Error::index("--save-index", dir, e))?;
        Ok(SavedIndex {
            dir: dir.to_path_buf(),
            store,
        })
    }

    fn commit<T>(&self, faults: &Faults, change: impl FnOnce() -> Result<T>) -> Result<T> {
        faults(Step::CommitIndex(&self.dir)).map_err(|e| self.error(e))?;
        change().map_err(|e| self.error(e))
    }

    /// `source`, about this index.
    fn error(&self, source: impl Into<Error>) -> Error {
        Error::index("--save-index", &self.dir, source)
    }

    fn last(&self) -> Result<Option<Label>> {
        let batch = self.store.last_batch().map_err(|e| self.error(e))?;
        Ok(batch.and_then(|b| Label::parse(&b.label)))
    }

    /// Settles the index's last batch: labelled finished when its run's
    /// `summary.json` shows it finished, undone when it never did. Returns
    /// what was done, said for the person who ran it.
    pub(crate) fn recover(&self, out: &Path, faults: &Faults) -> Result<Option<String>> {
        let Some(label) = self.last()?.filter(|l| !l.finished) else {
            return Ok(None);
        };
        if summary_batch(Path::new(&label.out)).as_deref() == Some(label.run.as_str()) {
            let finished = Label {
                finished: true,
                ..label
            };
            self.commit(faults, || {
                Ok(self.store.relabel_last_batch(&finished.to_text())?)
            })?;
            return Ok(None);
        }
        let undone = self.commit(faults, || Ok(self.store.undo_last_batch()?))?;
        let (undone, index) = (undone.unwrap_or(0), self.dir.display());
        Ok(Some(match label.out == label_path(out) {
            true => format!(
                "the earlier run into {} (stopped before it finished, or replaced): its \
                 {undone} documents were taken out of {index} first, so that this run keeps \
                 them again instead of finding them there",
                label.out
            ),
            false => format!(
                "the run into {} was stopped before it finished: its {undone} documents were \
                 taken out of {index} again (run it again to keep them)",
                label.out
            ),
        }))
    }

    /// Before a run into `out` removes the outputs of an earlier run there:
    /// when the index's last batch is that run's, it is labelled unfinished,
    /// so that [`SavedIndex::recover`] undoes it once its summary is gone.
    pub(crate) fn before_replacing(&self, out: &Path, faults: &Faults) -> Result<()> {
        if let Some(label) = self.last()?
            && label.finished
            && label.out == label_path(out)
        {
            let unfinished = Label {
                finished: false,
                ..label
            };
            self.commit(faults, || {
                Ok(self.store.relabel_last_batch(&unfinished.to_text())?)
            })?;
        }
        Ok(())
    }

    /// Adds the kept documents of `outcome`, named by `id`, as the batch of
    /// run `run` into `out`, labelled unfinished: with what `rule` needs to
    /// judge later documents against them (their texts, read again from
    /// `source`, and short-document keys), when the index keeps it.
    pub(crate) fn add<'a>(
        &self,
        rule: &Rule,
        source: (&dyn Source, &dyn Progress),
        outcome: &Outcome,
        id: &dyn Fn(u32) -> &'a str,
        (out, run): (&Path, &str),
        faults: &Faults,
    ) -> Result<()> {
        let inserts = index_documents(rule, self.store.settings(), source, outcome, &|d| {
            id(d).to_string()
        })
        .map_err(|e| self.error(e))?;
        let label = Label {
            out: label_path(out),
            run: run.to_string(),
            finished: false,
        };
        self.commit(faults, || {
            Ok(self.store.insert_labelled(inserts, &label.to_text())?)
        })
    }

    /// Labels the batch of run `run` into `out` finished.
    pub(crate) fn finish(&self, (out, run): (&Path, &str), faults: &Faults) -> Result<()> {
        let label = Label {
            out: label_path(out),
            run: run.to_string(),
            finished: true,
        };
        self.commit(faults, || {
            Ok(self.store.relabel_last_batch(&label.to_text())?)
        })?;
        Ok(())
    }

    /// Undoes this run's batch after it failed (its summary removed first).
    pub(crate) fn undo(&self, faults: &Faults) -> Result<()> {
        self.commit(faults, || Ok(self.store.undo_last_batch()?))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_read_back_and_others_are_ignored() {
        let label = Label {
            out: "/o".into(),
            run: "1-2".into(),
            finished: false,
        };
        assert_eq!(Label::parse(&label.to_text()), Some(label));
        assert_eq!(Label::parse("run 1"), None);
    }
}
