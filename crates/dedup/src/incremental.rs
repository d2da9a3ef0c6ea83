//! Incremental runs: a batch deduplicated against the documents kept by
//! earlier runs, whose fingerprints a store holds, and the kept documents
//! of a run added to one.

use std::collections::HashMap;
use std::path::Path;

use neardup_core::Width;
use neardup_store::{AnyStore, StoreOptions, StoreSettings};
use rayon::prelude::*;
use serde_json::Value;

use crate::error::{Error, Result};

/// For each document of a run, the nearest stored one within k (a number
/// for its id, and their distance), and the ids by number.
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
/// store at `dir` (the first by id among equals).
pub(crate) fn against(dir: &Path, fingerprints: &[u128], width: Width, k: u32) -> Result<Indexed> {
    let refuse = |message: String| Error::Against {
        path: dir.to_path_buf(),
        message,
    };
    let store = AnyStore::open_read_only(dir)?;
    let settings = store.settings();
    if settings.width != width {
        return Err(refuse(format!(
            "it holds {}-bit fingerprints, these are {}-bit; fingerprint at its width",
            settings.width.bits(),
            width.bits()
        )));
    }
    if k > settings.k {
        return Err(refuse(format!(
            "it finds fingerprints at most {} bits apart, and {k} were asked for; \
             ask for {} or less, or build a new index",
            settings.k, settings.k
        )));
    }
    let found: Vec<Option<(String, u32)>> = fingerprints
        .par_iter()
        .map(|&f| {
            let hits = store.query(f, k)?;
            Ok(hits.into_iter().next().map(|h| (h.id, h.distance)))
        })
        .collect::<Result<_>>()?;
    let mut numbers: HashMap<String, u32> = HashMap::new();
    let mut names = HashMap::new();
    let nearest = found
        .into_iter()
        .map(|hit| {
            hit.map(|(id, distance)| {
                let next = numbers.len() as u32;
                let number = *numbers.entry(id.clone()).or_insert(next);
                names.entry(number).or_insert(id);
                (number, distance)
            })
        })
        .collect();
    Ok(Indexed { nearest, names })
}

/// Adds `fingerprints`, named `names`, to the store at `dir`, creating it
/// (for queries within `k` bits, recording the fingerprint settings
/// `fingerprint`) if it holds none.
///
/// ```
/// use neardup_core::Width;
/// use neardup_dedup::save_to_index;
///
/// let dir = tempfile::tempdir()?;
/// let settings = serde_json::json!({"profile": "auto"});
/// save_to_index(dir.path(), Width::W64, 6, &[1, 2], &["a", "b"], &settings)?;
/// save_to_index(dir.path(), Width::W64, 6, &[3], &["c"], &settings)?;
/// assert!(save_to_index(dir.path(), Width::W64, 6, &[4], &["a"], &settings).is_err(), "names are unique");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As the store's [`AnyStore::open`] and [`AnyStore::insert_all`]: names
/// that repeat, a store of other settings, a directory that cannot be
/// written.
pub fn save_to_index(
    dir: &Path,
    width: Width,
    k: u32,
    fingerprints: &[u128],
    names: &[&str],
    fingerprint: &Value,
) -> Result<()> {
    let store = match StoreSettings::of(dir)? {
        Some(_) => AnyStore::open(dir, None, StoreOptions::default())?,
        None => {
            let settings = StoreSettings::new(width, k, fingerprint.clone(), false);
            AnyStore::open(dir, Some(&settings), StoreOptions::default())?
        }
    };
    store.insert_all(fingerprints, names)?;
    Ok(())
}
