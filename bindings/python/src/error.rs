//! The engine's errors as Python exceptions, with the messages the CLI
//! prints, in one family: `NeardupError` (a `ValueError`) and, under it,
//! `InputError` (a text, an id, a column), `SettingsError` (a parameter)
//! and `StorageError` (an index or a folder that cannot be read or
//! written).

use std::error::Error;

use neardup_output::with_causes;
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

create_exception!(
    neardup,
    InputError,
    NeardupError,
    "Input neardup cannot take: a text, an id or a column of the wrong type, a null, \
     an id that repeats. The message names the position (and the id, when there are ids)."
);

create_exception!(
    neardup,
    SettingsError,
    NeardupError,
    "A setting out of range or unknown; the message names the parameter and what to give."
);

create_exception!(
    neardup,
    StorageError,
    NeardupError,
    "An index, a store or an output folder that cannot be read or written, or one made \
     for other settings; the message names the path."
);

/// `error` as a [`NeardupError`], for a failure of no one kind.
pub(crate) fn to_py(error: impl Error) -> PyErr {
    NeardupError::new_err(with_causes(&error))
}

/// `error` as a [`SettingsError`] about parameter `name`.
pub(crate) fn settings(name: &str, error: impl std::fmt::Display) -> PyErr {
    SettingsError::new_err(format!("{name}: {error}"))
}

/// An error of the store as the exception of its kind: bad input (an id
/// taken, a count that does not match) or a store that cannot be used.
pub(crate) fn store(error: neardup_store::Error) -> PyErr {
    match error {
        e if e.is_input() => InputError::new_err(with_causes(&e)),
        _ => StorageError::new_err(with_causes(&error)),
    }
}

/// An error of a dedup run as the exception of its kind.
pub(crate) fn run(error: neardup_dedup::Error) -> PyErr {
    run_as(&error, with_causes(&error))
}

/// The exception of `error`'s kind, saying `message`.
pub(crate) fn run_as(error: &neardup_dedup::Error, message: String) -> PyErr {
    use neardup_dedup::Error as E;
    match error {
        E::Store(e) if e.is_input() => InputError::new_err(message),
        E::Store(_) | E::Io { .. } | E::Against { .. } => StorageError::new_err(message),
        E::Fingerprint(_) | E::Index(_) | E::KTooWideForGreedy { .. } => {
            SettingsError::new_err(message)
        }
        _ => InputError::new_err(message),
    }
}

/// An [`InputError`] about item `position` of the input, with the position
/// kept on the exception (`position`) for the Python layer to name its id.
pub(crate) fn at(py: Python<'_>, position: usize, message: String) -> PyErr {
    let error = InputError::new_err(message);
    // Setting an attribute on a fresh exception cannot fail in practice;
    // if it did, the message still names the position.
    let _ = error.value(py).setattr("position", position);
    error
}
