//! What can stop a dedup run, each error saying what to do.

use std::io;
use std::path::PathBuf;

/// Why a run stopped.
///
/// ```
/// use neardup_dedup::Error;
///
/// let err = Error::Changed { first: 10, now: 9 };
/// assert!(err.to_string().contains("10 documents read first, 9 now"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A document could not be read: the message names the file and line.
    #[error(transparent)]
    Read(#[from] neardup_corpus::Error),
    /// A source other than files failed.
    #[error("{0}")]
    Source(String),
    /// The settings or an index were refused by the index crate.
    #[error(transparent)]
    Index(#[from] neardup_index::Error),
    /// The fingerprinter refused its settings.
    #[error(transparent)]
    Fingerprint(#[from] neardup_core::Error),
    /// The store of earlier runs' documents refused or failed.
    #[error(transparent)]
    Store(#[from] neardup_store::Error),
    /// A temporary file or an index directory could not be used.
    #[error("cannot {doing} {}: {cause}", path.display())]
    Io {
        /// What was being done ("create a temporary file in").
        doing: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The cause (in the message, not a source too: a chain of causes
        /// would print it twice).
        cause: io::Error,
    },
    /// More documents than a run numbers.
    #[error(
        "more than {max} documents: a run numbers them in 32 bits; split the input, \
         and dedup each part against an index of the parts before it"
    )]
    TooManyDocuments {
        /// The most a run takes.
        max: usize,
    },
    /// The source gave other documents when read again.
    #[error(
        "the inputs changed while dedup ran: {first} documents read first, {now} now; \
         do not change the inputs during a run"
    )]
    Changed {
        /// Documents on the first pass.
        first: usize,
        /// Documents on a later pass.
        now: usize,
    },
    /// An input file differs from what it was when the run began (size,
    /// modification time, or the bytes at its ends).
    #[error(
        "{}: changed since the run began (a run reads its inputs more than once); \
         run it on files that stay as they are until it ends",
        path.display()
    )]
    FileChanged {
        /// The file.
        path: PathBuf,
    },
    /// An index to dedup against that cannot be used as asked.
    #[error("the index at {}: {message}", path.display())]
    Against {
        /// The index directory.
        path: PathBuf,
        /// What is wrong, and what to do.
        message: String,
    },
    /// A k whose pairs no index of the kept documents can search within
    /// greedy grouping's memory.
    #[error(
        "k = {k} is too wide for greedy grouping's index of kept documents ({cause}); give a \
         smaller k"
    )]
    KTooWideForGreedy {
        /// The k asked for.
        k: u32,
        /// Why no plan fits (in the message, not a source too).
        cause: neardup_index::Error,
    },
    /// The caller asked the run to stop ([`crate::Progress::cancelled`]).
    #[error("cancelled")]
    Cancelled,
}

impl Error {
    pub(crate) fn io(doing: &'static str, path: impl Into<PathBuf>, cause: io::Error) -> Error {
        Error::Io {
            doing,
            path: path.into(),
            cause,
        }
    }
}

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;
