//! Damaged inputs: a whole Parquet file, a gzip and a zstd file of JSON
//! lines, each changed where the fuzzer says (pairs of a position and a
//! byte to XOR there) and cut where it says (the first two bytes), then
//! read to the end as a run reads them: no panic (the parquet crate's are
//! caught and become errors of the file), and every error names the file.

#![no_main]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Once};

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use libfuzzer_sys::fuzz_target;
use neardup_corpus::{Corpus, ReadOptions};

/// One directory for the whole run; each input overwrites its files.
static DIR: LazyLock<tempfile::TempDir> = LazyLock::new(|| tempfile::tempdir().unwrap());

const LINES: &str = "{\"id\":\"a\",\"text\":\"the river rose in the night\"}\n\
                     {\"id\":\"b\",\"text\":\"a recipe for bread: flour, water, salt\"}\n\
                     {\"id\":\"c\",\"text\":\"the town woke to water in every street\"}\n";

/// The undamaged files: (name, bytes).
static WHOLE: LazyLock<Vec<(&'static str, Vec<u8>)>> = LazyLock::new(|| {
    let texts: ArrayRef = Arc::new(StringArray::from(vec!["one two", "three four five", "six"]));
    let ids: ArrayRef = Arc::new(StringArray::from(vec!["a", "b", "c"]));
    let batch = RecordBatch::try_from_iter([("id", ids), ("text", texts)]).unwrap();
    let mut parquet = Vec::new();
    let mut writer = parquet::arrow::ArrowWriter::try_new(&mut parquet, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(LINES.as_bytes()).unwrap();
    let gzip = gzip.finish().unwrap();
    let zstd = zstd::encode_all(LINES.as_bytes(), 3).unwrap();
    vec![("x.parquet", parquet), ("x.jsonl.gz", gzip), ("x.jsonl.zst", zstd)]
});

fn read_to_end(path: &Path) {
    let Ok(corpus) = Corpus::open(&[path], &ReadOptions::default()) else {
        return;
    };
    for item in corpus.documents() {
        if let Err(err) = item {
            let message = err.to_string();
            assert!(
                message.contains(&path.display().to_string()),
                "the error does not name the file: {message}"
            );
        }
    }
}

/// The panic hook made quiet about caught panics once (libFuzzer's own
/// hook, which aborts, still sees every other panic).
static QUIET: Once = Once::new();

fuzz_target!(|data: &[u8]| {
    QUIET.call_once(neardup_corpus::quiet_caught_panics);
    let Some((cut, changes)) = data.split_first_chunk::<2>() else {
        return;
    };
    for (name, whole) in WHOLE.iter() {
        let mut bytes = whole.clone();
        for change in changes.chunks_exact(3) {
            let at = usize::from(u16::from_le_bytes([change[0], change[1]])) % bytes.len();
            bytes[at] ^= change[2];
        }
        let keep = bytes.len() - usize::from(u16::from_le_bytes(*cut)) % (bytes.len() / 4 + 1);
        bytes.truncate(keep);
        let path: PathBuf = DIR.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        read_to_end(&path);
    }
});
