//! The output directory of a run: locked, checked, cleared.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use neardup_index::WriterLock;

use crate::atomic::is_temporary_of;
use crate::records::OUTPUTS;

/// The lock a run holds on its `out`, a hidden file there: two runs into
/// one directory would each replace the other's outputs.
const OUT_LOCK: &str = ".neardup.lock";

/// What a run found in its `out`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Earlier {
    /// Nothing of an earlier run (temporary files aside).
    Nothing,
    /// Outputs of a run that did not finish: no `summary.json`.
    Unfinished,
    /// A finished run's outputs, or other files: replaced with `force`.
    Finished,
}

/// The lock of a run's `out`, held while the run writes there; the lock
/// file is removed when it is dropped, as the run ends (finished or
/// failed), so that a finished `out` holds the outputs alone.
pub(crate) struct OutLock {
    path: PathBuf,
    // Dropped after `drop` has removed the file: released last.
    _lock: WriterLock,
}

impl Drop for OutLock {
    fn drop(&mut self) {
        // Removed while the lock is held. A file left behind (on Windows,
        // an open file cannot be removed) holds no lock: the next run takes
        // it.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Makes `out` and takes its lock, refusing a directory another run writes
/// to.
///
/// A run that opens the lock file just before the run holding it removes
/// it, and locks it once released, would hold the lock of a file no longer
/// in `out`, while a third run takes the new one's. So the file is taken
/// again until `out` held the same file before the opening and after the
/// locking: it was the one opened, and it stays while the lock is held
/// (only a holder removes it).
pub(crate) fn lock_out(out: &Path) -> Result<OutLock> {
    if out.exists() && !out.is_dir() {
        return Err(Error::OutNotDirectory {
            out: out.to_path_buf(),
        });
    }
    std::fs::create_dir_all(out).map_err(|e| Error::at("cannot create", out, e))?;
    let path = out.join(OUT_LOCK);
    // The first try makes the file when there is none.
    for _ in 0..8 {
        let before = file_id(&path);
        let lock = WriterLock::acquire(out, OUT_LOCK, "a dedup's outputs")?;
        if before.is_some() && before == file_id(&path) {
            return Ok(OutLock { path, _lock: lock });
        }
    }
    Err(Error::LockReplaced {
        lock: path,
        out: out.to_path_buf(),
    })
}

/// What tells the file at `path` from another that replaced it there.
#[cfg(unix)]
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Whether a file is at `path`: an open file cannot be removed here, so
/// the file that stays is the one opened.
#[cfg(not(unix))]
fn file_id(path: &Path) -> Option<()> {
    path.exists().then_some(())
}

/// What `out` (locked) holds; refused when it holds a finished run's
/// outputs or other files, unless `force`. The temporary files an
/// interrupted run left are removed in any case.
pub(crate) fn earlier_outputs(out: &Path, force: bool) -> Result<Earlier> {
    let mut others: Vec<OsString> = Vec::new();
    let cannot_read = |e| Error::at("cannot read", out, e);
    for entry in std::fs::read_dir(out).map_err(cannot_read)? {
        let name = entry.map_err(cannot_read)?.file_name();
        if name != OUT_LOCK {
            others.push(name);
        }
    }
    let temporary = |name: &OsString| name.to_str().is_some_and(|n| is_temporary_of(n, &OUTPUTS));
    for name in others.iter().filter(|n| temporary(n)) {
        std::fs::remove_file(out.join(name)).map_err(|e| {
            Error::at(
                "cannot remove what an interrupted run left:",
                &out.join(name),
                e,
            )
        })?;
    }
    others.retain(|n| !temporary(n));
    // Outputs with no summary are an unfinished run's: nobody's result.
    let unfinished = |name: &OsString| {
        name.to_str()
            .is_some_and(|n| n != "summary.json" && OUTPUTS.contains(&n))
    };
    let earlier = match others.is_empty() {
        true => Earlier::Nothing,
        false if others.iter().all(unfinished) => Earlier::Unfinished,
        false => Earlier::Finished,
    };
    if earlier == Earlier::Finished && !force {
        return Err(Error::OutNotEmpty {
            out: out.to_path_buf(),
        });
    }
    Ok(earlier)
}

/// Removes the outputs of an earlier run from `out`, `summary.json` first
/// (it marks a finished run), so that none of them looks like the result
/// of this run while it runs or after it fails.
pub(crate) fn clear_out(out: &Path) -> Result<()> {
    for name in OUTPUTS.iter().rev() {
        match std::fs::remove_file(out.join(name)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::at("cannot remove the earlier", &out.join(name), e));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The outputs' paths must not be inputs: dedup never writes into an input.
pub(crate) fn refuse_inputs_as_outputs(out: &Path, files: &[PathBuf]) -> Result<()> {
    // Only inputs named like an output can be one: the rest need no
    // canonical path (a system call each).
    let named_like = |f: &&PathBuf| {
        f.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| OUTPUTS.contains(&n))
    };
    for file in files.iter().filter(named_like) {
        let (Ok(input), Some(name)) = (file.canonicalize(), file.file_name()) else {
            continue;
        };
        if out.join(name).canonicalize().is_ok_and(|o| o == input) {
            return Err(Error::InputAsOutput {
                path: input,
                directory: true,
            });
        }
    }
    Ok(())
}
