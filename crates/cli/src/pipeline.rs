//! Reading and computing side by side: one thread reads documents in
//! batches, the worker pool fingerprints each batch in parallel, and results
//! come out in input order. With a pool of one thread, that thread does it
//! all, one document after another.

use std::sync::mpsc;
use std::thread;

use anyhow::Result;
use neardup_corpus::{Corpus, Document, Error as ReadError};
use rayon::prelude::*;

use crate::progress::Progress;
use crate::report::Skipped;

/// Documents per batch, and bytes per batch: large enough to keep every core
/// busy, small enough to bound memory.
const BATCH_DOCS: usize = 1024;
const BATCH_BYTES: usize = 8 << 20;

/// Reads `corpus`, maps every document with `work` on the current rayon
/// pool, and hands the results to `sink` in input order. Record errors are
/// skipped and counted when `skip_invalid`, and stop the run otherwise.
pub fn run<T: Send>(
    corpus: &Corpus,
    skip_invalid: bool,
    progress: &Progress,
    work: impl Fn(&Document) -> T + Sync,
    mut sink: impl FnMut(&Document, T) -> Result<()>,
) -> Result<Skipped> {
    let mut skipped = Skipped::default();
    // Hands one document's result to `sink`, or counts or raises its error.
    let mut deliver = |item: &Result<Document, ReadError>, value: Option<T>| -> Result<()> {
        match (item, value) {
            (Ok(doc), Some(value)) => {
                progress.document(doc.text.len());
                sink(doc, value)?;
            }
            (Err(e), _) if skip_invalid && e.is_record() => {
                progress.suspend(|| skipped.add(e));
            }
            (Err(e), _) => return Err(e.clone().into()),
            (Ok(_), None) => {}
        }
        Ok(())
    };
    if rayon::current_num_threads() == 1 {
        // One thread asked for: it reads each document and computes it in
        // turn, with no hand-over between threads.
        for item in corpus.documents() {
            let value = item.as_ref().ok().map(&work);
            deliver(&item, value)?;
        }
        return Ok(skipped);
    }
    let done: Result<()> = thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<Batch>(2);
        // Processed batches go back to the reader to be freed there: an
        // allocator reuses memory freed by the thread that allocated it at
        // once, but memory freed by another thread only later, so freeing
        // here would make the reader take fresh pages all the time.
        let (done_tx, done_rx) = mpsc::channel::<Batch>();
        scope.spawn(move || {
            let mut batch = Vec::with_capacity(BATCH_DOCS);
            let mut bytes = 0;
            for item in corpus.documents() {
                let fatal = matches!(&item, Err(e) if !e.is_record());
                bytes += item.as_ref().map_or(0, |d| d.text.len());
                batch.push(item);
                if batch.len() >= BATCH_DOCS || bytes >= BATCH_BYTES || fatal {
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
            let results: Vec<Option<T>> = batch
                .par_iter()
                .map(|item| item.as_ref().ok().map(&work))
                .collect();
            for (item, value) in batch.iter().zip(results) {
                deliver(item, value)?;
            }
            // The reader may have finished; then the batch is freed here.
            let _ = done_tx.send(batch);
        }
        Ok(())
    });
    done?;
    Ok(skipped)
}

/// Documents read together, or the errors met reading them.
type Batch = Vec<Result<Document, ReadError>>;
