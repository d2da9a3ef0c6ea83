//! `neardup.compat.SimhashIndex`: PyPI `simhash` 2.x's index, its
//! constructor, methods and answers, as a Rust class over the engine's
//! online index. Its answers are exact, so any table plan gives the
//! package's; its bucket count is kept as the package counts buckets
//! (queries make them too). As `Simhash`, `__init__` does the work, and it
//! pickles as a Python object does: a blank index, then its state.

use neardup_core::Width;
use neardup_index::{AnyOnlineIndex, TablePlan};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::compat::{check_f, mask};
use crate::compat_simhash::{DEFAULT_LOG, bits_of, compat_attr, reduce};
use crate::error::to_py;

/// Where the fingerprints are searched.
enum Table {
    /// The engine's index, for `0 <= k` below the width.
    Plan(AnyOnlineIndex),
    /// `k` at least the width: every fingerprint is within `k`.
    All,
    /// `k` below 0: the package keeps no bucket, so finds nothing.
    Nothing,
}

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
    k: i64,
    #[pyo3(get, set)]
    log: Py<PyAny>,
    table: Table,
    /// Each `(value, id)` once, with its number in `table`.
    entries: FxHashMap<(u128, String), u32>,
    ids: Vec<String>,
    next: u32,
    buckets: FxHashSet<(u32, u128)>,
}

impl SimhashIndex {
    fn blank(py: Python<'_>) -> SimhashIndex {
        SimhashIndex {
            f: 64,
            k: 2,
            log: py.None(),
            table: Table::Nothing,
            entries: FxHashMap::default(),
            ids: Vec::new(),
            next: 0,
            buckets: FxHashSet::default(),
        }
    }

    /// An empty index of `f` bits searching within `k`.
    fn start(&mut self, f: u32, k: i64) -> PyResult<()> {
        check_f(f)?;
        let width = if f <= 64 { Width::W64 } else { Width::W128 };
        self.table = match u32::try_from(k) {
            Err(_) => Table::Nothing,
            Ok(k) if k >= width.bits() => Table::All,
            // The package's own layout, k + 1 tables: an insertion costs
            // a probe of each, and its users' indexes are small or middling.
            Ok(k) => Table::Plan(
                AnyOnlineIndex::new(TablePlan::pigeonhole(width, k).map_err(to_py)?)
                    .map_err(to_py)?,
            ),
        };
        self.f = f;
        self.k = k;
        self.entries.clear();
        self.ids.clear();
        self.next = 0;
        self.buckets.clear();
        Ok(())
    }

    /// The package's bucket slices: k + 1 of equal width (the last takes
    /// the rest), as `(number, offset, width)`; none when k is below 0.
    fn slices(&self) -> impl Iterator<Item = (u32, u32, u32)> + use<> {
        let f = self.f;
        let k = u32::try_from(self.k).map_or(None, |k| k.checked_add(1));
        let step = k.map_or(0, |n| f / n);
        (0..k.unwrap_or(0)).map(move |i| {
            let end = if Some(i + 1) == k { f } else { step * (i + 1) };
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
        if matches!(self.table, Table::Nothing) {
            return Ok(());
        }
        let std::collections::hash_map::Entry::Vacant(entry) = self.entries.entry((value, id))
        else {
            return Ok(());
        };
        let number = match &mut self.table {
            Table::Plan(table) => table.insert(value).map_err(to_py)?,
            _ => {
                self.next += 1;
                self.next - 1
            }
        };
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
    /// A blank index; `__init__` builds it, as in the package.
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(
        py: Python<'_>,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> SimhashIndex {
        SimhashIndex::blank(py)
    }

    #[pyo3(signature = (objs, f = 64, k = 2, log = None))]
    fn __init__(
        slf: &Bound<'_, Self>,
        objs: &Bound<'_, PyAny>,
        f: u32,
        k: i64,
        log: Option<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let py = slf.py();
        // The package's order: len(objs), then the log, then the adds.
        let count = objs.len()?;
        let log = match log {
            Some(log) if !log.is_none() => log,
            _ => compat_attr(py, &DEFAULT_LOG, "_LOG")?.clone(),
        };
        {
            let mut this = slf.borrow_mut();
            this.start(f, k)?;
            this.log = log.clone().unbind();
        }
        log.call_method1("info", ("Initializing %s data.", count))?;
        // A subclass's own `add` is called, as the package's `self.add(*q)`.
        let exact = slf.is_exact_instance_of::<SimhashIndex>();
        for (i, obj) in objs.try_iter()?.enumerate() {
            if i % 10000 == 0 || i + 1 == count {
                log.call_method1("info", ("%s/%s", i + 1, count))?;
            }
            let obj = obj?;
            // `*q`: a pair as it is, any other iterable read into a tuple.
            let q = match obj.cast_exact::<PyTuple>() {
                Ok(q) => q.clone(),
                Err(_) => PyTuple::new(py, obj.try_iter()?.collect::<PyResult<Vec<_>>>()?)?,
            };
            match (exact, q.len()) {
                (true, 2) => slf.borrow_mut().add(&q.get_item(0)?, &q.get_item(1)?)?,
                _ => drop(slf.call_method1("add", q)?),
            }
        }
        Ok(())
    }

    /// The ids (str) of the fingerprints within k bits of ``simhash``.
    fn get_near_dups(&mut self, simhash: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let value = bits_of(simhash, self.f)?;
        self.touch(value);
        let mut found: Vec<String> = match &self.table {
            Table::Plan(table) => table.query_batch(&[value])[0]
                .iter()
                .map(|m| self.ids[m.id as usize].clone())
                .collect(),
            Table::All => self.entries.keys().map(|(_, id)| id.clone()).collect(),
            Table::Nothing => Vec::new(),
        };
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
        if let Some(number) = self.entries.remove(&(value, id))
            && let Table::Plan(table) = &mut self.table
        {
            table.remove(number);
        }
        Ok(())
    }

    /// Where each of the k + 1 bucket slices of a fingerprint starts.
    #[getter]
    fn offsets(&self) -> Vec<u32> {
        self.slices().map(|(_, offset, _)| offset).collect()
    }

    /// The bucket keys of ``simhash``'s value, as the package names them
    /// (its ``f`` is not checked, as in the package).
    fn get_keys<'py>(&self, simhash: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = simhash.py();
        let value = simhash.getattr("value")?;
        let keys = PyList::empty(py);
        for (i, offset, width) in self.slices() {
            // `simhash.value >> offset & m`, in Python's arithmetic.
            let m = pyo3::types::PyInt::new(py, 1).lshift(width)?.sub(1)?;
            let c = value.rshift(offset)?.bitand(m)?;
            keys.append(format!("{}:{i:x}", format_hex(&c)?))?;
        }
        // An iterator, as the package's generator.
        Ok(keys.try_iter()?.into_any())
    }

    /// The number of buckets made so far (queries make them too, as in
    /// the package).
    fn bucket_size(&self) -> usize {
        self.buckets.len()
    }

    /// The state: ``f``, ``k``, ``log``, the entries as ``(value, id)``
    /// pairs in the order they were added, the buckets made, and the
    /// attributes set on the index.
    fn __getstate__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let state = PyDict::new(py);
        {
            let this = slf.borrow();
            state.set_item("f", this.f)?;
            state.set_item("k", this.k)?;
            state.set_item("log", this.log.bind(py))?;
            let mut entries: Vec<(&(u128, String), &u32)> = this.entries.iter().collect();
            entries.sort_unstable_by_key(|&(_, number)| *number);
            let entries: Vec<(u128, &str)> = entries
                .into_iter()
                .map(|((v, id), _)| (*v, id.as_str()))
                .collect();
            state.set_item("entries", entries)?;
            let mut buckets: Vec<(u32, u128)> = this.buckets.iter().copied().collect();
            buckets.sort_unstable();
            state.set_item("buckets", buckets)?;
        }
        state.update(slf.getattr("__dict__")?.cast::<PyDict>()?.as_mapping())?;
        Ok(state)
    }

    fn __setstate__(slf: &Bound<'_, Self>, state: &Bound<'_, PyDict>) -> PyResult<()> {
        let item = |name: &str| {
            state
                .get_item(name)?
                .ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(name.to_string()))
        };
        {
            let mut this = slf.borrow_mut();
            this.start(item("f")?.extract()?, item("k")?.extract()?)?;
            this.log = item("log")?.unbind();
            for entry in item("entries")?.try_iter()? {
                let (value, id): (u128, String) = entry?.extract()?;
                this.insert(id, value)?;
            }
            this.buckets.clear();
            for bucket in item("buckets")?.try_iter()? {
                this.buckets.insert(bucket?.extract()?);
            }
        }
        for (name, value) in state.iter() {
            let name = name.cast_into::<PyString>()?;
            if !matches!(
                name.to_cow()?.as_ref(),
                "f" | "k" | "log" | "entries" | "buckets"
            ) {
                slf.setattr(name, value)?;
            }
        }
        Ok(())
    }

    /// Pickles as the package's index does: a blank index, then its state.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        reduce(slf.as_any())
    }
}

/// `'%x' % c`.
fn format_hex(c: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = PyString::new(c.py(), "%x").call_method1("__mod__", (c,))?;
    Ok(text.cast::<PyString>()?.to_cow()?.into_owned())
}
