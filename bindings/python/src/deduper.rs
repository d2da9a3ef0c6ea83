//! `_Deduper`: the library's [`neardup_dedup::Deduper`] (batches judged
//! against a store of the documents kept before them) for the package's
//! `neardup.Deduper`, which adds the conversions of columns, nulls and
//! ids.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use neardup_dedup::{DEFAULT_K, DEFAULT_THRESHOLD};
use numpy::PyArray1;
use pyo3::prelude::*;

use crate::dedup::Settings;
use crate::error::{self, InputError, StorageError};
use crate::interrupt::interruptible;
use crate::params;
use crate::texts::Texts;

/// Documents deduplicated batch by batch (the package's `Deduper` wraps
/// it).
#[pyclass(module = "neardup._neardup", frozen)]
pub(crate) struct Deduper {
    /// `None` once closed; a call under way holds its own handle.
    inner: RwLock<Option<Arc<neardup_dedup::Deduper>>>,
    /// The folder of its store; `None` for a temporary one.
    path: Option<PathBuf>,
}

#[pymethods]
impl Deduper {
    #[new]
    #[pyo3(signature = (index = None, *, threshold = DEFAULT_THRESHOLD, k = i64::from(DEFAULT_K),
        profile = "auto", width = 64, short_rule = true, verify = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        index: Option<PathBuf>,
        threshold: f64,
        k: i64,
        profile: &str,
        width: i64,
        short_rule: bool,
        verify: Option<&str>,
    ) -> PyResult<Deduper> {
        let settings = Settings {
            threshold,
            k: params::bits(k, "k")?,
            keep: "first",
            cluster: "greedy",
            profile,
            width: u32::try_from(width).unwrap_or(0),
            short_rule,
            verify,
            against: None,
            memory: None,
            files: false,
        };
        let rule = settings.rule()?;
        settings.job(None)?;
        let inner = py
            .detach(|| match &index {
                Some(dir) => neardup_dedup::Deduper::open(dir, rule),
                None => neardup_dedup::Deduper::temporary(rule),
            })
            .map_err(error::run)?;
        Ok(Deduper {
            inner: RwLock::new(Some(Arc::new(inner))),
            path: index,
        })
    }

    /// Judges `texts` (no nulls) named `ids` (str, new and unique) against
    /// the documents kept before each, and keeps the kept ones; gives
    /// `(duplicate_of, distance, similarity)`: for each text, the id of the
    /// kept document it duplicates (`None` when kept), their distance in
    /// bits and their similarity (-1 and NaN when kept).
    fn add<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        ids: Vec<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let texts = Texts::from_py(texts, "texts")?;
        if ids.len() != texts.len() {
            return Err(InputError::new_err(format!(
                "{} ids for {} texts; give one id per text",
                ids.len(),
                texts.len()
            )));
        }
        let strs = texts.strs("texts")?;
        let docs: Vec<(&str, &str)> = ids.iter().map(String::as_str).zip(strs).collect();
        let inner = self.inner()?;
        let fates = interruptible(py, |_| inner.add(&docs))?.map_err(error::run)?;
        let mut of = Vec::with_capacity(fates.len());
        let mut distance = Vec::with_capacity(fates.len());
        let mut similarity = Vec::with_capacity(fates.len());
        for fate in fates {
            match fate {
                None => {
                    of.push(None);
                    distance.push(-1i32);
                    similarity.push(f32::NAN);
                }
                Some(d) => {
                    distance.push(d.distance as i32);
                    similarity.push(d.similarity.map_or(f32::NAN, |s| s as f32));
                    of.push(Some(d.id));
                }
            }
        }
        (
            of,
            PyArray1::from_vec(py, distance),
            PyArray1::from_vec(py, similarity),
        )
            .into_pyobject(py)
            .map(|t| t.into_any())
    }

    /// How many documents it keeps.
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.inner()?.len())
    }

    /// Lets its index go (once the batch under way is added), for another
    /// writer to open; a temporary one is removed.
    fn close(&self) {
        self.inner.write().unwrap_or_else(|e| e.into_inner()).take();
    }

    /// The folder of its index, or `None` for a temporary one.
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.path.clone()
    }

    /// The k of its rule.
    #[getter]
    fn k(&self) -> PyResult<u32> {
        Ok(self.inner()?.rule().k_bits())
    }
}

impl Deduper {
    fn inner(&self) -> PyResult<Arc<neardup_dedup::Deduper>> {
        self.inner
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| StorageError::new_err("this deduper is closed"))
    }
}
