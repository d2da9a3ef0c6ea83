//! Features: what is hashed. Words, word shingles, or character n-grams.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// The kind of feature taken from the token stream.
///
/// ```
/// use neardup_core::FeatureKind;
///
/// assert_eq!("shingles:3".parse::<FeatureKind>()?, FeatureKind::Shingles(3));
/// assert_eq!(FeatureKind::CharNgrams(4).to_string(), "chars:4");
/// # Ok::<(), neardup_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FeatureKind {
    /// Each word is a feature.
    #[default]
    Words,
    /// Each run of n consecutive words, joined by one space, is a feature; a
    /// text of fewer than n words gives one shingle of all its words.
    Shingles(usize),
    /// Each run of n consecutive characters of the words joined by single
    /// spaces is a feature; a shorter text gives one feature of all of it.
    CharNgrams(usize),
}

impl fmt::Display for FeatureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FeatureKind::Words => f.write_str("words"),
            FeatureKind::Shingles(n) => write!(f, "shingles:{n}"),
            FeatureKind::CharNgrams(n) => write!(f, "chars:{n}"),
        }
    }
}

impl FromStr for FeatureKind {
    type Err = Error;

    fn from_str(s: &str) -> Result<FeatureKind> {
        let bad = || {
            Error::config(format!(
                "unknown features {s:?}; use words, shingles:N or chars:N with N from 1 to 16"
            ))
        };
        let size = |n: &str| {
            n.parse::<usize>()
                .ok()
                .filter(|n| (1..=16).contains(n))
                .ok_or_else(bad)
        };
        match s.split_once(':') {
            None if s == "words" => Ok(FeatureKind::Words),
            Some(("shingles", n)) => Ok(FeatureKind::Shingles(size(n)?)),
            Some(("chars", n)) => Ok(FeatureKind::CharNgrams(size(n)?)),
            _ => Err(bad()),
        }
    }
}

/// Calls `emit` with each feature of `kind` over `tokens`.
pub(crate) fn for_each_feature(
    kind: FeatureKind,
    tokens: &[&str],
    buffer: &mut String,
    mut emit: impl FnMut(&str),
) {
    match kind {
        FeatureKind::Words => tokens.iter().for_each(|t| emit(t)),
        FeatureKind::Shingles(n) => {
            if tokens.is_empty() {
                return;
            }
            let n = n.clamp(1, tokens.len());
            for window in tokens.windows(n) {
                buffer.clear();
                for (i, t) in window.iter().enumerate() {
                    if i > 0 {
                        buffer.push(' ');
                    }
                    buffer.push_str(t);
                }
                emit(buffer);
            }
        }
        FeatureKind::CharNgrams(n) => {
            if tokens.is_empty() {
                return;
            }
            let joined = tokens.join(" ");
            let starts: Vec<usize> = joined.char_indices().map(|(i, _)| i).collect();
            let n = n.clamp(1, starts.len());
            for k in 0..=starts.len() - n {
                let end = starts.get(k + n).copied().unwrap_or(joined.len());
                emit(&joined[starts[k]..end]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(kind: FeatureKind, tokens: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        for_each_feature(kind, tokens, &mut String::new(), |f| {
            out.push(f.to_string())
        });
        out
    }

    #[test]
    fn kinds() {
        let t = ["the", "cat", "sat"];
        assert_eq!(run(FeatureKind::Words, &t), t);
        assert_eq!(run(FeatureKind::Shingles(2), &t), ["the cat", "cat sat"]);
        assert_eq!(run(FeatureKind::Shingles(5), &t), ["the cat sat"]);
        assert_eq!(
            run(FeatureKind::CharNgrams(3), &["ab", "c"]),
            ["ab ", "b c"]
        );
        assert_eq!(run(FeatureKind::CharNgrams(9), &["中文"]), ["中文"]);
        assert!(run(FeatureKind::Shingles(2), &[]).is_empty());
        assert!(run(FeatureKind::CharNgrams(2), &[]).is_empty());
    }

    #[test]
    fn parse() {
        assert!("shingles:0".parse::<FeatureKind>().is_err());
        assert!("chars:x".parse::<FeatureKind>().is_err());
        assert!("grams".parse::<FeatureKind>().is_err());
        for k in [
            FeatureKind::Words,
            FeatureKind::Shingles(2),
            FeatureKind::CharNgrams(5),
        ] {
            assert_eq!(k.to_string().parse::<FeatureKind>().unwrap(), k);
        }
    }
}
