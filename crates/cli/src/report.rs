//! Messages on stderr: counts, and skipped records.

use neardup_corpus::Error as ReadError;
pub use neardup_dedup::Skipped;

/// How many examples of skipped records are printed.
const EXAMPLES: u64 = 5;

/// Prints `error` if it is among the first few skipped, `already` being the
/// number skipped before it, or if it is a dedup's output directory left
/// unread (a surprise however many other entries were skipped).
pub fn show_skipped(already: u64, error: &ReadError) {
    let output = matches!(
        error,
        ReadError::NotRead {
            reason: neardup_corpus::NotRead::DedupOutput,
            ..
        }
    );
    if already < EXAMPLES || output {
        eprintln!("neardup: skipped: {error}");
    }
}

/// `n` and its noun, singular for 1: `1 document`, `3 documents`.
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}
