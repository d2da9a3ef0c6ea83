//! Fingerprints of caller-given features and of vectors.
//!
//! Seed 004 passes its own (keyword, weight) lists; seed 003 fingerprints a
//! D-dimensional vector without the f random hyperplanes of Charikar's
//! construction: each dimension is hashed to f bits and votes with its value,
//! which is the same as choosing hyperplanes with ±1 entries given by the
//! hashes, and stores nothing per dimension. A dimension `i` is hashed as the
//! 8 bytes of `i` as a little-endian `u64`.

use crate::accumulate::Accumulator;
use crate::error::{Error, Result};
use crate::fingerprint::{Fingerprint, Width};
use crate::hash::FeatureHash;

fn check(feature: impl FnOnce() -> String, weight: f64) -> Result<()> {
    if weight.is_finite() {
        Ok(())
    } else {
        Err(Error::Weight {
            feature: feature().chars().take(40).collect(),
            weight,
        })
    }
}

impl Fingerprint {
    /// The fingerprint of caller-weighted features, accumulated in the order
    /// given.
    ///
    /// # Errors
    ///
    /// [`Error::Weight`] for a weight that is NaN or infinite.
    ///
    /// ```
    /// use neardup_core::{FeatureHash, Fingerprint, Width};
    ///
    /// let fp = Fingerprint::from_features(
    ///     &[("上海", 45.11), ("北京", 32.09)],
    ///     FeatureHash::Fnv1a,
    ///     Width::W64,
    /// )?;
    /// assert_eq!(fp.width(), Width::W64);
    /// # Ok::<(), neardup_core::Error>(())
    /// ```
    pub fn from_features<S: AsRef<str>>(
        features: &[(S, f64)],
        hash: FeatureHash,
        width: Width,
    ) -> Result<Fingerprint> {
        let mut acc = Accumulator::with_width(width);
        for (feature, weight) in features {
            check(|| feature.as_ref().to_string(), *weight)?;
            acc.add(hash.hash(feature.as_ref().as_bytes(), width), *weight);
        }
        Ok(Fingerprint::new(acc.value(), width))
    }

    /// The fingerprint of a sparse vector of `(dimension, value)` entries.
    ///
    /// # Errors
    ///
    /// [`Error::Weight`] for a value that is NaN or infinite.
    ///
    /// ```
    /// use neardup_core::{FeatureHash, Fingerprint, Width};
    ///
    /// let a = Fingerprint::from_sparse(&[(7, 1.0), (1_000_000_000, 2.5)], FeatureHash::Xxh3, Width::W64)?;
    /// let b = Fingerprint::from_dense(&[0.0, 0.0, 3.0], FeatureHash::Xxh3, Width::W64)?;
    /// assert_ne!(a, b);
    /// # Ok::<(), neardup_core::Error>(())
    /// ```
    pub fn from_sparse(
        entries: &[(u64, f64)],
        hash: FeatureHash,
        width: Width,
    ) -> Result<Fingerprint> {
        let mut acc = Accumulator::with_width(width);
        accumulate_vector(&mut acc, entries.iter().copied(), |d| {
            hash.hash(&d.to_le_bytes(), width)
        })?;
        Ok(Fingerprint::new(acc.value(), width))
    }

    /// The fingerprint of a dense vector: dimension `i` holds `values[i]`;
    /// zeros are skipped, as they vote for nothing.
    ///
    /// # Errors
    ///
    /// [`Error::Weight`] for a value that is NaN or infinite.
    pub fn from_dense(values: &[f64], hash: FeatureHash, width: Width) -> Result<Fingerprint> {
        let mut acc = Accumulator::with_width(width);
        let entries = values
            .iter()
            .enumerate()
            .filter(|(_, v)| **v != 0.0)
            .map(|(i, v)| (i as u64, *v));
        accumulate_vector(&mut acc, entries, |d| hash.hash(&d.to_le_bytes(), width))?;
        Ok(Fingerprint::new(acc.value(), width))
    }
}

/// Seed 003's loop: every non-zero dimension votes with its value on the
/// bits of its hash.
fn accumulate_vector(
    acc: &mut Accumulator,
    entries: impl Iterator<Item = (u64, f64)>,
    dimension_hash: impl Fn(u64) -> u128,
) -> Result<()> {
    for (dimension, value) in entries {
        check(|| format!("dimension {dimension}"), value)?;
        acc.add(dimension_hash(dimension), value);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(s: &str) -> u128 {
        u128::from_str_radix(s, 2).unwrap()
    }

    /// Seed 002: d = (1, 2, 0, 3, 0) over five words hashed to 3 bits; the
    /// dot products with the hyperplanes are −4, −2 and 6, signature 001.
    #[test]
    fn seed_002_hyperplanes() {
        let hashes = ["101", "011", "100", "001", "110"].map(bits);
        let d = [1.0, 2.0, 0.0, 3.0, 0.0];
        let mut acc = Accumulator::new(3).unwrap();
        let entries = d.iter().enumerate().map(|(i, v)| (i as u64, *v));
        accumulate_vector(&mut acc, entries, |i| hashes[i as usize]).unwrap();
        let msb_first: Vec<f64> = acc.sums().iter().rev().copied().collect();
        assert_eq!(msb_first, [-4.0, -2.0, 6.0]);
        assert_eq!(acc.value(), bits("001"));
    }

    /// Seed 003: x = (3, 2, 4), dimensions hashed to 10, 01, 11. The seed
    /// prints V[0] = 7.0, but 3 − 2 + 4 = 5; V[1] = −3 + 2 + 4 = 3; result 11.
    #[test]
    fn seed_003_per_dimension_hashing() {
        let hashes = ["10", "01", "11"].map(bits);
        let mut acc = Accumulator::new(2).unwrap();
        let entries = [(0, 3.0), (1, 2.0), (2, 4.0)].into_iter();
        accumulate_vector(&mut acc, entries, |i| hashes[i as usize]).unwrap();
        let msb_first: Vec<f64> = acc.sums().iter().rev().copied().collect();
        assert_eq!(msb_first, [5.0, 3.0]);
        assert_eq!(acc.value(), bits("11"));
    }

    #[test]
    fn dense_equals_sparse() {
        let dense =
            Fingerprint::from_dense(&[0.0, 1.5, 0.0, -2.0], FeatureHash::Xxh3, Width::W64).unwrap();
        let sparse =
            Fingerprint::from_sparse(&[(1, 1.5), (3, -2.0)], FeatureHash::Xxh3, Width::W64)
                .unwrap();
        assert_eq!(dense, sparse);
    }

    #[test]
    fn non_finite_weights_are_refused() {
        let err = Fingerprint::from_features(&[("a", f64::NAN)], FeatureHash::Xxh3, Width::W64)
            .unwrap_err();
        assert!(err.to_string().contains("\"a\""), "{err}");
        assert!(
            Fingerprint::from_sparse(&[(1, f64::INFINITY)], FeatureHash::Xxh3, Width::W64).is_err()
        );
    }
}
