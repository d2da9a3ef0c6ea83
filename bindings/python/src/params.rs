//! Numbers from Python checked before anything runs: a negative `k`, a
//! `threads=-2` or a `memory=0` is a [`SettingsError`] naming the
//! parameter, never an `OverflowError` naming nothing.

use pyo3::prelude::*;

use crate::error::SettingsError;

/// `k` (or another distance in bits, `name`): 0 to 127; the width's bound
/// is the engine's to check.
pub(crate) fn bits(value: i64, name: &str) -> PyResult<u32> {
    u32::try_from(value)
        .ok()
        .filter(|&k| k < 128)
        .ok_or_else(|| {
            SettingsError::new_err(format!(
                "{name}: {value}; give a number of bits from 0 to 63 (127 at width=128)"
            ))
        })
}

/// `threads`: `None`, 0 or -1 (joblib's habit) for one per core, else at
/// most the engine's cap per core.
pub(crate) fn threads(value: Option<i64>) -> PyResult<usize> {
    let asked = match value {
        None | Some(-1) => 0,
        Some(n) => usize::try_from(n).map_err(|_| {
            SettingsError::new_err(format!(
                "threads: {n}; give a number of threads, or 0 (or -1, or None) for one per core"
            ))
        })?,
    };
    neardup_dedup::checked_threads(asked)
        .map_err(|e| SettingsError::new_err(format!("threads: {e}")))
}

/// A positive count of `name` (bytes, documents), or `None`.
pub(crate) fn positive(value: Option<i64>, name: &str) -> PyResult<Option<u64>> {
    value
        .map(|n| {
            u64::try_from(n).ok().filter(|&n| n > 0).ok_or_else(|| {
                SettingsError::new_err(format!("{name}: {n}; give a positive number, or None"))
            })
        })
        .transpose()
}

/// A rayon pool of `threads` (checked) workers.
pub(crate) fn pool(threads: Option<i64>) -> PyResult<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(self::threads(threads)?)
        .build()
        .map_err(|e| SettingsError::new_err(format!("threads: cannot start them: {e}")))
}
