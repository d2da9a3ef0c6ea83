//! One writer at a time: an advisory lock on a file in the directory
//! written to.
//!
//! The lock is the operating system's (`flock` on Unix, `LockFileEx` on
//! Windows), taken on an open file: it goes with the process, so a writer
//! killed halfway leaves no stale lock behind. Readers take no lock and are
//! never blocked.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The lock of an index directory's writer.
pub const LOCK_FILE: &str = "LOCK";

/// A held writer lock; released when dropped (or when the process ends).
///
/// ```
/// use neardup_index::WriterLock;
///
/// let dir = tempfile::tempdir()?;
/// let lock = WriterLock::acquire(dir.path(), "LOCK", "an index")?;
/// let second = WriterLock::acquire(dir.path(), "LOCK", "an index");
/// assert!(second.unwrap_err().to_string().contains("another neardup is writing"));
/// drop(lock);
/// assert!(WriterLock::acquire(dir.path(), "LOCK", "an index").is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct WriterLock {
    _file: File,
}

impl WriterLock {
    /// Takes the lock of file `name` in directory `dir` (the file is made
    /// if missing, and stays), without waiting; `what` says what the
    /// directory holds, for the error.
    ///
    /// # Errors
    ///
    /// [`Error::Locked`] when another process (or another handle in this
    /// one) holds the lock; [`Error::Io`] when the file cannot be opened.
    pub fn acquire(dir: &Path, name: &str, what: &str) -> Result<WriterLock> {
        let path: PathBuf = dir.join(name);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::Io(path.clone(), e))?;
        match file.try_lock() {
            Ok(()) => Ok(WriterLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(Error::Locked {
                what: what.to_string(),
                dir: dir.to_path_buf(),
                lock: path,
            }),
            Err(TryLockError::Error(e)) => Err(Error::Io(path, e)),
        }
    }
}
