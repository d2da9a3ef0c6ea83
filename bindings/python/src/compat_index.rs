//! `neardup.compat.SimhashIndex`: PyPI `simhash` 2.x's index, its
//! constructor, methods and answers, as a Rust class over the engine's
//! online index. Its answers are exact, so any table plan gives the
//! package's; its bucket count is kept as the package counts buckets
//! (queries make them too).

use neardup_core::Width;
use neardup_index::{AnyOnlineIndex, TablePlan};
use pyo3::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::compat::{check_f, mask};
use crate::compat_simhash::{DEFAULT_LOG, bits_of, compat_attr};
use crate::error::{NeardupError, to_py};

/// Fingerprints with ids; ``get_near_dups`` gives the ids of every one
/// within ``k`` bits (exactly, as the package's buckets do).
///
/// >>> from neardup.compat import Simhash, SimhashIndex
/// >>> index = SimhashIndex([('1', Simhash('How are you? I am fine. Thanks.'))], k=3)
/// >>> index.get_near_dups(Simhash('How are you? I am fine. Thanks!'))
/// ['1']
#[pyclass(module = "neardup.compat", name = "SimhashIndex", subclass, dict)]
pub(crate) struct SimhashIndex {
    #[pyo3(get)]
    f: u32,
    #[pyo3(get)]
    k: u32,
    #[pyo3(get, set)]
    log: Py<PyAny>,
    table: AnyOnlineIndex,
    /// Each `(value, id)` once, with its number in `table`.
    entries: FxHashMap<(u128, String), u32>,
    ids: Vec<String>,
    buckets: FxHashSet<(u32, u128)>,
}

impl SimhashIndex {
    /// The package's bucket slices: k + 1 of equal width (the last takes
    /// the rest), as `(number, offset, width)`.
    fn slices(&self) -> impl Iterator<Item = (u32, u32, u32)> + use<> {
        let (f, k) = (self.f, self.k);
        let step = f / (k + 1);
        (0..=k).map(move |i| {
            let end = if i == k { f } else { step * (i + 1) };
            (i, step * i, end - step * i)
        })
    }

    /// The buckets a lookup of `value` makes, counted.
    fn touch(&mut self, value: u128) {
        for (i, offset, width) in self.slices() {
            self.buckets.insert((i, (value >> offset) & mask(width)));
        }
    }

    fn insert(&mut self, id: String, value: u128) -> PyResult<()> {
        self.touch(value);
        let std::collections::hash_map::Entry::Vacant(entry) = self.entries.entry((value, id))
        else {
            return Ok(());
        };
        let number = self.table.insert(value).map_err(to_py)?;
        if number as usize >= self.ids.len() {
            self.ids.resize(number as usize + 1, String::new());
        }
        self.ids[number as usize] = entry.key().1.clone();
        entry.insert(number);
        Ok(())
    }
}

#[pymethods]
impl SimhashIndex {
    #[new]
    #[pyo3(signature = (objs, f = 64, k = 2, log = None))]
    fn new(
        py: Python<'_>,
        objs: &Bound<'_, PyAny>,
        f: u32,
        k: u32,
        log: Option<Bound<'_, PyAny>>,
    ) -> PyResult<SimhashIndex> {
        check_f(f)?;
        if k >= f {
            return Err(NeardupError::new_err(format!(
                "k = {k}: give less than f = {f}"
            )));
        }
        let width = if f <= 64 { Width::W64 } else { Width::W128 };
        // The package's own layout, k + 1 tables: an insertion costs a
        // probe of each, and its users' indexes are small or middling.
        let plan = TablePlan::pigeonhole(width, k).map_err(to_py)?;
        let log = match log {
            Some(log) if !log.is_none() => log,
            _ => compat_attr(py, &DEFAULT_LOG, "_LOG")?.clone(),
        };
        log.call_method1("info", ("Initializing %s data.", objs.len()?))?;
        let mut index = SimhashIndex {
            f,
            k,
            log: log.unbind(),
            table: AnyOnlineIndex::new(plan).map_err(to_py)?,
            entries: FxHashMap::default(),
            ids: Vec::new(),
            buckets: FxHashSet::default(),
        };
        for obj in objs.try_iter()? {
            let (id, simhash): (Bound<'_, PyAny>, Bound<'_, PyAny>) = obj?.extract()?;
            index.add(&id, &simhash)?;
        }
        Ok(index)
    }

    /// The ids (str) of the fingerprints within k bits of ``simhash``.
    fn get_near_dups(&mut self, simhash: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let value = bits_of(simhash, self.f)?;
        self.touch(value);
        let mut found: Vec<String> = self.table.query_batch(&[value])[0]
            .iter()
            .map(|m| self.ids[m.id as usize].clone())
            .collect();
        // One answer per id, as the package's set gives.
        found.sort_unstable();
        found.dedup();
        Ok(found)
    }

    /// Adds ``simhash`` under ``obj_id`` (kept as ``str(obj_id)``).
    fn add(&mut self, obj_id: &Bound<'_, PyAny>, simhash: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = bits_of(simhash, self.f)?;
        self.insert(obj_id.str()?.to_cow()?.into_owned(), value)
    }

    /// Removes the entry of ``obj_id`` with this ``simhash``, if any.
    fn delete(&mut self, obj_id: &Bound<'_, PyAny>, simhash: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = bits_of(simhash, self.f)?;
        self.touch(value);
        let id = obj_id.str()?.to_cow()?.into_owned();
        if let Some(number) = self.entries.remove(&(value, id)) {
            self.table.remove(number);
        }
        Ok(())
    }

    /// Where each of the k + 1 bucket slices of a fingerprint starts.
    #[getter]
    fn offsets(&self) -> Vec<u32> {
        self.slices().map(|(_, offset, _)| offset).collect()
    }

    /// The bucket keys of ``simhash``, as the package names them.
    fn get_keys(&self, simhash: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let value = bits_of(simhash, self.f)?;
        Ok(self
            .slices()
            .map(|(i, offset, width)| format!("{:x}:{i:x}", (value >> offset) & mask(width)))
            .collect())
    }

    /// The number of buckets made so far (queries make them too, as in
    /// the package).
    fn bucket_size(&self) -> usize {
        self.buckets.len()
    }
}
