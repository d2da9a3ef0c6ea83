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
    /// A source of the caller's own ([`crate::Source`]) failed.
    #[error(transparent)]
    Source(Box<dyn std::error::Error + Send + Sync>),
    /// A document asked for by a position its source does not have.
    #[error("no document {position}: the source holds fewer")]
    NoDocument {
        /// The position asked for.
        position: usize,
    },
    /// A document with no text (a null in an Arrow array).
    #[error("row {row}: the text is null; drop or fill the rows without text first")]
    NullText {
        /// Its row.
        row: usize,
    },
    /// An Arrow array of something other than strings.
    #[error("an Arrow array of {data_type}; give strings")]
    NotText {
        /// The array's data type, as Arrow names it.
        data_type: String,
    },
    /// A document handed over again after later ones, on a later pass.
    #[error(
        "document {document} came again after later ones; a source hands its documents over \
         in the order of its first pass"
    )]
    OutOfOrder {
        /// The document's position.
        document: usize,
    },
    /// An input that is not a regular file (a pipe, a device), which
    /// cannot be read twice.
    #[error(
        "{} is not a regular file (a pipe or a device?): a run reads its inputs more than \
         once; save it to a file first",
        path.display()
    )]
    NotRegularFile {
        /// The input.
        path: PathBuf,
    },
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
    #[error("the index at {}: {mismatch}", path.display())]
    Against {
        /// The index directory.
        path: PathBuf,
        /// What differs, and what to do.
        mismatch: Mismatch,
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
    /// A memory budget of 0 bytes ([`crate::DedupBuilder::memory`]).
    #[error(
        "a memory budget of 0 bytes: give a budget (a run below its floor goes on with what it \
         needs), or none for half the machine's memory"
    )]
    NoMemory,
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

/// What differs between an index directory and the settings of a run
/// against it or a [`crate::Deduper`] over it ([`Error::Against`]); each
/// message says what to do.
///
/// ```
/// use neardup_dedup::Mismatch;
///
/// let mismatch = Mismatch::K { store_k: 6, k: 8 };
/// assert!(mismatch.to_string().starts_with("it finds fingerprints at most 6 bits apart"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Mismatch {
    /// Fingerprints of another width.
    #[error(
        "it holds {store_bits}-bit fingerprints, these are {bits}-bit; fingerprint at its width"
    )]
    Width {
        /// The index's width, in bits.
        store_bits: u32,
        /// The settings'.
        bits: u32,
    },
    /// A k past the index's tables.
    #[error(
        "it finds fingerprints at most {store_k} bits apart, and {k} were asked for; ask for \
         {store_k} or less, or build a new index"
    )]
    K {
        /// The index's k.
        store_k: u32,
        /// The k asked for.
        k: u32,
    },
    /// No texts kept, where the settings verify by them.
    #[error(
        "it keeps no texts (made by neardup index build or Index.save), and these settings \
         verify by the texts: start a new index, or verify nothing (verify=\"none\")"
    )]
    NoTexts,
    /// Short-document keys made for another rule.
    #[error(
        "its short-document keys were made for {stored}, these settings make them for \
         {wanted}: use the settings it was made with"
    )]
    ShortKeys {
        /// The rule the index's keys were made for (`no rule`: none).
        stored: String,
        /// The rule these settings make them for.
        wanted: String,
    },
    /// Fingerprints made with other settings.
    #[error(
        "its fingerprints are made with other settings ({difference}): use the settings it was made with"
    )]
    Fingerprints {
        /// The settings that differ, as there and here.
        difference: String,
    },
}

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;
