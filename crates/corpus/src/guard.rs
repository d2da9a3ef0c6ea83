//! Panics of the Parquet and Arrow crates, caught and made errors of the
//! file: on some damaged files they panic ("column start and length should
//! not be negative") where they should return an error.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};

thread_local! {
    /// Whether this thread is inside [`catching`].
    static CATCHING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `read`, and gives the message of a panic in it as `Err`.
pub(crate) fn catching<T>(read: impl FnOnce() -> T) -> Result<T, String> {
    let outer = CATCHING.replace(true);
    let result = panic::catch_unwind(AssertUnwindSafe(read));
    CATCHING.set(outer);
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string())
    })
}

/// Keeps the panic hook from printing the panics that the reader catches
/// and reports as errors of their file; others print as before. For
/// programs, once, at their start.
///
/// ```
/// neardup_corpus::quiet_caught_panics();
/// ```
pub fn quiet_caught_panics() {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if !CATCHING.with(Cell::get) {
            previous(info);
        }
    }));
}
