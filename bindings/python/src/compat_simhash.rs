//! `neardup.compat.Simhash`: PyPI `simhash` 2.x's `Simhash` class, its
//! constructor, attributes, class constants and methods, as a Rust class.
//! Its users make many of them (the package's README makes one per text),
//! and a Python object's construction costs more than a short text's
//! fingerprint.
//!
//! As in the package, `__init__` does the work and `__new__` none: a
//! subclass's own `__init__` can call `super().__init__(value)`, and an
//! unpickled object gets its attributes back without being built again.
//! A custom `reg` or `hashfunc`, and features the Rust code does not read,
//! are honoured by the Python helpers of `neardup.compat`, at Python's
//! speed.

use pyo3::exceptions::{PyAssertionError, PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyInt, PyList, PyString, PyTuple, PyType};

use crate::compat::{
    BATCH_SIZE, Constants, LARGE_WEIGHT_CUTOFF, features_value, mask, simhash_text,
};

/// A value of `neardup.compat` (the default `reg`, `hashfunc` and `log`,
/// the helpers for the others), imported once.
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
static TEXT_VALUE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static TOKENIZE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static SLIDE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static INTEGRAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();
pub(crate) static NEWOBJ: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The package's default `hashfunc` (`neardup.compat._md5`).
pub(crate) fn default_hashfunc(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    compat_attr(py, &DEFAULT_HASHFUNC, "_md5")
}

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
    /// `value & (2**f - 1)`, when `value` is an int and `f` at most 128.
    bits: Option<u128>,
    #[pyo3(get, set)]
    f_bytes: Py<PyAny>,
    #[pyo3(get, set)]
    reg: Py<PyAny>,
    #[pyo3(get, set)]
    hashfunc: Py<PyAny>,
    #[pyo3(get, set)]
    hashfunc_returns_int: Py<PyAny>,
    #[pyo3(get, set)]
    log: Py<PyAny>,
}

/// `value & (2**f - 1)`, for an int `value` and `f` up to 128.
fn masked(value: &Bound<'_, PyAny>, f: u32) -> Option<u128> {
    // Checked first: a failed extraction raises, and raising is slow.
    if f > 128 || value.is_none() {
        return None;
    }
    let Ok(int) = value.cast::<PyInt>() else {
        // numpy's ints, by their `__index__`.
        return value.extract::<u128>().ok().map(|v| v & mask(f));
    };
    if let Ok(v) = int.extract::<u128>() {
        return Some(v & mask(f));
    }
    // Below 0 or wider than 128 bits: Python's `&`.
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
        // The package compares with `==`, then reads `value`.
        Err(_) => {
            if !simhash.getattr("f")?.eq(f)? {
                return Err(PyAssertionError::new_err(()));
            }
            (f, masked(&simhash.getattr("value")?, f))
        }
    };
    if theirs != f {
        return Err(PyAssertionError::new_err(()));
    }
    bits.ok_or_else(|| PyTypeError::new_err("a Simhash's value is an int"))
}

impl Simhash {
    fn blank(py: Python<'_>) -> Simhash {
        Simhash {
            f: 64,
            value: py.None(),
            bits: None,
            f_bytes: 8u32
                .into_pyobject(py)
                .map_or(py.None(), |v| v.into_any().unbind()),
            reg: py.None(),
            hashfunc: py.None(),
            hashfunc_returns_int: py.None(),
            log: py.None(),
        }
    }

    /// Whether `reg` and `hashfunc` are the package's defaults.
    fn is_default(&self, py: Python<'_>) -> PyResult<(bool, bool)> {
        let default_reg = compat_attr(py, &DEFAULT_REG, "_DEFAULT_REG")?;
        let reg = self.reg.bind(py);
        Ok((
            reg.is(default_reg) || reg.eq(default_reg)?,
            self.hashfunc.bind(py).is(default_hashfunc(py)?),
        ))
    }

    /// The value of `content` fingerprinted as a text.
    fn text_value<'py>(
        &self,
        slf: &Bound<'py, PyAny>,
        content: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        if let Ok(text) = content.cast_exact::<PyString>()
            && self.is_default(py)? == (true, true)
        {
            return Ok(simhash_text(py, text, self.f)?
                .into_pyobject(py)?
                .into_any());
        }
        compat_attr(py, &TEXT_VALUE, "_text_value")?.call1((content, self.f, slf))
    }

    /// The value of `features` fingerprinted as features.
    fn features_value<'py>(
        &self,
        slf: &Bound<'py, PyAny>,
        features: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        if self.is_default(py)?.1 {
            let constants = Constants { owner: Some(slf) };
            return Ok(features_value(features, self.f, &constants)?
                .into_pyobject(py)?
                .into_any());
        }
        compat_attr(py, &CUSTOM_VALUE, "_custom_value")?.call1((features, self.f, slf))
    }

    fn set(&mut self, value: Bound<'_, PyAny>) {
        self.bits = masked(&value, self.f);
        self.value = value.unbind();
    }
}

#[pymethods]
impl Simhash {
    /// The package's constant: a weight above it is summed at once rather
    /// than in a batch, which decides which negative weights count.
    #[classattr]
    fn large_weight_cutoff() -> i64 {
        LARGE_WEIGHT_CUTOFF
    }

    /// The package's constant: the features summed in one batch, which
    /// orders the additions of float weights.
    #[classattr]
    fn batch_size() -> i64 {
        BATCH_SIZE
    }

    /// A blank object; `__init__` builds it, as in the package.
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(
        py: Python<'_>,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> Simhash {
        Simhash::blank(py)
    }

    #[pyo3(signature = (value, f = 64, reg = None, hashfunc = None, log = None))]
    fn __init__<'py>(
        slf: &Bound<'py, Self>,
        value: &Bound<'py, PyAny>,
        f: i64,
        reg: Option<Bound<'py, PyAny>>,
        hashfunc: Option<Bound<'py, PyAny>>,
        log: Option<Bound<'py, PyAny>>,
    ) -> PyResult<()> {
        let py = slf.py();
        if f % 8 != 0 {
            return Err(PyValueError::new_err("f must be a multiple of 8"));
        }
        let f = u32::try_from(f)
            .map_err(|_| PyValueError::new_err(format!("f = {f}: give 0 or more")))?;
        let reg = match reg {
            Some(reg) => reg,
            None => compat_attr(py, &DEFAULT_REG, "_DEFAULT_REG")?.clone(),
        };
        let md5 = default_hashfunc(py)?;
        let hashfunc = hashfunc.unwrap_or_else(|| md5.clone());
        // The package calls its hashfunc once here, to learn what it gives.
        let returns_int = !hashfunc.is(md5) && {
            let integral = INTEGRAL.import(py, "numbers", "Integral")?;
            hashfunc
                .call1((pyo3::types::PyBytes::new(py, b"test"),))?
                .is_instance(integral)?
        };
        let log = match log {
            Some(log) if !log.is_none() => log,
            _ => compat_attr(py, &DEFAULT_LOG, "_LOG")?.clone(),
        };
        {
            let mut this = slf.borrow_mut();
            this.f = f;
            this.f_bytes = (f / 8).into_pyobject(py)?.into_any().unbind();
            this.reg = reg.unbind();
            this.hashfunc = hashfunc.unbind();
            this.hashfunc_returns_int = returns_int
                .into_pyobject(py)?
                .to_owned()
                .into_any()
                .unbind();
            this.log = log.unbind();
            this.set(py.None().into_bound(py));
        }
        let any = slf.as_any();
        let value = if value.is_exact_instance_of::<PyInt>() {
            value.clone()
        } else if let Ok(other) = value.cast::<Simhash>() {
            other.borrow().value.bind(py).clone()
        } else if value.is_instance_of::<PyString>() {
            // `unicode(value)`: a str subclass's own str.
            let text = if value.is_exact_instance_of::<PyString>() {
                value.clone()
            } else {
                value.str()?.into_any()
            };
            let this = slf.borrow();
            this.text_value(any, &text)?
        } else if value.is_instance_of::<PyList>()
            || value.is_instance_of::<PyTuple>()
            || value.is_instance_of::<PyDict>()
            || value.hasattr("__iter__")?
        {
            let this = slf.borrow();
            this.features_value(any, value)?
        } else if value.is_instance(INTEGRAL.import(py, "numbers", "Integral")?)? {
            value.clone()
        } else {
            return Err(PyException::new_err(format!(
                "Bad parameter with type {}",
                value.get_type().str()?
            )));
        };
        slf.borrow_mut().set(value);
        Ok(())
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

    /// Fingerprints ``content`` by its 4-character windows.
    fn build_by_text(slf: &Bound<'_, Self>, content: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = slf.borrow().text_value(slf.as_any(), content)?;
        slf.borrow_mut().set(value);
        Ok(())
    }

    /// Fingerprints weighted features: strs (weight 1), ``(str, weight)``
    /// pairs, or a dict of str to weight.
    fn build_by_features(slf: &Bound<'_, Self>, features: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = slf.borrow().features_value(slf.as_any(), features)?;
        slf.borrow_mut().set(value);
        Ok(())
    }

    /// The text's features as the package cuts them: lowercased, ``reg``'s
    /// matches joined, 4-character windows.
    fn _tokenize<'py>(
        &self,
        py: Python<'py>,
        content: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        compat_attr(py, &TOKENIZE, "_tokenize")?.call1((content, self.reg.bind(py)))
    }

    /// The ``width``-character windows of ``content`` (one, shorter, when
    /// it is shorter).
    #[pyo3(signature = (content, width = 4))]
    fn _slide<'py>(
        &self,
        py: Python<'py>,
        content: &Bound<'py, PyAny>,
        width: isize,
    ) -> PyResult<Bound<'py, PyAny>> {
        compat_attr(py, &SLIDE, "_slide")?.call1((content, width))
    }

    /// The number of bits in which the two fingerprints differ.
    fn distance<'py>(
        &self,
        py: Python<'py>,
        another: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // Python ints only: numpy's have arithmetic of their own.
        let ints = |v: &Bound<'_, PyAny>| v.is_instance_of::<PyInt>();
        if let Ok(other) = another.cast::<Simhash>()
            && let (Some(ours), Some(theirs)) = (self.bits, other.borrow().bits)
            && other.borrow().f == self.f
            && ints(self.value.bind(py))
            && ints(other.borrow().value.bind(py))
        {
            return Ok((ours ^ theirs).count_ones().into_pyobject(py)?.into_any());
        }
        // The package's arithmetic on whatever the values are, raising
        // what it raises.
        if !another.getattr("f")?.eq(self.f)? {
            return Err(PyAssertionError::new_err(()));
        }
        let mask = PyInt::new(py, 1).lshift(self.f)?.sub(1)?;
        let x = self
            .value
            .bind(py)
            .bitxor(another.getattr("value")?)?
            .bitand(mask)?;
        let bin = py.import("builtins")?.getattr("bin")?.call1((x,))?;
        bin.call_method1("count", ("1",))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.value.bind(py).eq(other.getattr("value")?)
    }

    /// The attributes, as the package's ``__dict__`` holds them.
    fn __getstate__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let state = PyDict::new(py);
        {
            let this = slf.borrow();
            state.set_item("f", this.f)?;
            state.set_item("f_bytes", this.f_bytes.bind(py))?;
            state.set_item("reg", this.reg.bind(py))?;
            state.set_item("value", this.value.bind(py))?;
            state.set_item("hashfunc", this.hashfunc.bind(py))?;
            state.set_item("hashfunc_returns_int", this.hashfunc_returns_int.bind(py))?;
            state.set_item("log", this.log.bind(py))?;
        }
        state.update(slf.getattr("__dict__")?.cast::<PyDict>()?.as_mapping())?;
        Ok(state)
    }

    fn __setstate__(slf: &Bound<'_, Self>, state: &Bound<'_, PyDict>) -> PyResult<()> {
        // `f` first: `value`'s bits are cut to it.
        if let Some(f) = state.get_item("f")? {
            slf.setattr("f", f)?;
        }
        for (name, value) in state.iter() {
            slf.setattr(name.cast::<PyString>()?, value)?;
        }
        Ok(())
    }

    /// Pickles as the package's objects do: a blank object of the class,
    /// then its attributes.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        reduce(slf.as_any())
    }
}

/// `(copyreg.__newobj__, (type(obj),), obj.__getstate__())`: what
/// pickling a plain Python object gives.
pub(crate) fn reduce<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let py = obj.py();
    let newobj = NEWOBJ.import(py, "copyreg", "__newobj__")?;
    let args = PyTuple::new(py, [obj.get_type()])?;
    let state = obj.call_method0("__getstate__")?;
    PyTuple::new(py, [newobj.clone(), args.into_any(), state])
}
