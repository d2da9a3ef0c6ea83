//! Weights: how much each feature counts.

pub(crate) mod idf;
pub(crate) mod textrank;

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// How features are weighted.
///
/// ```
/// use neardup_core::Weighting;
///
/// assert_eq!("tfidf".parse::<Weighting>()?, Weighting::TfIdf);
/// assert_eq!(Weighting::TextRank.to_string(), "textrank");
/// # Ok::<(), neardup_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Weighting {
    /// Term frequency: the number of occurrences.
    #[default]
    Tf,
    /// 1 for every distinct feature.
    Binary,
    /// Term frequency times inverse document frequency ([`crate::IdfTable`]).
    TfIdf,
    /// The TextRank score of each word (words only).
    TextRank,
}

impl Weighting {
    /// Every weighting.
    pub const ALL: [Weighting; 4] = [
        Weighting::Tf,
        Weighting::Binary,
        Weighting::TfIdf,
        Weighting::TextRank,
    ];

    /// The name used in flags and files.
    pub fn name(self) -> &'static str {
        match self {
            Weighting::Tf => "tf",
            Weighting::Binary => "binary",
            Weighting::TfIdf => "tfidf",
            Weighting::TextRank => "textrank",
        }
    }
}

impl fmt::Display for Weighting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Weighting {
    type Err = Error;

    fn from_str(s: &str) -> Result<Weighting> {
        Weighting::ALL
            .into_iter()
            .find(|w| w.name() == s)
            .ok_or_else(|| {
                Error::config(format!(
                    "unknown weighting {s:?}; choose one of tf, binary, tfidf, textrank"
                ))
            })
    }
}
