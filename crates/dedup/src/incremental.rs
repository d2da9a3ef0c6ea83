//! Incremental runs: a batch deduplicated against the documents kept by
//! earlier runs, whose fingerprints an index directory holds, and the kept
//! documents of a run added to one.

use std::collections::HashMap;
use std::path::Path;

use neardup_core::Width;
use neardup_index::{AnyIndexDir, TablePlan};
use rayon::prelude::*;

use crate::error::{Error, Result};

/// For each document of a run, the nearest indexed one within k (its entry
/// in the index, and their distance), and the names of those entries.
#[derive(Debug, Default)]
pub(crate) struct Indexed {
    pub nearest: Vec<Option<(u32, u32)>>,
    pub names: HashMap<u32, String>,
}

impl Indexed {
    /// Whether document `doc` is near an indexed one.
    pub(crate) fn has(&self, doc: u32) -> bool {
        self.nearest.get(doc as usize).is_some_and(Option::is_some)
    }
}

/// The nearest fingerprint within `k` bits of each of `fingerprints` in the
/// index at `dir` (the first by number among equals).
pub(crate) fn against(dir: &Path, fingerprints: &[u128], width: Width, k: u32) -> Result<Indexed> {
    let refuse = |message: String| Error::Against {
        path: dir.to_path_buf(),
        message,
    };
    let index = AnyIndexDir::open(dir)?;
    if index.width() != width {
        return Err(refuse(format!(
            "it holds {}-bit fingerprints, these are {}-bit; fingerprint at its width",
            index.width().bits(),
            width.bits()
        )));
    }
    let index_k = index.plan().k();
    if k > index_k {
        return Err(refuse(format!(
            "it finds fingerprints at most {index_k} bits apart, and {k} were asked for; \
             ask for {index_k} or less, or build a new index"
        )));
    }
    let nearest: Vec<Option<(u32, u32)>> = fingerprints
        .par_iter()
        .map(|&f| {
            index
                .query(f)
                .into_iter()
                .find(|m| m.distance <= k)
                .map(|m| (m.id, m.distance))
        })
        .collect();
    let names = nearest
        .iter()
        .flatten()
        .filter_map(|&(id, _)| Some((id, index.name(id)?.to_string())))
        .collect();
    Ok(Indexed { nearest, names })
}

/// Adds `fingerprints`, named `names`, to the index at `dir`, creating it
/// (planned for queries within `k` bits) if it holds none.
///
/// ```
/// use neardup_core::Width;
/// use neardup_dedup::save_to_index;
///
/// let dir = tempfile::tempdir()?;
/// save_to_index(dir.path(), Width::W64, 6, &[1, 2], &["a", "b"])?;
/// save_to_index(dir.path(), Width::W64, 6, &[3], &["c"])?;
/// assert!(save_to_index(dir.path(), Width::W64, 6, &[4], &["a"]).is_err(), "names are unique");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As the index crate's [`AnyIndexDir::create`] and [`AnyIndexDir::add`]:
/// names that repeat, an index of another width, a directory that cannot
/// be written.
pub fn save_to_index(
    dir: &Path,
    width: Width,
    k: u32,
    fingerprints: &[u128],
    names: &[&str],
) -> Result<()> {
    if dir.join("MANIFEST").exists() {
        AnyIndexDir::open(dir)?.add(fingerprints, names)?;
    } else {
        let plan =
            TablePlan::choose(width, k, fingerprints.len().max(1) as f64, None)?.plan(width, k)?;
        AnyIndexDir::create(dir, plan, fingerprints, names)?;
    }
    Ok(())
}
