//! Incremental runs: a batch deduplicated against the documents kept by
//! earlier runs, whose fingerprints an index directory holds.

use std::path::Path;

use crate::error::{Error, Result};
use neardup_core::Width;
use serde_json::{Value, json};
use xxhash_rust::xxh3::xxh3_128;

/// The settings that decide a fingerprint, as given (`None`: the profile's
/// default), as a store records them.
///
/// ```
/// use neardup_core::Width;
/// use neardup_output::SettingsRecord;
///
/// let record = SettingsRecord { profile: "auto".into(), ..SettingsRecord::default() };
/// let json = record.to_json(Width::W64)?;
/// assert_eq!((json["profile"].as_str(), json["width"].as_u64()), (Some("auto"), Some(64)));
/// # Ok::<(), neardup_output::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct SettingsRecord {
    /// The profile's name.
    pub profile: String,
    /// The feature hash, if not the profile's.
    pub hash: Option<String>,
    /// The features, if not the profile's.
    pub features: Option<String>,
    /// The weighting, if not the profile's.
    pub weighting: Option<String>,
    /// The heaviest features kept, if not all.
    pub top_k: Option<usize>,
    /// A stop-word list file, or `none`.
    pub stop_words: Option<String>,
    /// An IDF table file.
    pub idf: Option<std::path::PathBuf>,
}

impl SettingsRecord {
    /// The record: the profile, the width, the options given (`null`: the
    /// profile's default), and for files (IDF table, stop words) a hash of
    /// their bytes.
    ///
    /// # Errors
    ///
    /// When a file it names cannot be read.
    pub fn to_json(&self, width: Width) -> Result<Value> {
        let digest = |path: &Path| -> Result<String> {
            let bytes = std::fs::read(path).map_err(|e| Error::at("cannot read", path, e))?;
            Ok(format!("xxh3-128:{:032x}", xxh3_128(&bytes)))
        };
        let stop_words = match self.stop_words.as_deref() {
            None => Value::Null,
            Some("none") => json!("none"),
            Some(path) => json!(digest(Path::new(path))?),
        };
        let idf = match &self.idf {
            None => Value::Null,
            Some(path) => json!(digest(path)?),
        };
        Ok(json!({
            // Fingerprints of another format version are not comparable.
            "format": neardup_core::FORMAT_VERSION,
            "profile": self.profile,
            "width": width.bits(),
            "hash": self.hash,
            "features": self.features,
            "weighting": self.weighting,
            "top_k": self.top_k,
            "stop_words": stop_words,
            "idf": idf,
        }))
    }
}

/// Refuses a store whose recorded fingerprint settings are not `ours`. A
/// store that records none (made by the Python `Index.save`, which does not
/// know how its fingerprints were made) is taken on trust: the warning that
/// says so is returned.
pub(crate) fn check_settings(
    dir: &Path,
    ours: &Value,
    option: &'static str,
) -> Result<Option<String>> {
    let Some(stored) =
        neardup_store::StoreSettings::of(dir).map_err(|e| Error::index(option, dir, e))?
    else {
        return Ok(None);
    };
    let theirs = stored.fingerprint;
    if theirs.is_null() {
        return Ok(Some(format!(
            "{option} {}: it records no fingerprint settings, so they are not known; \
             they must be this run's",
            dir.display()
        )));
    }
    let differ: Vec<String> = ours
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, value)| theirs.get(key.as_str()) != Some(value))
        .map(|(key, value)| {
            let was = theirs.get(key.as_str()).unwrap_or(&Value::Null);
            format!("{key} {was} there, {value} here")
        })
        .collect();
    if !differ.is_empty() {
        return Err(Error::OtherSettings {
            option,
            dir: dir.to_path_buf(),
            differences: differ,
        });
    }
    Ok(None)
}
