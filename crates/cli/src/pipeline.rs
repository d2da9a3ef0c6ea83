//! Reading and computing side by side: the corpus is read in batches on a
//! thread of its own ([`Corpus::in_batches`]), the worker pool computes each
//! batch in parallel, and results come out in input order.

use anyhow::Result;
use neardup_corpus::{Corpus, Document, Error as ReadError};
use rayon::prelude::*;

use crate::progress::Progress;
use crate::report::{Skipped, show_skipped};

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
    corpus.in_batches(|batch| -> Result<()> {
        let results: Vec<Option<T>> = batch
            .par_iter()
            .map(|item| item.as_ref().ok().map(&work))
            .collect();
        for (item, value) in batch.iter().zip(results) {
            match (item, value) {
                (Ok(doc), Some(value)) => {
                    progress.document(doc.text.len());
                    sink(doc, value)?;
                }
                (Err(e), _) if e.is_skipped(skip_invalid) => {
                    progress.suspend(|| show_skipped(skipped.total(), e));
                    skipped.add(e);
                }
                (Err(e), _) => return Err(ReadError::clone(e).into()),
                (Ok(_), None) => {}
            }
        }
        Ok(())
    })?;
    Ok(skipped)
}
