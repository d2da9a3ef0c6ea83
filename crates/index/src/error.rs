//! What can go wrong in the index.

/// An error of the index library.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{Error, TablePlan};
///
/// let err = TablePlan::new(Width::W64, 3, 2).unwrap_err();
/// assert!(matches!(err, Error::Blocks { blocks: 2, k: 3, bits: 64 }));
/// assert!(err.is_plan());
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A distance no plan can search: at or past the fingerprints' width.
    #[error("table plan: k = {k} is not below the width of {bits} bits")]
    KNotBelowWidth {
        /// The distance asked for.
        k: u32,
        /// The fingerprints' width, in bits.
        bits: u32,
    },
    /// A number of blocks that cannot find every pair within `k`.
    #[error(
        "table plan: {blocks} blocks cannot find all pairs within k = {k} in {bits} bits: \
         use more than {k} blocks and at most {bits}"
    )]
    Blocks {
        /// The blocks asked for.
        blocks: u32,
        /// The distance.
        k: u32,
        /// The width, in bits.
        bits: u32,
    },
    /// A plan of more tables than [`MAX_TABLES`](crate::plan::MAX_TABLES).
    #[error(
        "table plan: {blocks} blocks for k = {k} need {tables} tables, more than {max}",
        max = crate::plan::MAX_TABLES
    )]
    TooManyTables {
        /// The blocks asked for.
        blocks: u32,
        /// The distance.
        k: u32,
        /// The tables they need.
        tables: u128,
    },
    /// No plan for `k` within a memory budget.
    #[error(
        "table plan: no plan for k = {k} fits in {max_bytes} bytes per fingerprint; the \
         smallest needs {smallest:.1}"
    )]
    NoPlanFits {
        /// The distance.
        k: u32,
        /// The budget, in bytes per fingerprint.
        max_bytes: f64,
        /// What the smallest plan needs.
        smallest: f64,
    },
    /// Fingerprints of another width than the plan's.
    #[error("the plan is for {plan_bits}-bit fingerprints, these have {bits} bits")]
    WidthMismatch {
        /// The plan's width, in bits.
        plan_bits: u32,
        /// The fingerprints'.
        bits: u32,
    },
    /// More fingerprints than ids of 32 bits can number.
    #[error("{count} fingerprints: an index or a join holds fewer than 2^32 - 1")]
    TooManyFingerprints {
        /// How many there were (or would be).
        count: usize,
    },
    /// Names and fingerprints that do not pair up.
    #[error("{names} names for {fingerprints} fingerprints")]
    NamesMismatch {
        /// The names given.
        names: usize,
        /// The fingerprints given.
        fingerprints: usize,
    },
    /// Sequence numbers and fingerprints that do not pair up.
    #[error("{seqs} sequence numbers for {fingerprints} fingerprints")]
    SeqsMismatch {
        /// The sequence numbers given.
        seqs: usize,
        /// The fingerprints given.
        fingerprints: usize,
    },
    /// A directory another writer holds the lock of.
    #[error(
        "another neardup is writing {what} in {} (it holds {}); wait for it to finish, or \
         write elsewhere",
        dir.display(),
        lock.display()
    )]
    Locked {
        /// What the directory holds (`a store`, `an index`).
        what: String,
        /// The directory.
        dir: std::path::PathBuf,
        /// The lock file held.
        lock: std::path::PathBuf,
    },
    /// A join stopped by its caller's callback, which keeps the reason.
    #[error("the join was stopped by its caller")]
    Stopped,
    /// An index file that cannot be read or written.
    /// (The cause is in the message, not a source too: a chain of causes
    /// would print it twice.)
    #[error("{}: {}", .0.display(), .1)]
    Io(std::path::PathBuf, std::io::Error),
    /// A file that is not an index segment this build can read, or a
    /// damaged one.
    #[error("{}: {}", .0.display(), .1)]
    Format(std::path::PathBuf, String),
}

impl Error {
    /// Whether no table plan fits the request: a distance, a number of
    /// blocks or a memory budget to change.
    pub fn is_plan(&self) -> bool {
        matches!(
            self,
            Error::KNotBelowWidth { .. }
                | Error::Blocks { .. }
                | Error::TooManyTables { .. }
                | Error::NoPlanFits { .. }
        )
    }
}

/// The result of index operations.
pub type Result<T> = std::result::Result<T, Error>;
