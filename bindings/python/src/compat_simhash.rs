//! `neardup.compat.Simhash`: PyPI `simhash` 2.x's `Simhash` class, its
//! constructor, attributes and methods, as a Rust class. Its users make
//! many of them (the package's README makes one per text), and a Python
//! object's construction costs more than a short text's fingerprint.
//!
//! A custom `reg` or `hashfunc` is honoured by the Python helper
//! `neardup.compat._custom_value`, at Python's speed.

use pyo3::exceptions::{PyAssertionError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyInt, PyList, PyString, PyTuple, PyType};

use crate::compat::{mask, simhash_features, simhash_text};

/// A value of `neardup.compat` (the default `reg`, `hashfunc` and `log`,
/// the helper for the others), imported once.
pub(crate) fn compat_attr<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
) -> PyResult<&'py Bound<'py, PyAny>> {
    cell.import(py, "neardup.compat", name)
}

static DEFAULT_REG: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static DEFAULT_HASHFUNC: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
pub(crate) static DEFAULT_LOG: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static CUSTOM_VALUE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static INTEGRAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// A SimHash fingerprint of a text, of features, or given as an int.
///
/// ``value`` is a str (fingerprinted by its 4-character windows), an
/// iterable of features (strs, ``(str, weight)`` pairs, or a dict of them),
/// another ``Simhash``, or an int (the fingerprint itself).
///
/// >>> from neardup.compat import Simhash
/// >>> Simhash('aa').distance(Simhash('bb'))
/// 31
#[pyclass(module = "neardup.compat", name = "Simhash", subclass, dict)]
pub(crate) struct Simhash {
    f: u32,
    value: Py<PyAny>,
    /// `value & (2**f - 1)`, when `value` is an int.
    bits: Option<u128>,
    #[pyo3(get, set)]
    reg: Py<PyAny>,
    #[pyo3(get, set)]
    hashfunc: Py<PyAny>,
    #[pyo3(get, set)]
    log: Py<PyAny>,
}

/// `value & (2**f - 1)`, for an int `value`.
fn masked(value: &Bound<'_, PyAny>, f: u32) -> Option<u128> {
    if let Ok(v) = value.extract::<u128>() {
        return Some(v & mask(f));
    }
    let int = value.cast::<PyInt>().ok()?;
    int.call_method1("__and__", (mask(f),))
        .and_then(|m| m.extract::<u128>())
        .ok()
}

/// The fingerprint of `simhash` (a `Simhash`, or any object with `f` and
/// `value`), cut to its `f` bits, which must be `f` (an `AssertionError`
/// otherwise, as the package's `assert`).
pub(crate) fn bits_of(simhash: &Bound<'_, PyAny>, f: u32) -> PyResult<u128> {
    let (theirs, bits) = match simhash.cast::<Simhash>() {
        Ok(s) => {
            let s = s.borrow();
            (s.f, s.bits)
        }
        Err(_) => {
            let theirs: u32 = simhash.getattr("f")?.extract()?;
            (theirs, masked(&simhash.getattr("value")?, theirs))
        }
    };
    if theirs != f {
        return Err(PyAssertionError::new_err(()));
    }
    bits.ok_or_else(|| PyTypeError::new_err("a Simhash's value is an int"))
}

impl Simhash {
    fn is_default(
        py: Python<'_>,
        reg: &Bound<'_, PyAny>,
        hashfunc: &Bound<'_, PyAny>,
    ) -> PyResult<(bool, bool)> {
        let default_reg = compat_attr(py, &DEFAULT_REG, "_DEFAULT_REG")?;
        let default_hash = compat_attr(py, &DEFAULT_HASHFUNC, "_md5")?;
        Ok((
            reg.is(default_reg) || reg.eq(default_reg)?,
            hashfunc.is(default_hash),
        ))
    }

    /// The fingerprint of `value` as the package's constructor makes it.
    fn value_of<'py>(
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
        f: u32,
        reg: &Bound<'py, PyAny>,
        hashfunc: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if value.is_exact_instance_of::<PyInt>() {
            return Ok(value.clone());
        }
        let custom =
            || compat_attr(py, &CUSTOM_VALUE, "_custom_value")?.call1((value, f, reg, hashfunc));
        if let Ok(text) = value.cast::<PyString>() {
            return match Simhash::is_default(py, reg, hashfunc)? {
                (true, true) => Ok(simhash_text(py, text, f)?.into_pyobject(py)?.into_any()),
                _ => custom(),
            };
        }
        if let Ok(other) = value.cast::<Simhash>() {
            return Ok(other.borrow().value.bind(py).clone());
        }
        let iterable = value.is_instance_of::<PyList>()
            || value.is_instance_of::<PyTuple>()
            || value.is_instance_of::<PyDict>()
            || value.hasattr("__iter__")?;
        if iterable {
            return match Simhash::is_default(py, reg, hashfunc)? {
                (_, true) => Ok(simhash_features(value, f)?.into_pyobject(py)?.into_any()),
                _ => custom(),
            };
        }
        let integral = INTEGRAL.import(py, "numbers", "Integral")?;
        if value.is_instance(integral)? {
            return Ok(value.clone());
        }
        Err(pyo3::exceptions::PyException::new_err(format!(
            "Bad parameter with type {}",
            value.get_type().str()?
        )))
    }

    fn set(&mut self, value: Bound<'_, PyAny>) {
        self.bits = masked(&value, self.f);
        self.value = value.unbind();
    }
}

#[pymethods]
impl Simhash {
    #[new]
    #[pyo3(signature = (value, f = 64, reg = None, hashfunc = None, log = None))]
    fn new<'py>(
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
        f: u32,
        reg: Option<Bound<'py, PyAny>>,
        hashfunc: Option<Bound<'py, PyAny>>,
        log: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Simhash> {
        if !f.is_multiple_of(8) {
            return Err(PyValueError::new_err("f must be a multiple of 8"));
        }
        let reg = match reg {
            Some(reg) => reg,
            None => compat_attr(py, &DEFAULT_REG, "_DEFAULT_REG")?.clone(),
        };
        let hashfunc = match hashfunc {
            Some(h) => h,
            None => compat_attr(py, &DEFAULT_HASHFUNC, "_md5")?.clone(),
        };
        let log = match log {
            Some(log) if !log.is_none() => log,
            _ => compat_attr(py, &DEFAULT_LOG, "_LOG")?.clone(),
        };
        let value = Simhash::value_of(py, value, f, &reg, &hashfunc)?;
        Ok(Simhash {
            f,
            bits: masked(&value, f),
            value: value.unbind(),
            reg: reg.unbind(),
            hashfunc: hashfunc.unbind(),
            log: log.unbind(),
        })
    }

    /// The fingerprint, an int.
    #[getter]
    fn value(&self, py: Python<'_>) -> Py<PyAny> {
        self.value.clone_ref(py)
    }

    #[setter]
    fn set_value(&mut self, value: Bound<'_, PyAny>) {
        self.set(value);
    }

    /// Its width in bits.
    #[getter]
    fn f(&self) -> u32 {
        self.f
    }

    #[setter]
    fn set_f(&mut self, py: Python<'_>, f: u32) {
        self.f = f;
        self.bits = masked(self.value.bind(py), f);
    }

    /// Its width in bytes.
    #[getter]
    fn f_bytes(&self) -> u32 {
        self.f / 8
    }

    /// Fingerprints `content` by its 4-character windows.
    fn build_by_text(&mut self, py: Python<'_>, content: &Bound<'_, PyString>) -> PyResult<()> {
        let value = Simhash::value_of(
            py,
            content.as_any(),
            self.f,
            self.reg.bind(py),
            self.hashfunc.bind(py),
        )?;
        self.set(value);
        Ok(())
    }

    /// Fingerprints weighted features: strs (weight 1), ``(str, weight)``
    /// pairs, or a dict of str to weight.
    fn build_by_features(&mut self, py: Python<'_>, features: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = match Simhash::is_default(py, self.reg.bind(py), self.hashfunc.bind(py))? {
            (_, true) => simhash_features(features, self.f)?
                .into_pyobject(py)?
                .into_any(),
            _ => compat_attr(py, &CUSTOM_VALUE, "_custom_value")?.call1((
                PyList::new(py, features.try_iter()?.collect::<PyResult<Vec<_>>>()?)?,
                self.f,
                self.reg.bind(py),
                self.hashfunc.bind(py),
            ))?,
        };
        self.set(value);
        Ok(())
    }

    /// The number of bits in which the two fingerprints differ.
    fn distance(&self, another: &Bound<'_, PyAny>) -> PyResult<u32> {
        let theirs = bits_of(another, self.f)?;
        match self.bits {
            Some(ours) => Ok((ours ^ theirs).count_ones()),
            None => Err(PyTypeError::new_err("a Simhash's value is an int")),
        }
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.value.bind(py).eq(other.getattr("value")?)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let args = PyTuple::new(
            py,
            [
                this.value.bind(py).clone(),
                this.f.into_pyobject(py)?.into_any(),
                this.reg.bind(py).clone(),
                this.hashfunc.bind(py).clone(),
                this.log.bind(py).clone(),
            ],
        )?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any()])
    }
}
