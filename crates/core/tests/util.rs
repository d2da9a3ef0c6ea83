//! What the integration tests share: paths, a seeded generator, JSON lines.

use std::path::PathBuf;

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Reads a JSON-lines file into values.
pub fn read_jsonl(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A corpus fetched by `scripts/fetch-corpora.sh`, or `None` (with a note)
/// when it is absent and `NEARDUP_REQUIRE_CORPORA` is unset. CI sets it, so
/// there a missing corpus fails instead of skipping.
pub fn corpus(name: &str) -> Option<Vec<serde_json::Value>> {
    let path = root().join("data/corpora").join(name);
    if path.exists() {
        return Some(read_jsonl(&path));
    }
    if std::env::var_os("NEARDUP_REQUIRE_CORPORA").is_some() {
        panic!(
            "{} is missing: run scripts/fetch-corpora.sh",
            path.display()
        );
    }
    eprintln!(
        "skipped: {} is missing (run scripts/fetch-corpora.sh)",
        path.display()
    );
    None
}

/// SplitMix64: a small, seeded, portable generator for test data.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
