//! The one error type of the core library.

/// What went wrong in the core library.
///
/// The core does no I/O, so its errors are about values: a setting that does
/// not fit, a fingerprint that does not parse, widths that do not match, a
/// table that does not load. Each message says what to do about it.
///
/// ```
/// use neardup_core::{Error, Fingerprint};
///
/// let err = Fingerprint::from_hex("xyz").unwrap_err();
/// assert!(matches!(err, Error::ParseFingerprint { .. }));
/// assert!(err.to_string().contains("16 or 32 hex digits"));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A setting is out of range or settings contradict each other.
    #[error("invalid setting: {0}")]
    Config(String),
    /// A fingerprint's hex form could not be parsed.
    #[error("invalid fingerprint {text:?}: {reason}")]
    ParseFingerprint {
        /// The text that was given (cut to 40 characters).
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Two fingerprints of different widths were compared.
    #[error(
        "cannot compare a {left}-bit fingerprint with a {right}-bit one; \
         fingerprint both with the same width"
    )]
    WidthMismatch {
        /// The width of the left operand, in bits.
        left: u32,
        /// The width of the right operand, in bits.
        right: u32,
    },
    /// A table (IDF or stop words) given by the caller is malformed.
    #[error("invalid {table} table, line {line}: {reason}")]
    Table {
        /// Which table.
        table: &'static str,
        /// The 1-based line.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A weight is not a finite number.
    #[error("feature {feature:?} has weight {weight}, which is not a finite number")]
    Weight {
        /// The feature, as text (cut to 40 characters).
        feature: String,
        /// The weight that was given.
        weight: f64,
    },
}

impl Error {
    pub(crate) fn config(message: impl Into<String>) -> Error {
        Error::Config(message.into())
    }
}

/// The result type of the core library.
pub type Result<T> = std::result::Result<T, Error>;
