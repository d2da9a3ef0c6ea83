//! What can go wrong in the store.

use std::path::PathBuf;

/// An error of the store.
///
/// ```
/// use neardup_store::Error;
///
/// let err = Error::Input("the id \"a\" is taken".into());
/// assert_eq!(err.to_string(), "the id \"a\" is taken");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A request the store cannot take (a taken id, a distance past the
    /// store's, settings that differ from the store's).
    #[error("{0}")]
    Input(String),
    /// A file of the store that cannot be read or written.
    #[error("{}: {}", .0.display(), .1)]
    Io(PathBuf, std::io::Error),
    /// A store file that is not what this build writes, or is damaged.
    #[error("{}: {}", .0.display(), .1)]
    Format(PathBuf, String),
    /// The transactional log failed (its message says how).
    #[error("{}: {}", .0.display(), .1)]
    Log(PathBuf, String),
    /// The index of fingerprints failed.
    #[error(transparent)]
    Index(#[from] neardup_index::Error),
}

/// The result of store operations.
pub type Result<T> = std::result::Result<T, Error>;
