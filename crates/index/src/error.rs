//! What can go wrong in the index.

/// An error of the index library.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{Error, TablePlan};
///
/// let err = TablePlan::new(Width::W64, 3, 2).unwrap_err();
/// assert!(matches!(err, Error::Plan(_)));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A table plan that cannot work, or that nothing fits.
    #[error("table plan: {0}")]
    Plan(String),
    /// Fingerprints the operation cannot take.
    #[error("{0}")]
    Input(String),
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

/// The result of index operations.
pub type Result<T> = std::result::Result<T, Error>;
