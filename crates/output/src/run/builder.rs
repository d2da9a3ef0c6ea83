//! [`DedupRunBuilder`]: a run's inputs, outputs and reading set one by one,
//! as [`neardup_dedup::DedupBuilder`] sets the job's.

use std::path::PathBuf;
use std::sync::Arc;

use neardup_corpus::ReadOptions;
use neardup_dedup::Dedup;
use serde_json::Value;

use super::DedupRun;
use crate::faults::Faults;

/// The settings of a [`DedupRun`], set one by one; each setter says its
/// default. The job runs against the index its own settings name
/// ([`neardup_dedup::DedupBuilder::against`], given [`against_index`]'s
/// answer).
///
/// [`against_index`]: crate::against_index
///
/// ```
/// use neardup_corpus::ReadOptions;
/// use neardup_dedup::{Dedup, Silent};
/// use neardup_output::DedupRun;
///
/// let dir = tempfile::tempdir()?;
/// let input = dir.path().join("docs.txt");
/// std::fs::write(&input, concat!(
///     "the river rose in the night and the town woke to water\n",
///     "the river rose in the night and the town woke to water!\n",
/// ))?;
/// let mut read = ReadOptions::default();
/// read.lines(true);
/// let run = DedupRun::builder(vec![input], dir.path().join("out"), Dedup::new()?)
///     .read(read)
///     .annotate(true)
///     .build();
/// assert_eq!(run.passes(), 3, "fingerprints, verification, the ids the outputs name");
/// let finished = run.run(&Silent)?;
/// assert_eq!(finished.summary["unique"], 1);
/// assert!(dir.path().join("out/annotated.jsonl").exists());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct DedupRunBuilder {
    run: DedupRun,
}

impl DedupRunBuilder {
    /// A run of `job` over `paths` (files and directories) into `out`.
    pub(super) fn new(paths: Vec<PathBuf>, out: PathBuf, job: Dedup) -> DedupRunBuilder {
        DedupRunBuilder {
            run: DedupRun {
                paths,
                read: ReadOptions::default(),
                skip_invalid: false,
                job,
                out,
                force: false,
                save_index: None,
                settings: Value::Null,
                keep_field: None,
                annotate: false,
                faults: None,
            },
        }
    }

    /// The run.
    pub fn build(&self) -> DedupRun {
        self.run.clone()
    }

    /// How the inputs are read; [`ReadOptions::default`] by default.
    pub fn read(&mut self, read: ReadOptions) -> &mut DedupRunBuilder {
        self.run.read = read;
        self
    }

    /// Skip bad records (counted) instead of stopping at the first; off
    /// by default.
    pub fn skip_invalid(&mut self, yes: bool) -> &mut DedupRunBuilder {
        self.run.skip_invalid = yes;
        self
    }

    /// Replace an earlier run's outputs in `out`; off by default (a run
    /// into a directory that holds anything is refused).
    pub fn force(&mut self, yes: bool) -> &mut DedupRunBuilder {
        self.run.force = yes;
        self
    }

    /// The index directory the kept documents are added to (made by the
    /// first run), locked from the run's start; none by default.
    pub fn save_index(&mut self, dir: Option<PathBuf>) -> &mut DedupRunBuilder {
        self.run.save_index = dir;
        self
    }

    /// `summary.json`'s `settings`: how the run was asked for, in the
    /// front's own words; `null` by default.
    pub fn settings(&mut self, settings: Value) -> &mut DedupRunBuilder {
        self.run.settings = settings;
        self
    }

    /// The field (or column) that `Keep::Max`/`Keep::Min` rank by, read
    /// beside the text and id; none by default.
    pub fn keep_field(&mut self, field: Option<String>) -> &mut DedupRunBuilder {
        self.run.keep_field = field;
        self
    }

    /// Also write `annotated.jsonl`: every document's fate; off by default.
    pub fn annotate(&mut self, yes: bool) -> &mut DedupRunBuilder {
        self.run.annotate = yes;
        self
    }

    /// Asks `faults` before each step at which the run makes its work
    /// durable or visible ([`Step`](crate::Step)), and fails the step with
    /// its error: for tests that fail a run at each step in turn. None by
    /// default.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use neardup_dedup::{Dedup, Silent};
    /// use neardup_output::{DedupRun, Step};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let input = dir.path().join("docs.jsonl");
    /// std::fs::write(&input, "{\"id\": \"a\", \"text\": \"a river in the night\"}\n")?;
    /// let run = DedupRun::builder(vec![input], dir.path().join("out"), Dedup::new()?)
    ///     .inject_faults(Arc::new(|step: Step| match step {
    ///         Step::Rename(path) if path.ends_with("summary.json") => Err(std::io::Error::other("disk full")),
    ///         _ => Ok(()),
    ///     }))
    ///     .build();
    /// assert!(run.run(&Silent).is_err());
    /// assert!(!dir.path().join("out/summary.json").exists());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn inject_faults(&mut self, faults: Arc<Faults>) -> &mut DedupRunBuilder {
        self.run.faults = Some(faults);
        self
    }
}
