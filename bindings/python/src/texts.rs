//! Texts handed over from Python: an Arrow string array (pyarrow, or
//! anything with `__arrow_c_array__`), read in place, or any iterable of
//! `str`, borrowed ([`HeldStr`]).

use arrow_array::{Array, ArrayRef, LargeStringArray, StringArray, StringViewArray, make_array};
use arrow_pyarrow::FromPyArrow;
use arrow_schema::DataType;
use neardup_dedup::DocumentsAt;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::error::NeardupError;
use crate::utf8::HeldStr;

/// Texts from Python, held without the GIL.
pub(crate) enum Texts {
    Arrow(ArrayRef),
    Python(Vec<HeldStr>),
}

impl Texts {
    /// Reads `texts` (`what` names them in errors: "texts", "ids").
    pub(crate) fn from_py(texts: &Bound<'_, PyAny>, what: &str) -> PyResult<Texts> {
        if texts.hasattr("__arrow_c_array__")? {
            let data = arrow_data::ArrayData::from_pyarrow_bound(texts)?;
            let array = make_array(data);
            return match array.data_type() {
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                    Ok(Texts::Arrow(array))
                }
                other => Err(PyTypeError::new_err(format!(
                    "{what}: an Arrow array of {other}; give strings (utf8, large_utf8 or utf8_view)"
                ))),
            };
        }
        if texts.is_instance_of::<pyo3::types::PyString>() {
            return Err(PyTypeError::new_err(format!(
                "{what}: one str; give a list (or any iterable) of them"
            )));
        }
        let mut out = Vec::with_capacity(texts.len().unwrap_or(0));
        for (i, item) in texts.try_iter()?.enumerate() {
            let item = item?;
            let text = item.cast::<pyo3::types::PyString>().map_err(|_| {
                let kind = item
                    .get_type()
                    .name()
                    .map_or_else(|_| "?".to_string(), |n| n.to_string());
                PyTypeError::new_err(format!("{what}[{i}]: a {kind}, not a str"))
            })?;
            out.push(HeldStr::new(text).map_err(|e| {
                NeardupError::new_err(format!(
                    "{what}[{i}]: {e}; give text that UTF-8 can encode (no lone surrogates)"
                ))
            })?);
        }
        Ok(Texts::Python(out))
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Texts::Arrow(a) => a.len(),
            Texts::Python(v) => v.len(),
        }
    }

    /// The texts as `&str`s; a null is an error naming its row.
    pub(crate) fn strs(&self, what: &str) -> PyResult<Vec<&str>> {
        match self {
            Texts::Python(v) => Ok(v.iter().map(|s| &**s).collect()),
            Texts::Arrow(a) => {
                let docs: &dyn DocumentsAt = documents(a.as_ref())?;
                (0..docs.count())
                    .map(|i| docs.text(i).map_err(|_| null(what, i)))
                    .collect()
            }
        }
    }
}

fn null(what: &str, i: usize) -> PyErr {
    NeardupError::new_err(format!(
        "{what}[{i}]: null; drop or fill the rows without text first"
    ))
}

/// An Arrow string array as the engine's documents.
pub(crate) fn documents(array: &dyn Array) -> PyResult<&dyn DocumentsAt> {
    let any = array.as_any();
    if let Some(a) = any.downcast_ref::<StringArray>() {
        Ok(a)
    } else if let Some(a) = any.downcast_ref::<LargeStringArray>() {
        Ok(a)
    } else if let Some(a) = any.downcast_ref::<StringViewArray>() {
        Ok(a)
    } else {
        Err(PyTypeError::new_err(format!(
            "an Arrow array of {}; give strings",
            array.data_type()
        )))
    }
}
