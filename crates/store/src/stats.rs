//! What a store holds and what its background work has done, as
//! [`Store::stats`] reads it for `/v1/stats` and `/metrics`.

use std::sync::atomic::Ordering;
use std::time::Duration;

use neardup_index::Bits;

use crate::store::Store;

/// What a store holds, for `/v1/stats`.
///
/// ```
/// use neardup_store::{Store, StoreOptions, StoreSettings};
///
/// let dir = tempfile::tempdir()?;
/// let settings = StoreSettings::builder(3).build();
/// let store = Store::<u64>::open(dir.path(), Some(&settings), StoreOptions::default())?;
/// let stats = store.stats();
/// assert_eq!((stats.documents, stats.segments.len(), stats.merge_error), (0, 0, None));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreStats {
    /// Documents stored.
    pub documents: usize,
    /// The size of each segment (entries, deleted ones included).
    pub segments: Vec<usize>,
    /// Segments of a former format (a store of layout 7 or before), whose
    /// records are all in the documents file: the writer reads it to know
    /// that an id their filters pass (every id, at format 1) is new while
    /// they remain. [`Store::compact`] writes them again.
    pub former_segments: usize,
    /// Documents in no segment yet (those being flushed included).
    pub recent: usize,
    /// Segment entries deleted and not merged away yet.
    pub deleted: usize,
    /// Merges done since the store was opened.
    pub merges: u64,
    /// Their time in all, from writing the merged segment to its swap, in
    /// the background: a merge shares the machine's cores with the writes
    /// and queries.
    pub merge_time: Duration,
    /// Flushes done since the store was opened.
    pub flushes: u64,
    /// Their time in all, from the freeze to the swap, in the background.
    /// Writes wait once twice `flush_at` documents are recent, so a flush
    /// that takes longer than the writes take to bring `flush_at` more is
    /// falling behind.
    pub flush_time: Duration,
    /// The part of it spent in step 1 of the flushed documents' records'
    /// move: reading them from the log and committing those with a text or
    /// metadata to the documents file (keyed by id: at random places when
    /// ids are; none with neither, whose segment entries are their records).
    pub flush_records_time: Duration,
    /// The last merge's error, if it failed (a background merge's or a
    /// [`Store::compact`]'s); `None` again once one works.
    pub merge_error: Option<String>,
    /// The last flush's error, if it failed; `None` again once one works.
    pub flush_error: Option<String>,
    /// Checkpoints of the write-ahead log into the log since the store was
    /// opened (docs/RELIABILITY.md, "A write").
    pub checkpoints: u64,
    /// Their time in all: the writer waits for each.
    pub checkpoint_time: Duration,
    /// The last checkpoint's error, if it failed (the writes stay in the
    /// write-ahead log, and the next write tries again); `None` again once
    /// one works.
    pub checkpoint_error: Option<String>,
}

impl<B: Bits> Store<B> {
    /// What the store holds.
    pub fn stats(&self) -> StoreStats {
        let (checkpoints, checkpoint_time, checkpoint_error) = self.inner.checkpoints.read();
        let (flushes, flush_time, flush_records_time) = self.inner.flushes.read();
        let view = self.inner.read_view();
        StoreStats {
            documents: view.len(),
            segments: view.segments.iter().map(|s| s.segment.len()).collect(),
            former_segments: view.former_segments(),
            recent: view.recent.len() + view.frozen_len(),
            deleted: view
                .deleted
                .values()
                .flatten()
                .map(|w| w.count_ones() as usize)
                .sum(),
            merges: self.inner.merges.load(Ordering::Relaxed),
            merge_time: Duration::from_micros(self.inner.merge_micros.load(Ordering::Relaxed)),
            flushes,
            flush_time,
            flush_records_time,
            merge_error: self
                .inner
                .merge_error
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            flush_error: self
                .inner
                .flush_error
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            checkpoints,
            checkpoint_time,
            checkpoint_error,
        }
    }
}
