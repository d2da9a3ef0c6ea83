//! What `neardup.compat` needs to be PyPI `simhash` 2.x bit for bit: its
//! text fingerprint (the core's `python-simhash` profile), its fingerprint
//! of weighted features, and its index's answers (exact, so any table plan
//! gives them; its bucket count is kept as it counts them).

use neardup_core::{FeatureHash, Fingerprinter, Profile, Width};
use neardup_index::{AnyOnlineIndex, TablePlan};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyDict, PyString};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::error::{NeardupError, to_py};

/// Features whose MD5 a thread keeps at most; past it, it starts again.
const REMEMBERED: usize = 1 << 19;

thread_local! {
    /// The MD5s of the features a thread met lately: feature lists repeat
    /// their features within a text and across texts, and a lookup costs a
    /// fraction of an MD5.
    static DIGESTS: std::cell::RefCell<FxHashMap<Box<[u8]>, u128>> =
        std::cell::RefCell::new(FxHashMap::default());
}

/// The MD5 of `bytes` cut to its last `f / 8` bytes, read big-endian: the
/// package's feature hash.
fn feature_hash(bytes: &[u8], f: u32) -> u128 {
    let digest = DIGESTS.with_borrow_mut(|digests| {
        if let Some(&d) = digests.get(bytes) {
            return d;
        }
        let d = FeatureHash::Md5.hash(bytes, Width::W128);
        if digests.len() >= REMEMBERED {
            digests.clear();
        }
        digests.insert(bytes.into(), d);
        d
    });
    digest & mask(f)
}

fn mask(f: u32) -> u128 {
    if f >= 128 {
        u128::MAX
    } else {
        (1u128 << f) - 1
    }
}

fn check_f(f: u32) -> PyResult<()> {
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
    f: usize,
    ones: [u64; 128],
    weighted: [f64; 128],
    total: f64,
}

impl Votes {
    fn new(f: u32) -> Votes {
        Votes {
            f: f as usize,
            ones: [0; 128],
            weighted: [0.0; 128],
            total: 0.0,
        }
    }

    fn add(&mut self, hash: u128, weight: f64) {
        self.total += weight;
        let f = self.f;
        if weight == 1.0 {
            // Branch-free on 64-bit words, so that the compiler can
            // vectorise it.
            let (low, high) = self.ones[..f].split_at_mut(f.min(64));
            let words = [hash as u64, (hash >> 64) as u64];
            for (counts, word) in [low, high].into_iter().zip(words) {
                for (j, count) in counts.iter_mut().enumerate() {
                    *count += word >> j & 1;
                }
            }
        } else {
            for (j, sum) in self.weighted[..f].iter_mut().enumerate() {
                *sum += weight * ((hash >> j) as u64 & 1) as f64;
            }
        }
    }

    fn value(&self, f: u32) -> u128 {
        (0..f as usize)
            .filter(|&j| self.ones[j] as f64 + self.weighted[j] > self.total / 2.0)
            .fold(0, |v, j| v | 1 << j)
    }
}

/// `Simhash(text, f).value` with the default `reg` and `hashfunc`.
#[pyfunction]
pub(crate) fn simhash_text(py: Python<'_>, text: PyBackedStr, f: u32) -> PyResult<u128> {
    check_f(f)?;
    if f == 64 || f == 128 {
        let fp = Fingerprinter::builder(Profile::PythonSimhash)
            .width(Width::from_bits(f).map_err(to_py)?)
            .build()
            .map_err(to_py)?;
        return Ok(py.detach(|| fp.fingerprint(&text).bits()));
    }
    // Other widths take the last bytes of the same MD5s.
    let fp = Fingerprinter::builder(Profile::PythonSimhash)
        .width(Width::W128)
        .build()
        .map_err(to_py)?;
    let mut votes = Votes::new(f);
    for feature in fp.weighted_features(&text) {
        votes.add(feature.hash & mask(f), feature.weight);
    }
    Ok(votes.value(f))
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
    let mut weight = 1.0;
    for item in items.try_iter()? {
        let item = item?;
        let feature: PyBackedStr = if item.is_instance_of::<PyString>() {
            item.extract()?
        } else {
            let (feature, w): (PyBackedStr, f64) = item.extract().map_err(|_| {
                PyTypeError::new_err(
                    "a feature is a str or a (str, weight) pair, the weight a number",
                )
            })?;
            // As in the package, a weight holds for the plain strs after it.
            weight = w;
            feature
        };
        votes.add(feature_hash(feature.as_bytes(), f), weight);
    }
    Ok(votes.value(f))
}

/// `SimhashIndex`'s state: `(value, id)` entries, each once, and the keys
/// of the buckets it has made.
#[pyclass(module = "neardup.compat")]
pub(crate) struct CompatIndex {
    f: u32,
    k: u32,
    table: AnyOnlineIndex,
    entries: FxHashMap<(u128, String), u32>,
    ids: Vec<String>,
    buckets: FxHashSet<(u32, u128)>,
}

impl CompatIndex {
    /// The package's bucket keys of `value`: k + 1 slices of equal width
    /// (the last takes the rest), each with its number.
    fn touch(&mut self, value: u128) {
        let step = self.f / (self.k + 1);
        for i in 0..=self.k {
            let offset = step * i;
            let end = if i == self.k { self.f } else { step * (i + 1) };
            let part = (value >> offset) & mask(end - offset);
            self.buckets.insert((i, part));
        }
    }
}

#[pymethods]
impl CompatIndex {
    #[new]
    fn new(f: u32, k: u32) -> PyResult<CompatIndex> {
        check_f(f)?;
        if k >= f {
            return Err(NeardupError::new_err(format!(
                "k = {k}: give less than f = {f}"
            )));
        }
        let width = if f <= 64 { Width::W64 } else { Width::W128 };
        let plan = TablePlan::choose(width, k, 1e5, None)
            .and_then(|c| c.plan(width, k))
            .map_err(to_py)?;
        Ok(CompatIndex {
            f,
            k,
            table: AnyOnlineIndex::new(plan).map_err(to_py)?,
            entries: FxHashMap::default(),
            ids: Vec::new(),
            buckets: FxHashSet::default(),
        })
    }

    fn add(&mut self, id: String, value: u128) -> PyResult<()> {
        let value = value & mask(self.f);
        self.touch(value);
        if self.entries.contains_key(&(value, id.clone())) {
            return Ok(());
        }
        let number = self.table.insert(value).map_err(to_py)?;
        if number as usize >= self.ids.len() {
            self.ids.resize(number as usize + 1, String::new());
        }
        self.ids[number as usize] = id.clone();
        self.entries.insert((value, id), number);
        Ok(())
    }

    fn delete(&mut self, id: String, value: u128) {
        let value = value & mask(self.f);
        self.touch(value);
        if let Some(number) = self.entries.remove(&(value, id)) {
            self.table.remove(number);
        }
    }

    fn get_near_dups(&mut self, value: u128) -> Vec<String> {
        let value = value & mask(self.f);
        self.touch(value);
        let mut found: Vec<String> = self.table.query_batch(&[value])[0]
            .iter()
            .map(|m| self.ids[m.id as usize].clone())
            .collect();
        // One answer per id, as the package's set gives.
        found.sort_unstable();
        found.dedup();
        found
    }

    fn bucket_size(&self) -> usize {
        self.buckets.len()
    }
}
