//! Which document of a group is kept: the rule, and the order of the
//! documents it gives.

use std::cmp::{Ordering, Reverse};

use neardup_corpus::FieldValue;

/// Which document of a group of near-duplicates is kept: the first in the
/// order this rule gives (the first in input order among equals).
///
/// ```
/// use neardup_dedup::Keep;
///
/// assert_eq!("longest".parse::<Keep>(), Ok(Keep::Longest));
/// assert_eq!(Keep::Max.to_string(), "max");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Keep {
    /// The first in input order.
    #[default]
    First,
    /// The longest text, in bytes.
    Longest,
    /// The shortest text, in bytes.
    Shortest,
    /// The greatest key ([`crate::SourceDoc::key`]: numbers by value,
    /// strings in byte order, numbers before strings); documents without
    /// one come last.
    Max,
    /// The least key; documents without one come last.
    Min,
}

impl std::str::FromStr for Keep {
    type Err = String;

    fn from_str(s: &str) -> Result<Keep, String> {
        match s {
            "first" => Ok(Keep::First),
            "longest" => Ok(Keep::Longest),
            "shortest" => Ok(Keep::Shortest),
            "max" => Ok(Keep::Max),
            "min" => Ok(Keep::Min),
            _ => Err(format!("{s:?}: give first, longest, shortest, max or min")),
        }
    }
}

impl std::fmt::Display for Keep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Keep::First => "first",
            Keep::Longest => "longest",
            Keep::Shortest => "shortest",
            Keep::Max => "max",
            Keep::Min => "min",
        })
    }
}

impl Keep {
    /// The documents in the order this rule keeps them, by their lengths in
    /// bytes and their keys (empty unless the rule ranks by keys).
    pub(crate) fn order(self, bytes: &[u32], keys: &[Option<FieldValue>]) -> Vec<u32> {
        let mut order: Vec<u32> = (0..bytes.len() as u32).collect();
        let key = |d: u32| keys.get(d as usize).and_then(Option::as_ref);
        match self {
            Keep::First => {}
            Keep::Longest => order.sort_by_key(|&d| Reverse(bytes[d as usize])),
            Keep::Shortest => order.sort_by_key(|&d| bytes[d as usize]),
            Keep::Max => order.sort_by(|&a, &b| ranked(key(b), key(a), true)),
            Keep::Min => order.sort_by(|&a, &b| ranked(key(a), key(b), false)),
        }
        order
    }
}

/// Two keys in ascending order (numbers before strings); a missing one
/// comes last whichever way keys are ranked (`reversed`: the caller swapped
/// the two for a descending order).
fn ranked(x: Option<&FieldValue>, y: Option<&FieldValue>, reversed: bool) -> Ordering {
    let missing_last = if reversed {
        Ordering::Less
    } else {
        Ordering::Greater
    };
    match (x, y) {
        (Some(x), Some(y)) => match (x, y) {
            (FieldValue::Number(x), FieldValue::Number(y)) => x.total_cmp(y),
            (FieldValue::Text(x), FieldValue::Text(y)) => x.cmp(y),
            (FieldValue::Number(_), FieldValue::Text(_)) => Ordering::Less,
            (FieldValue::Text(_), FieldValue::Number(_)) => Ordering::Greater,
        },
        (None, None) => Ordering::Equal,
        (None, Some(_)) => missing_last,
        (Some(_), None) => missing_last.reverse(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_rank_with_missing_ones_last() {
        let keys = [
            Some(FieldValue::Number(2.0)),
            None,
            Some(FieldValue::Number(5.0)),
            Some(FieldValue::Text("a".into())),
        ];
        let bytes = [10, 30, 20, 30];
        assert_eq!(Keep::Max.order(&bytes, &keys), [3, 2, 0, 1]);
        assert_eq!(Keep::Min.order(&bytes, &keys), [0, 2, 3, 1]);
        assert_eq!(Keep::Longest.order(&bytes, &keys), [1, 3, 2, 0]);
        assert_eq!(Keep::Shortest.order(&bytes, &keys), [0, 2, 1, 3]);
        assert_eq!(Keep::First.order(&bytes, &[]), [0, 1, 2, 3]);
    }
}
