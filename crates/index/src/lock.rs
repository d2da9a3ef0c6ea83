//! One writer at a time: an advisory lock on a file in the directory
//! written to.
//!
//! The lock is the operating system's (`flock` on Unix, `LockFileEx` on
//! Windows), taken on an open file: it goes with the process, so a writer
//! killed halfway leaves no stale lock behind. Readers take no lock and are
//! never blocked.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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

    /// Takes the lock as [`WriterLock::acquire`] does, trying again for up
    /// to `wait` while another handle holds it. For a reader that must
    /// repair what a killed writer left: the lock it took a moment before
    /// may still be held by a child another thread of its process forked
    /// then (the child holds a copy of every open file until it runs its
    /// program, and with it the lock).
    ///
    /// ```
    /// use std::time::Duration;
    /// use neardup_index::WriterLock;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let held = WriterLock::acquire(dir.path(), "LOCK", "an index")?;
    /// let path = dir.path().to_path_buf();
    /// let waiting = std::thread::spawn(move || {
    ///     WriterLock::acquire_waiting(&path, "LOCK", "an index", Duration::from_secs(10)).is_ok()
    /// });
    /// std::thread::sleep(Duration::from_millis(50));
    /// drop(held);
    /// assert!(waiting.join().unwrap());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`WriterLock::acquire`], [`Error::Locked`] once `wait` has passed.
    pub fn acquire_waiting(
        dir: &Path,
        name: &str,
        what: &str,
        wait: Duration,
    ) -> Result<WriterLock> {
        let until = Instant::now() + wait;
        loop {
            match WriterLock::acquire(dir, name, what) {
                Err(Error::Locked { .. }) if Instant::now() < until => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                taken => return taken,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_held_throughout_the_wait_is_refused_once_it_passes() {
        let dir = tempfile::tempdir().unwrap();
        let _held = WriterLock::acquire(dir.path(), LOCK_FILE, "an index").unwrap();
        let started = Instant::now();
        let wait = Duration::from_millis(100);
        let taken = WriterLock::acquire_waiting(dir.path(), LOCK_FILE, "an index", wait);
        assert!(matches!(taken, Err(Error::Locked { .. })), "{taken:?}");
        assert!(started.elapsed() >= wait);
    }
}
