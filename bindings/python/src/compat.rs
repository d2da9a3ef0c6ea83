//! The values `neardup.compat` needs to be PyPI `simhash` 2.x bit for bit:
//! its text fingerprint (the core's `python-simhash` profile) and its
//! fingerprint of weighted features.

use std::sync::OnceLock;

use neardup_core::{BitTally, FeatureHash, Fingerprinter, Profile, ShortBytes, Width, md5_each};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::error::{NeardupError, to_py};
use crate::utf8::utf8;

pub(crate) fn mask(f: u32) -> u128 {
    if f >= 128 {
        u128::MAX
    } else {
        (1u128 << f) - 1
    }
}

pub(crate) fn check_f(f: u32) -> PyResult<()> {
    if f == 0 || !f.is_multiple_of(8) || f > 128 {
        return Err(NeardupError::new_err(format!(
            "f = {f}: give a multiple of 8 from 8 to 128 (MD5 gives 128 bits)"
        )));
    }
    Ok(())
}

/// The package's vote: bit `j` is set when the weight of the features
/// with bit `j` set is more than half of all their weight. Weights of 1
/// (plain strs, the common case) are counted apart, in integers.
struct Votes {
    f: u32,
    ones: BitTally,
    weighted: [f64; 128],
    total: f64,
}

impl Votes {
    fn new(f: u32) -> Votes {
        Votes {
            f,
            ones: BitTally::new(f),
            weighted: [0.0; 128],
            total: 0.0,
        }
    }

    /// A feature's hash, cut to `f` bits, votes with `weight`.
    fn add(&mut self, hash: u128, weight: f64) {
        let hash = hash & mask(self.f);
        if weight == 1.0 {
            self.ones.add(hash);
        } else {
            for (j, sum) in self.weighted[..self.f as usize].iter_mut().enumerate() {
                *sum += weight * ((hash >> j) as u64 & 1) as f64;
            }
        }
    }

    fn value(mut self) -> u128 {
        let half = self.total / 2.0;
        let weighted = self.weighted;
        self.ones
            .counts()
            .iter()
            .zip(weighted)
            .enumerate()
            .filter(|&(_, (&ones, weighted))| ones as f64 + weighted > half)
            .fold(0, |v, (j, _)| v | 1 << j)
    }
}

/// The `python-simhash` fingerprinter at `width`, built once.
fn python_simhash(width: Width) -> PyResult<&'static Fingerprinter> {
    static BUILT: OnceLock<Result<[Fingerprinter; 2], String>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let build = |w| {
            Fingerprinter::builder(Profile::PythonSimhash)
                .width(w)
                .build()
                .map_err(|e| e.to_string())
        };
        Ok([build(Width::W64)?, build(Width::W128)?])
    });
    match built {
        Ok(fingerprinters) => Ok(&fingerprinters[usize::from(width == Width::W128)]),
        Err(e) => Err(NeardupError::new_err(e.clone())),
    }
}

/// `Simhash(text, f).value` with the default `reg` and `hashfunc`.
#[pyfunction]
pub(crate) fn simhash_text(py: Python<'_>, text: &Bound<'_, PyString>, f: u32) -> PyResult<u128> {
    check_f(f)?;
    let bytes = utf8(text)?;
    let text =
        std::str::from_utf8(&bytes).map_err(|e| NeardupError::new_err(format!("text: {e}")))?;
    if f == 64 || f == 128 {
        let fp = python_simhash(Width::from_bits(f).map_err(to_py)?)?;
        return Ok(py.detach(|| fp.fingerprint(text).bits()));
    }
    // Other widths take the last bytes of the same MD5s.
    let mut votes = Votes::new(f);
    for feature in python_simhash(Width::W128)?.weighted_features(text) {
        votes.total += feature.weight;
        votes.add(feature.hash, feature.weight);
    }
    Ok(votes.value())
}

/// `Simhash(features, f).value` with the default `hashfunc`: features are
/// strs (weight 1), `(str, weight)` pairs, or a dict of str to weight.
#[pyfunction]
pub(crate) fn simhash_features(features: &Bound<'_, PyAny>, f: u32) -> PyResult<u128> {
    check_f(f)?;
    let mut votes = Votes::new(f);
    let items = match features.cast::<PyDict>() {
        Ok(dict) => dict.items().into_any(),
        Err(_) => features.clone(),
    };
    // Features of weight 1 and at most 16 bytes, hashed together at the
    // end (their votes do not depend on the order).
    let mut short = Vec::new();
    let mut weight = 1.0;
    for item in items.try_iter()? {
        let item = item?;
        let feature = match item.cast::<PyString>() {
            Ok(s) => s.clone(),
            Err(_) => {
                let (feature, w): (Bound<'_, PyString>, f64) = item.extract().map_err(|_| {
                    PyTypeError::new_err(
                        "a feature is a str or a (str, weight) pair, the weight a number",
                    )
                })?;
                // As in the package, a weight holds for the plain strs after it.
                weight = w;
                feature
            }
        };
        let bytes = utf8(&feature)?;
        votes.total += weight;
        match ShortBytes::new(&bytes).filter(|_| weight == 1.0) {
            Some(bytes) => short.push(bytes),
            None => votes.add(FeatureHash::Md5.hash(&bytes, Width::W128), weight),
        }
    }
    let mut digests = Vec::new();
    md5_each(&short, &mut digests);
    for digest in digests {
        votes.add(digest, 1.0);
    }
    Ok(votes.value())
}
