//! `Index`: fingerprints with ids, queried for those within k bits. Made
//! in memory, or opened in place on the index directory the CLI's
//! `neardup index`, `dedup --save-index` and `neardup serve` share, where
//! adds and removes are written durably. Safe to share between threads:
//! queries run at once (with the GIL released), writes one at a time.

use std::path::PathBuf;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use neardup_core::Width;
use neardup_index::{AnyOnlineIndex, TablePlan};
use neardup_store::{AnyStore, StoreOptions, StoreSettings, Write};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::error::{self, InputError, StorageError, settings};
use crate::fingerprint::{Fingerprinter, fingerprints_from_py};
use crate::params;
use crate::texts::{ids_from_py, one_id};

/// Fingerprints with ids; a query finds every one within `k` bits,
/// exactly.
///
/// >>> import neardup
/// >>> index = neardup.Index(k=3)
/// >>> index.add(["a", "b"], [0b1011, 0xFFFF_0000])
/// >>> index.query([0b0011])
/// [[('a', 1)]]
#[pyclass(module = "neardup", frozen)]
pub(crate) struct Index {
    backing: Backing,
}

/// Where an index's entries are.
enum Backing {
    /// In memory, behind a lock: queries share it, writes take it alone.
    Memory(Box<RwLock<Table>>),
    /// A store on disk, written in place (it orders its own writes);
    /// `None` once closed.
    Store {
        store: RwLock<Option<AnyStore>>,
        read_only: bool,
    },
}

/// An index in memory: the table, and the ids of its entries.
struct Table {
    table: AnyOnlineIndex,
    /// The id of each entry of `table`, by its number there.
    names: Vec<String>,
    numbers: FxHashMap<String, u32>,
}

impl Table {
    fn new(plan: TablePlan) -> PyResult<Table> {
        Ok(Table {
            table: AnyOnlineIndex::new(plan).map_err(|e| settings("k", e))?,
            names: Vec::new(),
            numbers: FxHashMap::default(),
        })
    }

    fn insert(&mut self, ids: &[String], fingerprints: &[u128]) -> PyResult<()> {
        new_ids(ids, |id| self.numbers.contains_key(id))?;
        for (id, &f) in ids.iter().zip(fingerprints) {
            let number = self
                .table
                .insert(f)
                .map_err(|e| settings("fingerprints", e))?;
            self.names.push(id.clone());
            self.numbers.insert(id.clone(), number);
        }
        Ok(())
    }
}

/// Refuses `ids` that repeat or that `stored` says are there, naming the
/// first.
fn new_ids(ids: &[String], stored: impl Fn(&str) -> bool) -> PyResult<()> {
    let mut seen = FxHashSet::default();
    match ids
        .iter()
        .find(|id| stored(id) || !seen.insert(id.as_str()))
    {
        Some(id) => Err(InputError::new_err(format!(
            "id {id:?} is in the index already; ids are unique (remove it first)"
        ))),
        None => Ok(()),
    }
}

impl Index {
    fn width(&self) -> PyResult<Width> {
        Ok(match &self.backing {
            Backing::Memory(t) => read(t).table.plan().width(),
            Backing::Store { .. } => self.store()?.settings().width,
        })
    }

    /// The store of an opened index (a handle: a call that holds it keeps
    /// the store open past a `close` until it returns).
    fn store(&self) -> PyResult<AnyStore> {
        match &self.backing {
            Backing::Store { store, .. } => store
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
                .ok_or_else(|| StorageError::new_err("this index is closed")),
            Backing::Memory(_) => Err(StorageError::new_err("an index in memory has no store")),
        }
    }

    fn writable(&self) -> PyResult<AnyStore> {
        match &self.backing {
            Backing::Store {
                read_only: false, ..
            } => self.store(),
            _ => Err(StorageError::new_err(
                "this index was opened with read_only=True; open it without to write",
            )),
        }
    }
}

fn read(table: &RwLock<Table>) -> RwLockReadGuard<'_, Table> {
    table.read().unwrap_or_else(|e| e.into_inner())
}

fn write(table: &RwLock<Table>) -> RwLockWriteGuard<'_, Table> {
    table.write().unwrap_or_else(|e| e.into_inner())
}

#[pymethods]
impl Index {
    #[new]
    #[pyo3(signature = (k = 3, width = 64, expected = 1_000_000))]
    fn new(k: i64, width: i64, expected: i64) -> PyResult<Index> {
        let k = params::bits(k, "k")?;
        let width = Width::from_bits(u32::try_from(width).unwrap_or(0))
            .map_err(|e| settings("width", e))?;
        let expected = params::positive(Some(expected), "expected")?.unwrap_or(1);
        let plan = TablePlan::choose(width, k, expected as f64, None)
            .and_then(|c| c.plan(width, k))
            .map_err(|e| settings("k", e))?;
        Ok(Index {
            backing: Backing::Memory(Box::new(RwLock::new(Table::new(plan)?))),
        })
    }

    /// The index in directory `path` (as `neardup index build`, `dedup
    /// --save-index`, `neardup serve` or `Index.save` wrote it), opened in
    /// place: `add` and `remove` write to it, durably. With
    /// `read_only=True` it is read beside its writer (`neardup serve`, say)
    /// and writes are refused.
    #[staticmethod]
    #[pyo3(signature = (path, read_only = false))]
    fn open(py: Python<'_>, path: PathBuf, read_only: bool) -> PyResult<Index> {
        let store = py
            .detach(|| {
                if read_only {
                    AnyStore::open_read_only(&path)
                } else {
                    AnyStore::open(&path, None, StoreOptions::default())
                }
            })
            .map_err(error::store)?;
        Ok(Index {
            backing: Backing::Store {
                store: RwLock::new(Some(store)),
                read_only,
            },
        })
    }

    /// Adds `fingerprints` under `ids` (str or int, unique), all or none.
    fn add(
        &self,
        py: Python<'_>,
        ids: &Bound<'_, PyAny>,
        fingerprints: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let ids = ids_from_py(ids, "ids")?;
        let fingerprints = fingerprints_from_py(fingerprints, self.width()?)?;
        if ids.len() != fingerprints.len() {
            return Err(InputError::new_err(format!(
                "{} ids for {} fingerprints; give one id per fingerprint",
                ids.len(),
                fingerprints.len()
            )));
        }
        match &self.backing {
            Backing::Memory(t) => py.detach(|| write(t).insert(&ids, &fingerprints)),
            Backing::Store { .. } => {
                let store = self.writable()?;
                if store.settings().texts {
                    return Err(InputError::new_err(
                        "this index keeps texts (made by dedup --save-index, neardup serve \
                         --store-text or a Deduper): add documents with their texts, through \
                         neardup.Deduper(index=...), so that later ones are judged by them",
                    ));
                }
                py.detach(|| store.insert_all(&fingerprints, &ids))
                    .map_err(error::store)
            }
        }
    }

    /// For each fingerprint, the `(id, distance)` of every indexed one
    /// within k bits, nearest first (then by id).
    fn query(
        &self,
        py: Python<'_>,
        fingerprints: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<Vec<(String, u32)>>> {
        let queries = fingerprints_from_py(fingerprints, self.width()?)?;
        let mut found: Vec<Vec<(String, u32)>> = match &self.backing {
            Backing::Memory(t) => py.detach(|| {
                let table = read(t);
                table
                    .table
                    .query_batch(&queries)
                    .into_iter()
                    .map(|matches| {
                        matches
                            .into_iter()
                            .map(|m| (table.names[m.id as usize].clone(), m.distance))
                            .collect()
                    })
                    .collect()
            }),
            Backing::Store { .. } => {
                let store = self.store()?;
                let k = store.settings().k;
                py.detach(|| {
                    queries
                        .par_iter()
                        .map(|&q| {
                            store
                                .query(q, k)
                                .map(|hits| hits.into_iter().map(|h| (h.id, h.distance)).collect())
                        })
                        .collect::<Result<_, _>>()
                })
                .map_err(error::store)?
            }
        };
        for named in &mut found {
            named.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        }
        Ok(found)
    }

    /// Removes the fingerprints of `ids`; a `KeyError` (and nothing
    /// removed) if one is not there.
    fn remove(&self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<()> {
        let ids = ids_from_py(ids, "ids")?;
        match &self.backing {
            Backing::Memory(t) => {
                let mut table = write(t);
                if let Some(missing) = ids.iter().find(|id| !table.numbers.contains_key(*id)) {
                    return Err(PyKeyError::new_err(missing.clone()));
                }
                for id in &ids {
                    if let Some(number) = table.numbers.remove(id) {
                        table.table.remove(number);
                    }
                }
                Ok(())
            }
            Backing::Store { .. } => {
                let store = self.writable()?;
                let missing = py
                    .detach(|| -> neardup_store::Result<Option<String>> {
                        for id in &ids {
                            if store.get(id)?.is_none() {
                                return Ok(Some(id.clone()));
                            }
                        }
                        Ok(None)
                    })
                    .map_err(error::store)?;
                if let Some(missing) = missing {
                    return Err(PyKeyError::new_err(missing));
                }
                let deletes = ids.into_iter().map(Write::Delete).collect();
                py.detach(|| store.write(deletes, None))
                    .map_err(error::store)?;
                Ok(())
            }
        }
    }

    /// The fingerprint stored under `id` (str or int).
    fn get(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<u128> {
        let id = one_id(id, "id", None)?;
        let found = match &self.backing {
            Backing::Memory(t) => {
                let table = read(t);
                table.numbers.get(&id).and_then(|&n| table.table.get(n))
            }
            Backing::Store { .. } => {
                let store = self.store()?;
                py.detach(|| store.get(&id))
                    .map_err(error::store)?
                    .map(|d| d.fingerprint)
            }
        };
        found.ok_or_else(|| PyKeyError::new_err(id))
    }

    /// Writes the index to directory `path` (made if missing; it must not
    /// hold an index yet) as a store, the one `neardup index build` makes:
    /// `neardup index query`, `neardup serve` and `Index.open` read it.
    /// Given the `fingerprinter` that made its fingerprints, the store
    /// records its settings, and runs against it with other settings are
    /// refused; without one, an index opened from a store keeps the
    /// store's (a fingerprinter of other settings than those is refused),
    /// and an index made in memory records none (runs against it are taken
    /// on trust).
    #[pyo3(signature = (path, fingerprinter = None))]
    fn save(
        &self,
        py: Python<'_>,
        path: PathBuf,
        fingerprinter: Option<PyRef<'_, Fingerprinter>>,
    ) -> PyResult<()> {
        let width = self.width()?;
        let stored = match &self.backing {
            Backing::Memory(_) => None,
            Backing::Store { .. } => self.store()?.settings().fingerprint.clone(),
        };
        let given = fingerprinter.map(|f| f.inner.settings());
        if let Some(differ) = stored
            .as_ref()
            .zip(given.as_ref())
            .and_then(|(stored, given)| stored.difference(given))
        {
            return Err(settings(
                "fingerprinter",
                format!(
                    "the index's fingerprints were made with other settings ({differ}); give \
                     the fingerprinter that made them, or none"
                ),
            ));
        }
        let recorded = given.or(stored);
        if let Some(made) = recorded.as_ref().filter(|made| made.width != width) {
            return Err(settings(
                "fingerprinter",
                format!(
                    "it makes {}-bit fingerprints, and the index holds {}-bit ones",
                    made.width.bits(),
                    width.bits()
                ),
            ));
        }
        let entries: Vec<(String, u128)> = match &self.backing {
            Backing::Memory(t) => {
                let table = read(t);
                let mut entries: Vec<(&String, u32)> =
                    table.numbers.iter().map(|(id, &n)| (id, n)).collect();
                entries.sort_unstable_by_key(|&(_, n)| n);
                entries
                    .into_iter()
                    .filter_map(|(id, n)| table.table.get(n).map(|f| (id.clone(), f)))
                    .collect()
            }
            Backing::Store { .. } => self.store()?.entries(),
        };
        let (names, fingerprints): (Vec<String>, Vec<u128>) = entries.into_iter().unzip();
        let mut settings = StoreSettings::builder(self.k()?);
        settings.width(width);
        if let Some(recorded) = recorded {
            settings.fingerprint(recorded);
        }
        let settings = settings.build();
        py.detach(|| {
            if AnyStore::exists(&path) {
                return Err(neardup_store::Error::AlreadyExists { dir: path.clone() });
            }
            AnyStore::open(&path, Some(&settings), StoreOptions::default())?
                .insert_all(&fingerprints, &names)
        })
        .map_err(error::store)
    }

    /// The k of its queries.
    #[getter]
    fn k(&self) -> PyResult<u32> {
        Ok(match &self.backing {
            Backing::Memory(t) => read(t).table.plan().k(),
            Backing::Store { .. } => self.store()?.settings().k,
        })
    }

    /// The width of its fingerprints in bits.
    #[getter]
    fn get_width(&self) -> PyResult<u32> {
        Ok(self.width()?.bits())
    }

    /// Closes an index opened from a directory: its store is let go (once
    /// the calls under way return), for another writer to open. Closing
    /// twice, or an index in memory, does nothing.
    fn close(&self) {
        if let Backing::Store { store, .. } = &self.backing {
            store.write().unwrap_or_else(|e| e.into_inner()).take();
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, pyo3::types::PyTuple>) {
        self.close();
    }

    /// Whether it is open to read only.
    #[getter]
    fn read_only(&self) -> bool {
        matches!(
            self.backing,
            Backing::Store {
                read_only: true,
                ..
            }
        )
    }

    fn __len__(&self) -> PyResult<usize> {
        Ok(match &self.backing {
            Backing::Memory(t) => read(t).numbers.len(),
            Backing::Store { .. } => self.store()?.stats().documents,
        })
    }

    fn __contains__(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<bool> {
        match self.get(py, id) {
            Ok(_) => Ok(true),
            Err(e) if e.is_instance_of::<PyKeyError>(py) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn __repr__(&self) -> String {
        match (self.k(), self.width(), self.__len__()) {
            (Ok(k), Ok(width), Ok(len)) => {
                format!("Index(k={k}, width={}, len={len})", width.bits())
            }
            _ => "Index(closed)".to_string(),
        }
    }
}
