//! The UTF-8 of a Python `str`, borrowed from the object.
//!
//! PyO3 built for the stable ABI of Python 3.9 encodes each `str` into a
//! new `bytes` object to read it: an allocation and a copy per string, most
//! of the cost of reading a list of short features. `PyUnicode_AsUTF8AndSize`
//! hands out the string's own UTF-8 (an ASCII string's characters, or an
//! encoding the object keeps); it entered the stable ABI in 3.10, and every
//! CPython 3 before it exports it with the same signature, so it is
//! declared here. Windows links against the stable ABI's import library,
//! which lacks it for 3.9: there the copy stays.

use pyo3::prelude::*;
use pyo3::types::PyString;

#[cfg(not(windows))]
unsafe extern "C" {
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut pyo3::ffi::PyObject,
        size: *mut pyo3::ffi::Py_ssize_t,
    ) -> *const std::os::raw::c_char;
}

/// The UTF-8 bytes of `s`, valid while `s` is.
#[cfg(not(windows))]
pub(crate) fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<std::borrow::Cow<'a, [u8]>> {
    let mut size: pyo3::ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a str (its type says so) and the GIL is held (it is
    // bound); the buffer belongs to the object, which `'a` keeps alive, and
    // holds `size` bytes.
    let bytes = unsafe {
        let data = PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size);
        if data.is_null() {
            return Err(PyErr::fetch(s.py()));
        }
        std::slice::from_raw_parts(data.cast::<u8>(), size.max(0) as usize)
    };
    Ok(std::borrow::Cow::Borrowed(bytes))
}

/// The UTF-8 bytes of `s`, copied.
#[cfg(windows)]
pub(crate) fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<std::borrow::Cow<'a, [u8]>> {
    Ok(std::borrow::Cow::Owned(
        s.to_cow()?.into_owned().into_bytes(),
    ))
}

/// A `str`'s UTF-8 held without the GIL: the string is kept alive by a
/// reference, its bytes borrowed (copied on Windows).
pub(crate) struct HeldStr {
    #[cfg(not(windows))]
    _owner: Py<PyString>,
    #[cfg(not(windows))]
    bytes: std::ptr::NonNull<[u8]>,
    #[cfg(windows)]
    text: String,
}

// SAFETY: a str never changes, and CPython frees its UTF-8 only with the
// object, which `_owner` keeps alive; the bytes are only read.
#[cfg(not(windows))]
unsafe impl Send for HeldStr {}
// SAFETY: as for Send: shared, the bytes are only read.
#[cfg(not(windows))]
unsafe impl Sync for HeldStr {}

impl HeldStr {
    /// `s`, held; an error when it has no UTF-8 (a lone surrogate).
    pub(crate) fn new(s: &Bound<'_, PyString>) -> PyResult<HeldStr> {
        let bytes = utf8(s)?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| pyo3::exceptions::PyUnicodeError::new_err(e.to_string()))?;
        #[cfg(not(windows))]
        {
            let bytes = std::ptr::NonNull::from(text.as_bytes());
            Ok(HeldStr {
                _owner: s.clone().unbind(),
                bytes,
            })
        }
        #[cfg(windows)]
        Ok(HeldStr {
            text: text.to_string(),
        })
    }
}

impl std::ops::Deref for HeldStr {
    type Target = str;

    fn deref(&self) -> &str {
        #[cfg(not(windows))]
        // SAFETY: the bytes were checked to be UTF-8 in `new`, and live as
        // long as `_owner` (see the Send impl).
        unsafe {
            std::str::from_utf8_unchecked(self.bytes.as_ref())
        }
        #[cfg(windows)]
        &self.text
    }
}
