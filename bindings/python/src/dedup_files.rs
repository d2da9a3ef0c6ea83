//! `dedup_files`: `neardup dedup` over files, the same outputs in the same
//! directory layout, by the same library (`neardup_output`).

use std::path::PathBuf;

use neardup_corpus::{Format, ReadOptions};
use neardup_dedup::{DEFAULT_K, DEFAULT_THRESHOLD};
use neardup_output::{DedupRun, against_index};
use pyo3::prelude::*;

use crate::dedup::Settings;
use crate::error::{NeardupError, SettingsError, StorageError};
use crate::interrupt::interruptible;
use crate::params;

fn format(name: &str) -> PyResult<Format> {
    match name {
        "auto" => Ok(Format::Auto),
        "jsonl" => Ok(Format::JsonLines),
        "text" => Ok(Format::Text),
        "parquet" => Ok(Format::Parquet),
        other => Err(SettingsError::new_err(format!(
            "format: {other:?}; give auto, jsonl, text or parquet"
        ))),
    }
}

/// A failed run as the exception of its kind, with the CLI's message: a
/// file or folder that cannot be read or written is a `StorageError`, a
/// bad record an `InputError`.
fn failed(error: &(dyn std::error::Error + 'static)) -> PyErr {
    let message = neardup_output::with_causes(error);
    let mut cause = Some(error);
    while let Some(c) = cause {
        let output = c.downcast_ref::<neardup_output::Error>();
        if c.is::<std::io::Error>() || output.is_some_and(neardup_output::Error::is_io) {
            return StorageError::new_err(message);
        }
        if let Some(e) = output.and_then(neardup_output::Error::job_error) {
            return crate::error::run_as(e, message);
        }
        if let Some(e) = c.downcast_ref::<neardup_dedup::Error>() {
            return crate::error::run_as(e, message);
        }
        cause = c.source();
    }
    NeardupError::new_err(message)
}

/// Runs `neardup dedup` over `paths` into `out`; gives `(summary.json's
/// text, warnings, notes)`.
#[pyfunction]
#[pyo3(signature = (paths, out, *, threshold = DEFAULT_THRESHOLD, k = i64::from(DEFAULT_K), keep = "first", cluster = "greedy",
    profile = "auto", width = 64, short_rule = true, verify = None, against = None,
    save_index = None, text_field = "text", id_field = "id", lines = false, format = "auto",
    max_bytes = 256 << 20, skip_invalid = false, force = false, memory = None, threads = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn dedup_files(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    out: PathBuf,
    threshold: f64,
    k: i64,
    keep: &str,
    cluster: &str,
    profile: &str,
    width: i64,
    short_rule: bool,
    verify: Option<&str>,
    against: Option<PathBuf>,
    save_index: Option<PathBuf>,
    text_field: &str,
    id_field: &str,
    lines: bool,
    format: &str,
    max_bytes: i64,
    skip_invalid: bool,
    force: bool,
    memory: Option<i64>,
    threads: Option<i64>,
) -> PyResult<(String, Vec<String>, Vec<String>)> {
    let settings = Settings {
        threshold,
        k: params::bits(k, "k")?,
        keep,
        cluster,
        profile,
        width: u32::try_from(width).unwrap_or(0),
        short_rule,
        verify,
        against: against_index(against.as_deref(), save_index.as_deref()),
        memory: params::positive(memory, "memory")?,
        files: true,
    };
    // Temporary files beside the outputs, as the CLI puts them.
    let job = settings.job(Some(out.clone()))?;
    let (_, keep_field) = settings.keep()?;
    let mut read = ReadOptions::default();
    read.format(self::format(format)?)
        .text_field(text_field)
        .id_field(id_field)
        .lines(lines)
        .max_bytes(params::positive(Some(max_bytes), "max_bytes")?.unwrap_or(1));
    let mut described = settings.describe_json(&job);
    described["against"] = serde_json::json!(against.as_ref().map(|p| p.display().to_string()));
    described["save_index"] =
        serde_json::json!(save_index.as_ref().map(|p| p.display().to_string()));
    let run = DedupRun::builder(paths, out, job)
        .read(read)
        .skip_invalid(skip_invalid)
        .force(force)
        .keep_field(keep_field.map(str::to_string))
        .save_index(save_index)
        .settings(described)
        .build();
    let pool = params::pool(threads)?;
    let finished = interruptible(py, |interrupt| pool.install(|| run.run(interrupt)))?
        .map_err(|e| failed(&e))?;
    Ok((
        finished.summary.to_string(),
        finished.warnings,
        finished.notes,
    ))
}
