//! Arbitrary bytes written to `x.jsonl` (JSON lines) and `x.txt` (text,
//! one document per line), each read to the end with the default limit and
//! with a small one: no panic, no more items than lines, and every error
//! names the file (and a line that exists).
//!
//! The proptest suite `crates/corpus/tests/fuzz.rs` checks the same in
//! `cargo test`, against a model of the formats, and gzip too.

#![no_main]

use std::path::PathBuf;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use neardup_corpus::{Corpus, ReadOptions};

/// One directory for the whole run; each input overwrites its files.
static DIR: LazyLock<tempfile::TempDir> = LazyLock::new(|| tempfile::tempdir().unwrap());

fuzz_target!(|data: &[u8]| {
    let lines = data.split(|&b| b == b'\n').count() as u64;
    for (name, per_line) in [("x.jsonl", false), ("x.txt", true)] {
        let path: PathBuf = DIR.path().join(name);
        std::fs::write(&path, data).unwrap();
        for max_bytes in [ReadOptions::default().max_bytes_value(), 16] {
            let mut options = ReadOptions::default();
            options.lines(per_line).max_bytes(max_bytes);
            let corpus = Corpus::open(&[&path], &options).unwrap();
            let mut items = 0u64;
            for item in corpus.documents() {
                items += 1;
                assert!(items <= lines, "{name}: more items than lines");
                let Err(err) = item else { continue };
                let message = err.to_string();
                assert!(
                    message.contains(&path.display().to_string()),
                    "{name}: the error does not name the file: {message}"
                );
                if let Some(line) = err.place().line {
                    assert!(
                        (1..=lines).contains(&line),
                        "{name}: line {line} of {lines}: {message}"
                    );
                }
            }
        }
    }
});
