//! How many worker threads a run may ask for: every front (the command's
//! `-j`, Python's `threads=`) checks the number here, so that a slip of
//! the keyboard (`100000`) is refused instead of starting thousands of
//! threads.

/// Worker threads a run may ask for per core: more only adds switching.
pub const THREADS_PER_CORE: usize = 16;

/// `asked` worker threads, checked: 0 means one per core; at most
/// [`THREADS_PER_CORE`] per core of this machine. The error says the bound
/// and what to give instead.
///
/// ```
/// assert_eq!(neardup_dedup::checked_threads(0), Ok(0));
/// assert_eq!(neardup_dedup::checked_threads(2), Ok(2));
/// assert!(neardup_dedup::checked_threads(1_000_000).unwrap_err().contains("per core"));
/// ```
///
/// # Errors
///
/// More than [`THREADS_PER_CORE`] per core.
pub fn checked_threads(asked: usize) -> Result<usize, String> {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let most = cores * THREADS_PER_CORE;
    if asked > most {
        return Err(format!(
            "{asked} threads on {cores} cores: at most {most} ({THREADS_PER_CORE} per core); \
             0 means one per core"
        ));
    }
    Ok(asked)
}
