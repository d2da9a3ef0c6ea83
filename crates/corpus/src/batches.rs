//! Reading on a thread of its own, in batches: while the caller works on
//! one batch (fingerprints it on all cores, say), the next is being read.

use std::sync::mpsc;
use std::thread;

use crate::corpus::{Corpus, Document};
use crate::error::Result;

/// Documents per batch, and bytes per batch: large enough to keep every core
/// busy, small enough to bound memory.
const BATCH_DOCS: usize = 1024;
const BATCH_BYTES: usize = 8 << 20;

/// Documents in the first batch; each batch after holds twice as many, up
/// to [`BATCH_DOCS`], so that the cores start work soon after the reader.
const FIRST_BATCH_DOCS: usize = 32;

/// Documents read together, in input order, or the errors met reading them.
pub type Batch = Vec<Result<Document>>;

impl Corpus {
    /// Reads every document on a thread of its own and hands them to
    /// `visit`, on the calling thread, in batches of about a thousand
    /// documents or 8 MB (the first ones smaller), in input order. An error that stops the stream
    /// (not one of a record) ends the last batch. Returns the first error of
    /// `visit`, after which nothing more is read.
    ///
    /// ```
    /// use neardup_corpus::{Corpus, ReadOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("a.txt"), "one\ntwo\n")?;
    /// let mut options = ReadOptions::default();
    /// options.lines(true);
    /// let corpus = Corpus::open(&[dir.path()], &options)?;
    /// let mut texts = Vec::new();
    /// corpus.in_batches(|batch| {
    ///     texts.extend(batch.iter().map(|d| d.as_ref().unwrap().text.clone()));
    ///     Ok::<(), String>(())
    /// }).unwrap();
    /// assert_eq!(texts, ["one", "two"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn in_batches<E: Send>(
        &self,
        mut visit: impl FnMut(&[Result<Document>]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        thread::scope(|scope| {
            let (tx, rx) = mpsc::sync_channel::<Batch>(2);
            // Batches go back to the reader to be freed there: an allocator
            // reuses at once memory freed by the thread that took it, but
            // memory freed by another thread only later, so freeing here
            // would make the reader take fresh pages all the time.
            let (done_tx, done_rx) = mpsc::channel::<Batch>();
            scope.spawn(move || {
                let mut batch = Vec::with_capacity(BATCH_DOCS);
                let (mut bytes, mut docs) = (0, FIRST_BATCH_DOCS);
                for item in self.documents() {
                    let fatal = matches!(&item, Err(e) if !e.is_record());
                    bytes += item.as_ref().map_or(0, |d| d.text.len());
                    batch.push(item);
                    if batch.len() >= docs || bytes >= BATCH_BYTES || fatal {
                        let next = done_rx.try_recv().map_or_else(
                            |_| Vec::with_capacity(BATCH_DOCS),
                            |mut done| {
                                done.clear();
                                done
                            },
                        );
                        if tx.send(std::mem::replace(&mut batch, next)).is_err() {
                            return;
                        }
                        bytes = 0;
                        docs = (docs * 2).min(BATCH_DOCS);
                    }
                    if fatal {
                        return;
                    }
                }
                if !batch.is_empty() {
                    let _ = tx.send(batch);
                }
            });
            for batch in rx {
                visit(&batch)?;
                // The reader may have finished; then the batch is freed here.
                let _ = done_tx.send(batch);
            }
            Ok(())
        })
    }
}
