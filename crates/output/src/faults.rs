//! The steps at which a run makes its work durable or visible (a file
//! synced, renamed, a directory synced, a transaction of the index
//! committed), named so that tests can fail a run at each in turn and
//! check that nothing is lost: [`DedupRunBuilder::inject_faults`](crate::DedupRunBuilder::inject_faults).

use std::path::Path;

/// A step at which a run makes its work durable or visible.
///
/// ```
/// use std::path::Path;
/// use neardup_output::Step;
///
/// let step = Step::Rename(Path::new("out/summary.json"));
/// assert!(matches!(step, Step::Rename(p) if p.ends_with("summary.json")));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step<'a> {
    /// The data of this file written to disk (`fsync`).
    SyncFile(&'a Path),
    /// A temporary file renamed to this name.
    Rename(&'a Path),
    /// The entries of this directory written to disk.
    SyncDir(&'a Path),
    /// A transaction of the index in this directory committed.
    CommitIndex(&'a Path),
}

/// Asked before each [`Step`] of a run: an error fails the step with it,
/// as a full disk or a failing device would.
pub type Faults = dyn Fn(Step<'_>) -> std::io::Result<()> + Send + Sync;

/// No step fails.
pub(crate) fn none(_: Step<'_>) -> std::io::Result<()> {
    Ok(())
}

/// Syncs directory `dir`, so that the files renamed into it survive a
/// power cut; `faults` hears it first.
pub(crate) fn sync_dir(dir: &Path, faults: &Faults) -> std::io::Result<()> {
    faults(Step::SyncDir(dir))?;
    #[cfg(unix)]
    std::fs::File::open(dir)?.sync_all()?;
    Ok(())
}
