//! Messages on stderr: skipped records and the closing summary.

use std::collections::BTreeMap;

use neardup_corpus::Error as ReadError;

/// How many examples of skipped records are printed.
const EXAMPLES: usize = 5;

/// Records skipped with --skip-invalid, counted by kind.
#[derive(Debug, Default)]
pub struct Skipped {
    by_kind: BTreeMap<&'static str, u64>,
    total: u64,
}

impl Skipped {
    /// Counts `error`, printing the first few.
    pub fn add(&mut self, error: &ReadError) {
        self.total += 1;
        *self.by_kind.entry(error.kind_name()).or_insert(0) += 1;
        if self.total <= EXAMPLES as u64 {
            eprintln!("neardup: skipped: {error}");
        }
    }

    /// The number of records skipped.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The records skipped by kind, as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "total": self.total,
            "by_kind": self.by_kind,
        })
    }

    /// `3 invalid records (2 invalid-json, 1 missing-field)`.
    pub fn describe(&self) -> String {
        let kinds: Vec<String> = self
            .by_kind
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        format!("{} invalid records ({})", self.total, kinds.join(", "))
    }
}
