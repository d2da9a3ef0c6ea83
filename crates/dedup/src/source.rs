//! Where a run's documents come from: anything that can hand them over in
//! order, and hand some of them over again by number.
//!
//! A run reads its source once to fingerprint every document, then again
//! for the few documents verification compares, and the caller may read it
//! once more for the ids its outputs name. Files ([`crate::Files`]) are read
//! again from disk; documents in memory ([`Memory`]) are simply looked up.

use std::borrow::Cow;

use arrow_array::{Array, LargeStringArray, StringArray, StringViewArray};
use neardup_corpus::FieldValue;

use crate::error::{Error, Result};
use crate::progress::{Progress, Skipped};

/// Where a document came from, in its source's terms: a file (its number
/// among the source's files) and a 1-based line or row in it, or none for
/// a whole file; for documents in memory, file 0 and their position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The file's number in its source.
    pub file: u32,
    /// The line (or row, or position), if the document is not a whole file.
    pub line: Option<u64>,
}

/// A document as the first pass sees it.
#[derive(Clone, Copy, Debug)]
pub struct SourceDoc<'a> {
    /// Its text.
    pub text: &'a str,
    /// Where it came from.
    pub origin: Origin,
    /// The value [`crate::Keep::Max`] and [`crate::Keep::Min`] rank by, if
    /// the source reads one and the document has it.
    pub key: Option<&'a FieldValue>,
}

/// A document as a later pass sees it: its number (from the first pass),
/// id and text.
#[derive(Clone, Copy, Debug)]
pub struct Revisited<'a> {
    /// Its number, as [`Source::scan`] gave it.
    pub number: u32,
    /// Its id.
    pub id: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// A source of documents for a run.
///
/// Documents are numbered from 0 in the order [`Source::scan`] gives them;
/// [`Source::revisit`] must give the same documents under the same
/// numbers.
pub trait Source: Sync {
    /// Bytes of text the source holds, if known, for progress.
    fn total_bytes(&self) -> Option<u64> {
        None
    }

    /// Hands every document to `visit`, in order, in batches (of any size;
    /// a batch is fingerprinted on all cores), and each to
    /// [`Progress::document`]. Records the source skips are counted in what
    /// it returns and shown to [`Progress::skipped`].
    ///
    /// # Errors
    ///
    /// A document that cannot be read, or the first error of `visit`.
    fn scan(
        &self,
        progress: &dyn Progress,
        visit: &mut dyn FnMut(&[SourceDoc<'_>]) -> Result<()>,
    ) -> Result<Skipped>;

    /// Hands the documents that `wanted` asks for (by number) to `visit`,
    /// with their numbers, ids and texts, in order, in batches (of any
    /// size); returns how many documents there are now.
    ///
    /// # Errors
    ///
    /// As [`Source::scan`].
    fn revisit(
        &self,
        progress: &dyn Progress,
        wanted: &(dyn Fn(u32) -> bool + Sync),
        visit: &mut dyn FnMut(&[Revisited<'_>]) -> Result<()>,
    ) -> Result<usize>;

    /// Checks, where the source can tell, that it is still what the first
    /// pass read: for a run that reads it only once (the first pass made
    /// every sketch it verifies with), in place of the checks of
    /// [`Source::revisit`]. Files compare their sizes and times.
    ///
    /// # Errors
    ///
    /// [`Error::FileChanged`](crate::Error::FileChanged) naming what changed.
    fn check_unchanged(&self) -> Result<()> {
        Ok(())
    }
}

/// Documents held in memory, by position: a slice of texts, of `(id, text)`
/// pairs, or an Arrow string array.
pub trait DocumentsAt: Sync {
    /// How many documents there are.
    fn count(&self) -> usize;
    /// The text of document `i`.
    ///
    /// # Errors
    ///
    /// [`Error::NullText`] for a document that has no text (a null).
    fn text(&self, i: usize) -> Result<&str>;
    /// The id of document `i`: its position, unless the documents have ids.
    fn id(&self, i: usize) -> Cow<'_, str> {
        Cow::Owned(i.to_string())
    }
}

macro_rules! texts {
    ($($text:ty),*) => {$(
        impl DocumentsAt for [$text] {
            fn count(&self) -> usize {
                self.len()
            }
            fn text(&self, i: usize) -> Result<&str> {
                Ok(self[i].as_ref())
            }
        }
    )*};
}

texts!(&str, String, Box<str>, std::sync::Arc<str>, Cow<'_, str>);

impl<I: AsRef<str> + Sync, S: AsRef<str> + Sync> DocumentsAt for [(I, S)] {
    fn count(&self) -> usize {
        self.len()
    }
    fn text(&self, i: usize) -> Result<&str> {
        Ok(self[i].1.as_ref())
    }
    fn id(&self, i: usize) -> Cow<'_, str> {
        Cow::Borrowed(self[i].0.as_ref())
    }
}

/// A null in an Arrow array: an error, not a silent empty document.
fn null(i: usize) -> Error {
    Error::NullText { row: i }
}

macro_rules! arrow_documents {
    ($array:ty) => {
        impl DocumentsAt for $array {
            fn count(&self) -> usize {
                self.len()
            }
            fn text(&self, i: usize) -> Result<&str> {
                if self.is_null(i) {
                    return Err(null(i));
                }
                Ok(self.value(i))
            }
        }
    };
}

arrow_documents!(StringArray);
arrow_documents!(LargeStringArray);
arrow_documents!(StringViewArray);

/// Documents in memory, as a [`Source`]: texts (ids are their positions),
/// `(id, text)` pairs, or an Arrow string array, read in place.
///
/// ```
/// use neardup_dedup::{Memory, Source, Silent};
///
/// let texts = ["one text", "another"];
/// let source = Memory::new(&texts[..]);
/// let mut seen = Vec::new();
/// source.revisit(&Silent, &|d| d == 1, &mut |batch| {
///     seen.extend(batch.iter().map(|d| (d.number, d.id.to_string(), d.text.to_string())));
///     Ok(())
/// })?;
/// assert_eq!(seen, [(1, "1".to_string(), "another".to_string())]);
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Memory<'a, D: ?Sized> {
    documents: &'a D,
}

impl<'a, D: DocumentsAt + ?Sized> Memory<'a, D> {
    /// The documents of `documents`.
    pub fn new(documents: &'a D) -> Memory<'a, D> {
        Memory { documents }
    }
}

/// Documents handed to the first pass at a time.
const BATCH: usize = 4096;

impl<D: DocumentsAt + ?Sized> Source for Memory<'_, D> {
    fn scan(
        &self,
        progress: &dyn Progress,
        visit: &mut dyn FnMut(&[SourceDoc<'_>]) -> Result<()>,
    ) -> Result<Skipped> {
        let n = self.documents.count();
        let mut batch = Vec::with_capacity(BATCH.min(n));
        for start in (0..n).step_by(BATCH) {
            batch.clear();
            for i in start..(start + BATCH).min(n) {
                let text = self.documents.text(i)?;
                progress.document(text.len());
                batch.push(SourceDoc {
                    text,
                    origin: Origin {
                        file: 0,
                        line: Some(i as u64),
                    },
                    key: None,
                });
            }
            visit(&batch)?;
        }
        Ok(Skipped::default())
    }

    fn revisit(
        &self,
        progress: &dyn Progress,
        wanted: &(dyn Fn(u32) -> bool + Sync),
        visit: &mut dyn FnMut(&[Revisited<'_>]) -> Result<()>,
    ) -> Result<usize> {
        let n = self.documents.count();
        for start in (0..n).step_by(BATCH) {
            let numbers: Vec<u32> = (start..(start + BATCH).min(n))
                .map(|i| i as u32)
                .filter(|&d| wanted(d))
                .collect();
            let ids: Vec<Cow<'_, str>> = numbers
                .iter()
                .map(|&d| self.documents.id(d as usize))
                .collect();
            let mut batch = Vec::with_capacity(numbers.len());
            for (&number, id) in numbers.iter().zip(&ids) {
                let text = self.documents.text(number as usize)?;
                progress.document(text.len());
                batch.push(Revisited { number, id, text });
            }
            if !batch.is_empty() {
                visit(&batch)?;
            }
        }
        Ok(n)
    }
}
