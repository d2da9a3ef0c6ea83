//! How a run tells its caller what it is doing, and hears that it should
//! stop: a terminal's progress bar, a notebook's widget, a server's
//! deadline.

use std::collections::BTreeMap;
use std::path::Path;

use neardup_corpus::Error as ReadError;

/// The stages of a run that read the documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The first pass: reading and fingerprinting every document.
    Fingerprinting,
    /// Reading again the documents that verification compares.
    Verifying,
    /// A caller's own pass over the documents (reading ids, say).
    Reading,
}

impl Stage {
    /// A word for people: `"verifying"`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Fingerprinting => "fingerprinting",
            Stage::Verifying => "verifying",
            Stage::Reading => "reading",
        }
    }
}

/// What a run reports as it goes; every method has a default that does
/// nothing, so an implementation takes only what it shows.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use neardup_dedup::{Dedup, Error, Memory, Progress};
///
/// /// Counts documents, and stops the run after `self.1`.
/// struct Budget(AtomicU64, u64);
///
/// impl Progress for Budget {
///     fn document(&self, _bytes: usize) {
///         self.0.fetch_add(1, Ordering::Relaxed);
///     }
///     fn cancelled(&self) -> bool {
///         self.0.load(Ordering::Relaxed) > self.1
///     }
/// }
///
/// let texts = vec!["some text"; 10_000];
/// let run = Dedup::new()?.run(&Memory::new(&texts[..]), &Budget(AtomicU64::new(0), 100));
/// assert!(matches!(run, Err(Error::Cancelled)));
/// # Ok::<(), Error>(())
/// ```
pub trait Progress: Sync {
    /// A stage that reads documents starts; `total_bytes` of text, if known.
    fn stage(&self, _stage: Stage, _total_bytes: Option<u64>) {}
    /// One document of `bytes` bytes read.
    fn document(&self, _bytes: usize) {}
    /// The stage is over.
    fn finish(&self) {}
    /// A record was skipped (the source skips invalid records).
    fn skipped(&self, _error: &ReadError) {}
    /// Work between the passes over the documents starts: `what` names it
    /// ("grouping exact copies"). On 10⁸ documents it takes minutes, with
    /// no document read to count.
    fn working(&self, _what: &str) {}
    /// Part of the run's state outgrew its share of the memory budget and
    /// goes on in temporary files in `dir`: slower, the same result.
    /// `what` names the part ("the pairs of near fingerprints"); each is
    /// said once.
    fn spilling(&self, _what: &str, _dir: &Path) {}
    /// Whether the caller wants the run to stop; it then ends with
    /// [`crate::Error::Cancelled`] at the next batch of documents or of
    /// grouping.
    fn cancelled(&self) -> bool {
        false
    }
}

/// No progress shown, never cancelled.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {}

/// Records skipped as invalid, counted by kind.
///
/// ```
/// use neardup_dedup::Skipped;
///
/// let skipped = Skipped::default();
/// assert_eq!(skipped.total(), 0);
/// assert_eq!(skipped.describe(), "0 ()");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    by_kind: BTreeMap<&'static str, u64>,
    total: u64,
}

impl Skipped {
    /// Counts `error`.
    pub fn add(&mut self, error: &ReadError) {
        self.total += 1;
        *self.by_kind.entry(error.kind_name()).or_insert(0) += 1;
    }

    /// The number of records skipped.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The counts by kind of error (`"invalid-json"`, …).
    pub fn by_kind(&self) -> &BTreeMap<&'static str, u64> {
        &self.by_kind
    }

    /// `3 (2 invalid-json, 1 binary-file)`: records and files.
    pub fn describe(&self) -> String {
        let kinds: Vec<String> = self
            .by_kind
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        format!("{} ({})", self.total, kinds.join(", "))
    }
}
