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
}

/// The result of index operations.
pub type Result<T> = std::result::Result<T, Error>;
