//! Incremental runs: a batch deduplicated against the documents kept by
//! earlier runs, whose fingerprints an index directory holds.

use std::path::Path;

use crate::error::{Error, Result};
use neardup_core::FingerprintSettings;

/// Refuses a store whose recorded fingerprint settings are not `ours`. A
/// store that records none (made by the Python `Index.save`, which does not
/// know how its fingerprints were made) is taken on trust: the warning that
/// says so is returned.
pub(crate) fn check_settings(
    dir: &Path,
    ours: &FingerprintSettings,
    option: &'static str,
) -> Result<Option<String>> {
    let Some(stored) =
        neardup_store::StoreSettings::of(dir).map_err(|e| Error::index(option, dir, e))?
    else {
        return Ok(None);
    };
    let Some(theirs) = stored.fingerprint else {
        return Ok(Some(format!(
            "{option} {}: it records no fingerprint settings, so they are not known; \
             they must be this run's",
            dir.display()
        )));
    };
    if let Some(differences) = theirs.difference(ours) {
        return Err(Error::OtherSettings {
            option,
            dir: dir.to_path_buf(),
            differences,
        });
    }
    Ok(None)
}
