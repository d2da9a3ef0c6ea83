//! `dedup`: the library's dedup job over texts in memory, each text's
//! fate back as arrays.

use std::path::PathBuf;
use std::time::Instant;

use neardup_core::{Profile, Width};
use neardup_dedup::{
    DEFAULT_K, DEFAULT_THRESHOLD, Dedup, DedupBuilder, Fate, Grouping, Keep, Memory, Outcome, Rule,
    Verification,
};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::{SettingsError, run, settings};
use crate::interrupt::watched;
use crate::params;
use crate::texts::{Texts, ids_from_py};

/// The settings of a run, as the Python signature gives them.
pub(crate) struct Settings<'a> {
    pub threshold: f64,
    pub k: u32,
    pub keep: &'a str,
    pub cluster: &'a str,
    pub profile: &'a str,
    pub width: u32,
    pub short_rule: bool,
    pub verify: Option<&'a str>,
    pub against: Option<PathBuf>,
    pub memory: Option<u64>,
    /// Whether the documents are records of files (`dedup_files`).
    pub files: bool,
}

impl Settings<'_> {
    /// The job these settings describe, checked; its temporary files in
    /// `spill` (the system's temporary directory if `None`).
    pub(crate) fn job(&self, spill: Option<PathBuf>) -> PyResult<Dedup> {
        let mut job = DedupBuilder::with_rule(self.rule()?);
        let (keep, _) = self.keep()?;
        let grouping = match self.cluster {
            "greedy" => Grouping::Greedy,
            "components" => Grouping::Components,
            other => {
                return Err(SettingsError::new_err(format!(
                    "cluster: {other:?}; give greedy or components"
                )));
            }
        };
        job.keep(keep)
            .grouping(grouping)
            .against(self.against.clone())
            .memory(self.memory)
            .spill_to(spill);
        job.build().map_err(|e| settings("k", e))
    }

    /// The rule these settings describe, checked: the CLI's, with them.
    pub(crate) fn rule(&self) -> PyResult<Rule> {
        let profile: Profile = self.profile.parse().map_err(|e| settings("profile", e))?;
        let fingerprinter = neardup_core::Fingerprinter::builder(profile)
            .width(Width::from_bits(self.width).map_err(|e| settings("width", e))?)
            .build()
            .map_err(|e| settings("profile", e))?;
        let mut rule = Rule::with_fingerprinter(fingerprinter);
        rule.k(self.k)
            .short_rule(self.short_rule)
            .verification(verification(self.threshold, self.verify)?);
        Ok(rule)
    }

    /// The keep rule, and the field it ranks by (`max:FIELD`, `min:FIELD`:
    /// for files only).
    pub(crate) fn keep(&self) -> PyResult<(Keep, Option<&str>)> {
        let (rule, field) = match self.keep.split_once(':') {
            Some((rule, field)) if !field.is_empty() => (rule, Some(field)),
            _ => (self.keep, None),
        };
        let keep: Keep = rule
            .parse()
            .map_err(|e: String| SettingsError::new_err(format!("keep: {e}")))?;
        match (keep, field) {
            (Keep::Max | Keep::Min, None) if !self.files => Err(SettingsError::new_err(format!(
                "keep={:?} ranks by a field of the records (max:FIELD); for texts in memory give \
                 first, longest or shortest (or sort the texts first)",
                self.keep
            ))),
            (Keep::Max | Keep::Min, None) => Err(SettingsError::new_err(format!(
                "keep={:?}: name the field to rank by, as in max:score",
                self.keep
            ))),
            (Keep::Max | Keep::Min, Some(_)) if !self.files => Err(SettingsError::new_err(
                "keep=max:FIELD and min:FIELD rank records of files (dedup_files); for texts in \
                 memory give first, longest or shortest",
            )),
            (Keep::First | Keep::Longest | Keep::Shortest, Some(_)) => Err(SettingsError::new_err(
                format!("keep={:?}: only max and min take a field", self.keep),
            )),
            (keep, field) => Ok((keep, field)),
        }
    }

    /// `summary["settings"]`, as `neardup dedup` writes them.
    pub(crate) fn describe_json(&self, job: &Dedup) -> serde_json::Value {
        let verify = match self.verify {
            None => Verification::Jaccard(self.threshold).to_string(),
            Some(v) => v.to_string(),
        };
        serde_json::json!({
            "k": self.k,
            "short_rule": job.short_rule_holds(),
            "short_words": job.rule().short_bound(),
            "profile": self.profile,
            "width": self.width,
            "keep": self.keep,
            "cluster": self.cluster,
            "verify": verify,
            "against": self.against.as_ref().map(|p| p.display().to_string()),
        })
    }
}

/// The verification of `threshold=` and `verify=` (which wins when given),
/// as the CLI reads `--threshold` and `--verify`.
pub(crate) fn verification(threshold: f64, verify: Option<&str>) -> PyResult<Option<Verification>> {
    match verify {
        None => Verification::threshold(threshold)
            .map(Some)
            .map_err(|e| SettingsError::new_err(format!("threshold: {threshold}; {e}"))),
        Some(v) => Verification::from_setting(v).map_err(|e| settings("verify", e)),
    }
}

/// `verify=` as `neardup.spark` passes it to its batches: the
/// verification of `threshold=` and `verify=`, written out, or `None`.
#[pyfunction]
#[pyo3(signature = (threshold, verify = None))]
pub(crate) fn verify_spec(threshold: f64, verify: Option<&str>) -> PyResult<Option<String>> {
    Ok(verification(threshold, verify)?.map(|v| v.to_string()))
}

/// Runs the dedup job over `texts` (with `ids` naming them in errors);
/// gives `(duplicate_of, distance, similarity, indexed, clusters,
/// summary)`. `progress(stage, bytes_read, bytes_in_all)` is called as it
/// goes, if given.
#[pyfunction]
#[pyo3(signature = (texts, ids = None, *, threshold = DEFAULT_THRESHOLD, k = i64::from(DEFAULT_K), keep = "first", cluster = "greedy",
    profile = "auto", width = 64, short_rule = true, verify = None, against = None, memory = None,
    threads = None, progress = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn dedup<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    ids: Option<&Bound<'py, PyAny>>,
    threshold: f64,
    k: i64,
    keep: &str,
    cluster: &str,
    profile: &str,
    width: i64,
    short_rule: bool,
    verify: Option<&str>,
    against: Option<PathBuf>,
    memory: Option<i64>,
    threads: Option<i64>,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let started = Instant::now();
    let settings = Settings {
        threshold,
        k: params::bits(k, "k")?,
        keep,
        cluster,
        profile,
        width: u32::try_from(width).unwrap_or(0),
        short_rule,
        verify,
        against,
        memory: params::positive(memory, "memory")?,
        files: false,
    };
    let job = settings.job(None)?;
    let pool = params::pool(threads)?;
    let texts = Texts::from_py(texts, "texts")?;
    let ids = ids.map(|ids| ids_from_py(ids, "ids")).transpose()?;
    if let Some(ids) = &ids
        && ids.len() != texts.len()
    {
        return Err(crate::error::InputError::new_err(format!(
            "{} ids for {} texts; give one id per text",
            ids.len(),
            texts.len()
        )));
    }
    let pairs: Option<Vec<(&str, &str)>> = match &ids {
        Some(ids) => Some(
            ids.iter()
                .map(String::as_str)
                .zip(texts.strs("texts")?)
                .collect(),
        ),
        None => None,
    };
    let outcome = watched(py, progress, |interrupt| {
        let run = |source: &dyn neardup_dedup::Source| pool.install(|| job.run(source, interrupt));
        match &pairs {
            None => run(&Memory::new(texts.documents())),
            Some(pairs) => run(&Memory::new(&pairs[..])),
        }
    })?
    .map_err(run)?;
    let n = outcome.stats().documents;
    let mut duplicate_of = vec![-1i64; n];
    let mut distance = vec![-1i32; n];
    let mut similarity = vec![f32::NAN; n];
    let mut indexed: Vec<Option<&str>> = vec![None; n];
    for (d, fate) in outcome.fates().iter().enumerate() {
        match fate {
            Fate::Kept => continue,
            Fate::Duplicate { of, distance: bits } => {
                duplicate_of[d] = i64::from(of);
                distance[d] = bits as i32;
            }
            Fate::DuplicateOfIndexed {
                entry,
                distance: bits,
            } => {
                distance[d] = bits as i32;
                indexed[d] = outcome.indexed_name(entry);
            }
        }
        if let Some(s) = outcome.why(d as u32).and_then(|w| w.similarity) {
            similarity[d] = s;
        }
    }
    let clusters = clusters(&outcome);
    let summary = summary(
        py,
        &outcome,
        clusters.len(),
        started,
        json_to_py(py, &settings.describe_json(&job))?,
    )?;
    let indexed = settings.against.as_ref().map(|_| indexed);
    (
        PyArray1::from_vec(py, duplicate_of),
        PyArray1::from_vec(py, distance),
        PyArray1::from_vec(py, similarity),
        indexed,
        clusters,
        summary,
    )
        .into_pyobject(py)
        .map(|t| t.into_any())
}

/// The groups of more than one document: the kept one first, then the
/// ones dropped for it, in input order; groups in the order of their kept
/// documents.
fn clusters(outcome: &Outcome) -> Vec<Vec<u32>> {
    outcome
        .fates()
        .members()
        .chunk_by(|x, y| x.0 == y.0)
        .map(|group| {
            std::iter::once(group[0].0)
                .chain(group.iter().map(|&(_, d)| d))
                .collect()
        })
        .collect()
}

/// The counts of `summary.json`, as a dict.
fn summary<'py>(
    py: Python<'py>,
    outcome: &Outcome,
    groups: usize,
    started: Instant,
    settings: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let stats = outcome.stats();
    let d = PyDict::new(py);
    d.set_item("documents", stats.documents)?;
    d.set_item("unique", stats.unique)?;
    d.set_item("dropped", stats.documents - stats.unique)?;
    d.set_item("dropped_against_index", stats.dropped_against_index)?;
    d.set_item("exact_copies", stats.exact_copies)?;
    d.set_item("candidate_pairs", stats.candidate_pairs)?;
    d.set_item("pairs", stats.pairs_by_distance.iter().sum::<u64>())?;
    d.set_item("groups", groups)?;
    d.set_item("seconds", started.elapsed().as_secs_f64())?;
    d.set_item("settings", settings)?;
    Ok(d)
}

/// A JSON value as Python's `json.loads` gives it.
fn json_to_py<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?
        .call_method1("loads", (value.to_string(),))
}
