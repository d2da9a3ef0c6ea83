//! `Index`: fingerprints with ids, queried for those within k bits, saved
//! to and opened from the index directory the CLI's `neardup index` uses.

use std::path::PathBuf;

use neardup_core::Width;
use neardup_index::{AnyOnlineIndex, TablePlan};
use neardup_store::{AnyStore, StoreOptions, StoreSettings};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use rustc_hash::FxHashMap;

use crate::error::{NeardupError, to_py};
use crate::fingerprint::fingerprints_from_py;

/// Fingerprints with ids in memory; a query finds every one within `k`
/// bits, exactly.
///
/// >>> import neardup
/// >>> index = neardup.Index(k=3)
/// >>> index.add(["a", "b"], [0b1011, 0xFFFF_0000])
/// >>> index.query([0b0011])
/// [[('a', 1)]]
#[pyclass(module = "neardup")]
pub(crate) struct Index {
    table: AnyOnlineIndex,
    /// The id of each entry of `table`, by its number there.
    names: Vec<String>,
    numbers: FxHashMap<String, u32>,
}

impl Index {
    fn empty(plan: TablePlan) -> PyResult<Index> {
        Ok(Index {
            table: AnyOnlineIndex::new(plan).map_err(to_py)?,
            names: Vec::new(),
            numbers: FxHashMap::default(),
        })
    }

    fn width(&self) -> Width {
        self.table.plan().width()
    }

    fn insert(&mut self, ids: &[String], fingerprints: &[u128]) -> PyResult<()> {
        if ids.len() != fingerprints.len() {
            return Err(NeardupError::new_err(format!(
                "{} ids for {} fingerprints; give one id per fingerprint",
                ids.len(),
                fingerprints.len()
            )));
        }
        let mut seen = rustc_hash::FxHashSet::default();
        for id in ids {
            if self.numbers.contains_key(id) || !seen.insert(id) {
                return Err(NeardupError::new_err(format!(
                    "id {id:?} is in the index already; ids are unique (remove it first)"
                )));
            }
        }
        for (id, &f) in ids.iter().zip(fingerprints) {
            let number = self.table.insert(f).map_err(to_py)?;
            debug_assert_eq!(number as usize, self.names.len());
            self.names.push(id.clone());
            self.numbers.insert(id.clone(), number);
        }
        Ok(())
    }
}

#[pymethods]
impl Index {
    #[new]
    #[pyo3(signature = (k = 3, width = 64, expected = 1_000_000))]
    fn new(k: u32, width: u32, expected: u64) -> PyResult<Index> {
        let width = Width::from_bits(width).map_err(to_py)?;
        let plan = TablePlan::choose(width, k, expected.max(1) as f64, None)
            .and_then(|c| c.plan(width, k))
            .map_err(to_py)?;
        Index::empty(plan)
    }

    /// Adds `fingerprints` under `ids` (str, unique).
    fn add(&mut self, ids: Vec<String>, fingerprints: &Bound<'_, PyAny>) -> PyResult<()> {
        let fingerprints = fingerprints_from_py(fingerprints, self.width())?;
        self.insert(&ids, &fingerprints)
    }

    /// For each fingerprint, the `(id, distance)` of every indexed one
    /// within k bits, nearest first (then by id).
    fn query(
        &self,
        py: Python<'_>,
        fingerprints: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<Vec<(String, u32)>>> {
        let queries = fingerprints_from_py(fingerprints, self.width())?;
        let found = py.detach(|| self.table.query_batch(&queries));
        Ok(found
            .into_iter()
            .map(|matches| {
                let mut named: Vec<(String, u32)> = matches
                    .into_iter()
                    .map(|m| (self.names[m.id as usize].clone(), m.distance))
                    .collect();
                named.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
                named
            })
            .collect())
    }

    /// Removes the fingerprints of `ids`; a `KeyError` (and nothing
    /// removed) if one is not there.
    fn remove(&mut self, ids: Vec<String>) -> PyResult<()> {
        if let Some(missing) = ids.iter().find(|id| !self.numbers.contains_key(*id)) {
            return Err(PyKeyError::new_err(missing.clone()));
        }
        for id in &ids {
            if let Some(number) = self.numbers.remove(id) {
                self.table.remove(number);
            }
        }
        Ok(())
    }

    /// The fingerprint stored under `id`.
    fn get(&self, id: &str) -> PyResult<u128> {
        self.numbers
            .get(id)
            .and_then(|&n| self.table.get(n))
            .ok_or_else(|| PyKeyError::new_err(id.to_string()))
    }

    /// Writes the index to directory `path` (made if missing; it must not
    /// hold an index yet) as a store, the one `neardup index build` makes:
    /// `neardup index query`, `neardup serve` and `Index.open` read it. The
    /// store records no fingerprint settings (an index does not know how
    /// its fingerprints were made), so runs against it are taken on trust.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let mut entries: Vec<(&String, u32)> =
            self.numbers.iter().map(|(id, &n)| (id, n)).collect();
        entries.sort_unstable_by_key(|&(_, n)| n);
        let fingerprints: Vec<u128> = entries
            .iter()
            .filter_map(|&(_, n)| self.table.get(n))
            .collect();
        let names: Vec<&String> = entries.iter().map(|&(id, _)| id).collect();
        let settings = StoreSettings::new(self.width(), self.k(), serde_json::Value::Null, false);
        py.detach(|| {
            if AnyStore::exists(&path) {
                return Err(neardup_store::Error::Input(format!(
                    "{} already holds an index; add to it, or remove it first",
                    path.display()
                )));
            }
            AnyStore::open(&path, Some(&settings), StoreOptions::default())?
                .insert_all(&fingerprints, &names)
        })
        .map_err(to_py)
    }

    /// The index in directory `path`, as `neardup index build` or
    /// `Index.save` wrote it, loaded into memory; it may be read while
    /// `neardup serve` writes it.
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<Index> {
        let (settings, entries) = py
            .detach(|| {
                let store = AnyStore::open_read_only(&path)?;
                Ok::<_, neardup_store::Error>((store.settings().clone(), store.entries()))
            })
            .map_err(to_py)?;
        let (width, k) = (settings.width, settings.k);
        let plan = TablePlan::choose(width, k, entries.len().max(1) as f64, None)
            .and_then(|c| c.plan(width, k))
            .map_err(to_py)?;
        let mut index = Index::empty(plan)?;
        let (names, fingerprints): (Vec<String>, Vec<u128>) = entries.into_iter().unzip();
        index.insert(&names, &fingerprints)?;
        Ok(index)
    }

    /// The k of its queries.
    #[getter]
    fn k(&self) -> u32 {
        self.table.plan().k()
    }

    /// The width of its fingerprints in bits.
    #[getter]
    fn get_width(&self) -> u32 {
        self.width().bits()
    }

    fn __len__(&self) -> usize {
        self.numbers.len()
    }

    fn __contains__(&self, id: &str) -> bool {
        self.numbers.contains_key(id)
    }

    fn __repr__(&self) -> String {
        format!(
            "Index(k={}, width={}, len={})",
            self.k(),
            self.width().bits(),
            self.numbers.len()
        )
    }
}
