//! The engine's errors as Python exceptions, with the messages the CLI
//! prints.

use std::error::Error;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    neardup,
    NeardupError,
    PyValueError,
    "An error of neardup: bad settings, unreadable input, a failed run. \
     The message is the one the `neardup` command prints."
);

/// `error` and its causes, joined as the CLI joins them (`a: b: c`).
pub(crate) fn to_py(error: impl Error) -> PyErr {
    let mut message = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        let text = c.to_string();
        // Some errors repeat their cause in their own message.
        if !message.ends_with(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        cause = c.source();
    }
    NeardupError::new_err(message)
}
