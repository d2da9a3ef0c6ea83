//! `Fingerprinter` and `distance`: the core's fingerprints, one text or a
//! batch on all cores.

use neardup_core::{Profile, Width};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::error::{InputError, settings};
use crate::texts::Texts;

/// Turns texts into SimHash fingerprints.
///
/// >>> import neardup
/// >>> fp = neardup.Fingerprinter()
/// >>> a = fp.fingerprint("the cat sat on the mat by the door of the old house")
/// >>> b = fp.fingerprint("the cat sat on a mat by the door of the old house")
/// >>> neardup.distance(a, b) <= 6
/// True
#[pyclass(module = "neardup", frozen)]
pub(crate) struct Fingerprinter {
    pub(crate) inner: neardup_core::Fingerprinter,
    profile: Profile,
}

#[pymethods]
impl Fingerprinter {
    #[new]
    #[pyo3(signature = (profile = "auto", width = 64))]
    fn new(profile: &str, width: i64) -> PyResult<Fingerprinter> {
        let profile: Profile = profile.parse().map_err(|e| settings("profile", e))?;
        let width = u32::try_from(width).unwrap_or(0);
        let inner = neardup_core::Fingerprinter::builder(profile)
            .width(Width::from_bits(width).map_err(|e| settings("width", e))?)
            .build()
            .map_err(|e| settings("profile", e))?;
        Ok(Fingerprinter { inner, profile })
    }

    /// The fingerprints' width in bits: 64 or 128.
    #[getter]
    fn width(&self) -> u32 {
        self.inner.width().bits()
    }

    /// The profile: auto, en, zh or python-simhash.
    #[getter]
    fn profile(&self) -> &'static str {
        self.profile.name()
    }

    /// The fingerprint of `text`, as an unsigned int.
    fn fingerprint(&self, text: PyBackedStr) -> u128 {
        self.inner.fingerprint(&text).bits()
    }

    /// The fingerprints of `texts`, on all cores with the GIL released: a
    /// numpy array of uint64, of shape (n,) for 64 bits and (n, 2) (high
    /// word, low word) for 128.
    fn fingerprint_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let texts = Texts::from_py(texts, "texts")?;
        let fingerprinter = &self.inner;
        let wide = fingerprinter.width() == Width::W128;
        let words = py.detach(|| -> PyResult<Vec<u64>> {
            let strs = texts.strs("texts")?;
            let fps = fingerprinter.fingerprint_batch(&strs);
            Ok(if wide {
                fps.iter()
                    .flat_map(|f| [(f.bits() >> 64) as u64, f.bits() as u64])
                    .collect()
            } else {
                fps.iter().map(|f| f.bits() as u64).collect()
            })
        })?;
        let n = texts.len();
        let array = PyArray1::from_vec(py, words);
        Ok(if wide {
            array.reshape([n, 2])?.into_any()
        } else {
            array.into_any()
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "Fingerprinter(profile='{}', width={})",
            self.profile.name(),
            self.width()
        )
    }
}

/// The Hamming distance of two fingerprints: the number of bits that
/// differ.
///
/// >>> import neardup
/// >>> neardup.distance(0b1011, 0b0001)
/// 2
#[pyfunction]
pub(crate) fn distance(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<u32> {
    let bits = |f: &Bound<'_, PyAny>, name: &str| {
        f.extract::<u128>().map_err(|_| {
            InputError::new_err(format!(
                "{name}: {}; a fingerprint is an int from 0 to 2^128 - 1",
                f.repr().map_or_else(|_| "?".to_string(), |r| r.to_string())
            ))
        })
    };
    Ok((bits(a, "a")? ^ bits(b, "b")?).count_ones())
}

/// Fingerprints from Python: a numpy array as `fingerprint_batch` gives
/// (uint64 of shape (n,), or (n, 2) for 128 bits), int64 (Spark's longs,
/// read as their bits), or any iterable of non-negative ints.
pub(crate) fn fingerprints_from_py(
    fingerprints: &Bound<'_, PyAny>,
    width: Width,
) -> PyResult<Vec<u128>> {
    use numpy::{PyReadonlyArray1, PyReadonlyArray2};
    if let Ok(a) = fingerprints.extract::<PyReadonlyArray1<'_, u64>>() {
        return Ok(a.as_array().iter().map(|&f| u128::from(f)).collect());
    }
    if let Ok(a) = fingerprints.extract::<PyReadonlyArray1<'_, i64>>() {
        return Ok(a.as_array().iter().map(|&f| u128::from(f as u64)).collect());
    }
    if let Ok(a) = fingerprints.extract::<PyReadonlyArray2<'_, u64>>() {
        let a = a.as_array();
        if a.ncols() != 2 {
            return Err(InputError::new_err(format!(
                "fingerprints: an array of shape {:?}; 128-bit fingerprints are (n, 2): high word, low word",
                a.shape()
            )));
        }
        return Ok(a
            .rows()
            .into_iter()
            .map(|r| u128::from(r[0]) << 64 | u128::from(r[1]))
            .collect());
    }
    let mut out = Vec::with_capacity(fingerprints.len().unwrap_or(0));
    for (i, f) in fingerprints.try_iter()?.enumerate() {
        let f = f?;
        // numpy's integer scalars are ints by `operator.index`.
        let bits = f
            .extract::<u128>()
            .or_else(|_| f.call_method0("__index__")?.extract::<u128>())
            .map_err(|_| {
                InputError::new_err(format!(
                    "fingerprints[{i}]: {}; a fingerprint is an int from 0 to 2^{} - 1",
                    f.repr().map_or_else(|_| "?".to_string(), |r| r.to_string()),
                    width.bits()
                ))
            })?;
        out.push(bits);
    }
    check_width(&out, width)?;
    Ok(out)
}

/// Refuses fingerprints wider than `width`.
fn check_width(fingerprints: &[u128], width: Width) -> PyResult<()> {
    if width == Width::W64
        && let Some(i) = fingerprints.iter().position(|&f| f >> 64 != 0)
    {
        return Err(InputError::new_err(format!(
            "fingerprints[{i}]: wider than 64 bits; this index holds 64-bit fingerprints"
        )));
    }
    Ok(())
}
