//! The values `neardup.compat` needs to be PyPI `simhash` 2.x bit for bit:
//! its text fingerprint (the core's `python-simhash` profile) and its
//! fingerprint of weighted features.
//!
//! The package sums its features' bits with numpy in two ways, and the
//! way shows in its values: a plain str, or a pair whose weight is an int
//! of at most `Simhash.large_weight_cutoff` (50), is repeated `weight`
//! times into a batch of digests (so a weight below 1 adds nothing, though
//! it is counted in the total), summed as integers every
//! `Simhash.batch_size` (200) features; any other pair adds `bits * weight`
//! at once. With float weights, the order of those additions decides the
//! last bit of a sum, so it is followed here too. Features this file does
//! not read (not a str nor a `(str, int | float)` pair) go to the Python
//! helper `neardup.compat._features_value`, which does as the package does,
//! errors and all.

use std::sync::OnceLock;

use neardup_core::compat::{BitTally, ShortBytes, md5_each};
use neardup_core::{FeatureHash, Fingerprinter, Profile, Width};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

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

/// The package's class constants, as `Simhash` defines them.
pub(crate) const LARGE_WEIGHT_CUTOFF: i64 = 50;
pub(crate) const BATCH_SIZE: i64 = 200;

static FEATURES_VALUE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

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
            add_bits(&mut self.weighted[..self.f as usize], hash, weight);
        }
    }

    fn value(mut self) -> u128 {
        let weighted = self.weighted;
        let ones = self.ones.counts().iter().map(|&n| n as f64);
        let sums = ones.zip(weighted).map(|(ones, weighted)| ones + weighted);
        bits_over(sums, self.total)
    }
}

/// `sums[j] += weight` for each set bit `j` of `hash`.
fn add_bits(sums: &mut [f64], hash: u128, weight: f64) {
    for (j, sum) in sums.iter_mut().enumerate() {
        if (hash >> j) & 1 == 1 {
            *sum += weight;
        }
    }
}

/// The fingerprint whose bit `j` is set when `sums[j] > total / 2`.
fn bits_over(sums: impl Iterator<Item = f64>, total: f64) -> u128 {
    let half = total / 2.0;
    sums.enumerate()
        .filter(|&(_, sum)| sum > half)
        .fold(0, |v, (j, _)| v | 1 << j)
}

/// `Simhash(text, f).value` with the default `reg` and `hashfunc`.
#[pyfunction]
pub(crate) fn simhash_text(py: Python<'_>, text: &Bound<'_, PyString>, f: u32) -> PyResult<u128> {
    check_f(f)?;
    let bytes = match utf8(text) {
        Ok(bytes) => bytes,
        // A lone surrogate: the package's `reg` drops it, as it drops the
        // `?` that stands in for it here (a `?` also ends a word for
        // `lower()`'s final sigma, as the surrogate does).
        Err(_) => {
            let bytes = text.call_method1("encode", ("utf-8", "replace"))?;
            std::borrow::Cow::Owned(bytes.cast::<PyBytes>()?.as_bytes().to_vec())
        }
    };
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

/// A pair's weight, as the package tells them apart.
#[derive(Clone, Copy)]
enum Weight {
    Int(i64),
    Float(f64),
}

impl Weight {
    fn get(self) -> f64 {
        match self {
            Weight::Int(w) => w as f64,
            Weight::Float(w) => w,
        }
    }
}

/// A feature read: a plain str (it takes the weight of the pair before
/// it) or a `(str, weight)` pair.
struct Feature<'py> {
    text: Bound<'py, PyString>,
    weight: Option<Weight>,
}

/// `item` as a feature this file reads, or `None` for the Python helper.
fn read_feature<'py>(item: Bound<'py, PyAny>) -> Option<Feature<'py>> {
    if let Ok(text) = item.cast::<PyString>() {
        return Some(Feature {
            text: text.clone(),
            weight: None,
        });
    }
    let pair = match item.cast::<PyTuple>() {
        Ok(t) if t.len() == 2 => [t.get_item(0).ok()?, t.get_item(1).ok()?],
        Ok(_) => return None,
        Err(_) => match item.cast::<PyList>() {
            Ok(l) if l.len() == 2 => [l.get_item(0).ok()?, l.get_item(1).ok()?],
            _ => return None,
        },
    };
    let [text, weight] = pair;
    let text = text.cast_into::<PyString>().ok()?;
    // `isinstance(w, int)` in the package: bools too; numpy's ints are
    // not ints there, and go to the helper.
    let weight = if weight.is_instance_of::<PyInt>() {
        Weight::Int(weight.extract().ok()?)
    } else if weight.is_instance_of::<PyFloat>() {
        Weight::Float(weight.extract().ok()?)
    } else {
        return None;
    };
    Some(Feature {
        text,
        weight: Some(weight),
    })
}

/// Where the class constants are read: the `Simhash` (or its class) the
/// features are for, as the package reads `self.large_weight_cutoff`.
pub(crate) struct Constants<'a, 'py> {
    pub(crate) owner: Option<&'a Bound<'py, PyAny>>,
}

impl<'py> Constants<'_, 'py> {
    /// The constant `name` as a number, or `None` when it is not an int
    /// or a float (the Python helper then compares as the package does).
    fn number(&self, name: &str, default: i64) -> PyResult<Option<f64>> {
        let Some(owner) = self.owner else {
            return Ok(Some(default as f64));
        };
        let value = owner.getattr(name)?;
        if value.is_instance_of::<PyInt>() || value.is_instance_of::<PyFloat>() {
            return Ok(value.extract::<f64>().ok());
        }
        Ok(None)
    }

    /// The constant `name` as it is.
    fn get(&self, py: Python<'py>, name: &str, default: i64) -> PyResult<Bound<'py, PyAny>> {
        match self.owner {
            Some(owner) => owner.getattr(name),
            None => Ok(default.into_pyobject(py)?.into_any()),
        }
    }
}

/// `Simhash(features, f).value` with the default `hashfunc`: features are
/// strs (weight 1), `(str, weight)` pairs, or a dict of str to weight.
/// The class constants are read from `owner` (a `Simhash` or its class;
/// the package's values when it is not given).
#[pyfunction]
#[pyo3(signature = (features, f, owner = None))]
pub(crate) fn simhash_features<'py>(
    features: &Bound<'py, PyAny>,
    f: u32,
    owner: Option<&Bound<'py, PyAny>>,
) -> PyResult<u128> {
    features_value(features, f, &Constants { owner })
}

/// The value of `features` (see [`simhash_features`]).
pub(crate) fn features_value<'py>(
    features: &Bound<'py, PyAny>,
    f: u32,
    constants: &Constants<'_, 'py>,
) -> PyResult<u128> {
    check_f(f)?;
    if let Some(value) = plain(features, f)? {
        return Ok(value);
    }
    let py = features.py();
    let items = match features.cast::<PyDict>() {
        Ok(dict) => dict.items().into_any(),
        Err(_) => features.clone(),
    };
    // Read whole first: a feature this file does not read sends them all
    // to the helper (an iterator can be read only once).
    let items: Vec<Bound<'py, PyAny>> = items.try_iter()?.collect::<PyResult<_>>()?;
    let mut read = Vec::with_capacity(items.len());
    for item in &items {
        match read_feature(item.clone()) {
            Some(feature) => read.push(feature),
            None => return helper(py, items, f, constants),
        }
    }
    let mut weight = Weight::Int(1);
    let mut any_float = false;
    let mut any_negative = false;
    for feature in &read {
        match feature.weight {
            Some(w) => weight = w,
            // `bytes * float`: the package fails on a plain str after a
            // float weight, as the helper does.
            None if matches!(weight, Weight::Float(_)) => return helper(py, items, f, constants),
            None => {}
        }
        any_float |= matches!(feature.weight, Some(Weight::Float(_)));
        any_negative |= matches!(feature.weight, Some(Weight::Int(w)) if w < 0);
    }
    let cutoff = if any_float || any_negative {
        match constants.number("large_weight_cutoff", LARGE_WEIGHT_CUTOFF)? {
            Some(cutoff) => cutoff,
            None => return helper(py, items, f, constants),
        }
    } else {
        LARGE_WEIGHT_CUTOFF as f64
    };
    if any_float {
        return match constants.number("batch_size", BATCH_SIZE)? {
            Some(batch_size) => in_order(&read, f, cutoff, batch_size),
            None => helper(py, items, f, constants),
        };
    }
    integers(&read, f, cutoff)
}

/// The common case read in one pass: a list, tuple or dict of strs and
/// `(str, int)` pairs whose weights are 0 or more. `None` when another
/// feature is met: the general path then reads them all again.
fn plain(features: &Bound<'_, PyAny>, f: u32) -> PyResult<Option<u128>> {
    let mut plain = Plain {
        votes: Votes::new(f),
        short: Vec::new(),
        weight: 1,
    };
    let read = if let Ok(list) = features.cast_exact::<PyList>() {
        plain.all(list.iter())?
    } else if let Ok(tuple) = features.cast_exact::<PyTuple>() {
        plain.all(tuple.iter())?
    } else if let Ok(dict) = features.cast_exact::<PyDict>() {
        let mut read = true;
        for (text, weight) in dict.iter() {
            if !plain.pair(&text, &weight)? {
                read = false;
                break;
            }
        }
        read
    } else {
        false
    };
    if !read {
        return Ok(None);
    }
    let mut digests = Vec::new();
    md5_each(&plain.short, &mut digests);
    for digest in digests {
        plain.votes.add(digest, 1.0);
    }
    Ok(Some(plain.votes.value()))
}

/// The votes of [`plain`]'s pass.
struct Plain {
    votes: Votes,
    /// Features of weight 1 and at most 16 bytes, hashed together at the
    /// end (their votes do not depend on the order).
    short: Vec<ShortBytes>,
    weight: i64,
}

impl Plain {
    /// Reads every item; `false` at the first one it does not take.
    fn all<'py>(&mut self, items: impl Iterator<Item = Bound<'py, PyAny>>) -> PyResult<bool> {
        for item in items {
            let read = match item.cast::<PyString>() {
                Ok(text) => self.add(text, self.weight)?,
                Err(_) => match item.cast::<PyTuple>() {
                    Ok(t) if t.len() == 2 => self.pair(&t.get_item(0)?, &t.get_item(1)?)?,
                    _ => false,
                },
            };
            if !read {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn pair(&mut self, text: &Bound<'_, PyAny>, weight: &Bound<'_, PyAny>) -> PyResult<bool> {
        let (Ok(text), Ok(weight)) = (text.cast::<PyString>(), weight.cast::<PyInt>()) else {
            return Ok(false);
        };
        match weight.extract::<i64>() {
            Ok(w) if w >= 0 => {
                self.weight = w;
                self.add(text, w)
            }
            _ => Ok(false),
        }
    }

    /// One feature of weight `weight` (0 or more: the cutoff does not
    /// matter); a lone surrogate fails here, as in the package, since
    /// every feature before it was read without error.
    fn add(&mut self, text: &Bound<'_, PyString>, weight: i64) -> PyResult<bool> {
        let bytes = utf8(text)?;
        self.votes.total += weight as f64;
        match ShortBytes::new(&bytes).filter(|_| weight == 1) {
            Some(bytes) => self.short.push(bytes),
            None if weight == 0 => {}
            None => self
                .votes
                .add(FeatureHash::Md5.hash(&bytes, Width::W128), weight as f64),
        }
        Ok(true)
    }
}

/// The value when every weight is an int: every sum is an integer, so the
/// order of additions does not matter.
fn integers(features: &[Feature<'_>], f: u32, cutoff: f64) -> PyResult<u128> {
    let mut votes = Votes::new(f);
    // Features of weight 1 and at most 16 bytes, hashed together at the
    // end (their votes do not depend on the order).
    let mut short = Vec::new();
    let mut weight = 1i64;
    for feature in features {
        // A pair's int weight above the cutoff adds `bits * w`; any other
        // int repeats the digest `w` times, none when `w` is below 1.
        let adds = match feature.weight {
            Some(Weight::Int(w)) => {
                weight = w;
                if w as f64 > cutoff { w } else { w.max(0) }
            }
            _ => weight.max(0),
        };
        // Read even when it adds nothing: a lone surrogate fails here.
        let bytes = utf8(&feature.text)?;
        votes.total += weight as f64;
        if adds == 0 {
            continue;
        }
        match ShortBytes::new(&bytes).filter(|_| adds == 1) {
            Some(bytes) => short.push(bytes),
            None => votes.add(FeatureHash::Md5.hash(&bytes, Width::W128), adds as f64),
        }
    }
    let mut digests = Vec::new();
    md5_each(&short, &mut digests);
    for digest in digests {
        votes.add(digest, 1.0);
    }
    Ok(votes.value())
}

/// The value when a weight is a float: the package's additions in its
/// order. A batch of digests is summed as integers and added when it holds
/// `batch_size` features, and at the end; a pair of float weight, or of an
/// int one over the cutoff, adds at once.
fn in_order(features: &[Feature<'_>], f: u32, cutoff: f64, batch_size: f64) -> PyResult<u128> {
    let bits = f as usize;
    let mut sums = [0.0f64; 128];
    let mut batch = [0i64; 128];
    let mut batched = 0usize;
    let mut total = 0.0f64;
    let mut weight = Weight::Int(1);
    for feature in features {
        let at_once = match feature.weight {
            Some(w) => {
                weight = w;
                match w {
                    Weight::Int(w) => w as f64 > cutoff,
                    Weight::Float(_) => true,
                }
            }
            None => false,
        };
        total += weight.get();
        let bytes = utf8(&feature.text)?;
        let hash = FeatureHash::Md5.hash(&bytes, Width::W128) & mask(f);
        match weight {
            _ if at_once => add_bits(&mut sums[..bits], hash, weight.get()),
            Weight::Int(w) => {
                for (j, sum) in batch[..bits].iter_mut().enumerate() {
                    *sum += w.max(0) * ((hash >> j) & 1) as i64;
                }
                batched += 1;
                if batched as f64 >= batch_size {
                    flush(&mut sums[..bits], &mut batch[..bits]);
                    batched = 0;
                }
            }
            // Found before: a plain str after a float weight.
            Weight::Float(_) => {
                return Err(PyTypeError::new_err(
                    "can't multiply sequence by non-int of type 'float'",
                ));
            }
        }
    }
    if batched > 0 {
        flush(&mut sums[..bits], &mut batch[..bits]);
    }
    Ok(bits_over(sums[..bits].iter().copied(), total))
}

/// Adds a batch's integer sums to the running ones, and empties it.
fn flush(sums: &mut [f64], batch: &mut [i64]) {
    for (sum, b) in sums.iter_mut().zip(batch.iter_mut()) {
        *sum += *b as f64;
        *b = 0;
    }
}

/// The value from the Python helper, which reads any feature as the
/// package does (and fails where it fails).
fn helper<'py>(
    py: Python<'py>,
    items: Vec<Bound<'py, PyAny>>,
    f: u32,
    constants: &Constants<'_, 'py>,
) -> PyResult<u128> {
    let cutoff = constants.get(py, "large_weight_cutoff", LARGE_WEIGHT_CUTOFF)?;
    let batch_size = constants.get(py, "batch_size", BATCH_SIZE)?;
    let md5 = crate::compat_simhash::default_hashfunc(py)?;
    FEATURES_VALUE
        .import(py, "neardup.compat", "_features_value")?
        .call1((PyList::new(py, items)?, f, md5, false, cutoff, batch_size))?
        .extract()
}
