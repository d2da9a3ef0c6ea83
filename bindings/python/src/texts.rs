//! Texts handed over from Python. Every entry point first asks the
//! package's one conversion (`neardup._texts.column`), which turns pandas,
//! polars, numpy, `datasets` and dictionary-encoded columns into what is
//! read here: an Arrow string array or chunked array, read in place
//! ([`Chunked`]), or a sequence of `str`, borrowed ([`HeldStr`]).

use std::borrow::Cow;

use arrow_array::{Array, ArrayRef, LargeStringArray, StringArray, StringViewArray, make_array};
use arrow_pyarrow::FromPyArrow;
use arrow_schema::DataType;
use neardup_dedup::DocumentsAt;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::error::{InputError, at};
use crate::utf8::HeldStr;

/// Texts from Python, held without the GIL.
pub(crate) enum Texts {
    Arrow(Chunked),
    Python(Strs),
}

/// `str`s from Python, held, as the engine's documents.
pub(crate) struct Strs(Vec<HeldStr>);

impl DocumentsAt for Strs {
    fn count(&self) -> usize {
        self.0.len()
    }

    fn text(&self, i: usize) -> neardup_dedup::Result<&str> {
        self.0
            .get(i)
            .map(|s| &**s)
            .ok_or_else(|| neardup_dedup::Error::NoDocument { position: i })
    }
}

impl Texts {
    /// Reads `texts` (`what` names them in errors: "texts", "a") after the
    /// package's conversion.
    pub(crate) fn from_py(texts: &Bound<'_, PyAny>, what: &str) -> PyResult<Texts> {
        let py = texts.py();
        let texts = py
            .import("neardup._texts")?
            .call_method1("column", (texts, what))?;
        if texts.hasattr("__arrow_c_array__")? {
            return Ok(Texts::Arrow(Chunked::new(vec![arrow(&texts, what)?])));
        }
        if texts.hasattr("num_chunks")? {
            let chunks = texts
                .getattr("chunks")?
                .try_iter()?
                .map(|chunk| arrow(&chunk?, what))
                .collect::<PyResult<Vec<_>>>()?;
            return Ok(Texts::Arrow(Chunked::new(chunks)));
        }
        let mut out = Vec::with_capacity(texts.len().unwrap_or(0));
        for (i, item) in texts.try_iter()?.enumerate() {
            let item = item?;
            let Ok(text) = item.cast::<PyString>() else {
                return Err(not_a_str(&item, what, i));
            };
            out.push(HeldStr::new(text).map_err(|e| {
                at(
                    py,
                    i,
                    format!(
                        "{what}[{i}]: {e}; give text that UTF-8 can encode (no lone surrogates)"
                    ),
                )
            })?);
        }
        Ok(Texts::Python(Strs(out)))
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Texts::Arrow(a) => a.count(),
            Texts::Python(v) => v.0.len(),
        }
    }

    /// The texts as the engine's documents.
    pub(crate) fn documents(&self) -> &dyn DocumentsAt {
        match self {
            Texts::Arrow(a) => a,
            Texts::Python(v) => v,
        }
    }

    /// The texts as `&str`s; a null is an error naming its row.
    pub(crate) fn strs(&self, what: &str) -> PyResult<Vec<&str>> {
        let docs = self.documents();
        (0..docs.count())
            .map(|i| {
                docs.text(i).map_err(|_| {
                    Python::attach(|py| {
                        at(
                            py,
                            i,
                            format!(
                                "{what}[{i}]: null; drop or fill the rows without text first, or \
                                 say what to do with them (on_null=\"keep\" or \"drop\")"
                            ),
                        )
                    })
                })
            })
            .collect()
    }
}

/// The error for item `i` of `what` that is not a `str`.
fn not_a_str(item: &Bound<'_, PyAny>, what: &str, i: usize) -> PyErr {
    let kind = item
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string());
    let hint = if item.is_instance_of::<PyBytes>() {
        "; decode it first (bytes.decode(\"utf-8\"))"
    } else if item.is_none() {
        "; drop or fill the rows without text first, or say what to do with them \
         (on_null=\"keep\" or \"drop\")"
    } else {
        ""
    };
    at(
        item.py(),
        i,
        format!("{what}[{i}]: a {kind}, not a str{hint}"),
    )
}

/// An Arrow array of strings from Python.
fn arrow(array: &Bound<'_, PyAny>, what: &str) -> PyResult<ArrayRef> {
    let array = make_array(arrow_data::ArrayData::from_pyarrow_bound(array)?);
    match array.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Ok(array),
        other => Err(InputError::new_err(format!(
            "{what}: an Arrow array of {other}; give strings (utf8, large_utf8 or utf8_view)"
        ))),
    }
}

/// The chunks of an Arrow column of strings, read in place as one run of
/// documents.
pub(crate) struct Chunked {
    chunks: Vec<ArrayRef>,
    /// The position of each chunk's first document.
    starts: Vec<usize>,
    count: usize,
}

impl Chunked {
    /// `chunks` (each utf8, large_utf8 or utf8_view) as one column.
    pub(crate) fn new(chunks: Vec<ArrayRef>) -> Chunked {
        let mut starts = Vec::with_capacity(chunks.len());
        let mut count = 0;
        for chunk in &chunks {
            starts.push(count);
            count += chunk.len();
        }
        Chunked {
            chunks,
            starts,
            count,
        }
    }
}

impl DocumentsAt for Chunked {
    fn count(&self) -> usize {
        self.count
    }

    fn text(&self, i: usize) -> neardup_dedup::Result<&str> {
        let chunk = self.starts.partition_point(|&s| s <= i).saturating_sub(1);
        let (Some(array), Some(start)) = (self.chunks.get(chunk), self.starts.get(chunk)) else {
            return Err(neardup_dedup::Error::NoDocument { position: i });
        };
        documents(array.as_ref())?.text(i - start)
    }

    fn id(&self, i: usize) -> Cow<'_, str> {
        Cow::Owned(i.to_string())
    }
}

/// An Arrow string array as the engine's documents.
pub(crate) fn documents(array: &dyn Array) -> neardup_dedup::Result<&dyn DocumentsAt> {
    let any = array.as_any();
    if let Some(a) = any.downcast_ref::<StringArray>() {
        Ok(a)
    } else if let Some(a) = any.downcast_ref::<LargeStringArray>() {
        Ok(a)
    } else if let Some(a) = any.downcast_ref::<StringViewArray>() {
        Ok(a)
    } else {
        Err(neardup_dedup::Error::NotText {
            data_type: array.data_type().to_string(),
        })
    }
}

/// Ids from Python: `str`s or `int`s (kept as their decimal text), one per
/// document, after the package's conversion; `what` names them in errors.
pub(crate) fn ids_from_py(ids: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    let ids = ids
        .py()
        .import("neardup._texts")?
        .call_method1("id_list", (ids, what))?;
    ids.try_iter()?
        .enumerate()
        .map(|(i, id)| one_id(&id?, &format!("{what}[{i}]"), Some(i)))
        .collect()
}

/// One id (`what` names it in errors): a `str`, or an `int` kept as its
/// decimal text.
pub(crate) fn one_id(
    id: &Bound<'_, PyAny>,
    what: &str,
    position: Option<usize>,
) -> PyResult<String> {
    if let Ok(s) = id.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    if !id.is_instance_of::<pyo3::types::PyBool>()
        && let Ok(n) = id.extract::<i128>()
    {
        return Ok(n.to_string());
    }
    let kind = id
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string());
    let message = format!("{what}: a {kind}; an id is a str or an int");
    Err(match position {
        Some(i) => at(id.py(), i, message),
        None => InputError::new_err(message),
    })
}
