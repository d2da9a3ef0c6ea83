//! Files written whole or not at all.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use crate::error::{Error, Result};
use crate::faults::{Faults, Step};

/// Writes `path` through a temporary file in the same directory, renamed
/// over `path` only once `write` succeeded and the data is on disk, so that
/// an interrupted run never leaves a file that looks complete.
///
/// ```
/// use std::io::Write;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("out.txt");
/// neardup_output::write_atomically(&path, |out| Ok(out.write_all(b"whole\n")?))?;
/// assert_eq!(std::fs::read_to_string(&path)?, "whole\n");
/// let failed = neardup_output::write_atomically(&path, |_| Err(std::io::Error::other("no").into()));
/// assert!(failed.is_err());
/// assert_eq!(std::fs::read_to_string(&path)?, "whole\n", "the old file stays");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<()>,
) -> Result<()> {
    write_atomically_with(path, &crate::faults::none, write)
}

/// [`write_atomically`], telling `faults` before the file is synced and
/// before it is renamed.
pub(crate) fn write_atomically_with(
    path: &Path,
    faults: &Faults,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(temporary_name(&name, std::process::id()));
    let result = (|| {
        let file = File::create(&temp).map_err(|e| Error::at("cannot create", &temp, e))?;
        let mut out = BufWriter::new(file);
        write(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        faults(Step::SyncFile(path))?;
        file.sync_all()?;
        faults(Step::Rename(path))?;
        std::fs::rename(&temp, path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// The name [`write_atomically`] writes `name` under first, in process
/// `pid`.
fn temporary_name(name: &str, pid: u32) -> String {
    format!(".{name}.{pid}.tmp")
}

/// Whether `file` is a temporary file of [`write_atomically`] for one of
/// `names` (one an interrupted run left, if its process is gone), as
/// `.unique.jsonl.4242.tmp` is of `unique.jsonl`.
pub fn is_temporary_of(file: &str, names: &[&str]) -> bool {
    let Some(inner) = file.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
        return false;
    };
    inner.rsplit_once('.').is_some_and(|(name, pid)| {
        names.contains(&name)
            && pid
                .parse::<u32>()
                .is_ok_and(|p| temporary_name(name, p) == file)
    })
}

/// Refuses to write `output` when it is one of `inputs`: the run would
/// replace what it reads.
pub fn refuse_input_as_output<'a>(
    output: &Path,
    inputs: impl IntoIterator<Item = &'a Path>,
) -> Result<()> {
    let Ok(output) = output.canonicalize() else {
        // Not there yet: no input can be it.
        return Ok(());
    };
    for input in inputs {
        if input.canonicalize().is_ok_and(|i| i == output) {
            return Err(Error::InputAsOutput {
                path: output,
                directory: false,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_known_again() {
        let names = ["unique.jsonl", "summary.json"];
        assert!(is_temporary_of(
            &temporary_name("unique.jsonl", 4242),
            &names
        ));
        for other in [
            ".unique.jsonl.tmp",
            ".unique.jsonl.x1.tmp",
            ".notes.txt.12.tmp",
            "unique.jsonl",
        ] {
            assert!(!is_temporary_of(other, &names), "{other}");
        }
    }
}
