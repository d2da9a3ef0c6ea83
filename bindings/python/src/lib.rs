//! neardup for Python: the engine's crates behind a thin layer of
//! conversions. Nothing here decides what is a near-duplicate; each
//! function turns Python values into the engine's, calls it with the GIL
//! released, and turns its answer (or its error, with the CLI's message)
//! back.
//!
//! The Python package (`python/neardup`) wraps this module, `_neardup`,
//! with the types users see: `Fingerprinter`, `Index`, `dedup` and its
//! `DedupResult`, `dedup_files`, and `neardup.compat`.

mod compat;
mod compat_index;
mod compat_simhash;
mod dedup;
mod dedup_files;
mod deduper;
mod error;
mod fingerprint;
mod index;
mod interrupt;
mod params;
mod spark;
mod spark_gathered;
mod texts;
mod utf8;

use pyo3::prelude::*;

/// The compiled half of the `neardup` package.
#[pymodule]
fn _neardup(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NeardupError", m.py().get_type::<error::NeardupError>())?;
    m.add("InputError", m.py().get_type::<error::InputError>())?;
    m.add("SettingsError", m.py().get_type::<error::SettingsError>())?;
    m.add("StorageError", m.py().get_type::<error::StorageError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<fingerprint::Fingerprinter>()?;
    m.add_function(wrap_pyfunction!(fingerprint::distance, m)?)?;
    m.add_class::<index::Index>()?;
    m.add_class::<deduper::Deduper>()?;
    m.add_function(wrap_pyfunction!(dedup::dedup, m)?)?;
    m.add_function(wrap_pyfunction!(dedup::verify_spec, m)?)?;
    m.add_function(wrap_pyfunction!(dedup_files::dedup_files, m)?)?;
    m.add_function(wrap_pyfunction!(compat::simhash_text, m)?)?;
    m.add_function(wrap_pyfunction!(compat::simhash_features, m)?)?;
    m.add_class::<compat_index::SimhashIndex>()?;
    m.add_class::<compat_simhash::Simhash>()?;
    m.add_function(wrap_pyfunction!(spark::spark_plan_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(spark::table_keys, m)?)?;
    m.add_function(wrap_pyfunction!(spark::pairs_in_groups, m)?)?;
    m.add_function(wrap_pyfunction!(spark::sketch_rows, m)?)?;
    m.add_function(wrap_pyfunction!(spark::short_rule_alone, m)?)?;
    m.add_function(wrap_pyfunction!(spark::judge_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(spark::short_pairs_in_groups, m)?)?;
    m.add_function(wrap_pyfunction!(spark::least_in_components, m)?)?;
    m.add_function(wrap_pyfunction!(spark::fingerprint_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(spark_gathered::exact_units, m)?)?;
    m.add_function(wrap_pyfunction!(
        spark_gathered::unit_pairs_by_fingerprint,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(spark_gathered::short_unit_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(spark_gathered::distinct_unit_pairs, m)?)?;
    Ok(())
}
