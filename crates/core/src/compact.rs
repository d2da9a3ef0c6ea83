//! `f64` values by dense id, in two bytes per id.
//!
//! Tables indexed by word id (a word's log-probability in the Han
//! dictionary, its IDF) are read once per word of every document, at random
//! ids. Their values repeat: jieba's 349,045 words have 5,087 distinct
//! frequencies and 3,328 distinct IDF values. Storing a 2-byte index into
//! the distinct values makes such a table a quarter of the size, and so
//! far more of it stays in cache.

use std::collections::HashMap;

/// `f64`s by id: 2-byte indices into the distinct values, or the values
/// themselves when there are more distinct ones than a `u16` counts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CompactF64s {
    Indexed {
        index: Box<[u16]>,
        values: Box<[f64]>,
    },
    Direct(Box<[f64]>),
}

impl CompactF64s {
    /// The values, by id from 0.
    pub(crate) fn new(values: impl IntoIterator<Item = f64>) -> CompactF64s {
        let direct: Box<[f64]> = values.into_iter().collect();
        let mut distinct: Vec<f64> = Vec::new();
        let mut ids: HashMap<u64, u16> = HashMap::new();
        let mut index = Vec::with_capacity(direct.len());
        for &v in direct.iter() {
            let Ok(next) = u16::try_from(distinct.len()) else {
                return CompactF64s::Direct(direct);
            };
            index.push(*ids.entry(v.to_bits()).or_insert_with(|| {
                distinct.push(v);
                next
            }));
        }
        CompactF64s::Indexed {
            index: index.into_boxed_slice(),
            values: distinct.into_boxed_slice(),
        }
    }

    /// The value of `id`, if there is one.
    #[inline(always)]
    pub(crate) fn get(&self, id: u32) -> Option<f64> {
        match self {
            CompactF64s::Indexed { index, values } => {
                let i = *index.get(id as usize)?;
                values.get(usize::from(i)).copied()
            }
            CompactF64s::Direct(values) => values.get(id as usize).copied(),
        }
    }

    /// Whether the values are stored as indices.
    #[cfg(test)]
    pub(crate) fn is_indexed(&self) -> bool {
        matches!(self, CompactF64s::Indexed { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_back_every_value_bit_for_bit() {
        let few: Vec<f64> = (0..1000).map(|i| f64::from(i % 7) / 3.0).collect();
        let many: Vec<f64> = (0..70_000).map(|i| f64::from(i) + 0.5).collect();
        for values in [few, many, vec![-0.0, 0.0, f64::NEG_INFINITY]] {
            let compact = CompactF64s::new(values.iter().copied());
            for (id, v) in values.iter().enumerate() {
                assert_eq!(compact.get(id as u32).map(f64::to_bits), Some(v.to_bits()));
            }
            assert_eq!(compact.get(values.len() as u32), None);
            assert_eq!(compact.is_indexed(), values.len() < 70_000);
        }
    }
}
